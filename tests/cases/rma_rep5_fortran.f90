! Fortran side of rma_rep5_fortran_race.c and rma_rep5_fortran_norace.c: identical calls from two
! lines of one activation, through the MPI library's Fortran binding (whose code is the C
! wrapper's return address for both lines: rma/ops.c keeps no hot repeat by it).
subroutine rep5_gets(win) bind(c, name="rep5_gets")
  use iso_c_binding
  use mpi
  implicit none
  integer(c_int), value :: win
  integer, save :: buf(1)
  integer :: i, ierr
  integer(kind=MPI_ADDRESS_KIND) :: disp
  disp = 0
  do i = 1, 4
    if (i < 4) then
      call MPI_Get(buf, 1, MPI_INTEGER, 1, disp, 1, MPI_INTEGER, win, ierr)
    else
      call MPI_Get(buf, 1, MPI_INTEGER, 1, disp, 1, MPI_INTEGER, win, ierr)
    end if
  end do
end subroutine

subroutine rep5_accs(win) bind(c, name="rep5_accs")
  use iso_c_binding
  use mpi
  implicit none
  integer(c_int), value :: win
  integer, save :: one(1) = 1
  integer :: i, ierr
  integer(kind=MPI_ADDRESS_KIND) :: disp
  disp = 0
  do i = 1, 4
    if (i < 4) then
      call MPI_Accumulate(one, 1, MPI_INTEGER, 1, disp, 1, MPI_INTEGER, MPI_SUM, win, ierr)
    else
      call MPI_Accumulate(one, 1, MPI_INTEGER, 1, disp, 1, MPI_INTEGER, MPI_SUM, win, ierr)
    end if
  end do
end subroutine
