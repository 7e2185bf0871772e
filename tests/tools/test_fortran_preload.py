#!/usr/bin/env python3
"""TAP: a Fortran program built with the plain MPI wrapper (`mpifort`, `mpifort.mpich`: no
hrace-fort, so no load/store instrumentation) and run under `hrace run`, which preloads
libhrace: its Fortran MPI calls must still reach hrace's wrappers (Open MPI's bindings call
PMPI_*, and so do MPICH's `use mpi_f08` MPI_Init, fences, ...: src/mpi/fortran.c), so the
put-put race between ranks 1 and 2 is reported at its Fortran lines, and its fenced twin is
not; with `use mpi` and with `use mpi_f08`, on each build tree given (its MPI, wrapper and
launcher from <tree>/lib/libhrace.build).

usage: test_fortran_preload.py BUILD_DIR..."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hrace_build  # noqa: E402

SRC = {"mpi": """program fput
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
""", "mpi_f08": """program fput
  use mpi_f08
  implicit none
  integer :: rank, v
  type(MPI_Win) :: win
  integer, save :: a(4)
  integer(kind=MPI_ADDRESS_KIND) :: disp, sz
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  sz = 16
  disp = 0
  v = rank
  call MPI_Win_create(a, sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  if (rank == 1) call MPI_Put(v, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, win)
  if (ORDERED) call MPI_Win_fence(0, win)
  if (rank == 2) call MPI_Put(v, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call MPI_Win_free(win)
  call MPI_Finalize()
end program
"""}
RUNS = 2 * 2 * len(SRC)   # TAP lines per build tree: (race, fenced) x 2 checks x bindings


def put_lines(src):
    return {i for i, line in enumerate(src.splitlines(), 1) if "call MPI_Put" in line}


def check_tree(build):
    """Yield (good, description, detail) for each check on one build tree."""
    info = hrace_build.build_info(build)
    name = hrace_build.NAMES.get(info["mpi"], info["mpi"])
    env = hrace_build.launcher_env()
    with tempfile.TemporaryDirectory() as work:
        for binding, text in SRC.items():
            for ordered, want_race in ((".false.", True), (".true.", False)):
                tag = f"{name}, use {binding}, {'race' if want_race else 'fenced'}"
                src = os.path.join(work, f"fput_{binding}_{want_race}.f90")
                exe = src[:-4]
                with open(src, "w") as f:
                    f.write(text.replace("ORDERED", ordered))
                # -O0: MPICH's mpifort passes -O2, which merges the two put calls into one.
                subprocess.run([info["mpifort"], "-g", "-O0", "-o", exe, src], check=True,
                               env=env)
                js = os.path.join(work, f"races_{binding}_{want_race}.jsonl")
                cmd = [os.path.join(build, "bin", "hrace"), "run", "--json", js, "--",
                       info["mpiexec"], "-np", "3", exe]
                r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
                yield (r.returncode == (66 if want_race else 0),
                       f"{tag}: exit status {r.returncode}",
                       " ".join(cmd) + "\n" + r.stderr)
                lines = set()
                if os.path.exists(js):
                    for rec_text in open(js):
                        rec = json.loads(rec_text)
                        if rec.get("type") == "race":
                            lines |= {rec["a"].get("line"), rec["b"].get("line")}
                want = put_lines(text) if want_race else set()
                yield lines == want, f"{tag}: racing lines {sorted(lines)}", f"wanted {sorted(want)}"


def main():
    trees = [os.path.abspath(t) for t in sys.argv[1:]]
    print(f"1..{RUNS * len(trees)}")
    n = failed = 0
    for build in trees:
        info = hrace_build.build_info(build)
        known = hrace_build.read(os.path.join(build, "lib")) is not None
        missing = [t for t in (info["mpifort"], info["mpiexec"]) if not shutil.which(t)]
        if not os.path.isfile(os.path.join(build, "lib", "libhrace.so")) or \
                (missing and not known):
            for _ in range(RUNS):
                n += 1
                print(f"ok {n} # SKIP {build}: " + (f"no {' / '.join(missing)}" if missing else "not built"))
            continue
        if missing:   # the build names its MPI's tools, and they are not there
            for _ in range(RUNS):
                n += 1
                failed += 1
                print(f"not ok {n} - {build}/lib/libhrace.build names {' / '.join(missing)}, "
                      f"which cannot be run")
            continue
        for good, what, detail in check_tree(build):
            n += 1
            failed += not good
            print(f"{'ok' if good else 'not ok'} {n} - {what}")
            if not good:
                print("# " + detail.replace("\n", "\n# "))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
