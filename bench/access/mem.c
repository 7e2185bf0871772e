/* Peak memory of a program whose windows are a tenth of its memory (bench/README.md, "Loads
 * and stores"): MB megabytes in all, of which MB/10 in one window (with -DUSE_MPI; plain memory
 * otherwise), every byte written then read by instrumented loops with accesses of W bytes
 * (8, 4 or 1), then the peak resident set size from getrusage.
 *
 *   usage: mem MB W      prints "rss-kb N" and "window-mb M" */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#ifdef USE_MPI
#include <mpi.h>
#endif

__attribute__((noinline)) static void fill(void *p, size_t bytes, int w) {
  if (w == 8)
    for (size_t i = 0; i < bytes / 8; i++) ((uint64_t *)p)[i] = i;
  else if (w == 4)
    for (size_t i = 0; i < bytes / 4; i++) ((uint32_t *)p)[i] = (uint32_t)i;
  else
    for (size_t i = 0; i < bytes; i++) ((uint8_t *)p)[i] = (uint8_t)i;
}

__attribute__((noinline)) static uint64_t sum(const void *p, size_t bytes, int w) {
  uint64_t s = 0;
  if (w == 8)
    for (size_t i = 0; i < bytes / 8; i++) s += ((const uint64_t *)p)[i];
  else if (w == 4)
    for (size_t i = 0; i < bytes / 4; i++) s += ((const uint32_t *)p)[i];
  else
    for (size_t i = 0; i < bytes; i++) s += ((const uint8_t *)p)[i];
  return s;
}

int main(int argc, char **argv) {
  size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 512;
  int w = argc > 2 ? atoi(argv[2]) : 8;
  size_t total = mb << 20, wbytes = (total / 10) & ~(size_t)4095, rest = total - wbytes;
  char *win = aligned_alloc(4096, wbytes), *other = aligned_alloc(4096, rest);
  if (!win || !other) return 1;
#ifdef USE_MPI
  MPI_Init(&argc, &argv);
  MPI_Win mw;
  MPI_Win_create(win, (MPI_Aint)wbytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mw);
#endif
  fill(win, wbytes, w);
  fill(other, rest, w);
  uint64_t s = sum(win, wbytes, w) + sum(other, rest, w);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("rss-kb %ld\nwindow-mb %zu\nsum %llu\n", ru.ru_maxrss, wbytes >> 20, (unsigned long long)s);
#ifdef USE_MPI
  MPI_Win_free(&mw);
  MPI_Finalize();
#endif
  return 0;
}
