/* Window creation, attach / detach, naming and free (the handlers of their generated wrappers,
 * wrappers.def class "win"): the real call, then registration (see window.h). MPI_Win_shared_query needs no wrapper: every member's segment is mapped (and
 * tracked) when the shared window is created, since a program may reach a neighbour's segment
 * from its own base pointer without asking. MPI_Win_sync orders nothing between processes
 * (MPI-3.1 Sec. 11.7) and is not wrapped either. */
#include <string.h>

#include "mpi/wrap.h"
#include "report/report.h"
#include "rma/window.h"
#include "wrappers.h"

int hrace__h_win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                        MPI_Win *win, int active, uintptr_t ret) {
  int rc = PMPI_Win_create(base, size, disp_unit, info, comm, win);
  if (active && rc == MPI_SUCCESS) {
    hrace__win_site(hrace__caller(ret));
    hrace__win_register(*win, comm, HRACE_WIN_CREATE, base, size, disp_unit);
  }
  return rc;
}

int hrace__h_win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                          MPI_Win *win, int active, uintptr_t ret) {
  int rc = PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win);
  if (active && rc == MPI_SUCCESS) {
    hrace__win_site(hrace__caller(ret));
    hrace__win_register(*win, comm, HRACE_WIN_ALLOCATE, *(void **)baseptr, size, disp_unit);
  }
  return rc;
}

int hrace__h_win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                 void *baseptr, MPI_Win *win, int active, uintptr_t ret) {
  int rc = PMPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr, win);
  if (active && rc == MPI_SUCCESS) {
    hrace__win_site(hrace__caller(ret));
    hrace__win_register(*win, comm, HRACE_WIN_SHARED, *(void **)baseptr, size, disp_unit);
  }
  return rc;
}

int hrace__h_win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win, int active,
                                uintptr_t ret) {
  int rc = PMPI_Win_create_dynamic(info, comm, win);
  if (active && rc == MPI_SUCCESS) {
    hrace__win_site(hrace__caller(ret));
    hrace__win_register(*win, comm, HRACE_WIN_DYNAMIC, NULL, 0, 1);
  }
  return rc;
}

int hrace__h_win_attach(MPI_Win win, void *base, MPI_Aint size, int active, uintptr_t ret) {
  int rc = PMPI_Win_attach(win, base, size);
  hrace_win_t *w = active && rc == MPI_SUCCESS ? hrace__win_of(win) : NULL;
  if (w) {
    hrace__win_site(hrace__caller(ret));
    hrace__win_attach(w, base, size);
  }
  return rc;
}

int hrace__h_win_detach(MPI_Win win, const void *base, int active, uintptr_t ret) {
  hrace_win_t *w = active ? hrace__win_of(win) : NULL;
  int rc = PMPI_Win_detach(win, base);
  if (w && rc == MPI_SUCCESS && hrace__win_detach(w, base))
    hrace__report_misuse(hrace__caller(ret), "MPI_Win_detach of %p from window %s, which has no "
                         "region attached there", base, w->name);
  return rc;
}

int hrace__h_win_set_name(MPI_Win win, const char *name, int active, uintptr_t ret) {
  int rc = PMPI_Win_set_name(win, name);
  hrace_win_t *w = active && rc == MPI_SUCCESS ? hrace__win_of(win) : NULL;
  if (w) hrace__win_set_name(w, name);
  return rc;
}

int hrace__h_win_free(MPI_Win *win, int active, uintptr_t ret) {
  hrace_win_t *w = active ? hrace__win_of(*win) : NULL;
  if (w) hrace__win_unregister(w);
  int rc = PMPI_Win_free(win);
  return rc;
}
