/* hrace-test
 * ranks: 2
 * expect: no-race
 * openmp: yes
 * env: HRACE_OPTIONS=exporters=2
 * mpi: mpich
 */
/* Partitioned communication fed by OpenMP threads (MPI_THREAD_MULTIPLE), the use it is made
 * for (MPI-4.0 Sec. 4.2.2): each thread of rank 0 fills its partitions, stores a word into its
 * window, and readies them with MPI_Pready, concurrently; rank 1's threads each wait for a
 * partition with MPI_Parrived and then read it. After its round completes, rank 1 gets rank
 * 0's window words: each was stored before a Pready, so the round's clock (the join of every
 * Pready's caller, not only the last one's) orders them before the get. Two exporter slots for
 * four MPI-calling threads (exporters=2), so three share the last: a sharer that numbered its
 * publication inside its first owner's run made this program report a false race (fixed in
 * clocks/exporter.c, append_lockstep; hyb_slot_send_norace is the MPI_Send form of it). */
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
      base[p] = p;
      MPI_Pready(p, r);
    } else {
      int flag = 0;
      while (!flag) MPI_Parrived(r, p, &flag);
      for (int i = 0; i < PER; i++) sum += buf[p * PER + i];
    }
  }
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(got, PARTS, MPI_INT, 0, 0, PARTS, MPI_INT, win);
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
