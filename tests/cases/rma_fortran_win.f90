! Fortran side of rma_fortran_win_race.c and rma_fortran_win_norace.c: everything is Fortran
! (`use mpi`): the window is a Fortran array, rank 0 puts into rank 1's, and rank 1 loads it.
! With ordered /= 0 the put is ordered before the load by a message that rank 1 completes with
! MPI_Waitany (whose 1-based index Open MPI's binding converts after hrace's wrapper returns).
subroutine fmain(ordered) bind(c, name="fmain")
  use iso_c_binding
  use mpi
  implicit none
  integer(c_int), value :: ordered
  integer :: ierr, rank, win, v, tok, idx
  integer :: s = 0
  ! The window is a local array: gfortran from -O1 on (MPICH's mpifort passes -O2) treats it
  ! as not escaping and would leave its accesses uninstrumented, had hrace-fort not turned
  ! that analysis off (-fno-tree-pta; docs/access.md).
  integer :: a(4)
  integer :: reqs(2)
  integer(kind=MPI_ADDRESS_KIND) :: disp, sz
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  a = 0
  v = 5
  tok = 0
  disp = 2
  sz = 16
  call MPI_Win_create(a, sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win, ierr)
    call MPI_Put(v, 1, MPI_INTEGER, 1, disp, 1, MPI_INTEGER, win, ierr)
    call MPI_Win_unlock(1, win, ierr)
    call MPI_Send(tok, 1, MPI_INTEGER, 1, 9, MPI_COMM_WORLD, ierr)
  else
    reqs(1) = MPI_REQUEST_NULL
    call MPI_Irecv(tok, 1, MPI_INTEGER, 0, 9, MPI_COMM_WORLD, reqs(2), ierr)
    if (ordered /= 0) then
      call MPI_Waitany(2, reqs, idx, MPI_STATUS_IGNORE, ierr)
      if (idx /= 2) then
        print *, "MPI_Waitany returned index", idx, "instead of 2"
        call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
      end if
    end if
    s = a(3)
    if (ordered == 0) call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 1) print *, "rank 1:", s
  call MPI_Win_free(win, ierr)
end subroutine
