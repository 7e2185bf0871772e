#!/usr/bin/env python3
"""TAP: a run is either checked in full or says loudly that it was not (issue 15), on real MPI
jobs, on Open MPI and (when build/mpich exists) MPICH:
- `hrace run` names a rank that was killed (SIGKILL) before or after MPI_Init and fails;
- MPI_Abort leaves a crash record with its code; a job with no report at all fails (67);
- two jobs writing into one report directory are named as a duplicated rank (67);
- by hand (no launcher) a run with a race exits 66, and `halt_on_error=1` stops at the first
  race with the report written; `exitcode=0` keeps the program's status;
- a plain-mpicc binary is told that only MPI-level checks ran;
- libhrace built for one MPI stops a program of the other at MPI_Init with a clear message (68);
- `hrace version` names the MPI each build is for;
- Debian's launcher names (mpirun.openmpi, mpiexec.openmpi, mpiexec.hydra) are recognised.

usage: test_trust.py BUILD_DIR"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import Tap  # noqa: E402  (tests/tools/tap.py)

T = Tap()
ok = T.ok
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
for k in ("HRACE_OPTIONS", "HRACE_RUN_OPTIONS", "LD_PRELOAD", "OMP_TOOL_LIBRARIES"):
    ENV.pop(k, None)

RACY = r"""
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "race";
  int rank, *base, one = 1;
  if (!strcmp(how, "kill-early") && getenv("KILL_ME")) raise(SIGKILL);
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  *base = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (!strcmp(how, "kill-late") && rank == 1) raise(SIGKILL);
  if (!strcmp(how, "abort") && rank == 1) MPI_Abort(MPI_COMM_WORLD, 7);
  if (!strcmp(how, "race")) {
    if (rank == 0) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
      MPI_Put(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
      MPI_Win_unlock(1, win);
    }
    PMPI_Barrier(MPI_COMM_WORLD);          /* invisible to hrace: the load races */
    if (rank == 1) { volatile int seen = *base; (void)seen; }
  }
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
"""



def run(cmd, env=None, cwd=None, timeout=120):
    p = subprocess.run(cmd, env=env or ENV, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=timeout,
                       start_new_session=True)
    return p.returncode, p.stdout


def flavour_tests(build, tmp, name, mpicc, mpirun, launchers):
    hrace, cc = os.path.join(build, "bin", "hrace"), os.path.join(build, "bin", "hrace-cc")
    lib = os.path.join(build, "lib", "libhrace.so")
    env = dict(ENV, HRACE_MPICC=mpicc)
    src = os.path.join(tmp, "racy.c")
    app, plain = os.path.join(tmp, f"racy-{name}"), os.path.join(tmp, f"plain-{name}")
    rc, out = run([cc, src, "-o", app], env=env)
    if not ok(rc == 0, f"{name}: hrace-cc builds the test program", out):
        return
    rc, out = run([mpicc, src, "-o", plain], env=env)
    ok(rc == 0, f"{name}: plain {mpicc} builds it", out)
    np2 = [mpirun, "-np", "2"]

    rc, out = run([hrace, "version"])
    ok(rc == 0 and (f"({name})" in out or f"MPI: {name}" in out),
       f"{name}: `hrace version` names the MPI it is for", out)

    # A rank killed after MPI_Init: its file has no summary; the launcher names it and fails.
    rc, out = run([hrace, "run", "--"] + np2 + [app, "kill-late"])
    ok(rc != 0 and "rank 1 was killed" in out and "INCOMPLETE" in out
       and "no data races found" not in out,
       f"{name}: a rank killed by SIGKILL after MPI_Init is named, the run fails ({rc})", out)
    # Killed before MPI_Init: no file at all; named as missing from the others' world size.
    rc, out = run([hrace, "run", "--"] + np2 + ["-x" if name == "openmpi" else "-genv",
                   *(["KILL_ME=1"] if name == "openmpi" else ["KILL_ME", "1"]), app,
                   "kill-early"])
    ok(rc != 0 and "no data races found" not in out
       and ("nothing was checked" in out or "wrote no report" in out),
       f"{name}: ranks killed before MPI_Init: named as unchecked, the run fails ({rc})",
       out)
    # MPI_Abort: a crash record with the call and its code.
    rc, out = run([hrace, "run", "--"] + np2 + [app, "abort"])
    ok(rc != 0 and "rank 1 ended in MPI_Abort (code 7)" in out,
       f"{name}: MPI_Abort's crash record names the rank and its code ({rc})", out)
    # Nothing ran under hrace: an error, not a clean run.
    rc, out = run([hrace, "run", "--", "true"])
    ok(rc == 67 and "nothing was checked" in out, f"{name}: no report at all exits 67 ({rc})", out)

    # By hand: exit 66 on a race (ThreadSanitizer's exitcode), halt_on_error, exitcode=0.
    fwd = (lambda k, v: ["-x", f"{k}={v}"]) if name == "openmpi" else \
        (lambda k, v: ["-genv", k, v])
    rc, out = run([mpirun, "-np", "2"] + fwd("LD_PRELOAD", lib) + [app, "race"])
    ok(rc == 66 and "WARNING: data race" in out, f"{name}: by hand, a race exits 66 ({rc})", out)
    rc, out = run([mpirun, "-np", "2"] + fwd("LD_PRELOAD", lib)
                  + fwd("HRACE_OPTIONS", "exitcode=0") + [app, "race"])
    ok(rc == 0 and "WARNING: data race" in out, f"{name}: by hand, exitcode=0 keeps status 0",
       out)
    kept = os.path.join(tmp, f"halt-{name}")
    os.makedirs(kept)
    rc, out = run([mpirun, "-np", "2"] + fwd("LD_PRELOAD", lib)
                  + fwd("HRACE_OPTIONS", f"halt_on_error=1,report_dir={kept}") + [app, "race"])
    recs = [json.loads(line) for f in os.listdir(kept) for line in open(os.path.join(kept, f))]
    ok(rc != 0 and out.count("WARNING: data race") == 1
       and any(r["type"] == "crash" and r["reason"] == "halt_on_error" for r in recs)
       and any(r["type"] == "race" for r in recs),
       f"{name}: halt_on_error stops at the first race, report and crash record written ({rc})",
       out + json.dumps(recs))

    # A report that cannot be written (disk full: the rank files are /dev/full) is said, and
    # the merge of what is there fails: the ranks were not checked in full.
    full = os.path.join(tmp, f"full-{name}")
    os.makedirs(full)
    for r in (0, 1):
        os.symlink("/dev/full", os.path.join(full, f"rank-{r}.x.jsonl"))
    rc, out = run([mpirun, "-np", "2"] + fwd("LD_PRELOAD", lib)
                  + fwd("HRACE_OPTIONS", f"report_dir={full},report_id=x,exitcode=0")
                  + [app, "race"])
    ok("cannot write the report file" in out and "No space left on device" in out,
       f"{name}: a rank whose report file cannot be written says so ({rc})", out)
    rc, out = run([hrace, "merge", full])
    ok(rc == 67 and "no data races found" not in out,
       f"{name}: ... and merging what it left fails with 67 ({rc})", out)

    # A binary built with plain mpicc: a notice, under the launcher and by hand.
    rc, out = run([hrace, "run", "--"] + np2 + [plain, "none"])
    ok(rc == 0 and "only MPI-level checks ran" in out,
       f"{name}: plain {mpicc} binary under hrace run gets the notice ({rc})", out)
    rc, out = run([mpirun, "-np", "2"] + fwd("LD_PRELOAD", lib) + [plain, "none"])
    ok(rc == 0 and out.count("only MPI-level checks ran") == 1,
       f"{name}: ... and once by hand ({rc})", out)

    # The user's own HRACE_OPTIONS on the launcher's command line cannot drop hrace run's.
    rc, out = run([hrace, "run", "--", mpirun, "-np", "2"] + fwd("HRACE_OPTIONS", "verbosity=0")
                  + [app, "race"])
    ok(rc == 66 and "INCOMPLETE" not in out and "no rank wrote" not in out,
       f"{name}: a user's own launcher option HRACE_OPTIONS=... keeps the reports ({rc})", out)

    # Launchers by their Debian names, recognised by asking them: races found through each.
    for launcher in launchers:
        if not shutil.which(launcher):
            ok(True, f"{name}: {launcher} # SKIP not installed")
            continue
        rc, out = run([hrace, "run", "--", launcher, "-np", "2", app, "race"])
        ok(rc == 66 and "no data races" not in out and "INCOMPLETE" not in out,
           f"{name}: hrace run -- {launcher}: the race is found, all ranks checked ({rc})", out)


def build_mpi(build):
    """The MPI a build tree is for (lib/libhrace.build, written by CMake)."""
    try:
        with open(os.path.join(build, "lib", "libhrace.build")) as f:
            return dict(line.strip().partition("=")[::2] for line in f).get("mpi", "openmpi")
    except OSError:
        return "openmpi"


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    build = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="hrace-trust-")
    try:
        with open(os.path.join(tmp, "racy.c"), "w") as f:
            f.write(RACY)
        if build_mpi(build) == "mpich":         # a tree of its own built for MPICH (docs/mpi.md)
            flavour_tests(build, tmp, "mpich", "mpicc.mpich", "mpirun.mpich",
                          ["mpiexec.hydra", "mpiexec.mpich"])
            return T.done()
        flavour_tests(build, tmp, "openmpi", "mpicc", "mpirun",
                      ["mpirun.openmpi", "mpiexec.openmpi", "mpiexec"])
        mpich = os.path.join(build, "mpich")
        if os.path.isfile(os.path.join(mpich, "lib", "libhrace.so")) and shutil.which("mpicc.mpich"):
            flavour_tests(mpich, tmp, "mpich", "mpicc.mpich", "mpirun.mpich",
                          ["mpiexec.hydra", "mpiexec.mpich"])
            # The wrong MPI: each library stops the other MPI's program at MPI_Init.
            for lib, app, mpirun, built in (
                    (os.path.join(mpich, "lib", "libhrace.so"), "racy-openmpi", "mpirun",
                     "MPICH"),
                    (os.path.join(build, "lib", "libhrace.so"), "racy-mpich", "mpirun.mpich",
                     "Open MPI")):
                fwd = ["-x", f"LD_PRELOAD={lib}"] if mpirun == "mpirun" else \
                    ["-genv", "LD_PRELOAD", lib]
                rc, out = run([mpirun, "-np", "1"] + fwd + [os.path.join(tmp, app), "none"],
                              timeout=60)
                ok(rc == 68 and f"built for {built}" in out and "but the program runs on" in out,
                   f"libhrace built for {built} stops a program of the other MPI with a "
                   f"clear message ({rc})", out)
        else:
            ok(True, "MPICH # SKIP build/mpich not built (mpicc.mpich missing)")

        # Two jobs in one report directory: rank 0 twice.
        hrace = os.path.join(build, "bin", "hrace")
        app = os.path.join(tmp, "racy-openmpi")
        rc, out = run([hrace, "run", "--", "sh", "-c",
                       f"mpirun -np 1 {app} none && mpirun -np 1 {app} none"])
        ok(rc == 67 and "rank 0 was reported by 2 processes" in out,
           f"two jobs in one report directory: rank 0 named as duplicated, exit 67 ({rc})", out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == "__main__":
    sys.exit(main())
