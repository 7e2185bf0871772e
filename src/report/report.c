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
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <signal.h>

#include "base/log.h"
#include "base/map.h"
#include "base/options.h"
#include "report/suppress.h"

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

/* 0, or the errno of the write that failed (async-signal-safe: the fatal-signal path uses it). */
static int write_all(int fd, const char *p, size_t len) {
  while (len) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return w < 0 ? errno : EIO;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

/* ---- state, all under rep_lock ---- */
typedef struct race_entry {
  const char *kind;      /* dedup key: kind and the unordered pair of (file, line) */
  const char *file1, *file2;
  int line1, line2;
  unsigned id;           /* 1, 2, ... in order of discovery */
  unsigned long count;   /* occurrences, the first included */
  bool shown;            /* printed/written (false once max_reports is exceeded) */
  bool suppressed;       /* matched a suppression: counted, never shown */
} race_entry_t;

static pthread_mutex_t rep_lock = PTHREAD_MUTEX_INITIALIZER;
static int rep_rank = -1;
static int json_fd = -1;
static bool json_failed;     /* could not open: warned once, text continues */
static bool json_lost;       /* a write or the close failed: warned once (disk full, ...) */
static bool finished;
static bool limit_noted;
static unsigned n_shown, n_diagnostics, n_suppressed;
static hrace_supp_t *supps;  /* the `suppressions` file's rules, loaded once */
static bool supps_loaded;

static race_entry_t *races;  /* indexed by id - 1 */
static size_t races_len, races_cap;
static hrace_map_t race_index = HRACE_MAP_INIT;   /* key_hash -> id (as a pointer) */

/* Who this process is (the "rank" record) and what it checked (the summary). */
static hrace_rank_info_t me = { .rank = -1 };
static char me_host[256];
static bool header_written;  /* the "rank" record is in the file this process has open */
static unsigned (*instrumented)(void);
static const char *(*mode_of)(void);
static void (*stats_of)(char *buf, size_t cap);

static void at_exit(void);
static void halt(void);
static pthread_once_t atexit_once = PTHREAD_ONCE_INIT;
static void register_atexit(void) { atexit(at_exit); }

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
/* Normalise so that (a, b) and (b, a) give the same key: the smaller (file, line) first. */
static void race_key(const hrace_report_t *r, race_entry_t *k) {
  const hrace_srcloc_t *x = &r->a.loc, *y = &r->b.loc;
  int c = strcmp(nz(x->file), nz(y->file));
  if (c > 0 || (c == 0 && x->line > y->line)) { const hrace_srcloc_t *t = x; x = y; y = t; }
  *k = (race_entry_t){ .kind = nz(r->kind), .file1 = nz(x->file), .line1 = x->line,
                       .file2 = nz(y->file), .line2 = y->line };
}

static uint64_t key_hash(const race_entry_t *k) {
  uint64_t h = hrace_hash_str(k->kind, HRACE_HASH_SEED);
  h = hrace_hash_combine(hrace_hash_str(k->file1, h), (uint64_t)k->line1);
  return hrace_hash_combine(hrace_hash_str(k->file2, h), (uint64_t)k->line2);
}

static bool key_eq(const race_entry_t *a, const race_entry_t *b) {
  return a->line1 == b->line1 && a->line2 == b->line2 && strcmp(a->kind, b->kind) == 0 &&
         strcmp(a->file1, b->file1) == 0 && strcmp(a->file2, b->file2) == 0;
}

static bool id_is(const void *id, const void *k) {
  return key_eq(&races[(uintptr_t)id - 1], k);
}

static race_entry_t *race_find(const race_entry_t *k) {
  uintptr_t id = (uintptr_t)hrace_map_find(&race_index, key_hash(k), id_is, k);
  return id ? &races[id - 1] : NULL;
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
  race_entry_t *e = &races[races_len++];
  *e = (race_entry_t){ .kind = dup_or_die(k->kind), .file1 = dup_or_die(k->file1),
                       .line1 = k->line1, .file2 = dup_or_die(k->file2), .line2 = k->line2,
                       .id = (unsigned)races_len, .count = 1 };
  hrace_map_add(&race_index, key_hash(e), (void *)(uintptr_t)e->id);
  return e;
}

/* ---- JSON output ---- */
static void header_record(void);

/* <report_dir>/rank-<R>[.<report_id>].jsonl; before MPI_Init (or without MPI) the rank is
 * not known yet: rank-unknown-<pid>[.<id>].jsonl. */
static void report_path(char *path, size_t size, int rank) {
  const char *id = hrace__opt.report_id, *dot = id && *id ? "." : "";
  if (rank >= 0)
    snprintf(path, size, "%s/rank-%d%s%s.jsonl", hrace__opt.report_dir, rank, dot, id ? id : "");
  else
    snprintf(path, size, "%s/rank-unknown-%ld%s%s.jsonl", hrace__opt.report_dir,
             (long)getpid(), dot, id ? id : "");
}

static void json_open(void) {
  const char *dir = hrace__opt.report_dir;
  if (json_fd >= 0 || json_failed || !dir || !*dir) return;
  char path[4096];
  report_path(path, sizeof path, rep_rank);
  mkdir(dir, 0777);   /* usually exists already (hrace run makes it); open reports failures */
  json_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (json_fd < 0) {
    json_failed = true;
    hrace__warn("cannot write reports to %s: %s", path, strerror(errno));
    return;
  }
  if (!header_written) header_record();
}

/* A report line that does not reach the file must not go unnoticed: the rank says so once
 * (disk full, a vanished or read-only directory), and the file then lacks its summary, so
 * `hrace run` counts the rank as not checked in full. */
static void json_write(const char *p, size_t len) {
  int e = write_all(json_fd, p, len);
  if (e && !json_lost) {
    json_lost = true;
    hrace__warn("cannot write the report file in %s: %s: races found from now on may be "
                "missing from it", hrace__opt.report_dir, strerror(e));
  }
}

/* The first line of every file: who wrote it. The launcher names missing ranks (0..size-1
 * without a file), duplicated ones (one rank in two processes: two jobs in one directory) and
 * ranks of other hosts from these records. */
static void header_record(void) {
  if (!me_host[0]) gethostname(me_host, sizeof me_host - 1);
  sbuf_t b = { 0 };
  sb_printf(&b, "{\"type\":\"rank\",\"rank\":%d,\"size\":%d,\"hosts\":%d,\"host\":", me.rank,
            me.size, me.hosts);
  sb_json_str(&b, me_host);
#ifdef HRACE_GIT_HASH /* the commit libhrace was built from (CMakeLists.txt, libhrace.build) */
  sb_printf(&b, ",\"pid\":%ld,\"hrace_git\":\"%s\",\"mpi\":", (long)getpid(), HRACE_GIT_HASH);
#else
  sb_printf(&b, ",\"pid\":%ld,\"mpi\":", (long)getpid());
#endif
  sb_json_str(&b, me.mpi_running);
  sb_printf(&b, ",\"mpi_built\":");
  sb_json_str(&b, me.mpi_built);
  sb_printf(&b, ",\"hrace\":\"%s\"}\n", HRACE_VERSION);
  json_write(b.p, b.len);
  free(b.p);
  header_written = true;
}

/* Writes one JSON line (b holds the object without its newline). */
static void json_line(sbuf_t *b) {
  json_open();
  if (json_fd < 0) return;
  sb_putc(b, '\n');
  json_write(b->p, b->len);
}

/* The frames of a side: its stack, or just its location. */
static unsigned side_frames(const hrace_report_side_t *s, const hrace_frame_t **f,
                            hrace_frame_t *one) {
  if (s->nframes) {
    *f = s->frames;
    return s->nframes;
  }
  *one = (hrace_frame_t){ .loc = s->loc };
  *f = one;
  return 1;
}

static void json_side(sbuf_t *b, const hrace_report_side_t *s) {
  sb_printf(b, "{\"op\":");
  sb_json_str(b, s->op);
  sb_printf(b, ",\"rank\":%d,\"thread\":%d,\"func\":", s->rank, s->thread);
  sb_json_str(b, s->loc.func);
  sb_printf(b, ",\"file\":");
  sb_json_str(b, s->loc.file);
  sb_printf(b, ",\"line\":%d,\"column\":%d,\"offset\":%" PRIu64 ",\"size\":%" PRIu64 ",\"stack\":[",
            s->loc.line, s->loc.column, s->offset, s->size);
  hrace_frame_t one;
  const hrace_frame_t *f;
  unsigned n = side_frames(s, &f, &one);
  for (unsigned i = 0; i < n; i++) {
    sb_printf(b, "%s{\"func\":", i ? "," : "");
    sb_json_str(b, f[i].loc.func);
    sb_printf(b, ",\"file\":");
    sb_json_str(b, f[i].loc.file);
    sb_printf(b, ",\"line\":%d,\"column\":%d,\"inlined\":%s}", f[i].loc.line, f[i].loc.column,
              f[i].inlined ? "true" : "false");
  }
  sb_printf(b, "],\"sync\":");
  sb_json_str(b, s->sync);
  sb_putc(b, '}');
}

/* {"func","file","line","column"} of a call site, or null. */
static void json_site(sbuf_t *b, const hrace_srcloc_t *loc) {
  if (!loc) {
    sb_printf(b, "null");
    return;
  }
  sb_printf(b, "{\"func\":");
  sb_json_str(b, loc->func);
  sb_printf(b, ",\"file\":");
  sb_json_str(b, loc->file);
  sb_printf(b, ",\"line\":%d,\"column\":%d}", loc->line, loc->column);
}

static void json_race(sbuf_t *b, unsigned id, const hrace_report_t *r,
                      const hrace_srcloc_t *alloc_site, const hrace_srcloc_t *win_site) {
  sb_printf(b, "{\"type\":\"race\",\"id\":%u,\"rank\":%d,\"kind\":", id, rep_rank);
  sb_json_str(b, r->kind);
  sb_printf(b, ",\"window\":");
  sb_json_str(b, r->window);
  sb_printf(b, ",\"window_site\":");
  if (r->window && win_site) {
    sb_printf(b, "{\"call\":");
    sb_json_str(b, r->window_call);
    sb_printf(b, ",\"site\":");
    json_site(b, win_site);
    sb_putc(b, '}');
  } else {
    sb_printf(b, "null");
  }
  sb_printf(b, ",\"owner\":%d,\"base\":\"0x%" PRIxPTR "\",\"addr\":", r->owner, r->base);
  if (r->addr) sb_printf(b, "\"0x%" PRIxPTR "\"", r->addr);
  else sb_printf(b, "null");
  sb_printf(b, ",\"variable\":");
  if (r->variable.name) {
    sb_printf(b, "{\"name\":");
    sb_json_str(b, r->variable.name);
    sb_printf(b, ",\"offset\":%" PRIu64 ",\"size\":%" PRIu64 "}", r->variable.offset,
              r->variable.size);
  } else {
    sb_printf(b, "null");
  }
  sb_printf(b, ",\"allocation\":");
  if (r->allocation) {
    sb_printf(b, "{\"what\":");
    sb_json_str(b, r->allocation);
    sb_printf(b, ",\"base\":\"0x%" PRIxPTR "\",\"size\":%" PRIu64 ",\"site\":", r->alloc_base,
              r->alloc_size);
    json_site(b, alloc_site);
    sb_putc(b, '}');
  } else {
    sb_printf(b, "null");
  }
  sb_printf(b, ",\"hint\":");
  sb_json_str(b, r->hint);
  sb_printf(b, ",\"a\":");
  json_side(b, &r->a);
  sb_printf(b, ",\"b\":");
  json_side(b, &r->b);
  sb_putc(b, '}');
}

/* ---- text output ---- */
static void text_where(sbuf_t *b, const hrace_srcloc_t *loc) {
  sb_printf(b, "%s (%s", nz(loc->func), basename_of(loc->file));
  if (loc->line > 0) sb_printf(b, ":%d", loc->line);
  if (loc->line > 0 && loc->column > 0) sb_printf(b, ":%d", loc->column);
  sb_putc(b, ')');
}

/* "load     by rank 1 thread 0 at f (x.c:12)", then one line per further frame ("inlined in",
 * "called from") and the synchronisation region when known. */
static void text_side(sbuf_t *b, const hrace_report_side_t *s) {
  if (s->rank >= 0)
    sb_printf(b, "==hrace==   %-8s by rank %d thread %d at ", nz(s->op), s->rank, s->thread);
  else   /* a process that never called MPI_Init */
    sb_printf(b, "==hrace==   %-8s by thread %d at ", nz(s->op), s->thread);
  text_where(b, &s->loc);
  sb_putc(b, '\n');
  for (unsigned i = 1; i < s->nframes; i++) {
    sb_printf(b, "==hrace==              %s ", s->frames[i - 1].inlined ? "inlined in " : "called from");
    text_where(b, &s->frames[i].loc);
    sb_putc(b, '\n');
  }
  if (s->sync) sb_printf(b, "==hrace==              in %s\n", s->sync);
}

/* The bytes both accesses touch; a's range if they do not overlap (should not happen). */
static void overlap(const hrace_report_t *r, uint64_t *lo, uint64_t *hi) {
  *lo = r->a.offset, *hi = r->a.offset + r->a.size;
  uint64_t blo = r->b.offset, bhi = r->b.offset + r->b.size;
  if (blo < *hi && *lo < bhi) {
    if (blo > *lo) *lo = blo;
    if (bhi < *hi) *hi = bhi;
  }
}

static void text_race(const hrace_report_t *r, const hrace_srcloc_t *alloc_site,
                      const hrace_srcloc_t *win_site) {
  uint64_t lo, hi;
  overlap(r, &lo, &hi);
  bool c = use_colour();
  sbuf_t b = { 0 };
  sb_printf(&b, "==hrace== %sWARNING: data race (%s)%s on ", c ? "\033[1;31m" : "", nz(r->kind),
            c ? "\033[0m" : "");
  if (r->kind && !strcmp(r->kind, "message"))   /* two sends, no memory: tools/hrace, headline */
    sb_printf(&b, "messages to rank %d\n", r->owner);
  else {
    if (r->window)
      sb_printf(&b, "window \"%s\" of rank %d", r->window, r->owner);
    else if (r->owner >= 0)
      sb_printf(&b, "memory of rank %d at 0x%" PRIxPTR, r->owner, r->base);
    else
      sb_printf(&b, "memory at 0x%" PRIxPTR, r->base);
    sb_printf(&b, ", bytes [%" PRIu64 ",%" PRIu64 ")\n", lo, hi);
  }
  if (r->variable.name)
    sb_printf(&b, "==hrace==   memory: variable '%s' (%" PRIu64 " bytes), bytes [%" PRIu64 ",%" PRIu64
                  ") of it\n", r->variable.name, r->variable.size, r->variable.offset,
              r->variable.offset + (hi - lo));
  else if (r->allocation) {
    sb_printf(&b, "==hrace==   memory: %" PRIu64 " bytes from %s at 0x%" PRIxPTR, r->alloc_size,
              r->allocation, r->alloc_base);
    if (alloc_site) {
      sb_printf(&b, ", called in ");
      text_where(&b, alloc_site);
    }
    sb_putc(&b, '\n');
  }
  /* The window's own call, unless the memory line has just named it. */
  bool said = !r->variable.name && r->allocation && alloc_site && r->window_call &&
              strcmp(r->allocation, r->window_call) == 0;
  if (r->window && win_site && !said) {
    sb_printf(&b, "==hrace==   window: \"%s\" made by %s in ", r->window, nz(r->window_call));
    text_where(&b, win_site);
    sb_putc(&b, '\n');
  }
  text_side(&b, &r->a);
  text_side(&b, &r->b);
  if (r->hint)
    sb_printf(&b, "==hrace==   %shint:%s %s\n", c ? "\033[1m" : "", c ? "\033[0m" : "", r->hint);
  else
    sb_printf(&b, "==hrace==   (neither access is ordered before the other by MPI or OpenMP "
                  "synchronisation)\n");
  write_all(STDERR_FILENO, b.p, b.len);
  free(b.p);
}

static void rank_prefix(sbuf_t *b) {
  if (rep_rank >= 0) sb_printf(b, "hrace: rank %d: ", rep_rank);
  else sb_printf(b, "hrace: ");
}

/* ---- suppressions: loaded once, under rep_lock ---- */
static void load_suppressions(void) {
  if (supps_loaded) return;
  supps_loaded = true;
  const char *path = hrace__opt.suppressions;
  if (!path || !*path) return;
  char err[1024];
  supps = hrace__supp_load(path, err, sizeof err);
  /* A broken file would silently report what the user meant to hide, or hide nothing: stop
   * before the program runs further (hrace run checks the file before starting the job). */
  if (!supps) hrace__fatal("suppressions: %s", err);
}

/* ---- fatal signals: leave the counts behind ---- */
/* A rank that crashes keeps its race lines (written as found) but would lose the counts of
 * repeated races and the reason it ended. The handler writes both with one write(2) each,
 * then hands the signal on to the handler that was there before (MPI's, the application's)
 * or to the default action. It only formats integers into a stack buffer; the lock is only
 * tried, so a crash inside the report writer itself skips the counts rather than deadlock. */
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM };
#define NFATAL (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction old_actions[NFATAL];
static volatile sig_atomic_t crashed;

