/* The communicator registry (see comm.h). Lookups happen on every point-to-point call, so a
 * thread keeps its last hit in thread-local storage, validated by a generation number that
 * every MPI_Comm_free bumps; the table itself sits under a mutex (creation and free are rare). */
#include "mpi/comm.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "base/map.h"
#include "core/poll.h"
#include "mpi/handlers.h"
#include "mpi/msgrace.h"
#include "mpi/reqtab.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static hrace_map_t tab = HRACE_MAP_INIT;   /* MPI_Comm -> hrace_comm_t, under mu */
_Atomic unsigned hrace__comm_gen = 1;
static uint32_t next_id = 1;

__thread hrace_comm_last_t hrace__comm_last __attribute__((tls_model("initial-exec")));

/* (A record replaced under a reused handle is a stale one of a freed communicator.) */
static void insert(hrace_comm_t *r) { hrace_map_put(&tab, HRACE_HASH_KEY(r->comm), r); }

hrace_comm_t *hrace__comm_of_slow(MPI_Comm c) {
  unsigned g = atomic_load_explicit(&hrace__comm_gen, memory_order_acquire);
  if (c == MPI_COMM_NULL) return NULL;
  pthread_mutex_lock(&mu);
  hrace_comm_t *r = hrace_map_get(&tab, HRACE_HASH_KEY(c));
  pthread_mutex_unlock(&mu);
  hrace__comm_last.c = c, hrace__comm_last.rec = r, hrace__comm_last.gen = g;
  return r;
}

static int *translate(MPI_Group g, int n) {
  MPI_Group wg;
  int *idx = malloc((n ? n : 1) * sizeof *idx), *w = malloc((n ? n : 1) * sizeof *w);
  if (!idx || !w) abort();
  for (int i = 0; i < n; i++) idx[i] = i;
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  PMPI_Group_translate_ranks(g, n, idx, wg, w);
  PMPI_Group_free(&wg);
  free(idx);
  return w;
}

/* An id every member agrees on and that is new at each of them: the maximum of the members'
 * next ids (for an intercommunicator, two rounds: each round reduces over the other group). */
static uint32_t agree_id(MPI_Comm shadow, int inter) {
  pthread_mutex_lock(&mu);
  uint32_t mine = next_id, got = mine;
  pthread_mutex_unlock(&mu);
  PMPI_Allreduce(&mine, &got, 1, MPI_UINT32_T, MPI_MAX, shadow);
  if (inter) {
    uint32_t both = got;
    PMPI_Allreduce(&got, &both, 1, MPI_UINT32_T, MPI_MAX, shadow);
    got = both > got ? both : got;
    got = got > mine ? got : mine;
  }
  pthread_mutex_lock(&mu);
  if (got >= next_id) next_id = got + 1;
  pthread_mutex_unlock(&mu);
  return got;
}

hrace_comm_t *hrace__comm_register(MPI_Comm nc, MPI_Comm shadow, uint32_t id) {
  hrace_comm_t *r = calloc(1, sizeof *r);
  if (!r) abort();
  r->comm = nc;
  r->shadow = shadow;
  PMPI_Comm_test_inter(nc, &r->inter);
  PMPI_Comm_rank(nc, &r->rank);
  PMPI_Comm_size(nc, &r->size);
  MPI_Group g;
  PMPI_Comm_group(nc, &g);
  r->world = translate(g, r->size);
  PMPI_Group_free(&g);
  if (r->inter) {
    PMPI_Comm_remote_size(nc, &r->rsize);
    PMPI_Comm_remote_group(nc, &g);
    r->rworld = translate(g, r->rsize);
    PMPI_Group_free(&g);
  } else {
    /* World ranks outside the group, in increasing order (the same list at every member). */
    char *in = calloc(hrace__proc.size, 1);
    r->out = malloc(hrace__proc.size * sizeof *r->out);
    if (!in || !r->out) abort();
    for (int i = 0; i < r->size; i++)
      if (r->world[i] >= 0) in[r->world[i]] = 1;
    for (int w = 0; w < hrace__proc.size; w++)
      if (!in[w]) r->out[r->nout++] = w;
    free(in);
  }
  r->id = id ? id : agree_id(shadow, r->inter);
  pthread_mutex_lock(&mu);
  insert(r);
  pthread_mutex_unlock(&mu);
  atomic_fetch_add_explicit(&hrace__comm_gen, 1, memory_order_release);
  return r;
}

