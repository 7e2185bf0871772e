/* Unit tests of the window registry (rma/window.h), without MPI: windows made by hand go in and
 * out through the registry's own entry points (hrace__win_insert / hrace__win_remove, the part
 * of register / unregister below their collective calls). Lookup by handle and by agreed id,
 * ids a new window proposes, a handle MPI reuses after a free, lookup by address (a
 * window's memory is a tracked range whose owner leads back to the window; a dynamic window's
 * regions are found by address and attach / detach add and drop them), names given to a window
 * and its regions. Window handles are made up: the registry only compares them. */
#include <stdint.h>
#include <string.h>

#include "access/filter.h"
#include "rma/window.h"
#include "tap.h"

static MPI_Win H(uintptr_t i) {   /* a handle: a pointer (Open MPI) or an int (MPICH) */
  MPI_Win w;
  uintptr_t v = 0x2000 + i * 64;
  memset(&w, 0, sizeof w);
  memcpy(&w, &v, sizeof w < sizeof v ? sizeof w : sizeof v);
  return w;
}

/* What hrace__win_register sets up locally, for a window of `gsize` members whose memory is
 * [base, base + size) (none for a dynamic window). Static storage: the filter may hand a
 * removed range's owner to a late reader (access/filter.h), so windows are never freed. */
static hrace_win_t wins[8];
static uint8_t locks[8][4], dirty[8][4];

static hrace_win_t *make(int i, MPI_Win handle, int kind, char *base, uint64_t size) {
  hrace_win_t *w = &wins[i];
  memset(w, 0, sizeof *w);
  w->win = handle;
  w->kind = kind;
  w->gsize = 4;
  w->lock = locks[i];
  w->dirty = dirty[i];
  w->id = hrace__win_propose_id();
  snprintf(w->name, sizeof w->name, "win%u", w->id);
  hrace__shadow_init(&w->cells, kind == HRACE_WIN_DYNAMIC ? 0 : size);
  if (kind != HRACE_WIN_DYNAMIC) {
    w->base = base;
    w->size = size;
    hrace__filter_add((uintptr_t)base, (uintptr_t)base + size, HRACE_TRACK_WINDOW, &w->cells);
  }
  hrace__win_insert(w);
  return w;
}

/* The window whose memory holds address a, as the access slow path finds it. */
static hrace_win_t *at(const void *a) {
  hrace_range_t r[4];
  unsigned n = hrace__filter_find((uintptr_t)a, 1, r, 4);
  if (n != 1 || r[0].kind != HRACE_TRACK_WINDOW) return NULL;
  return hrace__win_of_cells(r[0].owner);
}

static char mem_a[4096], mem_b[4096], reg1[256], reg2[512];

int main(void) {
  plan(26);

  ok(hrace__win_of(H(1)) == NULL, "nothing registered: a handle finds nothing");
  uint32_t first = hrace__win_propose_id();
  hrace_win_t *a = make(0, H(1), HRACE_WIN_CREATE, mem_a, sizeof mem_a);
  hrace_win_t *b = make(1, H(2), HRACE_WIN_ALLOCATE, mem_b, sizeof mem_b);
  hrace_win_t *d = make(2, H(3), HRACE_WIN_DYNAMIC, NULL, 0);
  is_int(first, a->id, "the first window takes the first proposal");
  ok(b->id > a->id && d->id > b->id, "each inserted window raises the next proposal");
  ok(hrace__win_of(H(1)) == a && hrace__win_of(H(2)) == b && hrace__win_of(H(3)) == d,
     "each handle finds its window");
  ok(hrace__win_of(H(4)) == NULL, "an unknown handle finds nothing");
  hrace__win_lock();
  ok(hrace__win_by_id(a->id) == a && hrace__win_by_id(d->id) == d, "each id finds its window");
  ok(hrace__win_by_id(d->id + 100) == NULL, "an unknown id finds nothing");
  hrace__win_unlock();

  /* An id the other members agreed on above this process's proposal: later proposals exceed it. */
  hrace_win_t *c = &wins[3];
  memset(c, 0, sizeof *c);
  c->win = H(5);
  c->id = hrace__win_propose_id() + 10;
  hrace__shadow_init(&c->cells, 0);
  hrace__win_insert(c);
  ok(hrace__win_propose_id() > c->id, "a larger agreed id moves the proposals past it");

  /* Lookup by address: a window's memory leads back to it. */
  ok(at(mem_a) == a && at(mem_a + sizeof mem_a - 1) == a, "first and last byte of a's memory find a");
  ok(at(mem_b + 100) == b, "b's memory finds b");
  ok(at(reg1) == NULL, "memory of no window finds none");
  uint64_t rel = 0;
  ok(hrace__win_segment(a, 100, 8, &rel) == a && rel == 100, "a's segment by offset");
  ok(hrace__win_segment(a, sizeof mem_a - 4, 8, &rel) == NULL, "an offset past a's end: no segment");

  /* A dynamic window: regions by address; attach and detach. */
  ok(hrace__win_segment(d, (uintptr_t)reg1, 8, &rel) == NULL, "a dynamic window with nothing attached");
  hrace__win_attach(d, reg1, sizeof reg1);
  hrace__win_attach(d, reg2, sizeof reg2);
  hrace_win_t *r1 = hrace__win_segment(d, (uintptr_t)reg1 + 16, 8, &rel);
  ok(r1 && r1->parent == d && r1->base == reg1 && rel == 16, "an attached region by address, offset inside it");
  hrace_win_t *r2 = hrace__win_segment(d, (uintptr_t)reg2, sizeof reg2, &rel);
  ok(r2 && r2 != r1 && r2->parent == d && rel == 0, "the other region, whole");
  ok(hrace__win_segment(d, (uintptr_t)reg1 + sizeof reg1 - 4, 8, &rel) == NULL,
     "bytes past a region's end: no segment");
  ok(at(reg1 + 3) == r1 && at(reg2) == r2, "a region's memory finds the region");
  hrace__win_set_name(d, "halo");
  is_string("halo", r1->name, "a name given to the window reaches its regions");
  is_int(-1, hrace__win_detach(d, reg1 + 1), "detaching an address no region starts at fails");
  is_int(0, hrace__win_detach(d, reg1), "detaching a region");
  ok(hrace__win_segment(d, (uintptr_t)reg1, 8, &rel) == NULL && at(reg1) == NULL,
     "a detached region is found neither by offset nor by address");
  ok(hrace__win_segment(d, (uintptr_t)reg2, 8, &rel) == r2, "the other region stays");

  /* Free and reuse: MPI may give a freed window's handle to the next window. */
  hrace__win_remove(a);
  hrace__win_remove(d);
  ok(hrace__win_of(H(1)) == NULL && hrace__win_of(H(3)) == NULL && at(mem_a) == NULL &&
     at(reg2) == NULL, "removed windows are found neither by handle nor by address");
  ok(hrace__win_of(H(2)) == b && hrace__win_of(H(5)) == c, "the others stay");
  hrace_win_t *a2 = make(4, H(1), HRACE_WIN_CREATE, mem_a, sizeof mem_a);
  ok(hrace__win_of(H(1)) == a2 && a2->id != a->id && at(mem_a) == a2,
     "a reused handle finds the new window, under a new id");
  return tap_done();
}