static void write_counts_unlocked(void) {
  char line[160];
  for (size_t i = 0; i < races_len; i++) {
    if (!races[i].shown || races[i].count < 2) continue;
    int n = snprintf(line, sizeof line, "{\"type\":\"race-count\",\"id\":%u,\"rank\":%d,\"count\":%lu}\n",
                     races[i].id, rep_rank, races[i].count);
    if (n > 0 && json_fd >= 0) write_all(json_fd, line, (size_t)n);
  }
}

/* The last line of a rank that did not finish normally (reason: a constant, no escaping). */
static void crash_record(const char *reason, int sig, int code) {
  char line[200];
  int n = snprintf(line, sizeof line, "{\"type\":\"crash\",\"rank\":%d,\"reason\":\"%s\","
                   "\"signal\":%d,\"code\":%d,\"races\":%u}\n", rep_rank, reason, sig, code,
                   (unsigned)races_len - n_suppressed);
  if (n > 0 && json_fd >= 0) write_all(json_fd, line, (size_t)n);
}

static void on_fatal_signal(int sig, siginfo_t *info, void *uc) {
  if (!crashed) {
    crashed = 1;
    if (!finished && pthread_mutex_trylock(&rep_lock) == 0) {
      if (!finished && hrace__opt.report_dir && *hrace__opt.report_dir) {
        json_open();
        write_counts_unlocked();
        crash_record("signal", sig, 0);
        finished = true;
      }
      pthread_mutex_unlock(&rep_lock);
    }
  }
  for (size_t i = 0; i < NFATAL; i++) {
    if (fatal_signals[i] != sig) continue;
    struct sigaction *old = &old_actions[i];
    if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
      old->sa_sigaction(sig, info, uc);
      return;
    }
    if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN && old->sa_handler) {
      old->sa_handler(sig);
      return;
    }
  }
  signal(sig, SIG_DFL);   /* default action: re-raised when the handler returns (synchronous
                             signals re-fault) or now (asynchronous ones) */
  raise(sig);
}

