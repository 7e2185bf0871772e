/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 44 45
 * suppressions: report_suppress.supp
 */
/* Suppressions end to end: four races (two puts of one origin to one location in one epoch),
 * three of them matched by one rule each of report_suppress.supp (function, file:line,
 * window); only the fourth, which no rule names, is reported. */
#include <mpi.h>

static int one = 1, two = 2;

static void halo_exchange(MPI_Win win) {           /* function:halo_exchange */
  MPI_Put(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
  MPI_Put(&two, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
}

int main(int argc, char **argv) {
  int rank, *base, *scratch;
  MPI_Win win, swin;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &scratch, &swin);
  MPI_Win_set_name(win, "grid");
  MPI_Win_set_name(swin, "scratch");
  for (int i = 0; i < 4; i++) base[i] = 0;
  *scratch = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    halo_exchange(win);
    MPI_Put(&one, 1, MPI_INT, 1, 1, 1, MPI_INT, win);   /* file:report_suppress_race.c:34 */
    MPI_Put(&two, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);

    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, swin);
    MPI_Put(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, swin);  /* window:scratch */
    MPI_Put(&two, 1, MPI_INT, 1, 0, 1, MPI_INT, swin);
    MPI_Win_unlock(1, swin);

    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&one, 1, MPI_INT, 1, 2, 1, MPI_INT, win);   /* reported: no rule names it */
    MPI_Put(&two, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&swin);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
