/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 59 60
 * openmp: yes
 * env: OMP_NUM_THREADS=4
 */
/* The twin of mpi_threads_any_norace (every completion form under MPI_THREAD_MULTIPLE, request
 * handles reused by the threads all the time): rank 1's threads store into the buffer of
 * their MPI_Isend before completing it. The received values are still checked: no
 * completion may lose a receive. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define NT 4
#define ITER 30

static void complete(MPI_Request *r, int n, int mode) {
  int left = 0, idx, flag, out, ids[2];
  for (int k = 0; k < n; k++) left += r[k] != MPI_REQUEST_NULL;
  while (left > 0) {
    switch (mode) {
    case 0: MPI_Waitany(n, r, &idx, MPI_STATUS_IGNORE); left--; break;
    case 1: MPI_Waitsome(n, r, &out, ids, MPI_STATUSES_IGNORE); left -= out; break;
    case 2: MPI_Testany(n, r, &idx, &flag, MPI_STATUS_IGNORE); left -= flag && idx != MPI_UNDEFINED; break;
    case 3: MPI_Testsome(n, r, &out, ids, MPI_STATUSES_IGNORE); left -= out; break;
    case 4: MPI_Testall(n, r, &flag, MPI_STATUSES_IGNORE); if (flag) left = 0; break;
    default:
      for (int k = 0; k < n; k++) {
        for (flag = 0; !flag;) MPI_Request_get_status(r[k], &flag, MPI_STATUS_IGNORE);
        MPI_Wait(&r[k], MPI_STATUS_IGNORE);
      }
      left = 0;
    }
  }
}

int main(int argc, char **argv) {
  int rank, provided, bad = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel num_threads(NT) reduction(+ : bad)
  {
    int t = omp_get_thread_num(), prev = (t + NT - 1) % NT, in, out;
    MPI_Request r[2];
    for (int i = 0; i < ITER; i++) {
      int mode = (i + t) % 6;
      if (rank == 0) {   /* echo thread t's message, plus one, to thread t + 1 */
        MPI_Irecv(&in, 1, MPI_INT, 1, t, MPI_COMM_WORLD, &r[0]);
        r[1] = MPI_REQUEST_NULL;
        complete(r, 2, mode);
        out = in + 1;
        MPI_Isend(&out, 1, MPI_INT, 1, (t + 1) % NT, MPI_COMM_WORLD, &r[1]);
        complete(r, 2, mode);
      } else {
        out = i * NT + t;   /* the last MPI_Isend's buffer: its request has completed */
        MPI_Irecv(&in, 1, MPI_INT, 0, t, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&out, 1, MPI_INT, 0, t, MPI_COMM_WORLD, &r[1]); /* ISEND */
        out = i * NT + t; /* STORE: the same value, but the buffer is MPI's until completion */
        complete(r, 2, mode);
        if (in != i * NT + prev + 1) bad++;
      }
    }
  }
  if (bad) fprintf(stderr, "rank %d: %d messages lost or wrong\n", rank, bad);
  MPI_Finalize();
  return bad != 0;
}
