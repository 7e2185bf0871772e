#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int prov, n = argc > 1 ? atoi(argv[1]) : 10000;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
  int *a = calloc(n, sizeof *a);
  double t = MPI_Wtime();
  #pragma omp parallel num_threads(2)
  #pragma omp single
  {
    for (int i = 0; i < n; i++) {
      #pragma omp task firstprivate(i)
      a[i] = i;
    }
    #pragma omp taskwait
  }
  t = MPI_Wtime() - t;
  printf("%d tasks: %.1f ms\n", n, t * 1e3);
  MPI_Finalize();
  return 0;
}
