/* Race reports from shadow conflicts (see race.h). */
#include "core/race.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "core/runtime.h"
#include "report/report.h"
#include "rma/window.h"

static void side(hrace_report_side_t *s, const hrace_access_t *a, uint64_t off, uint64_t len) {
  s->op = hrace__op_name(a->op);
  s->rank = a->rank;
  s->thread = a->thread;
  s->offset = off;
  s->size = len;
  if (a->flags & HRACE_ACC_REMOTE)
    s->loc = *(const hrace_srcloc_t *)a->loc;
  else
    hrace__symbolize(a->pc, &s->loc);
}

void hrace__race_sink(void *ctx, hrace_aid_t now, hrace_aid_t prev, uint64_t off, uint64_t len) {
  const hrace_win_t *w = ctx;
  const hrace_access_t *a = hrace__access_get(now), *b = hrace__access_get(prev);
  int ra = (a->flags & HRACE_ACC_REMOTE) != 0, rb = (b->flags & HRACE_ACC_REMOTE) != 0;
  hrace_report_t r = {
    .kind = ra && rb ? "rma-rma" : ra || rb ? "remote" : "local",
    .window = w->name, .owner = hrace__proc.rank, .base = (uintptr_t)w->base,
  };
  side(&r.a, a, off, len);
  side(&r.b, b, off, len);
  hrace__report_race(&r);
}

/* A small open hash set of interned sites; sites are few (distinct RMA call sites). */
typedef struct site { hrace_srcloc_t loc; struct site *next; } site_t;
static site_t *sites[256];
static pthread_mutex_t sites_mu = PTHREAD_MUTEX_INITIALIZER;

const hrace_srcloc_t *hrace__site_intern(const char *func, const char *file, int line) {
  unsigned h = (unsigned)line;
  for (const char *p = file; *p; p++) h = h * 31 + (unsigned char)*p;
  for (const char *p = func; *p; p++) h = h * 31 + (unsigned char)*p;
  h &= 255;
  pthread_mutex_lock(&sites_mu);
  site_t *s;
  for (s = sites[h]; s; s = s->next)
    if (s->loc.line == line && !strcmp(s->loc.file, file) && !strcmp(s->loc.func, func)) break;
  if (!s) {
    s = malloc(sizeof *s);
    if (!s) abort();
    s->loc = (hrace_srcloc_t){ strdup(func), strdup(file), line };
    s->next = sites[h];
    sites[h] = s;
  }
  pthread_mutex_unlock(&sites_mu);
  return &s->loc;
}
