/* hrace-supp: the runtime's suppression rules (src/report/suppress.c), for the launcher, so
 * that `hrace run`, `hrace merge` and the ranks read one grammar with one implementation.
 *
 *   hrace-supp check FILE     exit 0 when FILE parses; else "FILE:LINE: what" on stderr, exit 2
 *   hrace-supp match FILE     for each race on stdin, one line out: the rule that matches it,
 *                             or an empty line (answered line by line, flushed)
 *
 * A race on stdin is one line of fields separated by the ASCII unit separator (0x1f):
 *   KIND  WINDOW  then, for side a and side b: NFRAMES and NFRAMES times FUNC FILE LINE
 * An empty field is "unknown" (NULL); fields hold no control characters (the launcher
 * replaces them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/suppress.h"

#define SEP "\x1f"

static char *field(char **cursor) {   /* the next field, NUL-terminated in place; "" at the end */
  char *f = *cursor;
  if (!f) return "";
  char *sep = strchr(f, SEP[0]);
  if (sep) {
    *sep = '\0';
    *cursor = sep + 1;
  } else {
    *cursor = NULL;
  }
  return f;
}

static const char *or_null(const char *s) { return s && *s ? s : NULL; }

static void read_side(char **cursor, hrace_report_side_t *s) {
  memset(s, 0, sizeof *s);
  long n = strtol(field(cursor), NULL, 10);
  if (n < 0) n = 0;
  for (long i = 0; i < n; i++) {
    hrace_srcloc_t loc = { .func = or_null(field(cursor)), .file = or_null(field(cursor)) };
    loc.line = (int)strtol(field(cursor), NULL, 10);
    if (i == 0) s->loc = loc;
    if (i < HRACE_REPORT_FRAMES) s->frames[s->nframes++] = (hrace_frame_t){ .loc = loc };
  }
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "check") && strcmp(argv[1], "match"))) {
    fprintf(stderr, "usage: hrace-supp check|match FILE\n");
    return 2;
  }
  char err[1024];
  hrace_supp_t *rules = hrace__supp_load(argv[2], err, sizeof err);
  if (!rules) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  if (!strcmp(argv[1], "check")) {
    hrace__supp_free(rules);
    return 0;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, stdin)) > 0) {
    if (line[len - 1] == '\n') line[len - 1] = '\0';
    char *cursor = line;
    hrace_report_t r = { 0 };
    r.kind = field(&cursor);
    r.window = or_null(field(&cursor));
    read_side(&cursor, &r.a);
    read_side(&cursor, &r.b);
    const char *hit = hrace__supp_match(rules, &r);
    printf("%s\n", hit ? hit : "");
    fflush(stdout);
  }
  free(line);
  hrace__supp_free(rules);
  return 0;
}
