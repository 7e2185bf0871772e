#!/usr/bin/env python3
"""TAP: the clock a point-to-point message carries (docs/design.md, "dense exporter slots").
Up to MPI_THREAD_FUNNELED one entry per rank; above it one per rank and thread that may call
MPI, capped by `clock_budget` (with a warning) unless `exporters` is set. The bytes are read
the way bench/mpi's `hdr` reads them: PMPI_Probe sees hrace's frame of a 0-byte message.

usage: test_clock_budget.py BUILD_DIR"""
import os
import shutil
import subprocess
import sys
import tempfile

SRC = r"""
#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
  int got, rank, bytes = 0;
  MPI_Init_thread(&argc, &argv, strcmp(argv[1], "multiple") ? MPI_THREAD_FUNNELED
                                                            : MPI_THREAD_MULTIPLE, &got);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) MPI_Send(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Status st;
    PMPI_Probe(0, 0, MPI_COMM_WORLD, &st);
    PMPI_Get_count(&st, MPI_BYTE, &bytes);
    MPI_Recv(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &st);
    printf("bytes %d\n", bytes);
  }
  MPI_Finalize();
  return 0;
}
"""

build = os.path.abspath(sys.argv[1])
work = tempfile.mkdtemp(prefix="hrace-budget-")
exe = os.path.join(work, "hdr")
with open(exe + ".c", "w") as f:
    f.write(SRC)
subprocess.run(["mpicc", "-o", exe, exe + ".c"], check=True)
lib = os.path.join(build, "lib", "libhrace.so")


def run(level, options, threads="8"):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               HRACE_OPTIONS="report_text=0" + options, OMP_NUM_THREADS=threads)
    p = subprocess.run(["mpirun", "-np", "2", "-x", "LD_PRELOAD=" + lib, "-x", "HRACE_OPTIONS",
                        "-x", "OMP_NUM_THREADS", exe, level], capture_output=True, text=True,
                       env=env, timeout=120)
    words = p.stdout.split()
    n = int(words[1]) if len(words) == 2 and words[0] == "bytes" else -1
    return n, p.stderr


WARN = "clock bytes in every message"
checks = []
n, err = run("funneled", "")
checks.append((n == 12 + 4 * 2, f"FUNNELED, 2 ranks: one entry per rank, 20 bytes (got {n})"))
n, err = run("multiple", "")
checks.append((n == 12 + 4 * 2 * 8 and WARN not in err,
               f"MULTIPLE, OMP_NUM_THREADS=8: 8 entries per rank, 76 bytes, no warning (got {n})"))
n, err = run("multiple", ",clock_budget=8")
checks.append((n == 12 + 4 * 8 and WARN in err,
               f"clock_budget=8 caps it at 4 entries per rank, 44 bytes, and warns (got {n})"))
n, err = run("multiple", ",clock_budget=8,exporters=8")
checks.append((n == 12 + 4 * 2 * 8 and WARN not in err,
               f"an explicit exporters=8 is not capped (got {n})"))
shutil.rmtree(work, ignore_errors=True)
print(f"1..{len(checks)}")
bad = 0
for i, (good, what) in enumerate(checks, 1):
    print(f"{'ok' if good else 'not ok'} {i} - {what}")
    bad += not good
if bad:
    print("# last stderr:\n" + "\n".join("#   " + l for l in err.splitlines()[-20:]))
sys.exit(1 if bad else 0)
