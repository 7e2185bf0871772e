/* MPI latency with and without hrace (bench/README.md, "MPI"). The same binary runs both ways:
 * plain, and with libhrace preloaded (the PMPI layer; no load/store instrumentation here).
 *
 * usage: mpibench TEST ITERS REPS     TEST: ppN pp1m frame8 halo8 barrier allreduce self selfmt hdr
 *                                   hdrmt hdrmt2 ppmt ppmt2
 * Prints one line: TEST ranks median_us (median over REPS of the mean time per operation;
 * ping-pong of N bytes: one-way latency, half a round trip; halo8: both ranks exchange 8
 * bytes with Irecv + Isend + Waitall, time per exchange; frame8: an 8-byte ping-pong
 * framed by hand as hrace frames it, the floor of an in-band clock, for plain runs). `self` (one process): Irecv + Send + Wait of
 * 4 bytes to itself, the per-message cost of the MPI layer without a second busy-polling rank
 * (on this 2-core VM two ranks make ping-pong timings bimodal); `selfmt` the same after
 * MPI_Init_thread(MPI_THREAD_MULTIPLE). `hdr` prints the bytes a 0-byte message occupies on
 * the wire (PMPI_Probe sees hrace's frame); `hdrmt` the same after
 * MPI_Init_thread(MPI_THREAD_MULTIPLE). `ppmt` is pp8 after MPI_Init_thread(MPI_THREAD_MULTIPLE);
 * in `ppmt2` and `hdrmt2` a second thread of every rank first makes one MPI call (a barrier),
 * so every clock has a second non-zero entry per rank: with hrace's default (wire_slots=1)
 * each message then also carries its clock's tail in a second message (src/mpi/p2p.c). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void *second(void *arg) {
  (void)arg;
  MPI_Barrier(MPI_COMM_WORLD);
  return NULL;
}

int main(int argc, char **argv) {
  int rank, size, level;
  if (argc > 1 && (!strcmp(argv[1], "selfmt") || !strncmp(argv[1], "hdrmt", 5) ||
                   !strncmp(argv[1], "ppmt", 4)))
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
  else
    MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4) {
    if (!rank) fprintf(stderr, "usage: mpibench ppN|pp1m|frame8|halo8|barrier|allreduce|self|selfmt|hdr|hdrmt|hdrmt2|ppmt|ppmt2 ITERS REPS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *test = argv[1];
  int iters = atoi(argv[2]), reps = atoi(argv[3]);
  MPI_Barrier(MPI_COMM_WORLD);   /* the initial thread makes the first MPI call */
  if (!strcmp(test, "ppmt2") || !strcmp(test, "hdrmt2")) {
    pthread_t th;
    pthread_create(&th, NULL, second, NULL);
    pthread_join(th, NULL);
  }
  if (!strncmp(test, "hdr", 3)) {
    int bytes = 0;
    MPI_Status st;
    if (rank == 0) MPI_Send(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    if (rank == 1) {
      PMPI_Probe(0, 0, MPI_COMM_WORLD, &st);
      PMPI_Get_count(&st, MPI_BYTE, &bytes);
      MPI_Recv(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &st);
      printf("hdr %d %d\n", size, bytes);
    }
    MPI_Finalize();
    return 0;
  }
  size_t len = !strcmp(test, "pp1m") ? 1 << 20 : !strncmp(test, "ppmt", 4) ? 8
             : !strncmp(test, "pp", 2) ? strtoul(test + 2, NULL, 10) : 8;
  char *buf = calloc(len, 1);
  double *t = malloc(reps * sizeof *t), in = 1, out;
  for (int r = -1; r < reps; r++) {               /* r = -1: warm-up */
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
      if (!strncmp(test, "self", 4)) {
        MPI_Request rq;
        int v = i, w;
        MPI_Irecv(&w, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &rq);
        MPI_Send(&v, 1, MPI_INT, rank, 0, MPI_COMM_WORLD);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
      } else if (!strcmp(test, "halo8")) {
        /* A halo exchange's pattern: both ranks post an Irecv and an Isend of 8 bytes to each
         * other and complete them with one Waitall (the non-blocking path of real codes). */
        MPI_Request rq[2];
        char in8[8];
        if (rank < 2) {
          MPI_Irecv(in8, 8, MPI_BYTE, 1 - rank, 0, MPI_COMM_WORLD, &rq[0]);
          MPI_Isend(buf, 8, MPI_BYTE, 1 - rank, 0, MPI_COMM_WORLD, &rq[1]);
          MPI_Status st2[2];
          MPI_Waitall(2, rq, st2);
        }
      } else if (!strcmp(test, "frame8")) {
        /* What any in-band clock costs at least: 8 bytes framed by hand behind a 20-byte
         * header (hrace's at 2 ranks), sent as MPI_PACKED, the count read, copied out. */
        char fr[28];
        int got;
        for (int k = 0; k < 2 && rank < 2; k++) {
          if ((rank == 0) == (k == 0)) {
            memset(fr, 1, 20);
            memcpy(fr + 20, buf, 8);
            MPI_Send(fr, 28, MPI_PACKED, 1 - rank, 0, MPI_COMM_WORLD);
          } else {
            MPI_Status st;
            MPI_Recv(fr, 28, MPI_PACKED, 1 - rank, 0, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_BYTE, &got);
            memcpy(buf, fr + 20, (size_t)got - 20);
          }
        }
      } else if (test[0] == 'p') {
        if (rank == 0) {
          MPI_Send(buf, (int)len, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
          MPI_Recv(buf, (int)len, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
          MPI_Recv(buf, (int)len, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buf, (int)len, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
      } else if (!strcmp(test, "barrier")) {
        MPI_Barrier(MPI_COMM_WORLD);
      } else {
        MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      }
    }
    double dt = (MPI_Wtime() - t0) / iters * 1e6;
    if (test[0] == 'p' || !strcmp(test, "frame8")) dt /= 2;
    PMPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r >= 0) t[r] = dt;
  }
  qsort(t, reps, sizeof *t, cmp);
  if (rank == 0) printf("%s %d %.3f\n", test, size, t[reps / 2]);
  free(buf);
  free(t);
  MPI_Finalize();
  return 0;
}
