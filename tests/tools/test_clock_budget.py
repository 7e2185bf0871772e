#!/usr/bin/env python3
"""TAP: the clock a point-to-point message carries (docs/design.md, "exporter slots").
A clock has one entry per rank up to MPI_THREAD_FUNNELED; above it one per rank and thread
that may call MPI, capped by `clock_budget` (with a warning) unless `exporters` is set. A
frame carries `wire_slots` entries per rank (default 1); the rest of the clock travels in a
second message, only when it has a non-zero entry (a "tail"), unless the whole clock encoded
(wire=epoch, docs/mpi.md "Clocks relative to a base") fits the frame. A blocking collective's
exchange likewise sends the rest of the clock in a second round only when a member needs it
(src/mpi/coll.c, "Layers"); its bytes are counted by the same note. The frame's bytes are read the
way bench/mpi's `hdr` reads them: PMPI_Probe sees hrace's frame of a 0-byte message; tails are
counted by hrace's note at MPI_Finalize (verbosity=1).

usage: test_clock_budget.py BUILD_DIR"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = r"""
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
static void *sender(void *arg) {
  (void)arg;
  MPI_Send(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
  return NULL;
}
int main(int argc, char **argv) {
  int got, rank, bytes = 0;
  MPI_Init_thread(&argc, &argv, strcmp(argv[1], "funneled") ? MPI_THREAD_MULTIPLE
                                                            : MPI_THREAD_FUNNELED, &got);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);   /* the initial thread takes each rank's first entry */
  if (rank == 0) {
    if (!strcmp(argv[1], "thread")) {   /* a second exporter sends: its entry is the tail */
      pthread_t t;
      pthread_create(&t, NULL, sender, NULL);
      pthread_join(t, NULL);
    } else {
      MPI_Send(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    }
  }
  if (rank == 1) {
    MPI_Status st;
    PMPI_Probe(0, 0, MPI_COMM_WORLD, &st);
    PMPI_Get_count(&st, MPI_BYTE, &bytes);
    MPI_Recv(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &st);
    printf("bytes %d\n", bytes);
  }
  MPI_Barrier(MPI_COMM_WORLD);   /* after "thread": rank 0's clock has a second layer */
  MPI_Finalize();
  return 0;
}
"""

# Threads take turns to call MPI, one per parallel region, ordered by the regions' barriers:
# each takes the slot the one before released (clocks/exporter.h), so one slot serves them all
# and no message carries a tail.
TURNS = r"""
#include <mpi.h>
#include <omp.h>
int main(int argc, char **argv) {
  int got, rank, token = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &got);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < 8; i++) {
    #pragma omp parallel num_threads(4)
    if (omp_get_thread_num() == i % 4) {
      if (rank == 0) MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
      else MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  MPI_Finalize();
  return 0;
}
"""

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hrace_build  # noqa: E402

build = os.path.abspath(sys.argv[1])
info = hrace_build.build_info(build)   # the build's MPI: its mpicc and launcher
work = tempfile.mkdtemp(prefix="hrace-budget-")
exe = os.path.join(work, "hdr")
with open(exe + ".c", "w") as f:
    f.write(SRC)
subprocess.run([info["mpicc"], "-o", exe, exe + ".c", "-lpthread"], check=True)
lib = os.path.join(build, "lib", "libhrace.so")
turns = os.path.join(work, "turns")
with open(turns + ".c", "w") as f:
    f.write(TURNS)
subprocess.run([os.path.join(build, "bin", "hrace-cc"), "-fopenmp", "-o", turns, turns + ".c"],
               check=True)


def run(level, options, threads="8"):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               HRACE_OPTIONS="report_text=0,verbosity=1" + options, OMP_NUM_THREADS=threads)
    p = subprocess.run(hrace_build.launch(info, (2, {"LD_PRELOAD": lib,
                                                     "HRACE_OPTIONS": env["HRACE_OPTIONS"],
                                                     "OMP_NUM_THREADS": threads}, [exe, level])),
                       capture_output=True, text=True, env=env, timeout=120)
    words = p.stdout.split()
    n = int(words[1]) if len(words) == 2 and words[0] == "bytes" else -1
    m = re.search(r"rank 0: note: clock tails sent: (\d+) \((\d+) bytes\)", p.stderr)
    tails = (int(m.group(1)), int(m.group(2))) if m else None
    m = re.search(r"rank 0: note: collective clock exchanges: (\d+) \((\d+) bytes contributed\)", p.stderr)
    xchg = (int(m.group(1)), int(m.group(2))) if m else None
    return n, tails, xchg, p.stderr


WARN = "would make clocks of"
checks = []
n, tails, xchg, err = run("funneled", "")
checks.append((n == 12 + 4 * 2 and tails == (0, 0),
               f"FUNNELED, 2 ranks: one entry per rank, 20 bytes, no tail (got {n}, {tails})"))
checks.append((xchg == (2, 8),
               f"FUNNELED: a barrier's exchange sends rank 0's own entry, 4 bytes (got {xchg})"))
n, tails, xchg, err = run("multiple", "")
checks.append((n == 12 + 4 * 2 and tails == (0, 0) and WARN not in err,
               f"MULTIPLE, OMP_NUM_THREADS=8, one thread calls MPI: 20 bytes, no tail (got {n}, {tails})"))
checks.append((xchg == (2, 24),
               f"MULTIPLE, one thread calls MPI: a barrier's exchange sends the first layer and "
               f"the layer count, 12 bytes, not 16 entries (got {xchg})"))
n, tails, xchg, err = run("thread", ",wire=dense")
checks.append((n == 12 + 4 * 2 and tails == (1, 8),
               f"MULTIPLE, wire=dense, a second thread of rank 0 sends: 20 bytes and a tail of "
               f"8 bytes (a count and its entry) (got {n}, {tails})"))
n, tails, xchg, err = run("thread", "")
checks.append((n == 12 + 4 * 2 and tails == (0, 0),
               f"MULTIPLE, wire=epoch (default), a second thread of rank 0 sends: its clock, "
               f"encoded, fits the frame's 8 clock bytes: 20 bytes, no tail (got {n}, {tails})"))
checks.append((xchg == (2, 12 + 20),
               f"MULTIPLE, after the second thread sent: the second barrier's exchange has a "
               f"second round with the second layer, 12 + 8 bytes (got {xchg})"))
n, tails, xchg, err = run("multiple", ",wire_slots=0")
checks.append((n == 12 + 4 * 2 * 8 and tails == (0, 0),
               f"wire_slots=0: all 8 entries per rank in the frame, 76 bytes (got {n}, {tails})"))
n, tails, xchg, err = run("thread", ",wire_slots=0")
checks.append((n == 12 + 4 * 2 * 8 and tails == (0, 0),
               f"wire_slots=0 and a second thread sends: 76 bytes, no tail (got {n}, {tails})"))
n, tails, xchg, err = run("multiple", ",clock_budget=8,wire_slots=0")
checks.append((n == 12 + 4 * 8 and WARN in err,
               f"clock_budget=8 caps the clock at 4 entries per rank, 44 bytes, and warns (got {n})"))
n, tails, xchg, err = run("multiple", ",clock_budget=8,exporters=8,wire_slots=0")
checks.append((n == 12 + 4 * 2 * 8 and WARN not in err,
               f"an explicit exporters=8 is not capped (got {n})"))
# Ranks given different options (an MPMD launch): the frame's length must still agree, or
# rank 1 would read rank 0's clock entries from the wrong bytes. All take the larger
# wire_slots (1 here, the default), and rank 0 says so.
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMP_NUM_THREADS="8")
p = subprocess.run(hrace_build.launch(
    info, (1, {"LD_PRELOAD": lib, "OMP_NUM_THREADS": "8",
               "HRACE_OPTIONS": "report_text=0,wire_slots=0"}, [exe, "multiple"]),
    (1, {"LD_PRELOAD": lib, "OMP_NUM_THREADS": "8", "HRACE_OPTIONS": "report_text=0"},
     [exe, "multiple"])), capture_output=True, text=True, env=env, timeout=120)
words = p.stdout.split()
n = int(words[1]) if len(words) == 2 and words[0] == "bytes" else -1
err = p.stderr
checks.append((p.returncode == 0 and n == 12 + 4 * 2 and "different wire_slots options" in err,
               f"rank 0 given wire_slots=0, rank 1 the default: both frame one entry per rank, 20 "
               f"bytes, and rank 0 warns (got exit {p.returncode}, {n})"))
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           HRACE_OPTIONS="report_text=0,verbosity=1", OMP_NUM_THREADS="4")
p = subprocess.run([os.path.join(build, "bin", "hrace"), "run", "--", info["mpiexec"], "-np", "2", turns],
                   capture_output=True, text=True, env=env, timeout=120, cwd=work)
m = re.search(r"rank 0: note: clock tails sent: (\d+) \((\d+) bytes\)", p.stderr)
tails = (int(m.group(1)), int(m.group(2))) if m else None
err = p.stderr
checks.append((p.returncode == 0 and tails == (0, 0),
               f"four threads take turns to call MPI, ordered by barriers: they pass one slot on, "
               f"no tail, no race (got exit {p.returncode}, {tails})"))
shutil.rmtree(work, ignore_errors=True)
print(f"1..{len(checks)}")
bad = 0
for i, (good, what) in enumerate(checks, 1):
    print(f"{'ok' if good else 'not ok'} {i} - {what}")
    bad += not good
if bad:
    print("# last stderr:\n" + "\n".join("#   " + l for l in err.splitlines()[-20:]))
sys.exit(1 if bad else 0)
