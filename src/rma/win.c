/* Window creation, naming and free: the real call, then registration (see window.h). */
#include <string.h>

#include "core/runtime.h"
#include "mpi/wrap.h"
#include "rma/window.h"

HRACE_EXPORT int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                                MPI_Comm comm, MPI_Win *win) {
  HRACE_ENTER();
  int rc = PMPI_Win_create(base, size, disp_unit, info, comm, win);
  if (HRACE_ACTIVE() && rc == MPI_SUCCESS)
    hrace__win_register(*win, comm, HRACE_WIN_CREATE, base, size, disp_unit);
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                  void *baseptr, MPI_Win *win) {
  HRACE_ENTER();
  int rc = PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win);
  if (HRACE_ACTIVE() && rc == MPI_SUCCESS)
    hrace__win_register(*win, comm, HRACE_WIN_ALLOCATE, *(void **)baseptr, size, disp_unit);
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
                                         MPI_Comm comm, void *baseptr, MPI_Win *win) {
  HRACE_ENTER();
  int rc = PMPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr, win);
  if (HRACE_ACTIVE() && rc == MPI_SUCCESS)
    hrace__win_register(*win, comm, HRACE_WIN_SHARED, *(void **)baseptr, size, disp_unit);
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Win_set_name(MPI_Win win, const char *name) {
  HRACE_ENTER();
  int rc = PMPI_Win_set_name(win, name);
  hrace_win_t *w = HRACE_ACTIVE() && rc == MPI_SUCCESS ? hrace__win_of(win) : NULL;
  if (w) {
    hrace__win_lock();
    strncpy(w->name, name, sizeof w->name - 1);
    w->name[sizeof w->name - 1] = 0;
    hrace__win_unlock();
  }
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Win_free(MPI_Win *win) {
  HRACE_ENTER();
  hrace_win_t *w = HRACE_ACTIVE() ? hrace__win_of(*win) : NULL;
  if (w) hrace__win_unregister(w);
  int rc = PMPI_Win_free(win);
  HRACE_LEAVE();
  return rc;
}