static void install_signal_handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fatal_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < NFATAL; i++) {
    struct sigaction cur;
    if (sigaction(fatal_signals[i], NULL, &cur) != 0) continue;
    if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN) continue;   /* keep ignoring */
    old_actions[i] = cur;
    sigaction(fatal_signals[i], &sa, NULL);
  }
}

/* ---- entry points ---- */
void hrace__report_process(void) { pthread_once(&atexit_once, register_atexit); }

void hrace__report_set_instrumented(unsigned (*count)(void)) { instrumented = count; }
void hrace__report_set_mode(const char *(*mode)(void)) { mode_of = mode; }
void hrace__report_set_stats(void (*fields)(char *buf, size_t cap)) { stats_of = fields; }

void hrace__report_init(const hrace_rank_info_t *info) {
  pthread_once(&atexit_once, register_atexit);
  pthread_mutex_lock(&rep_lock);
  if (info->rank != rep_rank && json_fd >= 0) {
    close(json_fd);   /* opened under the rank-unknown name: later lines go to rank-<R> */
    json_fd = -1;
    if (hrace__opt.report_dir && *hrace__opt.report_dir) {
      /* Its lines belong to this rank: keep them under the rank's name (the new "rank"
       * record written below is the file's identity from then on). */
      char from[4096], to[4096];
      report_path(from, sizeof from, -1);
      report_path(to, sizeof to, info->rank);
      rename(from, to);
    }
  }
  me = *info;
  rep_rank = info->rank;
  header_written = false;
  load_suppressions();
  json_open();         /* now: a rank that dies before finding anything is still seen */
  pthread_mutex_unlock(&rep_lock);
  /* After MPI_Init: MPI's own handlers (Open MPI prints a backtrace) are chained behind ours. */
  static pthread_once_t signals_once = PTHREAD_ONCE_INIT;
  if (hrace__opt.report_dir && *hrace__opt.report_dir) pthread_once(&signals_once, install_signal_handlers);
}

