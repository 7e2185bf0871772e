/* hrace-test
 * ranks: 2
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=4
 */
/* MPI_THREAD_MULTIPLE and every completion form at once: four threads per rank each post
 * MPI_Irecv + MPI_Isend and finish them with MPI_Waitany, Waitsome, Testany, Testsome,
 * Testall or Request_get_status + Wait, in a loop, so request handles are freed and reused
 * by the threads all the time (and Open MPI gives every isend sent at once the same handle).
 * A completion wrapper that looked a handle up after MPI freed it could find another
 * thread's new request there: that receive would never be unpacked (its value is checked
 * below) and its buffers never finished; a state finished by the wrong thread gets that
 * thread's clock, and the next iteration's store into `out` races with the last MPI_Isend. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define NT 4
#define ITER 60

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
        MPI_Isend(&out, 1, MPI_INT, 0, t, MPI_COMM_WORLD, &r[1]);
        complete(r, 2, mode);
        if (in != i * NT + prev + 1) bad++;
      }
    }
  }
  if (bad) fprintf(stderr, "rank %d: %d messages lost or wrong\n", rank, bad);
  MPI_Finalize();
  return bad != 0;
}
