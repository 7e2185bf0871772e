/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * env: HRACE_OPTIONS=task_clocks=0
 */
/* omp_depend_norace with no task clocks (task_clocks=0): the tasks run on their threads'
 * clocks, and creation, dependence and completion edges must still order them. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, provided, *base;
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 8; i++) base[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  int x = 0;
  #pragma omp parallel num_threads(2)
  #pragma omp single
  {
    #pragma omp task depend(out : base[5])
    base[5] = 1;
    #pragma omp task depend(in : base[5])
    x = base[5];
  }
  printf("%d\n", x);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
