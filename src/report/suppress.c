/* Suppression rules: parsing and matching (see suppress.h). Matching runs once per distinct
 * race (the report writer remembers the verdict), so a linear scan over the rules is enough. */
#include "report/suppress.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* function:, file:, window: are hrace's; race:, race_top:, called_from_lib: are
 * ThreadSanitizer's (its suppressions files work unchanged): race: a function or file of any
 * frame of either access, race_top: of the innermost frame only, called_from_lib: a frame
 * whose file (for code without debug information, the library itself) has that name. */
enum supp_kind { SUPP_FUNCTION, SUPP_FILE, SUPP_WINDOW, SUPP_RACE, SUPP_RACE_TOP, SUPP_LIB };

static const struct { const char *name; enum supp_kind kind; } kinds[] = {
  { "function", SUPP_FUNCTION }, { "file", SUPP_FILE }, { "window", SUPP_WINDOW },
  { "race", SUPP_RACE }, { "race_top", SUPP_RACE_TOP }, { "called_from_lib", SUPP_LIB },
};

typedef struct supp_rule {
  enum supp_kind kind;
  char *pattern;
  int line;              /* file:GLOB:LINE; 0: any line */
  char *text;            /* the rule as written (trimmed), for notes */
  unsigned long hits;
} supp_rule_t;

struct hrace_supp {
  supp_rule_t *rules;
  size_t n, cap;
};

void hrace__supp_free(hrace_supp_t *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n; i++) {
    free(s->rules[i].pattern);
    free(s->rules[i].text);
  }
  free(s->rules);
  free(s);
}

/* Parse one trimmed, non-empty, non-comment line into r; on error a message in err. */
static int parse_rule(const char *t, supp_rule_t *r, char *err, size_t errlen) {
  const char *colon = strchr(t, ':');
  if (!colon) {
    snprintf(err, errlen, "expected KIND:PATTERN (KIND is function, file or window), got '%s'", t);
    return -1;
  }
  size_t klen = (size_t)(colon - t), k = 0;
  while (k < sizeof kinds / sizeof *kinds &&
         (strlen(kinds[k].name) != klen || strncmp(t, kinds[k].name, klen)))
    k++;
  if (k == sizeof kinds / sizeof *kinds) {
    snprintf(err, errlen, "unknown suppression kind '%.*s' (want function, file or window; "
             "ThreadSanitizer's race, race_top and called_from_lib)", (int)klen, t);
    return -1;
  }
  r->kind = kinds[k].kind;
  const char *pat = colon + 1;
  size_t plen = strlen(pat);
  r->line = 0;
  if (r->kind == SUPP_FILE) {
    /* file:GLOB:LINE: the part after the last ':' is a line number when it starts with a digit
     * (or is empty: a line number was meant and forgotten). */
    const char *last = strrchr(pat, ':');
    if (last && (last[1] == '\0' || isdigit((unsigned char)last[1]))) {
      char *end;
      errno = 0;
      long line = strtol(last + 1, &end, 10);
      if (last[1] == '\0' || *end != '\0' || errno || line <= 0 || line > 100000000) {
        snprintf(err, errlen, "bad line number '%s' in '%s' (want file:PATTERN:LINE, LINE > 0)",
                 last + 1, t);
        return -1;
      }
      r->line = (int)line;
      plen = (size_t)(last - pat);
    }
  }
  if (plen == 0) {
    snprintf(err, errlen, "empty pattern in '%s'", t);
    return -1;
  }
  r->pattern = strndup(pat, plen);
  r->text = strdup(t);
  r->hits = 0;
  if (!r->pattern || !r->text) {
    free(r->pattern);
    free(r->text);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  return 0;
}

hrace_supp_t *hrace__supp_parse(const char *text, const char *name, char *err, size_t errlen) {
  hrace_supp_t *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, errlen, "%s: out of memory", name);
    return NULL;
  }
  int number = 0;
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    number++;
    while (len && isspace((unsigned char)*p)) p++, len--;
    for (size_t i = 1; i < len; i++)   /* a trailing comment: white space, then '#' */
      if (p[i] == '#' && isspace((unsigned char)p[i - 1])) len = i;
    while (len && isspace((unsigned char)p[len - 1])) len--;
    if (len && *p != '#') {
      char *line = strndup(p, len);
      supp_rule_t r;
      char why[512];
      if (!line || parse_rule(line, &r, why, sizeof why)) {
        snprintf(err, errlen, "%s:%d: %s", name, number, line ? why : "out of memory");
        free(line);
        hrace__supp_free(s);
        return NULL;
      }
      free(line);
      if (s->n == s->cap) {
        size_t ncap = s->cap ? 2 * s->cap : 8;
        supp_rule_t *n = realloc(s->rules, ncap * sizeof *n);
        if (!n) {
          snprintf(err, errlen, "%s: out of memory", name);
          hrace__supp_free(s);
          return NULL;
        }
        s->rules = n;
        s->cap = ncap;
      }
      s->rules[s->n++] = r;
    }
    if (!nl) break;
    p = nl + 1;
  }
  return s;
}

