/* hrace-test
 * ranks: 3
 * expect: no-race
 * mpi: mpich
 */
/* The twin of nb_pcoll_race: the root loads its MPI_Bcast_init buffer during a round (MPI
 * only reads it there), every rank loads the send buffer of its MPI_Allreduce_init round, and
 * every other use is between rounds: after MPI_Wait, a successful MPI_Test, MPI_Waitall of
 * rounds started together by MPI_Startall, or MPI_Request_get_status returning flag = 1.
 * MPI_Barrier_init has no buffers. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, x = 0, flag = 0, b[2] = { 0, 0 }, s[2] = { 1, 2 }, r[2], sv[3] = { 1, 2, 3 }, rv[3] = { 0 };
  int ones[3] = { 1, 1, 1 }, displs[3] = { 0, 1, 2 };
  MPI_Request q[3], bar;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Bcast_init(b, 2, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]);
  MPI_Allreduce_init(s, r, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]);
  MPI_Alltoallv_init(sv, ones, displs, MPI_INT, rv, ones, displs, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &q[2]);
  MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &bar);
  for (int round = 0; round < 3; round++) {
    if (rank == 0) b[0] = b[1] = 5 + round;
    s[0] = round;
    sv[rank] = round;
    MPI_Start(&q[0]);
    if (rank == 0) x += b[1];
    while (!flag) MPI_Test(&q[0], &flag, MPI_STATUS_IGNORE);
    flag = 0;
    x += b[0];
    MPI_Startall(2, &q[1]);
    x += s[1];
    MPI_Waitall(2, &q[1], MPI_STATUSES_IGNORE);
    x += r[0] + rv[2];
    MPI_Start(&bar);
    x += r[1];
    while (!flag) MPI_Request_get_status(bar, &flag, MPI_STATUS_IGNORE);
    flag = 0;
    MPI_Wait(&bar, MPI_STATUS_IGNORE);
  }
  printf("%d\n", x);
  for (int i = 0; i < 3; i++) MPI_Request_free(&q[i]);
  MPI_Request_free(&bar);
  MPI_Finalize();
  return 0;
}
