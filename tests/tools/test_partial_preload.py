#!/usr/bin/env python3
"""TAP: a job in which only some ranks run hrace (LD_PRELOAD given to one rank of an MPMD
launch) must say so rather than hang silently: hrace's first collective at MPI_Init
(core/chan.c, first_gather) warns after 10 s that a rank is missing. The job cannot go on
(the plain rank never joins hrace's collectives), so the test stops it once the warning is
out. usage: test_partial_preload.py BUILD_DIR"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SRC = r"""
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int rank, x = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  else MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
"""
WANT = "MPI_Init has waited 10 s for the other ranks' hrace"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hrace_build  # noqa: E402

build = os.path.abspath(sys.argv[1])
info = hrace_build.build_info(build)   # the build's MPI: its mpicc and launcher
work = tempfile.mkdtemp(prefix="hrace-partial-")
exe = os.path.join(work, "partial")
with open(exe + ".c", "w") as f:
    f.write(SRC)
subprocess.run([info["mpicc"], "-o", exe, exe + ".c"], check=True)
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           HRACE_OPTIONS="report_text=0")
lib = os.path.join(build, "lib", "libhrace.so")
p = subprocess.Popen(hrace_build.launch(info, (1, {"LD_PRELOAD": lib}, [exe]), (1, {}, [exe])),
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                     start_new_session=True)
err, seen, t0 = "", False, time.time()
os.set_blocking(p.stderr.fileno(), False)
while time.time() - t0 < 40 and p.poll() is None:
    try:
        chunk = os.read(p.stderr.fileno(), 65536)
    except BlockingIOError:
        chunk = b""
    if chunk:
        err += chunk.decode(errors="replace")
        if WANT in err:
            seen = True
            break
    time.sleep(0.2)
waited = time.time() - t0


def ranks():   # this job's rank processes (mpirun puts them in process groups of their own)
    pids = []
    for d in os.listdir("/proc"):
        try:
            if d.isdigit() and os.readlink(f"/proc/{d}/exe") == exe:
                pids.append(int(d))
        except OSError:
            pass
    return pids


os.killpg(p.pid, signal.SIGTERM)   # mpirun stops its job
try:
    p.wait(timeout=10)
except subprocess.TimeoutExpired:
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
for pid in ranks():
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
shutil.rmtree(work, ignore_errors=True)
print("1..1")
if seen:
    print(f"ok 1 - only rank 0 runs hrace: MPI_Init says a rank is missing ({waited:.0f} s)")
    sys.exit(0)
print("not ok 1 - only rank 0 runs hrace: no warning within 40 s")
print("\n".join("# " + l for l in err.splitlines()[-20:]))
sys.exit(1)
