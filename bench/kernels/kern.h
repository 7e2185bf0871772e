/* Shared by the application kernels of bench/kernels (bench/README.md, "Application kernels"):
 * timing, peak memory, the result line and a small deterministic random generator.
 *
 * Every kernel prints one line on rank 0:
 *   KERNEL <name> <variant> ranks <p> size <n> iters <k> time <s> rss_kb <kb> OK|FAIL
 * time: the timed region (setup and verification excluded), max over ranks;
 * rss_kb: getrusage(RUSAGE_SELF) peak resident set at the end, max over ranks.
 * The exit status is non-zero when the verification failed. */
#ifndef KERN_H
#define KERN_H
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* The case files of tests/cases include a kernel with KERN_NO_MAIN and call kern_main. */
#ifdef KERN_NO_MAIN
#define KERN_MAIN kern_main
#else
#define KERN_MAIN main
#endif

static inline uint64_t kern_rng(uint64_t *s) /* splitmix64 */
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static inline double kern_unit(uint64_t *s) { return (kern_rng(s) >> 11) * 0x1.0p-53; }

/* The stencils' grid: rank's rows 1..rows of an (rows + 2) x n block (halo rows 0 and
 * rows + 1), values from the global row only, so any rank count gives one problem. The global
 * sum, min and max come back for the final check. */
static inline void kern_grid_init(double *u, int rank, int rows, int n, double *sum, double *min,
                                  double *max)
{
  double lsum = 0, lmin = 1, lmax = 0;
  for (int i = 1; i <= rows; i++) {
    uint64_t s = (uint64_t)(rank * rows + i - 1) * 7919u + 17;
    for (int j = 0; j < n; j++) {
      double v = kern_unit(&s);
      u[(size_t)i * n + j] = v;
      lsum += v;
      lmin = v < lmin ? v : lmin;
      lmax = v > lmax ? v : lmax;
    }
  }
  MPI_Allreduce(&lsum, sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&lmin, min, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&lmax, max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

static inline int kern_arg(int argc, char **argv, int i, int dflt)
{
  return argc > i ? atoi(argv[i]) : dflt;
}

/* Reduce time (max), peak RSS (max) and the verdict (all OK) to rank 0, print the result
 * line there, and return the process exit status (0 when every rank verified). */
static inline int kern_finish(const char *name, const char *variant, long size, int iters,
                              double seconds, int ok)
{
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double t = seconds, tmax;
  long rss = ru.ru_maxrss, rssmax;
  int okall;
  MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&rss, &rssmax, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Allreduce(&ok, &okall, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0)
    printf("KERNEL %s %s ranks %d size %ld iters %d time %.6f rss_kb %ld %s\n", name, variant, p,
           size, iters, tmax, rssmax, okall ? "OK" : "FAIL");
  return okall ? 0 : 1;
}
#endif
