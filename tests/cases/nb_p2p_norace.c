/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* The twin of nb_p2p_race: loads of a send buffer in flight are allowed (MPI-3.1 Sec. 3.7.2:
 * the sender "should not modify" it), as are accesses to the holes of a derived receive type
 * and every access after the request completed: by MPI_Wait, by a successful MPI_Test, or by
 * MPI_Request_get_status returning flag = 1. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, buf[4] = { 1, 2, 3, 4 }, in[4] = { 0 }, pin[2] = { 0 }, x = 0, flag = 0;
  MPI_Request r;
  MPI_Datatype every_other;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  if (rank == 0) {
    MPI_Isend(buf, 2, MPI_INT, 1, 0, MPI_COMM_WORLD, &r);
    x = buf[0] + buf[1];
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    buf[2] = 7;
    MPI_Send(buf, 2, MPI_INT, 1, 1, MPI_COMM_WORLD);
    MPI_Send(buf, 2, MPI_INT, 1, 2, MPI_COMM_WORLD);
  } else {
    MPI_Irecv(in, 1, every_other, 0, 0, MPI_COMM_WORLD, &r);
    in[1] = 9; /* a hole of the vector */
    while (!flag) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    x = in[0] + in[1] + in[2];
    MPI_Recv_init(pin, 2, MPI_INT, 0, 1, MPI_COMM_WORLD, &r);
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Request_free(&r);
    pin[0] = 5;
    MPI_Irecv(in, 2, MPI_INT, 0, 2, MPI_COMM_WORLD, &r);
    flag = 0;
    while (!flag) MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
    x += in[0];
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  printf("%d %d %d\n", x, in[0], pin[1]);
  MPI_Type_free(&every_other);
  MPI_Finalize();
  return 0;
}
