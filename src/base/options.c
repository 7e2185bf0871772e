/* HRACE_OPTIONS: defaults, parser and help text, all generated from the one X-macro list in
 * include/hrace_options.inc (after TSan's tsan_flags.inc). Malformed input is rejected with a
 * message that names the offending item; nothing is silently ignored. */
#include "base/options.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define HRACE_OPTION(type, name, def, doc) .name = def,
static const hrace_options_t defaults = {
#include "hrace_options.inc"
};
/* Usable before hrace__options_init runs (e.g. from a constructor that fires first). */
hrace_options_t hrace__opt = {
#include "hrace_options.inc"
};
#undef HRACE_OPTION

enum opt_type { OPT_bool, OPT_int, OPT_str };

typedef struct opt_desc {
  const char *name;
  enum opt_type type;
  size_t offset;
  const char *def;   /* the default as written in the list */
  const char *doc;
} opt_desc_t;

#define HRACE_OPTION(type, name, def, doc) \
  { #name, OPT_##type, offsetof(hrace_options_t, name), #def, doc },
static const opt_desc_t descs[] = {
#include "hrace_options.inc"
};
#undef HRACE_OPTION
#define NDESCS (sizeof descs / sizeof descs[0])

static const char *const type_names[] = { "bool", "int", "str" };

static bool is_sep(char c) {
  return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool parse_bool(const char *v, bool *out) {
  static const char *const yes[] = { "1", "true", "yes" }, *const no[] = { "0", "false", "no" };
  for (size_t i = 0; i < 3; i++) {
    if (strcasecmp(v, yes[i]) == 0) { *out = true; return true; }
    if (strcasecmp(v, no[i]) == 0) { *out = false; return true; }
  }
  return false;
}

static bool parse_long(const char *v, long *out, bool *overflow) {
  char *end;
  *overflow = false;
  if (*v == '\0') return false;
  errno = 0;
  long x = strtol(v, &end, 10);
  if (*end != '\0') return false;
  if (errno == ERANGE) { *overflow = true; return false; }
  *out = x;
  return true;
}

/* String values live as long as the process (options.h). They are chained from a global so
 * that leak checkers see them as reachable. */
typedef struct kept_string {
  struct kept_string *next;
  char s[];
} kept_string_t;
static kept_string_t *kept;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *keep_string(const char *val) {
  size_t n = strlen(val) + 1;
  kept_string_t *k = malloc(sizeof *k + n);
  if (!k) return NULL;
  memcpy(k->s, val, n);
  pthread_mutex_lock(&kept_lock);
  k->next = kept;
  kept = k;
  pthread_mutex_unlock(&kept_lock);
  return k->s;
}

/* Apply one "name=value" item (NUL-terminated copy) to *o. */
static bool parse_item(char *item, hrace_options_t *o, char *err, size_t errlen) {
  char *eq = strchr(item, '=');
  if (!eq) {
    snprintf(err, errlen, "expected name=value, got '%s'", item);
    return false;
  }
  *eq = '\0';
  const char *name = item, *val = eq + 1;
  if (*name == '\0') {
    snprintf(err, errlen, "missing option name in '=%s'", val);
    return false;
  }
  const opt_desc_t *d = NULL;
  for (size_t i = 0; i < NDESCS; i++)
    if (strcmp(descs[i].name, name) == 0) { d = &descs[i]; break; }
  if (!d) {
    snprintf(err, errlen, "unknown option '%s' (help=1 lists them)", name);
    return false;
  }
  char *field = (char *)o + d->offset;
  switch (d->type) {
  case OPT_bool:
    if (!parse_bool(val, (bool *)field)) {
      snprintf(err, errlen, "option '%s' wants a boolean (0/1/true/false/yes/no), got '%s'",
               name, val);
      return false;
    }
    return true;
  case OPT_int: {
    bool overflow;
    if (!parse_long(val, (long *)field, &overflow)) {
      snprintf(err, errlen, overflow ? "option '%s': integer out of range, got '%s'"
                                     : "option '%s' wants an integer, got '%s'", name, val);
      return false;
    }
    return true;
  }
  case OPT_str: {
    const char *copy = keep_string(val);
    if (!copy) {
      snprintf(err, errlen, "out of memory for option '%s'", name);
      return false;
    }
    *(const char **)field = copy;
    return true;
  }
  }
  return false;
}

/* Parses into a scratch copy, so `out` is left as it was when an item is rejected. */
bool hrace__options_parse(const char *spec, hrace_options_t *out, char *err, size_t errlen) {
  hrace_options_t o = defaults;
  if (errlen) err[0] = '\0';
  const char *p = spec ? spec : "";
  for (;;) {
    while (is_sep(*p)) p++;
    if (*p == '\0') break;
    const char *start = p;
    while (*p && !is_sep(*p)) p++;
    char *item = strndup(start, (size_t)(p - start));
    if (!item) {
      snprintf(err, errlen, "out of memory");
      return false;
    }
    bool good = parse_item(item, &o, err, errlen);
    free(item);
    if (!good) return false;
  }
  /* Counts with a lower bound. */
  const struct { const char *name; long v, min; } counts[] = {
    { "exporters", o.exporters, 0 }, { "clock_budget", o.clock_budget, 0 },
    { "wire_slots", o.wire_slots, -1 },   /* -1: testing, see hrace_options.inc */
  };
  for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
    if (counts[i].v < counts[i].min) {
      snprintf(err, errlen, "option '%s' wants %ld or more, got %ld", counts[i].name,
               counts[i].min, counts[i].v);
      return false;
    }
  /* Strings with a fixed set of values. */
  if (strcmp(o.transport, "auto") && strcmp(o.transport, "tcp")) {
    snprintf(err, errlen, "option 'transport' wants auto or tcp, got '%s'", o.transport);
    return false;
  }
  if (strcmp(o.mode, "full") && strcmp(o.mode, "window")) {
    snprintf(err, errlen, "option 'mode' wants full or window, got '%s'", o.mode);
    return false;
  }
  if (strspn(o.report_id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
      strlen(o.report_id)) {
    snprintf(err, errlen, "option 'report_id' wants letters, digits, '_' and '-', got '%s'",
             o.report_id);
    return false;
  }
  *out = o;
  return true;
}

void hrace__options_help(void *f) {
  FILE *out = f;
  fprintf(out, "hrace options: HRACE_OPTIONS=\"name=value name=value ...\" "
               "(separated by spaces or commas)\n");
  for (size_t i = 0; i < NDESCS; i++)
    fprintf(out, "  %-12s %-4s  default %-5s  %s\n", descs[i].name, type_names[descs[i].type],
            descs[i].def, descs[i].doc);
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* The user's HRACE_OPTIONS, then HRACE_RUN_OPTIONS: what `hrace run` needs every rank to
 * have (report_dir, report_id, report_text=0, exitcode=0) travels in a variable of its own,
 * so that a user's own `mpirun -x HRACE_OPTIONS=...` cannot drop it and lose the reports. */
static void options_init_once(void) {
  char err[512];
  const char *user = getenv("HRACE_OPTIONS"), *run = getenv("HRACE_RUN_OPTIONS");
  size_t n_user = user ? strlen(user) : 0, n_run = run ? strlen(run) : 0;
  char *spec = malloc(n_user + n_run + 2);
  if (spec) snprintf(spec, n_user + n_run + 2, "%s %s", user ? user : "", run ? run : "");
  bool good = hrace__options_parse(spec ? spec : user, &hrace__opt, err, sizeof err);
  free(spec);
  if (!good) {
    char msg[640];
    int n = snprintf(msg, sizeof msg, "hrace: error: HRACE_OPTIONS: %s\n", err);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof msg) n = sizeof msg - 1;
    ssize_t w = write(STDERR_FILENO, msg, (size_t)n);
    (void)w;
    /* _exit: the application has not started; its atexit handlers must not run. */
    _exit(2);
  }
  if (hrace__opt.help) {
    hrace__options_help(stderr);
    fflush(stderr);
    exit(0);
  }
}

void hrace__options_init(void) { pthread_once(&init_once, options_init_once); }