static bool is_benign(const hrace_report_t *r);

/* A benign race counts as seen: its caller need not compose it. */
bool hrace__report_seen(const hrace_report_t *r) {
  if (is_benign(r)) return true;
  race_entry_t key;
  race_key(r, &key);
  pthread_mutex_lock(&rep_lock);
  race_entry_t *e = race_find(&key);
  if (e) e->count++;
  pthread_mutex_unlock(&rep_lock);
  return e != NULL;
}

/* ---- benign ranges (AnnotateBenignRaceSized): few, looked at only when a race is found ---- */
static struct { uintptr_t lo, hi; } *benign;
static size_t n_benign, cap_benign;
static _Atomic size_t any_benign;   /* n_benign, readable without the lock */
static pthread_mutex_t benign_lock = PTHREAD_MUTEX_INITIALIZER;

void hrace__report_benign(uintptr_t addr, uint64_t size) {
  if (!size) return;
  pthread_mutex_lock(&benign_lock);
  if (n_benign == cap_benign) {
    size_t cap = cap_benign ? 2 * cap_benign : 16;
    void *p = realloc(benign, cap * sizeof *benign);
    if (!p) {
      pthread_mutex_unlock(&benign_lock);
      return;
    }
    benign = p;
    cap_benign = cap;
  }
  uintptr_t hi = addr + size < addr ? UINTPTR_MAX : addr + size;
  benign[n_benign].lo = addr;
  benign[n_benign++].hi = hi;
  atomic_store(&any_benign, n_benign);
  pthread_mutex_unlock(&benign_lock);
}

