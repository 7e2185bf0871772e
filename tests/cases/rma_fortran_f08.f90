! Fortran side of rma_fortran_f08_race.c and rma_fortran_f08_norace.c: a token travels from
! rank 0 to rank 2 through rank 1 by `use mpi_f08` calls (Isend / Wait, Recv, Send, Recv).
subroutine fchain(rank) bind(c, name="fchain")
  use iso_c_binding
  use mpi_f08
  implicit none
  integer(c_int), value :: rank
  type(MPI_Request) :: req
  integer :: tok
  tok = 0
  if (rank == 0) then
    call MPI_Isend(tok, 1, MPI_INTEGER, 1, 3, MPI_COMM_WORLD, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
  else if (rank == 1) then
    call MPI_Recv(tok, 1, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call MPI_Send(tok, 1, MPI_INTEGER, 2, 3, MPI_COMM_WORLD)
  else
    call MPI_Recv(tok, 1, MPI_INTEGER, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  end if
end subroutine
