/* The per-rank report stream: races and misuse diagnostics, as text on stderr and as JSON lines
 * in <report_dir>/rank-<R>.jsonl (schema: docs/report-format.md). Every message is built in
 * memory and handed to one write(2), so a crashing rank loses nothing already found and
 * concurrent threads never interleave. Reports are rare: one mutex, no MPI calls. */
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/options.h"

/* ---- a growable string buffer (one per message) ---- */
typedef struct sbuf {
  char *p;
  size_t len, cap;
} sbuf_t;

static void sb_reserve(sbuf_t *b, size_t more) {
  if (b->len + more + 1 <= b->cap) return;
  size_t ncap = b->cap ? b->cap : 512;
  while (ncap < b->len + more + 1) ncap *= 2;
  char *n = realloc(b->p, ncap);
  if (!n) hrace__fatal("out of memory while writing a report");
  b->p = n;
  b->cap = ncap;
}

__attribute__((format(printf, 2, 0))) static void sb_vprintf(sbuf_t *b, const char *fmt,
                                                              va_list ap) {
  sb_reserve(b, 0);
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
  if (n > 0 && b->len + (size_t)n >= b->cap) {   /* did not fit: grow and format again */
    sb_reserve(b, (size_t)n);
    vsnprintf(b->p + b->len, b->cap - b->len, fmt, again);
  }
  va_end(again);
  if (n > 0) b->len += (size_t)n;
  b->p[b->len] = '\0';
}

__attribute__((format(printf, 2, 3))) static void sb_printf(sbuf_t *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(b, fmt, ap);
  va_end(ap);
}

static void sb_putc(sbuf_t *b, char c) {
  sb_reserve(b, 1);
  b->p[b->len++] = c;
  b->p[b->len] = '\0';
}

/* Length of the valid UTF-8 sequence starting at s, 0 if invalid (RFC 3629 ranges). */
static size_t utf8_len(const unsigned char *s) {
  if (s[0] < 0x80) return 1;
  size_t n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
  if (n == 0 || s[0] > 0xF4) return 0;
  for (size_t i = 1; i < n; i++)
    if ((s[i] & 0xC0) != 0x80) return 0;
  if (n == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0))) return 0;
  if (n == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))) return 0;
  return n;
}

/* A JSON string literal, or null. Bytes that are not valid UTF-8 (paths need not be) are
 * written as the Latin-1 code point of the byte, so the line always stays valid JSON. */
static void sb_json_str(sbuf_t *b, const char *str) {
  if (!str) { sb_printf(b, "null"); return; }
  const unsigned char *s = (const unsigned char *)str;
  sb_putc(b, '"');
  while (*s) {
    unsigned char c = *s;
    size_t n = utf8_len(s);
    if (c == '"' || c == '\\') { sb_putc(b, '\\'); sb_putc(b, (char)c); }
    else if (c == '\n') sb_printf(b, "\\n");
    else if (c == '\t') sb_printf(b, "\\t");
    else if (c == '\r') sb_printf(b, "\\r");
    else if (c < 0x20 || c == 0x7F || n == 0) sb_printf(b, "\\u%04x", c);
    else {
      sb_reserve(b, n);
      memcpy(b->p + b->len, s, n);
      b->len += n;
      b->p[b->len] = '\0';
      s += n;
      continue;
    }
    s++;
  }
  sb_putc(b, '"');
}

static void write_all(int fd, const char *p, size_t len) {
  while (len) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    len -= (size_t)w;
  }
}

/* ---- state, all under rep_lock ---- */
typedef struct race_entry {
  const char *kind;      /* dedup key: kind and the unordered pair of (file, line) */
  const char *file1, *file2;
  int line1, line2;
  unsigned id;           /* 1, 2, ... in order of discovery */
  unsigned long count;   /* occurrences, the first included */
  bool shown;            /* printed/written (false once max_reports is exceeded) */
} race_entry_t;

static pthread_mutex_t rep_lock = PTHREAD_MUTEX_INITIALIZER;
static int rep_rank = -1;
static int json_fd = -1;
static bool json_failed;     /* could not open: warned once, text continues */
static bool finished;
static bool limit_noted;
static unsigned n_shown, n_diagnostics;

static race_entry_t *races;  /* indexed by id - 1 */
static size_t races_len, races_cap;
static unsigned *race_index; /* open addressing: id, 0 = empty */
static size_t index_cap;