static bool is_benign(const hrace_report_t *r) {
  if (!atomic_load_explicit(&any_benign, memory_order_relaxed)) return false;
  uintptr_t a = r->addr ? r->addr : r->base;
  bool hit = false;
  pthread_mutex_lock(&benign_lock);
  for (size_t i = 0; i < n_benign && !hit; i++) hit = a >= benign[i].lo && a < benign[i].hi;
  pthread_mutex_unlock(&benign_lock);
  return hit;
}

void hrace__report_race(const hrace_report_t *r) {
  pthread_once(&atexit_once, register_atexit);
  if (is_benign(r)) return;
  race_entry_t key;
  race_key(r, &key);
  /* The call sites that made the memory and the window, resolved before rep_lock (the
   * symbolizer has its own lock). */
  hrace_srcloc_t alloc_loc, win_loc;
  const hrace_srcloc_t *alloc_site = NULL, *win_site = NULL;
  if (r->alloc_pc && r->allocation && hrace__symbolize(r->alloc_pc, &alloc_loc)) alloc_site = &alloc_loc;
  if (r->window_pc && r->window && hrace__symbolize(r->window_pc, &win_loc)) win_site = &win_loc;
  pthread_mutex_lock(&rep_lock);
  race_entry_t *e = race_find(&key);
  if (e) {
    e->count++;
    pthread_mutex_unlock(&rep_lock);
    return;
  }
  e = race_add(&key);
  load_suppressions();
  if (hrace__supp_match(supps, r)) {
    e->suppressed = true;
    n_suppressed++;
    pthread_mutex_unlock(&rep_lock);
    return;
  }
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
    if (hrace__opt.halt_on_error) halt();
    return;
  }
  e->shown = true;
  n_shown++;
  if (hrace__opt.report_text) text_race(r, alloc_site, win_site);
  if (hrace__opt.report_dir && *hrace__opt.report_dir) {
    sbuf_t b = { 0 };
    json_race(&b, e->id, r, alloc_site, win_site);
    json_line(&b);
    free(b.p);
  }
  pthread_mutex_unlock(&rep_lock);
  if (hrace__opt.halt_on_error) halt();
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
      if (loc.line > 0 && loc.column > 0) sb_printf(&b, ":%d", loc.column);
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
    sb_printf(&b, ",\"line\":%d,\"column\":%d}", ret ? loc.line : 0, ret ? loc.column : 0);
    json_line(&b);
    free(b.p);
  }
  pthread_mutex_unlock(&rep_lock);
  free(msg.p);
}

