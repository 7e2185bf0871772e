/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 38 40
 * diagnostic: 34
 * diagnostic: 35
 * diagnostic: 36
 * diagnostic: 37
 */
/* Argument errors that MPI may crash, hang or abort on (issue 22 item 8) are diagnosed with
 * the caller's line before the call, which then goes to MPI unchanged (errors return here, so
 * the program goes on): a datatype never committed (RMA and point-to-point), a target rank
 * outside the window's group, a NULL buffer with a count. hrace keeps working: the put's real
 * race with rank 1's store is still found. (A displacement outside the target's window:
 * rma_misuse_race, Open MPI only, as MPICH writes past the window. A NULL origin buffer in
 * MPI_Put is diagnosed too, but Open MPI then crashes in the call.) */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base, v[4] = { 1, 2, 3, 4 }, rc = 0;
  MPI_Win win;
  MPI_Datatype vec;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
  for (int i = 0; i < 8; i++) base[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    rc |= MPI_Put(v, 1, vec, 1, 0, 1, vec, win); /* UNCOMMITTED */
    rc |= MPI_Put(v, 1, MPI_INT, 5, 0, 1, MPI_INT, win); /* RANK */
    rc |= MPI_Send(NULL, 2, MPI_INT, 1, 0, MPI_COMM_WORLD); /* SEND_NULL */
    rc |= MPI_Send(v, 1, vec, 1, 0, MPI_COMM_WORLD); /* SEND_UNCOMMITTED */
    MPI_Put(v, 1, MPI_INT, 1, 1, 1, MPI_INT, win); /* PUT */
  } else {
    base[1] = 5; /* STORE */
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%s\n", rc ? "errors returned" : "no error");
  MPI_Type_free(&vec);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
