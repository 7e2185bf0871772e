#!/usr/bin/env python3
"""TAP: a misuse diagnostic names its call with line and column everywhere a race does
(issue 18 item 1): a C program built with hrace-cc issues an MPI_Put outside any epoch, once,
at a known line and column; under `hrace run --keep DIR --sarif FILE` the rank's text on stderr
ends in `at main (file:line:column)`, its JSON record in DIR has "line" and "column", and the
SARIF log has the diagnostic as an error notification of the invocation whose region has
startLine and startColumn, and validates against the SARIF 2.1.0 schema. Its twin (the put
inside a fence epoch) has no diagnostic.

usage: test_diagnostic_where.py BUILD_DIR"""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import hrace_build  # noqa: E402
from tap import Tap  # noqa: E402
from sarif_schema import validate_sarif  # noqa: E402  (tests/sarif_schema.py)

SRC = """#include <mpi.h>

int main(int argc, char **argv) {
  int rank, v = 1, *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  if (FENCED) MPI_Win_fence(0, win);
  if (rank == 0)   MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
  if (FENCED) MPI_Win_fence(0, win);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
"""
LINE = 11
COLUMN = SRC.splitlines()[LINE - 1].index("MPI_Put") + 1   # 1-based, as DWARF counts


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    build = os.path.abspath(sys.argv[1])
    info = hrace_build.build_info(build)
    env = hrace_build.launcher_env()
    env["NO_COLOR"] = "1"
    t = Tap()
    missing = [x for x in (info["mpicc"], info["mpiexec"]) if not shutil.which(x)]
    if missing:
        for _ in range(6):
            t.n += 1
            print(f"ok {t.n} # SKIP no {' / '.join(missing)}")
        return t.done()
    with tempfile.TemporaryDirectory(prefix="hrace-diag-") as work:
        for fenced in ("0", "1"):
            src = os.path.join(work, f"misuse{fenced}.c")
            exe, keep, sarif = src[:-2], src[:-2] + ".d", src[:-2] + ".sarif"
            with open(src, "w") as f:
                f.write(SRC.replace("FENCED", fenced))
            b = subprocess.run([os.path.join(build, "bin", "hrace-cc"), "-g", "-O1", "-o", exe, src],
                               env=env, capture_output=True, text=True, cwd=work)
            if b.returncode:
                t.ok(False, f"hrace-cc builds misuse{fenced}.c", b.stdout + b.stderr)
                continue
            cmd = [os.path.join(build, "bin", "hrace"), "run", "--keep", keep, "--sarif", sarif,
                   "--", info["mpiexec"], "-np", "2", exe]
            r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120, cwd=work)
            recs = []
            for path in glob.glob(os.path.join(keep, "*.jsonl")):
                with open(path) as f:
                    recs += [json.loads(line) for line in f if line.strip()]
            diags = [x for x in recs if x.get("type") == "diagnostic"]
            why = " ".join(cmd) + "\n" + r.stderr
            if fenced == "1":
                t.ok(not diags and "error:" not in r.stderr,
                     "the put inside a fence epoch: no diagnostic", why)
                continue
            where = f"at main (misuse0.c:{LINE}:{COLUMN})"
            t.ok(where in r.stderr, f"text: the diagnostic ends in '{where}'", why)
            t.ok(len(diags) == 1 and diags[0].get("line") == LINE
                 and diags[0].get("column") == COLUMN,
                 f"JSON: the diagnostic has line {LINE}, column {COLUMN}", json.dumps(diags))
            log = json.load(open(sarif)) if os.path.exists(sarif) else {}
            notes = [n for run in log.get("runs", []) for inv in run.get("invocations", [])
                     for n in inv.get("toolExecutionNotifications", [])]
            regions = [loc["physicalLocation"].get("region", {}) for n in notes
                       for loc in n.get("locations", []) if "physicalLocation" in loc]
            t.ok(any(n.get("level") == "error" and "outside an access epoch" in n["message"]["text"]
                     for n in notes), "SARIF: an error notification with the message",
                 json.dumps(notes, indent=1))
            t.ok({"startLine": LINE, "startColumn": COLUMN} in regions,
                 f"SARIF: its region is line {LINE}, column {COLUMN}", json.dumps(regions))
            problem = validate_sarif(sarif)
            t.ok(problem is None, "SARIF validates against the 2.1.0 schema", problem)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