static pthread_once_t atexit_once = PTHREAD_ONCE_INIT;
static void register_atexit(void) { atexit(hrace__report_finish); }

static const char *nz(const char *s) { return s ? s : "??"; }

static const char *basename_of(const char *path) {
  const char *s = strrchr(nz(path), '/');
  return s ? s + 1 : nz(path);
}

static bool use_colour(void) {
  static int colour = -1;   /* decided once, under rep_lock */
  if (colour < 0) {
    const char *no = getenv("NO_COLOR");
    colour = isatty(STDERR_FILENO) && !(no && *no);
  }
  return colour;
}

/* ---- dedup ---- */
static size_t str_hash(const char *s, size_t h) {
  for (s = nz(s); *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
  return h;
}

/* Normalise so that (a, b) and (b, a) give the same key: the smaller (file, line) first. */
static void race_key(const hrace_report_t *r, race_entry_t *k) {
  const hrace_srcloc_t *x = &r->a.loc, *y = &r->b.loc;
  int c = strcmp(nz(x->file), nz(y->file));
  if (c > 0 || (c == 0 && x->line > y->line)) { const hrace_srcloc_t *t = x; x = y; y = t; }
  *k = (race_entry_t){ .kind = nz(r->kind), .file1 = nz(x->file), .line1 = x->line,
                       .file2 = nz(y->file), .line2 = y->line };
}

static size_t key_hash(const race_entry_t *k) {
  size_t h = str_hash(k->kind, 1469598103934665603u);
  h = str_hash(k->file1, h) * 31 + (size_t)k->line1;
  h = str_hash(k->file2, h) * 31 + (size_t)k->line2;
  return h ^ (h >> 29);
}

static bool key_eq(const race_entry_t *a, const race_entry_t *b) {
  return a->line1 == b->line1 && a->line2 == b->line2 && strcmp(a->kind, b->kind) == 0 &&
         strcmp(a->file1, b->file1) == 0 && strcmp(a->file2, b->file2) == 0;
}

static race_entry_t *race_find(const race_entry_t *k) {
  if (!index_cap) return NULL;
  for (size_t j = key_hash(k) & (index_cap - 1); race_index[j]; j = (j + 1) & (index_cap - 1))
    if (key_eq(&races[race_index[j] - 1], k)) return &races[race_index[j] - 1];
  return NULL;
}

static void index_insert(unsigned id) {
  size_t j = key_hash(&races[id - 1]) & (index_cap - 1);
  while (race_index[j]) j = (j + 1) & (index_cap - 1);
  race_index[j] = id;
}

static char *dup_or_die(const char *s) {
  char *d = strdup(nz(s));
  if (!d) hrace__fatal("out of memory while recording a race");
  return d;
}

/* A new distinct race; its strings are copied (callers' strings need not outlive the call). */
static race_entry_t *race_add(const race_entry_t *k) {
  if (races_len == races_cap) {
    size_t ncap = races_cap ? 2 * races_cap : 64;
    race_entry_t *n = realloc(races, ncap * sizeof *n);
    if (!n) hrace__fatal("out of memory while recording a race");
    races = n;
    races_cap = ncap;
  }
  if (2 * (races_len + 1) > index_cap) {
    size_t ncap = index_cap ? 2 * index_cap : 128;
    unsigned *n = calloc(ncap, sizeof *n);
    if (!n) hrace__fatal("out of memory while recording a race");
    free(race_index);
    race_index = n;
    index_cap = ncap;
    for (unsigned id = 1; id <= races_len; id++) index_insert(id);
  }
  race_entry_t *e = &races[races_len++];
  *e = (race_entry_t){ .kind = dup_or_die(k->kind), .file1 = dup_or_die(k->file1),
                       .line1 = k->line1, .file2 = dup_or_die(k->file2), .line2 = k->line2,
                       .id = (unsigned)races_len, .count = 1 };
  index_insert(e->id);
  return e;
}

/* ---- JSON output ---- */
static void json_open(void) {
  const char *dir = hrace__opt.report_dir;
  if (json_fd >= 0 || json_failed || !dir || !*dir) return;
  char path[4096];
  if (rep_rank >= 0)
    snprintf(path, sizeof path, "%s/rank-%d.jsonl", dir, rep_rank);
  else   /* before MPI_Init (or no MPI at all): no rank yet */
    snprintf(path, sizeof path, "%s/rank-unknown-%ld.jsonl", dir, (long)getpid());
  mkdir(dir, 0777);   /* usually exists already (hrace run makes it); open reports failures */
  json_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (json_fd < 0) {
    json_failed = true;
    hrace__warn("cannot write reports to %s: %s", path, strerror(errno));
  }
}

/* Writes one JSON line (b holds the object without its newline). */
static void json_line(sbuf_t *b) {
  json_open();
  if (json_fd < 0) return;
  sb_putc(b, '\n');
  write_all(json_fd, b->p, b->len);
}

static void json_side(sbuf_t *b, const hrace_report_side_t *s) {
  sb_printf(b, "{\"op\":");
  sb_json_str(b, s->op);
  sb_printf(b, ",\"rank\":%d,\"thread\":%d,\"func\":", s->rank, s->thread);
  sb_json_str(b, s->loc.func);
  sb_printf(b, ",\"file\":");
  sb_json_str(b, s->loc.file);
  sb_printf(b, ",\"line\":%d,\"offset\":%" PRIu64 ",\"size\":%" PRIu64 "}", s->loc.line,
            s->offset, s->size);
}

/* ---- text output ---- */
static void text_side(sbuf_t *b, const hrace_report_side_t *s) {
  sb_printf(b, "==hrace==   %-8s by rank %d thread %d at %s (%s", nz(s->op), s->rank, s->thread,
            nz(s->loc.func), basename_of(s->loc.file));
  if (s->loc.line > 0) sb_printf(b, ":%d", s->loc.line);
  sb_printf(b, ")\n");
}

static void text_race(const hrace_report_t *r) {
  /* The bytes both accesses touch; a's range if they do not overlap (should not happen). */
  uint64_t lo = r->a.offset, hi = r->a.offset + r->a.size;
  uint64_t blo = r->b.offset, bhi = r->b.offset + r->b.size;
  if (blo < hi && lo < bhi) {
    if (blo > lo) lo = blo;
    if (bhi < hi) hi = bhi;
  }
  bool c = use_colour();
  sbuf_t b = { 0 };
  sb_printf(&b, "==hrace== %sWARNING: data race (%s)%s on ", c ? "\033[1;31m" : "", nz(r->kind),
            c ? "\033[0m" : "");
  if (r->window)
    sb_printf(&b, "window \"%s\" of rank %d", r->window, r->owner);
  else
    sb_printf(&b, "memory of rank %d at 0x%" PRIxPTR, r->owner, r->base);
  sb_printf(&b, ", bytes [%" PRIu64 ",%" PRIu64 ")\n", lo, hi);
  text_side(&b, &r->a);
  text_side(&b, &r->b);
  sb_printf(&b, "==hrace==   (neither access is ordered before the other by MPI or OpenMP "
                "synchronisation)\n");
  write_all(STDERR_FILENO, b.p, b.len);
  free(b.p);
}

static void rank_prefix(sbuf_t *b) {
  if (rep_rank >= 0) sb_printf(b, "hrace: rank %d: ", rep_rank);
  else sb_printf(b, "hrace: ");
}

/* ---- entry points ---- */
void hrace__report_init(int rank, int size) {
  (void)size;
  pthread_once(&atexit_once, register_atexit);
  pthread_mutex_lock(&rep_lock);
  if (rank != rep_rank && json_fd >= 0) {
    close(json_fd);   /* opened under the rank-unknown name: later lines go to rank-<R> */
    json_fd = -1;
  }
  rep_rank = rank;
  pthread_mutex_unlock(&rep_lock);
}

void hrace__report_race(const hrace_report_t *r) {
  pthread_once(&atexit_once, register_atexit);
  race_entry_t key;
  race_key(r, &key);
  pthread_mutex_lock(&rep_lock);
  race_entry_t *e = race_find(&key);
  if (e) {
    e->count++;
    pthread_mutex_unlock(&rep_lock);
    return;
  }
  e = race_add(&key);
  long max = hrace__opt.max_reports;
  if (max >= 0 && n_shown >= (unsigned long)max) {
    if (!limit_noted && hrace__opt.report_text) {
      sbuf_t b = { 0 };
      rank_prefix(&b);
      sb_printf(&b, "note: max_reports=%ld reached; further races are counted, not printed\n", max);
      write_all(STDERR_FILENO, b.p, b.len);
      free(b.p);
    }
    limit_noted = true;
    pthread_mutex_unlock(&rep_lock);
    return;
  }
  e->shown = true;
  n_shown++;
  if (hrace__opt.report_text) text_race(r);
  if (hrace__opt.report_dir && *hrace__opt.report_dir) {
    sbuf_t b = { 0 };
    sb_printf(&b, "{\"type\":\"race\",\"id\":%u,\"rank\":%d,\"kind\":", e->id, rep_rank);
    sb_json_str(&b, r->kind);
    sb_printf(&b, ",\"window\":");
    sb_json_str(&b, r->window);
    sb_printf(&b, ",\"owner\":%d,\"base\":\"0x%" PRIxPTR "\",\"a\":", r->owner, r->base);
    json_side(&b, &r->a);
    sb_printf(&b, ",\"b\":");
    json_side(&b, &r->b);
    sb_putc(&b, '}');
    json_line(&b);
    free(b.p);
  }
  pthread_mutex_unlock(&rep_lock);
}

void hrace__report_misuse(uintptr_t ret, const char *fmt, ...) {
  pthread_once(&atexit_once, register_atexit);
  hrace_srcloc_t loc;
  hrace__symbolize(ret, &loc);   /* before taking rep_lock: it has its own */
  sbuf_t msg = { 0 };
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&msg, fmt, ap);
  va_end(ap);

  pthread_mutex_lock(&rep_lock);
  n_diagnostics++;
  if (hrace__opt.report_text) {
    bool c = use_colour();
    sbuf_t b = { 0 };
    rank_prefix(&b);
    sb_printf(&b, "%serror:%s %s", c ? "\033[1;31m" : "", c ? "\033[0m" : "", msg.p);
    if (ret) {
      sb_printf(&b, " at %s (%s", loc.func, basename_of(loc.file));
      if (loc.line > 0) sb_printf(&b, ":%d", loc.line);
      sb_putc(&b, ')');
    }
    sb_putc(&b, '\n');
    write_all(STDERR_FILENO, b.p, b.len);
    free(b.p);
  }
  if (hrace__opt.report_dir && *hrace__opt.report_dir) {
    sbuf_t b = { 0 };
    sb_printf(&b, "{\"type\":\"diagnostic\",\"rank\":%d,\"severity\":\"error\",\"message\":",
              rep_rank);
    sb_json_str(&b, msg.p);
    sb_printf(&b, ",\"func\":");
    sb_json_str(&b, ret ? loc.func : NULL);
    sb_printf(&b, ",\"file\":");
    sb_json_str(&b, ret ? loc.file : NULL);
    sb_printf(&b, ",\"line\":%d}", ret ? loc.line : 0);
    json_line(&b);
    free(b.p);
  }
  pthread_mutex_unlock(&rep_lock);
  free(msg.p);
}

