/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Every receive form joins the sender's clock and delivers the application's data and count:
 * Recv with MPI_ANY_SOURCE / MPI_ANY_TAG, Probe + Recv, Mprobe + Mrecv, Improbe + Imrecv,
 * Sendrecv, Sendrecv_replace, a zero-size message, a large message (no-copy framing), a
 * strided datatype, an Irecv seen complete by MPI_Request_get_status before its MPI_Wait (both
 * statuses count the application's data), and MPI_PROC_NULL (no message, no edge). */
#include "mpi_clk.h"

#define BIG (1 << 16)
static int big[BIG];

static void expect_int(const char *what, int got, int want) {
  if (got != want) printf("not ok - %s: got %d, want %d\n", what, got, want), clk_failed = 1;
}

int main(int argc, char **argv) {
  int rank, x = 0, n = 0, flag = 0, buf[8];
  MPI_Status st;
  MPI_Message m;
  MPI_Request r;
  MPI_Datatype vec;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  clk_init();
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  for (int k = 0; k < 9; k++) {
    stamp_t pre = stamp();
    view_t v = view();
    int peer = 1 - rank;
    if (rank == 0) {
      x = 100 + k;
      for (int i = 0; i < 8; i++) buf[i] = i + 10 * k;
      if (k == 0) MPI_Send(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
      if (k == 1) MPI_Send(buf, 5, MPI_INT, 1, 4, MPI_COMM_WORLD);
      if (k == 2) MPI_Send(buf, 6, MPI_INT, 1, 5, MPI_COMM_WORLD);
      if (k == 3) MPI_Send(buf, 7, MPI_INT, 1, 6, MPI_COMM_WORLD);
      if (k == 4) MPI_Sendrecv(&x, 1, MPI_INT, peer, 7, buf, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &st);
      if (k == 5) MPI_Send(NULL, 0, MPI_INT, 1, 8, MPI_COMM_WORLD);
      if (k == 6) {
        for (int i = 0; i < BIG; i++) big[i] = i;
        MPI_Send(big, BIG, MPI_INT, 1, 9, MPI_COMM_WORLD);
      }
      if (k == 7) MPI_Send(buf, 1, vec, 1, 10, MPI_COMM_WORLD);
      if (k == 8) MPI_Send(buf, 3, MPI_INT, 1, 11, MPI_COMM_WORLD);
    } else {
      if (k == 0) {
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        expect_int("ANY_SOURCE/ANY_TAG data", x, 100);
        expect_int("status source", st.MPI_SOURCE, 0);
        expect_int("status tag", st.MPI_TAG, 3);
      }
      if (k == 1) {
        MPI_Probe(0, 4, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        expect_int("MPI_Probe count", n, 5);
        MPI_Recv(buf, 8, MPI_INT, 0, 4, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        expect_int("MPI_Recv count", n, 5);
        expect_int("data", buf[4], 14);
      }
      if (k == 2) {
        MPI_Mprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &m, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        expect_int("MPI_Mprobe count", n, 6);
        MPI_Mrecv(buf, n, MPI_INT, &m, &st);
        expect_int("MPI_Mrecv data", buf[5], 25);
      }
      if (k == 3) {
        do MPI_Improbe(0, 6, MPI_COMM_WORLD, &flag, &m, &st); while (!flag);
        MPI_Imrecv(buf, 8, MPI_INT, &m, &r);
        MPI_Wait(&r, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        expect_int("MPI_Imrecv count", n, 7);
        expect_int("MPI_Imrecv data", buf[6], 36);
      }
      if (k == 4) {
        x = 7;
        MPI_Sendrecv_replace(&x, 1, MPI_INT, peer, 7, peer, 7, MPI_COMM_WORLD, &st);
        expect_int("MPI_Sendrecv_replace data", x, 104);
      }
      if (k == 5) {
        MPI_Recv(buf, 8, MPI_INT, 0, 8, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        expect_int("zero-size count", n, 0);
      }
      if (k == 6) {
        MPI_Recv(big, BIG, MPI_INT, 0, 9, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        expect_int("large count", n, BIG);
        expect_int("large data", big[BIG - 1], BIG - 1);
      }
      if (k == 7) {
        int got[8] = { 0 };
        MPI_Recv(got, 1, vec, 0, 10, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, vec, &n);
        expect_int("vector count", n, 1);
        expect_int("vector data", got[4], 74);
        expect_int("vector hole untouched", got[3], 0);
      }
      if (k == 8) {
        flag = 0;
        MPI_Irecv(buf, 8, MPI_INT, 0, 11, MPI_COMM_WORLD, &r);
        while (!flag) MPI_Request_get_status(r, &flag, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        expect_int("MPI_Request_get_status count", n, 3);
        MPI_Wait(&r, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        expect_int("MPI_Wait count after MPI_Request_get_status", n, 3);
        expect_int("data after MPI_Request_get_status", buf[2], 82);
      }
      v = view();
    }
    check_hb(0, pre, 1, v, 1, "send -> each receive form");
  }
  stamp_t pre = stamp();
  MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
  MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
  expect_int("MPI_PROC_NULL source", st.MPI_SOURCE, MPI_PROC_NULL);
  check_hb(0, pre, 1, view(), 0, "MPI_PROC_NULL orders nothing");
  MPI_Type_free(&vec);
  return clk_finish();
}