static void drop(hrace_comm_t *r) {
  if (!r) return;
  if (r->shadow != MPI_COMM_NULL) PMPI_Comm_free(&r->shadow);
  hrace__mrace_free(r);
  free(r->world);
  free(r->rworld);
  free(r->out);
  free(r);
}

void hrace__comm_created(MPI_Comm nc, MPI_Comm parent) {
  if (nc == MPI_COMM_NULL) return;
  MPI_Comm shadow;
  if (PMPI_Comm_dup(nc, &shadow) != MPI_SUCCESS) return;
  PMPI_Comm_set_name(shadow, "hrace-shadow");
  hrace__comm_register(nc, shadow, 0);
}

/* MPI_Comm_idup: the new communicator may not be used before the request completes, so its
 * shadow is an idup of the parent started right behind it (same group, same order at every
 * member); both are finished at completion (reqtab.h, HRACE_RS_IDUP). */
int hrace__h_comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req, int active) {
  int rc = PMPI_Comm_idup(comm, newcomm, req);
  hrace_comm_t *parent = hrace__comm_of(comm);
  if (rc != MPI_SUCCESS || !parent) return rc;
  hrace_rs_t *s = hrace__rs_new(HRACE_RS_IDUP);
  s->newcomm = newcomm;
  /* No agreement round at completion (members complete at different times): the id derives
   * from the parent's id and its count of idups, equal at every member; top bit set keeps it
   * apart from agreed ids. */
  uint64_t k = hrace_hash_mix64((uint64_t)parent->id << 32 | ++parent->nidup);
  s->sync_id = (uint32_t)(k >> 33) | 0x80000000u;
  if (PMPI_Comm_idup(comm, &s->shadow_comm, &s->shadow_req[0]) != MPI_SUCCESS) {
    free(s);
    return rc;
  }
  hrace__rs_put(*req, s);
  return rc;
}

void *hrace__comm_freeing(MPI_Comm c) {
  if (c == MPI_COMM_WORLD || c == MPI_COMM_SELF || c == MPI_COMM_NULL) return NULL;
  pthread_mutex_lock(&mu);
  hrace_comm_t *r = hrace_map_del(&tab, HRACE_HASH_KEY(c));
  pthread_mutex_unlock(&mu);
  atomic_fetch_add_explicit(&hrace__comm_gen, 1, memory_order_release);
  return r;
}

void hrace__comm_freed(void *rec, int rc) {
  hrace_comm_t *r = rec;
  if (!r) return;
  if (rc != MPI_SUCCESS) {   /* MPI refused: the communicator lives on */
    pthread_mutex_lock(&mu);
    insert(r);
    pthread_mutex_unlock(&mu);
    atomic_fetch_add_explicit(&hrace__comm_gen, 1, memory_order_release);
    return;
  }
  drop(r);
}

void hrace__comm_init(void) {
  hrace__comm_register(MPI_COMM_WORLD, hrace__proc.world_shadow, 0);
  MPI_Comm self;
  hrace__comm_private(MPI_COMM_SELF, 2, &self);
  hrace__comm_register(MPI_COMM_SELF, self, 0);
}

void hrace__comm_fini(void) {
  pthread_mutex_lock(&mu);
  void *v;
  for (size_t it = 0; hrace_map_next(&tab, &it, NULL, &v);) {
    hrace_comm_t *r = v;
    if (r->comm == MPI_COMM_WORLD) r->shadow = MPI_COMM_NULL;   /* init.c frees it */
    drop(r);
  }
  hrace_map_free(&tab);
  pthread_mutex_unlock(&mu);
  atomic_fetch_add_explicit(&hrace__comm_gen, 1, memory_order_release);
}
