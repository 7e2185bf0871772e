! Fortran side of rma_fortran_f08_fence_race.c and rma_fortran_f08_fence_norace.c: the whole
! program but main is `use mpi_f08`, MPI_Init and MPI_Finalize included. Rank 0 puts into
! rank 1's window in a fence epoch; rank 1 loads the element. With ordered /= 0 a fence
! separates the put from the load. On MPICH, mpi_init_f08_, mpi_win_allocate_f08_ and
! mpi_win_fence_f08_ call PMPI_* (the put, with its choice buffer, calls the C MPI_Put); on Open
! MPI every binding does: src/mpi/fortran.c routes them to hrace's wrappers.
subroutine fmain(ordered) bind(c, name="fmain")
  use iso_c_binding
  use mpi_f08
  implicit none
  integer(c_int), value :: ordered
  interface
    ! PMPI_Barrier from C: ranks meet without an edge hrace can see (the f08 PMPI_Barrier
    ! shares its binding with MPI_Barrier's, and is routed to the wrapper as well).
    subroutine invisible_barrier() bind(c, name="invisible_barrier")
    end subroutine
  end interface
  type(MPI_Win) :: win
  type(c_ptr) :: base
  integer, pointer :: a(:)
  integer :: rank, v, s
  integer(kind=MPI_ADDRESS_KIND) :: disp, sz
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  sz = 16
  call MPI_Win_allocate(sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, base, win)
  call c_f_pointer(base, a, [4])
  a = 0
  v = 5
  s = 0
  disp = 2
  call MPI_Win_fence(0, win)
  if (rank == 0) call MPI_Put(v, 1, MPI_INTEGER, 1, disp, 1, MPI_INTEGER, win)
  if (ordered /= 0) call MPI_Win_fence(0, win)
  call invisible_barrier()
  if (rank == 1) s = a(3)
  call MPI_Win_fence(0, win)
  if (rank == 1) print *, "rank 1:", s
  call MPI_Win_free(win)
  call MPI_Finalize()
end subroutine
