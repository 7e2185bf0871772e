/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 55 62
 * mpi: openmpi
 */
/* Twin of pscw3_busy_norace: in the last round rank 2 receives rank 0's message only after its
 * own epoch, so its put into rank 1's x[0] is not ordered with rank 0's. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#define ROUNDS 2000

int main(int argc, char **argv) {
  int rank, *x, token = 0, sum = 0;
  char path[64];
  MPI_Win win;
  MPI_Group world, g;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = x[1] = 0;
  int id = (int)getpid();
  MPI_Bcast(&id, 1, MPI_INT, 1, MPI_COMM_WORLD);
  snprintf(path, sizeof path, "/tmp/pscw3_busy.%d", id);
  int fd = -1;
  if (rank == 1) fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 2) fd = open(path, O_RDWR);
  if (rank != 0 && fd < 0) MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  if (rank == 1) {
    int origins[2] = {0, 2};
    MPI_Group_incl(world, 2, origins, &g);
  } else {
    int target = 1;
    MPI_Group_incl(world, 1, &target, &g);
  }
  for (int r = 1; r <= ROUNDS; r++) {
    if (rank == 1) {
      MPI_Win_post(g, 0, win);
      volatile double acc = 0;
      int done = 0;
      while (done != r) {   /* busy, outside MPI, until rank 2's epoch is over */
        for (int k = 0; k < 200; k++) acc += k * 0.5;
        if (pread(fd, &done, sizeof done, 0) != sizeof done) done = 0;
      }
      MPI_Win_wait(win);
      sum += x[0];
    } else if (rank == 0) {
      int v = r;
      MPI_Win_start(g, 0, win);
      MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
      MPI_Win_complete(win);
      MPI_Send(&token, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
    } else {
      int v = -r;
      if (r < ROUNDS) MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Win_start(g, 0, win);
      MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
      MPI_Win_complete(win);
      if (r == ROUNDS) MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (pwrite(fd, &r, sizeof r, 0) != sizeof r) MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  MPI_Group_free(&g);
  MPI_Group_free(&world);
  MPI_Barrier(MPI_COMM_WORLD);
  if (fd >= 0) close(fd);
  if (rank == 1) {
    unlink(path);
    printf("%d\n", sum == -ROUNDS * (ROUNDS + 1) / 2 ? 0 : 1);
  }
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
