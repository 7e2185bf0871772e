/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 30 27
 * pair: 37 35
 * mpi: mpich
 */
/* MPI-4 partitioned communication (MPICH only here: Open MPI 4.1 has no MPI-4). A send
 * partition is MPI's from its MPI_Pready to the completion of the round: rank 0 stores into
 * partition 0 after readying it. The receive buffer is MPI's from MPI_Start until a
 * partition is reported arrived (MPI_Parrived) or the round completes: rank 1 loads from
 * partition 3 without asking. Each race names the access and the init call. */
#include <mpi.h>
#include <stdio.h>

#define PARTS 4
#define PER 2

int main(int argc, char **argv) {
  int rank, x = 0, buf[PARTS * PER] = { 0 };
  MPI_Request r;
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    for (int i = 0; i < PARTS * PER; i++) buf[i] = i;
    MPI_Psend_init(buf, PARTS, PER, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &r); /* PSEND_INIT */
    MPI_Start(&r);
    MPI_Pready_range(0, 1, r);
    buf[1] = 7; /* SEND_STORE */
    MPI_Pready(2, r);
    MPI_Pready(3, r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else {
    MPI_Precv_init(buf, PARTS, PER, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &r); /* PRECV_INIT */
    MPI_Start(&r);
    x = buf[7]; /* RECV_LOAD */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  printf("%d %d\n", x, buf[0]);
  MPI_Request_free(&r);
  MPI_Finalize();
  return 0;
}
