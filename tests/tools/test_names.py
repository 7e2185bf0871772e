#!/usr/bin/env python3
"""TAP: C++ and Fortran names end to end. A C++ program built with hrace-cxx whose MPI_Put is in
a member function of a class in a namespace, and a Fortran program built with hrace-fort whose
MPI_Put is in a module procedure, each run under `hrace run` on 3 ranks (ranks 1 and 2 put to
the same word of rank 0 in one fence epoch: an rma-rma race). The report must name the put's
function as the language writes it (`ns::Halo::put(int)`, `halo::put_one`), not its linkage
name, in the text on stderr, in the JSON lines and in SARIF (logicalLocations). The fenced
twin (a fence between the two puts) reports nothing. A language whose compiler or MPI wrapper
is missing is skipped with the reason.

usage: test_names.py BUILD_DIR"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hrace_build  # noqa: E402
from tap import Tap  # noqa: E402

CXX = r"""#include <mpi.h>
namespace ns {
class Halo {
 public:
  explicit Halo(MPI_Win w) : win(w) {}
  void put(int value) {
    v = value;
    MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
  }
 private:
  MPI_Win win;
  int v = 0;
};
}  // namespace ns

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, *a;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win win;
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win);
  MPI_Win_fence(0, win);
  ns::Halo h(win);
  if (rank == 1) h.put(rank);
  if (ORDERED) MPI_Win_fence(0, win);
  if (rank == 2) h.put(rank);
  MPI_Win_fence(0, win);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
"""

FORTRAN = """module halo
  use mpi
  implicit none
contains
  subroutine put_one(win, v)
    integer, intent(in) :: win, v
    integer :: ierr
    integer(kind=MPI_ADDRESS_KIND) :: disp
    disp = 0
    call MPI_Put(v, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, win, ierr)
  end subroutine put_one
end module halo

program names
  use mpi
  use halo
  implicit none
  integer :: ierr, rank, win, v
  integer, save :: a(4)
  integer(kind=MPI_ADDRESS_KIND) :: sz
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  sz = 16
  v = rank
  call MPI_Win_create(a, sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  if (rank == 1) call put_one(win, v)
  if (ORDERED) call MPI_Win_fence(0, win, ierr)
  if (rank == 2) call put_one(win, v)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_free(win, ierr)
  call MPI_Finalize(ierr)
end program names
"""

# name, driver, compiler variable and its candidates, MPI wrapper key, source, suffix,
# (true, false) spelling, the name the report must show
LANGS = [
    ("C++", "hrace-cxx", "HRACE_CXX", ("clang++", "g++"), "mpicxx", CXX, ".cpp",
     ("true", "false"), "ns::Halo::put(int)"),
    ("Fortran", "hrace-fort", "HRACE_FC", ("gfortran",), "mpifort", FORTRAN, ".f90",
     (".true.", ".false."), "halo::put_one"),
]


def funcs_of_side(side):
    """The function of a JSON side and of each frame of its stack."""
    return [side.get("func")] + [f.get("func") for f in side.get("stack") or []]


def check(t, build, work, lang):
    name, driver, var, compilers, wrapper, text, suffix, (true, false), want = lang
    info = hrace_build.build_info(build)
    env = hrace_build.launcher_env()
    have = [c for c in ([env[var]] if env.get(var) else compilers) if shutil.which(c)]
    missing = [x for x in (info[wrapper], info["mpiexec"]) if not shutil.which(x)]
    if not have:
        missing.append(" or ".join(compilers))
    if missing:
        for _ in range(6):   # 4 checks on the race, 2 on the twin
            t.n += 1
            print(f"ok {t.n} # SKIP {name}: no {' / '.join(missing)}", flush=True)
        return
    hrace = os.path.join(build, "bin", "hrace")
    for ordered in (false, true):
        race = ordered == false
        tag = f"{name}, {'race' if race else 'fenced twin'}"
        src = os.path.join(work, f"names_{name[0]}_{int(race)}{suffix}")
        exe = src[: -len(suffix)]
        with open(src, "w") as f:
            f.write(text.replace("ORDERED", ordered))
        # -O0: no inlining of the put into the caller, whose name would then be main's.
        r = subprocess.run([os.path.join(build, "bin", driver), "-g", "-O0", "-o", exe, src],
                           env=env, capture_output=True, text=True, cwd=work)
        if not t.ok(r.returncode == 0, f"{tag}: {driver} builds it", r.stdout + r.stderr):
            for _ in range(3 if race else 1):
                t.ok(False, f"{tag}: (not run)", "the build failed")
            continue
        js, sarif = exe + ".jsonl", exe + ".sarif"
        cmd = [hrace, "run", "--json", js, "--sarif", sarif, "--color=never", "--",
               info["mpiexec"], "-np", "3", exe]
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120, cwd=work)
        if not race:
            t.ok(r.returncode == 0, f"{tag}: no race (exit status {r.returncode})",
                 " ".join(cmd) + "\n" + r.stdout + r.stderr)
            continue
        t.ok(r.returncode == 66 and f" {want} (" in r.stderr, f"{tag}: text names {want} (exit status "
             f"{r.returncode})", " ".join(cmd) + "\n" + r.stdout + r.stderr)
        races = []
        if os.path.exists(js):
            with open(js) as f:
                races = [rec for rec in map(json.loads, f) if rec.get("type") == "race"]
        named = [rec for rec in races
                 if want in funcs_of_side(rec["a"]) and want in funcs_of_side(rec["b"])]
        t.ok(len(races) == 1 and named, f"{tag}: JSON names {want} on both sides",
             json.dumps(races, indent=1))
        names = []
        if os.path.exists(sarif):
            with open(sarif) as f:
                log = json.load(f)
            for res in log["runs"][0].get("results", []):
                for loc in res.get("locations", []) + res.get("relatedLocations", []):
                    names += [ll.get("name") for ll in loc.get("logicalLocations", [])]
        t.ok(names and all(n == want for n in names), f"{tag}: SARIF names {want}",
             f"logicalLocations: {names}")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    build = os.path.abspath(sys.argv[1])
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="hrace-names-") as work:
        for lang in LANGS:
            check(t, build, work, lang)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
