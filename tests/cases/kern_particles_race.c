/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 38 46
 */
/* Racy twin of kern_particles_norace.c: the particle kernel of bench/kernels/particles.c,
 * compact, without the barrier after MPI_Win_flush_all. Each rank puts the values of the
 * particles its neighbour reads, picked from x with an indexed-block datatype, into the
 * neighbour's ghost window under lock_all; the flush completes them at the target, but nothing
 * orders that before the target's force loop reads its ghosts. -DKEEP_SYNC puts the barrier
 * back: hrace must then report nothing (the case would fail). */
#include <mpi.h>
#include <stdlib.h>

enum { N = 64, G = 16 }; /* particles per rank, ghosts read from the other rank */

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  int other = (rank + 1) % p, pick[G];
  for (int k = 0; k < G; k++) pick[k] = (k * 37 + 5) % N; /* an irregular choice */
  MPI_Datatype idx;
  MPI_Type_create_indexed_block(G, 1, pick, MPI_DOUBLE, &idx);
  MPI_Type_commit(&idx);
  double x[N], f[N], *gh;
  MPI_Win win;
  MPI_Win_allocate(2 * G * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &gh,
                   &win);
  for (int i = 0; i < 2 * G; i++) gh[i] = 0;
  for (int i = 0; i < N; i++) x[i] = rank + i * 0.01;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  for (int it = 0; it < 4; it++) {
    int par = it & 1;
    MPI_Put(x, 1, idx, other, par * G, G, MPI_DOUBLE, win);
    MPI_Win_flush_all(win);
#ifdef KEEP_SYNC
    MPI_Barrier(MPI_COMM_WORLD);
#endif
    for (int i = 0; i < N; i++) f[i] = 0;
    for (int e = 0; e < 4 * N; e++) { /* particle e % N, ghost (e * 7) % G */
      int i = e % N;
      double xj = gh[par * G + (e * 7) % G];
      f[i] += xj - x[i];
    }
    for (int i = 0; i < N; i++) x[i] += 0.02 * f[i];
  }
  MPI_Win_unlock_all(win);
  MPI_Type_free(&idx);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
