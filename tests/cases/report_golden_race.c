/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 21 34
 * pair: 37 38
 * golden: report_golden
 */
/* Representative races whose reports are kept as golden files (tests/golden/report_golden.*,
 * stable fields only): a window on a global array (the report names the variable), a load
 * made inside an inlined accessor (the stack shows it inlined in main), and an accumulate
 * racing with a put (the hint says accumulates are atomic only with accumulates). Ranks are
 * ordered with PMPI_Barrier, which hrace does not see: rank 1 loads before rank 0 puts, so
 * the put's record, whenever it is delivered (an unlock does not wait for it), finds the load
 * and the sides come in one order in every run. */
#include <mpi.h>
#include <stdio.h>

int grid[8];

static inline __attribute__((always_inline)) int cell(int i) {
  return grid[i];
}

int main(int argc, char **argv) {
  int rank, one = 1;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(grid, sizeof grid, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_set_name(win, "grid");
  if (rank == 0) {
    PMPI_Barrier(MPI_COMM_WORLD);                       /* invisible: rank 1 has loaded */
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Put(&one, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Accumulate(&one, 1, MPI_INT, 1, 5, 1, MPI_INT, MPI_SUM, win);
    MPI_Put(&one, 1, MPI_INT, 1, 5, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
  } else {
    int seen;
    seen = cell(2);                                     /* before rank 0's put */
    PMPI_Barrier(MPI_COMM_WORLD);
    printf("rank 1 read %d\n", seen);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
