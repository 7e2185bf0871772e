! Fortran side of rma_fortran_mpi_race.c and rma_fortran_mpi_norace.c: the RMA epoch and the
! barrier are Fortran MPI calls (`use mpi`). MPICH's Fortran bindings call the C MPI_* symbols;
! Open MPI's call PMPI_*, and hrace routes them to its wrappers (src/mpi/fortran.c).
subroutine fput(fwin, v, target) bind(c, name="fput")
  use iso_c_binding
  use mpi
  implicit none
  integer(c_int), value :: fwin, target
  integer(c_int) :: v
  integer :: ierr
  integer(kind=MPI_ADDRESS_KIND) :: disp
  disp = 0
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, fwin, ierr)
  call MPI_Put(v, 1, MPI_INTEGER, target, disp, 1, MPI_INTEGER, fwin, ierr)
  call MPI_Win_unlock(target, fwin, ierr)
end subroutine

subroutine fbarrier() bind(c, name="fbarrier")
  use mpi
  implicit none
  integer :: ierr
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
end subroutine
