/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 35 45
 * openmp: yes
 * env: HRACE_OPTIONS=exporters=2
 * mpi: mpich
 */
/* The twin of nb_part_omp_norace (exporters=2, slots shared as there): one of rank 0's threads
 * stores its window word after its MPI_Pready, so nothing orders that store before rank 1's
 * get, which follows the round. */
#include <mpi.h>
#include <stdio.h>

#define PARTS 8
#define PER 4

int main(int argc, char **argv) {
  int rank, provided, buf[PARTS * PER] = { 0 }, got[PARTS] = { 0 }, *base, sum = 0;
  MPI_Request r;
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(PARTS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  if (rank == 0) MPI_Psend_init(buf, PARTS, PER, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  else MPI_Precv_init(buf, PARTS, PER, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Start(&r);
#pragma omp parallel for num_threads(4) schedule(static, 1) reduction(+ : sum)
  for (int p = 0; p < PARTS; p++) {
    if (rank == 0) {
      for (int i = 0; i < PER; i++) buf[p * PER + i] = p + i;
      if (p != 5) base[p] = p;
      MPI_Pready(p, r);
      if (p == 5) base[p] = p; /* AFTER_PREADY */
    } else {
      int flag = 0;
      while (!flag) MPI_Parrived(r, p, &flag);
      for (int i = 0; i < PER; i++) sum += buf[p * PER + i];
    }
  }
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(got, PARTS, MPI_INT, 0, 0, PARTS, MPI_INT, win); /* GET */
    MPI_Win_unlock(0, win);
    for (int p = 0; p < PARTS; p++) sum += got[p];
  }
  printf("%d\n", sum);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Request_free(&r);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
