! Fortran side of access_fortran_race.c and access_fortran_norace.c, built with hrace-fort
! (gfortran): stores in a loop, an array assignment, and loads through an intrinsic, on memory
! the C side exposes in a window (Open MPI's Fortran bindings bypass hrace's C wrappers, so the
! MPI calls stay in C).
subroutine fstore(a, n) bind(c, name="fstore")
  use iso_c_binding
  integer(c_int), value :: n
  real(c_double), intent(inout) :: a(n)
  integer :: i
  do i = 1, n
    a(i) = i
  end do
end subroutine

subroutine fzero(a, n) bind(c, name="fzero")
  use iso_c_binding
  integer(c_int), value :: n
  real(c_double), intent(inout) :: a(n)
  a(1:n) = 0.5d0
end subroutine

function fsum(a, n) bind(c, name="fsum")
  use iso_c_binding
  integer(c_int), value :: n
  real(c_double), intent(in) :: a(n)
  real(c_double) :: fsum
  fsum = sum(a(1:n))
end function
