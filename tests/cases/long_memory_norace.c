/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Issue 21 item 4: memory stays flat over an arbitrarily long run. Each rank runs fence epochs
 * that store into its window from three code addresses and put one element to its neighbour:
 * about 5 new access descriptors per epoch, which hrace kept for good before the descriptor
 * sweep (56 bytes each: 11 MiB over the 40 000 epochs measured here). The peak resident set
 * (getrusage) after 10 000 epochs and after 40 000 more must differ by less than 6 MiB; the
 * program fails (exit status 1) otherwise. No timing is involved. (It was 30 000 + 90 000: on
 * MPICH at a load average of 28 each fence's hand-offs through the progress threads took
 * milliseconds and the run passed the case runner's 150 s; the growth after 10 000 epochs is
 * 0-384 KiB, far below the margin, and the leak it guards against is still twice the margin.) */
#include <mpi.h>
#include <stdio.h>
#include <sys/resource.h>

enum { WARM = 10000, MORE = 40000, MARGIN_KB = 6 * 1024 };

static long peak_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

static void epochs(double *mem, MPI_Win win, int rank, int n) {
  for (int i = 0; i < n; i++) {
    mem[i % 8] = i;
    mem[8 + i % 8] += mem[i % 8];
    MPI_Put(&mem[8 + i % 8], 1, MPI_DOUBLE, 1 - rank, 16 + i % 8, 1, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
  }
}

int main(int argc, char **argv) {
  int rank;
  double *mem;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                   &win);
  MPI_Win_fence(0, win);
  epochs(mem, win, rank, WARM);
  long warm = peak_kb();
  epochs(mem, win, rank, MORE);
  long grew = peak_kb() - warm;
  int bad = grew >= MARGIN_KB, any;
  if (bad) fprintf(stderr, "long_memory: rank %d grew by %ld KiB over %d epochs\n", rank, grew, MORE);
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return any;
}