void hrace__report_finish(void) {
  pthread_mutex_lock(&rep_lock);
  if (finished) {
    pthread_mutex_unlock(&rep_lock);
    return;
  }
  finished = true;
  unsigned n_races = (unsigned)races_len;
  if (hrace__opt.report_dir && *hrace__opt.report_dir) {
    sbuf_t b = { 0 };
    for (size_t i = 0; i < races_len; i++) {
      if (!races[i].shown || races[i].count < 2) continue;
      b.len = 0;
      sb_printf(&b, "{\"type\":\"race-count\",\"id\":%u,\"rank\":%d,\"count\":%lu}", races[i].id,
                rep_rank, races[i].count);
      json_line(&b);
    }
    b.len = 0;
    sb_printf(&b, "{\"type\":\"summary\",\"rank\":%d,\"races\":%u,\"diagnostics\":%u,"
                  "\"unreported\":%u}", rep_rank, n_races, n_diagnostics, n_races - n_shown);
    json_line(&b);
    free(b.p);
  }
  if (json_fd >= 0) {
    close(json_fd);   /* a late report (exit-time thread) reopens it in append mode */
    json_fd = -1;
  }
  if (hrace__opt.report_text && n_races > 0) {
    sbuf_t b = { 0 };
    rank_prefix(&b);
    sb_printf(&b, "%u distinct race(s) reported", n_races);
    if (n_races > n_shown) sb_printf(&b, " (%u not printed: max_reports)", n_races - n_shown);
    sb_putc(&b, '\n');
    write_all(STDERR_FILENO, b.p, b.len);
    free(b.p);
  }
  pthread_mutex_unlock(&rep_lock);
}

unsigned hrace__report_count(void) {
  pthread_mutex_lock(&rep_lock);
  unsigned n = (unsigned)races_len;
  pthread_mutex_unlock(&rep_lock);
  return n;
}
