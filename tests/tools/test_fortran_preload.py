#!/usr/bin/env python3
"""TAP: a Fortran program built with the plain `mpifort` (no hrace-fort, so no load/store
instrumentation) and run under `hrace run`, which preloads libhrace: its Fortran MPI calls must
still reach hrace's wrappers (Open MPI's bindings call PMPI_*: src/mpi/fortran.c), so the
put-put race between ranks 1 and 2 is reported at its Fortran line, and its fenced twin is not.

usage: test_fortran_preload.py BUILD_DIR"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

SRC = """program fput
  use mpi
  implicit none
  integer :: ierr, rank, win, v
  integer, save :: a(4)
  integer(kind=MPI_ADDRESS_KIND) :: disp, sz
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  sz = 16
  disp = 0
  v = rank
  call MPI_Win_create(a, sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  if (rank == 1) call MPI_Put(v, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, win, ierr)
  if (ORDERED) call MPI_Win_fence(0, win, ierr)
  if (rank == 2) call MPI_Put(v, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_free(win, ierr)
  call MPI_Finalize(ierr)
end program
"""
PUT_LINES = {14, 16}


def main():
    build = os.path.abspath(sys.argv[1])
    fc = shutil.which("mpifort")
    mpich = "mpich" in os.path.realpath(fc or "")
    print("1..4")
    if not fc or mpich:
        for i in range(1, 5):
            print(f"ok {i} # SKIP Open MPI's mpifort is not installed")
        return 0
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    n = 0
    failed = 0
    with tempfile.TemporaryDirectory() as work:
        for ordered, want_race in ((".false.", True), (".true.", False)):
            src = os.path.join(work, f"fput_{want_race}.f90")
            exe = src[:-4]
            with open(src, "w") as f:
                f.write(SRC.replace("ORDERED", ordered))
            subprocess.run([fc, "-g", "-o", exe, src], check=True, env=env)
            js = os.path.join(work, f"races_{want_race}.jsonl")
            r = subprocess.run([os.path.join(build, "bin", "hrace"), "run", "--json", js, "--",
                                "mpirun", "--oversubscribe", "-np", "3", exe],
                               env=env, capture_output=True, text=True, timeout=120)
            n += 1
            good = r.returncode == (66 if want_race else 0)
            failed += not good
            print(f"{'ok' if good else 'not ok'} {n} - exit status {r.returncode}, "
                  f"{'race' if want_race else 'no race'} expected")
            if not good:
                print("# " + r.stderr.replace("\n", "\n# "))
            lines = set()
            if os.path.exists(js):
                for text in open(js):
                    rec = json.loads(text)
                    if rec.get("type") == "race":
                        lines |= {rec["a"].get("line"), rec["b"].get("line")}
            n += 1
            good = lines == (PUT_LINES if want_race else set())
            failed += not good
            print(f"{'ok' if good else 'not ok'} {n} - racing lines {sorted(lines)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