static void note_rule(void *ctx, const char *rule, unsigned long hits) {
  sbuf_t *b = ctx;
  b->len = 0;
  rank_prefix(b);
  sb_printf(b, "note: suppression '%s' matched %lu distinct race(s)\n", rule, hits);
  write_all(STDERR_FILENO, b->p, b->len);
}

void hrace__report_finish(void) {
  pthread_mutex_lock(&rep_lock);
  if (finished) {
    pthread_mutex_unlock(&rep_lock);
    return;
  }
  finished = true;
  unsigned n_races = (unsigned)races_len - n_suppressed;
  unsigned unreported = n_races - n_shown;
  unsigned modules = instrumented ? instrumented() : 0;
  if (hrace__opt.report_dir && *hrace__opt.report_dir) {
    sbuf_t b = { 0 };
    json_open();
    write_counts_unlocked();
    char extra[512] = "";
    if (stats_of) stats_of(extra, sizeof extra);
    sb_printf(&b, "{\"type\":\"summary\",\"rank\":%d,\"races\":%u,\"diagnostics\":%u,"
                  "\"unreported\":%u,\"suppressed\":%u,\"instrumented\":%u,\"mode\":\"%s\"%s}",
              rep_rank, n_races, n_diagnostics, unreported, n_suppressed, modules,
              mode_of ? mode_of() : "window", extra);
    json_line(&b);
    free(b.p);
  }
  if (json_fd >= 0) {
    if (close(json_fd) != 0 && !json_lost) {   /* NFS reports a failed write at close */
      json_lost = true;
      hrace__warn("cannot write the report file in %s: %s", hrace__opt.report_dir,
                  strerror(errno));
    }
    json_fd = -1;     /* a late report (exit-time thread) reopens it in append mode */
  }
  if (hrace__opt.report_text && (n_races > 0 || n_suppressed > 0)) {
    sbuf_t b = { 0 };
    rank_prefix(&b);
    sb_printf(&b, "%u distinct race(s) reported", n_races);
    if (unreported) sb_printf(&b, " (%u not printed: max_reports)", unreported);
    if (n_suppressed) sb_printf(&b, ", %u suppressed", n_suppressed);
    sb_putc(&b, '\n');
    write_all(STDERR_FILENO, b.p, b.len);
    free(b.p);
  }
  if (hrace__opt.report_text && modules == 0 && rep_rank <= 0 && me.size > 0) {
    /* Without the launcher (which says it once for the job): "no races" from a program built
     * with plain mpicc must not read as a full check. */
    static const char note[] = "hrace: note: no code of this program was built with hrace-cc: "
      "only MPI-level checks ran (RMA operations against each other and against MPI buffers); "
      "loads and stores were not checked\n";
    write_all(STDERR_FILENO, note, sizeof note - 1);
  }
  if (hrace__opt.verbosity >= 1 && supps) {
    sbuf_t b = { 0 };
    sb_reserve(&b, 0);
    hrace__supp_each(supps, note_rule, &b);
    free(b.p);
  }
  pthread_mutex_unlock(&rep_lock);
}

