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

/* ---- the item syntax ----------------------------------------------------------------
 * Items are separated by white space or commas. Inside an item, a value (or any part of it)
 * may be quoted: "..." keeps separators and single quotes, with \" and \\ for a double quote
 * and a backslash; '...' keeps everything up to the next single quote. The quotes themselves
 * are not part of the value: suppressions="/a b/c,d.supp" names the file `/a b/c,d.supp`.
 * An item starting with '#' is a comment to the end of its line (for include files).
 * `include=FILE` reads more items from FILE, with the same syntax (one per line is fine); a
 * relative FILE in an included file is relative to that file's directory. */

#define INCLUDE_DEPTH 16   /* nested include files at most (a cycle is caught before) */

typedef struct parse_ctx {
  hrace_options_t *o;
  char *err;
  size_t errlen;
  const char *files[INCLUDE_DEPTH];   /* the chain of include files being read (real paths) */
  unsigned depth;
} parse_ctx_t;

static bool parse_spec(parse_ctx_t *c, const char *spec, const char *where);

/* "FILE:LINE: " in front of messages about items read from an include file. */
static void where_prefix(char *buf, size_t n, const char *where, const char *spec,
                         const char *at) {
  if (!where) {
    buf[0] = '\0';
    return;
  }
  unsigned line = 1;
  for (const char *q = spec; q < at; q++) line += *q == '\n';
  snprintf(buf, n, "%s:%u: ", where, line);
}

/* The name of item `item` (up to '=' or its end) for messages, at most 64 bytes. */
static void item_name(char *buf, size_t n, const char *item) {
  size_t k = strcspn(item, "=");
  if (k > 64) k = 64;
  snprintf(buf, n, "%.*s", (int)k, item);
}

/* Cut the next item out of *pp into a fresh string with its quotes removed (NULL: no more
 * items, or an error in c->err); *at: where it starts in spec. */
static char *next_item(parse_ctx_t *c, const char **pp, const char *spec, const char *where,
                       const char **at, bool *failed) {
  const char *p = *pp;
  *failed = false;
  for (;;) {
    while (is_sep(*p)) p++;
    if (*p != '#') break;
    while (*p && *p != '\n') p++;   /* a comment */
  }
  *at = p;
  if (*p == '\0') {
    *pp = p;
    return NULL;
  }
  char *item = malloc(strlen(p) + 1), *o = item;
  if (!item) {
    snprintf(c->err, c->errlen, "out of memory");
    *failed = true;
    return NULL;
  }
  while (*p && !is_sep(*p)) {
    char q = *p;
    if (q != '"' && q != '\'') {
      *o++ = *p++;
      continue;
    }
    const char *open = p++;
    while (*p && *p != q) {
      if (q == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\')) p++;
      *o++ = *p++;
    }
    if (*p != q) {
      char pre[600], name[80];
      *o = '\0';
      where_prefix(pre, sizeof pre, where, spec, open);
      item_name(name, sizeof name, item);
      snprintf(c->err, c->errlen, "%soption '%s': unterminated %s quote in its value", pre,
               name, q == '"' ? "double" : "single");
      free(item);
      *failed = true;
      return NULL;
    }
    p++;
  }
  *o = '\0';
  *pp = p;
  return item;
}

/* The directory part of path (with its '/'), or "" for a bare name. */
static size_t dir_len(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? (size_t)(s - path) + 1 : 0;
}

/* include=FILE: read the file and parse its items (relative names are relative to the file
 * that names them, or to the current directory at the top level). */
static bool parse_include(parse_ctx_t *c, const char *file, const char *where) {
  if (*file == '\0') {
    snprintf(c->err, c->errlen, "option 'include' wants a file name");
    return false;
  }
  char path[4096];
  if (file[0] != '/' && where)
    snprintf(path, sizeof path, "%.*s%s", (int)dir_len(where), where, file);
  else
    snprintf(path, sizeof path, "%s", file);
  char *real = realpath(path, NULL);
  FILE *f = real ? fopen(real, "r") : NULL;
  if (!f) {
    snprintf(c->err, c->errlen, "option 'include': cannot read '%s': %s", path, strerror(errno));
    free(real);
    return false;
  }
  for (unsigned i = 0; i < c->depth; i++)
    if (strcmp(c->files[i], real) == 0) {
      snprintf(c->err, c->errlen, "option 'include': '%s' is included again while it is "
               "being read (an include cycle)", path);
      fclose(f);
      free(real);
      return false;
    }
  if (c->depth == INCLUDE_DEPTH) {
    snprintf(c->err, c->errlen, "option 'include': more than %d nested include files at '%s'",
             INCLUDE_DEPTH, path);
    fclose(f);
    free(real);
    return false;
  }
  size_t cap = 4096, len = 0;
  char *text = malloc(cap);
  size_t got;
  while (text && (got = fread(text + len, 1, cap - len - 1, f)) > 0) {
    len += got;
    if (len + 1 == cap) {
      char *bigger = cap < (1u << 24) ? realloc(text, cap *= 2) : NULL;
      if (!bigger) free(text);
      text = bigger;
    }
  }
  bool bad_read = ferror(f);
  fclose(f);
  if (!text || bad_read) {
    snprintf(c->err, c->errlen, "option 'include': cannot read '%s'%s", path,
             text ? "" : " (out of memory, or larger than 16 MiB)");
    free(text);
    free(real);
    return false;
  }
  text[len] = '\0';
  c->files[c->depth++] = real;
  bool good = parse_spec(c, text, real);
  c->depth--;
  free(text);
  free(real);
  return good;
}

/* Parse the items of spec into c->o; `where` names the include file it came from (NULL: the
 * environment). */
static bool parse_spec(parse_ctx_t *c, const char *spec, const char *where) {
  const char *p = spec ? spec : "";
  for (;;) {
    const char *at;
    bool failed;
    char *item = next_item(c, &p, spec, where, &at, &failed);
    if (!item) return !failed;
    bool good;
    if (strncmp(item, "include=", 8) == 0) {
      good = parse_include(c, item + 8, where);
    } else {
      good = parse_item(item, c->o, c->err, c->errlen);
      if (!good && where) {   /* say where the item was */
        char pre[600], msg[512];
        where_prefix(pre, sizeof pre, where, spec, at);
        snprintf(msg, sizeof msg, "%s", c->err);
        snprintf(c->err, c->errlen, "%s%s", pre, msg);
      }
    }
    free(item);
    if (!good) return false;
  }
}

/* Parses into a scratch copy, so `out` is left as it was when an item is rejected. */
bool hrace__options_parse(const char *spec, hrace_options_t *out, char *err, size_t errlen) {
  hrace_options_t o = defaults;
  if (errlen) err[0] = '\0';
  parse_ctx_t c = { .o = &o, .err = err, .errlen = errlen };
  if (!parse_spec(&c, spec, NULL)) return false;
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
  if (strcmp(o.wire, "epoch") && strcmp(o.wire, "dense") && strcmp(o.wire, "always")) {
    snprintf(err, errlen, "option 'wire' wants epoch, dense or always, got '%s'", o.wire);
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
               "(separated by spaces or commas; quote a value that holds them: "
               "name=\"a b,c\" or name='a b,c';\n  include=FILE reads more options from FILE, "
               "one per line or the same syntax, '#' starts a comment)\n");
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
