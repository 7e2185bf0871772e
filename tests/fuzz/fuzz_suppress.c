/* libFuzzer target: the suppressions grammar (src/report/suppress.c) through its public entry
 * points: hrace__supp_parse, hrace__supp_match, hrace__supp_each, hrace__supp_free. The input,
 * up to its first NUL, is a suppressions file; what follows that NUL (if anything) names the
 * function, file and window of a race to match the rules against (split at further NULs).
 * Properties checked on every input:
 *  - no crash, no sanitizer finding, no leak (LeakSanitizer runs at exit);
 *  - a rejected file gives "fuzz.supp:LINE: ..." with LINE between 1 and the file's line count;
 *  - an accepted file has at most one rule per line, and every rule, as reported by
 *    hrace__supp_each, is a line of the file (trimmed) with a 'KIND:' prefix;
 *  - matching never fails on any race, and a rule that matched has its hit counted;
 *  - a file of the single rule "function:NAME" (NAME free of glob characters) matches a race
 *    in function NAME. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/suppress.h"

static void fail(const char *what, const char *text, const char *detail) {
  fprintf(stderr, "fuzz_suppress: %s\n  file: '%s'\n  detail: '%s'\n", what, text, detail ? detail : "");
  abort();
}

typedef struct each_ctx {
  const char *text;
  size_t rules;
  unsigned long hits;
} each_ctx_t;

static void each_rule(void *p, const char *rule, unsigned long hits) {
  each_ctx_t *c = p;
  c->rules++;
  c->hits += hits;
  if (!rule || !strchr(rule, ':')) fail("a rule without KIND:", c->text, rule);
  if (!strstr(c->text, rule)) fail("a rule that is not in the file", c->text, rule);
}

static hrace_report_t race_of(const char *func, const char *file, const char *window) {
  hrace_report_t r = {
    .kind = "remote", .window = window, .owner = 1,
    .a = { .op = "load", .rank = 1, .loc = { .func = func, .file = file, .line = 12 } },
    .b = { .op = "MPI_Put", .rank = 0, .loc = { .func = "main", .file = "/src/a.c", .line = 30 } },
  };
  r.b.frames[0] = (hrace_frame_t){ .loc = r.b.loc };
  r.b.frames[1] = (hrace_frame_t){ .loc = { .func = func, .file = file, .line = 5 }, .inlined = true };
  r.b.nframes = 2;
  return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *copy = malloc(size + 2);
  if (!copy) abort();
  memcpy(copy, data, size);
  copy[size] = copy[size + 1] = '\0';
  const char *text = copy;
  size_t tlen = strlen(text);
  /* Fields after the file: function, file, window (NULL when absent). */
  const char *fld[3] = { NULL, NULL, NULL };
  char *p = copy + tlen + 1;
  for (int i = 0; i < 3 && p <= copy + size; i++, p += strlen(p) + 1) fld[i] = p;

  size_t lines = 1;
  for (const char *q = text; *q; q++) lines += *q == '\n';

  char err[600];
  err[0] = '\0';
  hrace_supp_t *s = hrace__supp_parse(text, "fuzz.supp", err, sizeof err);
  if (!s) {
    long line = 0;
    if (strncmp(err, "fuzz.supp:", 10) || sscanf(err + 10, "%ld:", &line) != 1 || line < 1 ||
        (size_t)line > lines)
      fail("rejected without 'fuzz.supp:LINE: ' naming a line of the file", text, err);
  } else {
    each_ctx_t c = { text, 0, 0 };
    hrace__supp_each(s, each_rule, &c);
    if (c.rules > lines) fail("more rules than lines", text, NULL);
    hrace_report_t races[] = {
      race_of(fld[0], fld[1], fld[2]),
      race_of("main", "/src/dir/x.c", "win0"),
      race_of(NULL, NULL, NULL),
    };
    unsigned matched = 0;
    for (size_t i = 0; i < sizeof races / sizeof *races; i++) {
      const char *rule = hrace__supp_match(s, &races[i]);
      if (rule) {
        matched++;
        if (!strstr(text, rule)) fail("matched by a rule that is not in the file", text, rule);
      }
    }
    c = (each_ctx_t){ text, 0, 0 };
    hrace__supp_each(s, each_rule, &c);
    if (c.hits != matched) fail("hit counts do not add up to the matches", text, NULL);
    hrace__supp_free(s);
  }

  /* function:NAME against a race in NAME, for a NAME the grammar takes literally. */
  if (fld[0] && *fld[0] && !strpbrk(fld[0], "*?[\\#\n\r\t\v\f :") && fld[0][0] != ' ') {
    size_t n = strlen(fld[0]);
    char *rule = malloc(n + 16);
    if (!rule) abort();
    snprintf(rule, n + 16, "function:%s\n", fld[0]);
    s = hrace__supp_parse(rule, "fuzz.supp", err, sizeof err);
    if (!s) fail("a plain function: rule was rejected", rule, err);
    hrace_report_t r = race_of(fld[0], "/src/x.c", "w");
    if (!hrace__supp_match(s, &r)) fail("function:NAME does not match a race in NAME", rule, NULL);
    hrace__supp_free(s);
    free(rule);
  }
  free(copy);
  return 0;
}