/* At exit: the summary, then ThreadSanitizer's convention for a run by hand: a process that
 * found a race exits with `exitcode`. Registered when the process became one hrace reports on
 * (MPI_Init, instrumented code, OpenMP), so handlers the program registers later run first;
 * stdio is flushed because _exit skips what would flush it. */
static void at_exit(void) {
  hrace__report_finish();
  if (hrace__opt.exitcode != 0 && hrace__report_count() > 0) {
    fflush(NULL);
    _exit((int)hrace__opt.exitcode);
  }
}

/* halt_on_error: the first race ends the process, its report complete on disk. */
static void halt(void) {
  hrace__report_abort("halt_on_error", 0);
  fflush(NULL);
  _exit(hrace__opt.exitcode ? (int)hrace__opt.exitcode : 66);
}

void hrace__report_abort(const char *why, int code) {
  pthread_mutex_lock(&rep_lock);
  if (!finished && hrace__opt.report_dir && *hrace__opt.report_dir) {
    json_open();
    write_counts_unlocked();
    crash_record(why, 0, code);
  }
  finished = true;
  pthread_mutex_unlock(&rep_lock);
}

unsigned hrace__report_count(void) {
  pthread_mutex_lock(&rep_lock);
  unsigned n = (unsigned)races_len - n_suppressed;
  pthread_mutex_unlock(&rep_lock);
  return n;
}
