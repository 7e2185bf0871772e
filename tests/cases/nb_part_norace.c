/* hrace-test
 * ranks: 2
 * expect: no-race
 * mpi: mpich
 */
/* The twin of nb_part_race, over three rounds of one partitioned pair: rank 0 fills each
 * partition before its MPI_Pready (MPI_Pready_list, _range and single ones) and only loads
 * partitions already readied; rank 1 loads a partition once MPI_Parrived says it arrived, and
 * the rest after the round completes (MPI_Wait, or MPI_Test until it succeeds). */
#include <mpi.h>
#include <stdio.h>

#define PARTS 4
#define PER 2

int main(int argc, char **argv) {
  int rank, x = 0, flag = 0, buf[PARTS * PER] = { 0 };
  MPI_Request r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) MPI_Psend_init(buf, PARTS, PER, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  else MPI_Precv_init(buf, PARTS, PER, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  for (int round = 0; round < 3; round++) {
    MPI_Start(&r);
    if (rank == 0) {
      int first[2] = { 2, 0 };
      for (int i = 0; i < PER; i++) buf[2 * PER + i] = buf[i] = round + i;
      MPI_Pready_list(2, first, r);
      x += buf[0] + buf[2 * PER];
      buf[PER] = buf[3 * PER] = round;
      MPI_Pready_range(1, 1, r);
      MPI_Pready(3, r);
      x += buf[PER];
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      flag = 0;
      while (!flag) MPI_Parrived(r, 1, &flag);
      x += buf[PER];
      flag = 0;
      while (!flag) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
      x += buf[0] + buf[3 * PER + 1];
    }
    buf[1] = -1;   /* between rounds: everyone's */
  }
  printf("%d\n", x);
  MPI_Request_free(&r);
  MPI_Finalize();
  return 0;
}
