/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 29 32
 */
/* Operation records larger than a shared-memory ring (core/chan.c: 64 KiB): each put of a
 * strided type is one record of 20000 ranges (320 KB), which goes through the ring in pieces,
 * and eight of them wrap it around many times. Racing twin of shm_wrap_norace: rank 1 reads the
 * last element the odd puts write before the barrier that orders them. */
#include <mpi.h>

#define N 20000
int src[2 * N], got;   /* globals: clang 14 leaves stores to stack variables uninstrumented */

int main(int argc, char **argv) {
  int rank, *x;
  MPI_Win win;
  MPI_Datatype vec;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(2 * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 2 * N; i++) x[i] = 0, src[i] = i;
  MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    for (int it = 0; it < 8; it++) {
      MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
      MPI_Put(src + (it & 1), 1, vec, 1, it & 1, 1, vec, win);
      MPI_Win_unlock(1, win);
    }
  if (rank == 1) got = x[2 * N - 1];
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Type_free(&vec);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
