/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 34 43
 */
/* Twin of wait_serve_norace (the waits that serve, docs/mpi.md): in round 201 rank 1 reads
 * its left neighbour's slot between its Isends and its waits, while rank 0's put into it may
 * still be on its way. Rank 0 starts that round late, so that rank 1 is inside its waits when
 * the record and the ping come: the wait applies them itself. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#define ROUNDS 400

int main(int argc, char **argv) {
  int rank, p, bad = 0;
  long early = 0;
  long *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 4; i++) x[i] = -1;
  int left = (rank + p - 1) % p, right = (rank + 1) % p;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  for (int r = 0; r < ROUNDS; r++) {
    long v = 10L * r + rank;
    int par = r & 1, got[2] = { -1, -1 }, me = rank;
    if (r == 201 && rank == 0) usleep(20000);   /* rank 1 waits when the record comes */
    /* slot 2 * par + 0 holds the left neighbour's value, 2 * par + 1 the right one's */
    MPI_Put(&v, 1, MPI_LONG, right, 2 * par, 1, MPI_LONG, win);
    MPI_Put(&v, 1, MPI_LONG, left, 2 * par + 1, 1, MPI_LONG, win);
    MPI_Win_flush_all(win);
    MPI_Request rq[4];
    MPI_Status st[4];
    MPI_Irecv(&got[0], 1, MPI_INT, MPI_ANY_SOURCE, 2 * r, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(&got[1], 1, MPI_INT, MPI_ANY_SOURCE, 2 * r + 1, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(&me, 1, MPI_INT, left, 2 * r + 1, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(&me, 1, MPI_INT, right, 2 * r, MPI_COMM_WORLD, &rq[3]);
    if (r == 201 && rank == 1) early = x[2 * par];
    if (!par) {
      MPI_Waitall(4, rq, st);
    } else {
      for (int i = 0; i < 4; i++) MPI_Wait(&rq[i], &st[i]);
    }
    int s0 = st[0].MPI_SOURCE, s1 = st[1].MPI_SOURCE;
    if (s0 != left || got[0] != left || s1 != right || got[1] != right) bad++;
    if (x[2 * par] != 10L * r + left || x[2 * par + 1] != 10L * r + right) bad++;
  }
  MPI_Win_unlock_all(win);
  if (rank == 1) printf("%ld\n", early);
  if (bad) printf("rank %d: %d bad rounds\n", rank, bad);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