hrace_supp_t *hrace__supp_load(const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "cannot read suppressions file %s: %s", path, strerror(errno));
    return NULL;
  }
  char *text = NULL;
  size_t len = 0, cap = 0;
  char buf[4096];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
    if (len + got + 1 > cap) {
      cap = 2 * (len + got + 1);
      char *n = realloc(text, cap);
      if (!n) {
        free(text);
        fclose(f);
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
      }
      text = n;
    }
    memcpy(text + len, buf, got);
    len += got;
  }
  fclose(f);
  if (memchr(text ? text : "", '\0', len)) {
    free(text);
    snprintf(err, errlen, "%s: not a text file (contains a NUL byte)", path);
    return NULL;
  }
  if (text) text[len] = '\0';
  hrace_supp_t *s = hrace__supp_parse(text ? text : "", path, err, errlen);
  free(text);
  return s;
}

static const char *base_of(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static int file_matches(const supp_rule_t *r, const hrace_srcloc_t *loc) {
  if (!loc->file) return 0;
  const char *subject = strchr(r->pattern, '/') ? loc->file : base_of(loc->file);
  return fnmatch(r->pattern, subject, 0) == 0 && (r->line == 0 || r->line == loc->line);
}

static int glob(const char *pattern, const char *s) { return s && fnmatch(pattern, s, 0) == 0; }

/* race: / race_top: / called_from_lib: over the frames [0, n) of a side. */
static int frames_match(const supp_rule_t *r, const hrace_report_side_t *s, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    const hrace_srcloc_t *l = s->nframes ? &s->frames[i].loc : &s->loc;
    if (r->kind == SUPP_LIB) {
      if (l->file && (glob(r->pattern, base_of(l->file)) || strstr(l->file, r->pattern))) return 1;
    } else if (glob(r->pattern, l->func) ||
               (l->file && (glob(r->pattern, base_of(l->file)) || glob(r->pattern, l->file)))) {
      return 1;
    }
  }
  return 0;
}

static int side_matches(const supp_rule_t *r, const hrace_report_side_t *s) {
  unsigned all = s->nframes ? s->nframes : 1;
  switch (r->kind) {
  case SUPP_RACE:
  case SUPP_LIB:
    return frames_match(r, s, all);
  case SUPP_RACE_TOP:
    return frames_match(r, s, 1);
  case SUPP_FUNCTION:
    if (s->nframes == 0) return s->loc.func && fnmatch(r->pattern, s->loc.func, 0) == 0;
    for (unsigned i = 0; i < s->nframes; i++)
      if (s->frames[i].loc.func && fnmatch(r->pattern, s->frames[i].loc.func, 0) == 0) return 1;
    return 0;
  case SUPP_FILE:
    return file_matches(r, s->nframes ? &s->frames[0].loc : &s->loc);
  case SUPP_WINDOW:
    return 0;
  }
  return 0;
}

const char *hrace__supp_match(hrace_supp_t *s, const hrace_report_t *rep) {
  if (!s) return NULL;
  for (size_t i = 0; i < s->n; i++) {
    supp_rule_t *r = &s->rules[i];
    int hit = r->kind == SUPP_WINDOW
                  ? rep->window && fnmatch(r->pattern, rep->window, 0) == 0
                  : side_matches(r, &rep->a) || side_matches(r, &rep->b);
    if (hit) {
      r->hits++;
      return r->text;
    }
  }
  return NULL;
}

void hrace__supp_each(const hrace_supp_t *s, void (*f)(void *ctx, const char *rule, unsigned long hits),
                      void *ctx) {
  for (size_t i = 0; s && i < s->n; i++) f(ctx, s->rules[i].text, s->rules[i].hits);
}
