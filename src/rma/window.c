/* The window registry (see window.h). Windows are few and change rarely: one mutex guards the
 * registry, and the progress thread holds it while it applies a message, so a window cannot be
 * freed under a record being applied. */
#include "rma/window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "access/filter.h"
#include "core/log.h"
#include "core/runtime.h"
#include "mpi/sync.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static hrace_win_t **wins;
static unsigned nwins, capwins;
static uint32_t next_id = 1;

void hrace__win_lock(void) { pthread_mutex_lock(&mu); }
void hrace__win_unlock(void) { pthread_mutex_unlock(&mu); }

hrace_win_t *hrace__win_register(MPI_Win win, MPI_Comm comm, int kind, void *base,
                                 MPI_Aint size, int disp_unit) {
  hrace_win_t *w = calloc(1, sizeof *w);
  if (!w) abort();
  w->win = win;
  w->kind = kind;
  w->base = base;
  w->size = size > 0 ? (uint64_t)size : 0;
  w->disp_unit = disp_unit;
  PMPI_Comm_size(comm, &w->gsize);
  PMPI_Comm_rank(comm, &w->grank);
  w->world = malloc(w->gsize * sizeof *w->world);
  int *idx = malloc(w->gsize * sizeof *idx);
  if (!w->world || !idx) abort();
  for (int i = 0; i < w->gsize; i++) idx[i] = i;
  MPI_Group g, wg;
  PMPI_Comm_group(comm, &g);
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  PMPI_Group_translate_ranks(g, w->gsize, idx, wg, w->world);
  PMPI_Group_free(&g);
  PMPI_Group_free(&wg);
  free(idx);
  w->lock = calloc(w->gsize, 1);
  w->dirty = calloc(w->gsize, 1);
  if (!w->lock || !w->dirty) abort();
  hrace__vc_init(&w->rel_excl, (uint32_t)hrace__proc.size);
  hrace__vc_init(&w->rel_all, (uint32_t)hrace__proc.size);
  if (hrace__shadow_init(&w->cells, w->size))
    hrace__fatal("cannot map %llu bytes of shadow for a window", (unsigned long long)w->size);
  PMPI_Comm_dup(comm, &w->shadow);

  /* Window creation orders every member after every other (DESIGN: all-to-all), and agrees
   * on an id that is new at every member: the maximum of their next ids. */
  pthread_mutex_lock(&mu);
  uint32_t id = next_id;
  pthread_mutex_unlock(&mu);
  hrace__sync_all(w->shadow, &id, 1, "MPI_Win_create");
  w->id = id;
  snprintf(w->name, sizeof w->name, "win%u", id);

  pthread_mutex_lock(&mu);
  next_id = id + 1;
  if (nwins == capwins) {
    capwins = capwins ? 2 * capwins : 8;
    wins = realloc(wins, capwins * sizeof *wins);
    if (!wins) abort();
  }
  wins[nwins++] = w;
  pthread_mutex_unlock(&mu);
  if (w->size) hrace__filter_add((uintptr_t)base, (uintptr_t)base + w->size, HRACE_TRACK_WINDOW, w);
  return w;
}

hrace_win_t *hrace__win_of(MPI_Win win) {
  hrace_win_t *w = NULL;
  pthread_mutex_lock(&mu);
  for (unsigned i = 0; i < nwins; i++)
    if (wins[i]->win == win) { w = wins[i]; break; }
  pthread_mutex_unlock(&mu);
  return w;
}

/* Caller holds the registry lock (the progress thread does, around each message). */
hrace_win_t *hrace__win_by_id(uint32_t id) {
  for (unsigned i = 0; i < nwins; i++)
    if (wins[i]->id == id) return wins[i];
  return NULL;
}

void hrace__win_unregister(hrace_win_t *w) {
  hrace__sync_all(w->shadow, NULL, 0, "MPI_Win_free");
  hrace__filter_remove(w);
  pthread_mutex_lock(&mu);
  for (unsigned i = 0; i < nwins; i++)
    if (wins[i] == w) { wins[i] = wins[--nwins]; break; }
  pthread_mutex_unlock(&mu);
  PMPI_Comm_free(&w->shadow);
  hrace__shadow_free(&w->cells);
  hrace__vc_free(&w->rel_excl);
  hrace__vc_free(&w->rel_all);
  free(w->world);
  free(w->lock);
  free(w->dirty);
  free(w->waiters);
  free(w->pending);
  free(w);
}
