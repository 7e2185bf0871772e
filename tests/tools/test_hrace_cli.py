#!/usr/bin/env python3
"""TAP tests of the hrace launcher (tools/hrace) without MPI or the runtime: usage errors, the
merge of hand-written rank reports (dedup across ranks, counts, malformed lines, crash records),
the text format (stacks, memory, regions, hints, colour only on a terminal), SARIF validated
against the 2.1.0 schema (tests/golden), suppressions (grammar errors naming the line, each kind
hiding exactly what it names), and `run` with fake jobs (environment handed to the job, mpirun
-x insertion, exit statuses).

usage: test_hrace_cli.py [--hrace PATH]    (default: tools/hrace of this source tree)"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sarif_schema import validate_sarif   # noqa: E402  (tests/sarif_schema.py)

HERE = os.path.dirname(os.path.abspath(__file__))
n_run = n_failed = 0


def ok(cond, name, wanted=None, got=None):
    global n_run, n_failed
    n_run += 1
    print(f"{'ok' if cond else 'not ok'} {n_run} - {name}")
    if not cond:
        n_failed += 1
        if wanted is not None or got is not None:
            for label, v in (("wanted", wanted), ("got", got)):
                text = v if isinstance(v, str) else repr(v)
                lines = text.splitlines() or [""]
                print(f"#   {label:>6}: {lines[0]}")
                for line in lines[1:]:
                    print(f"#           {line}")
    sys.stdout.flush()
    return cond


def is_(wanted, got, name):
    return ok(wanted == got, name, wanted, got)


def side(op, rank, file, line, offset=0, size=4, thread=0, func="main"):
    return {"op": op, "rank": rank, "thread": thread, "func": func, "file": file,
            "line": line, "offset": offset, "size": size}


def race(id_, rank, kind, a, b, window="win0", owner=1):
    return {"type": "race", "id": id_, "rank": rank, "kind": kind, "window": window,
            "owner": owner, "base": "0x7f0000001000", "a": a, "b": b}


def ident(rank, size, pid=None, host="node1"):
    """The first record of every rank file: who wrote it (docs/report-format.md)."""
    return {"type": "rank", "rank": rank, "size": size, "hosts": 1, "host": host,
            "pid": 1000 + rank if pid is None else pid, "mpi": "Open MPI v4.1.4",
            "mpi_built": "Open MPI 4.1.4", "hrace": "0.1.0"}


def write_jsonl(path, records, tail=""):
    with open(path, "w") as f:
        for r in records:
            f.write((r if isinstance(r, str) else json.dumps(r)) + "\n")
        f.write(tail)


def main():
    hrace = os.path.join(HERE, "..", "..", "tools", "hrace")
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--hrace":
        hrace = args[1]
    elif args:
        print(__doc__, file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="hrace-cli-test-")
    try:
        return run_tests(os.path.abspath(hrace), tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_tests(hrace_src, tmp):
    # A private tree bin/hrace + lib/libhrace.so, so `run` finds "its" library. The library is a
    # placeholder: the fake jobs below do not need it (ld.so just warns that it cannot preload it).
    os.makedirs(os.path.join(tmp, "bin"))
    os.makedirs(os.path.join(tmp, "lib"))
    hrace = os.path.join(tmp, "bin", "hrace")
    shutil.copy(hrace_src, hrace)
    os.chmod(hrace, 0o755)
    lib = os.path.realpath(os.path.join(tmp, "lib", "libhrace.so"))
    open(lib, "w").close()
    # The suppressions parser and matcher are the runtime's, as a program beside the library.
    supp_tool = os.path.join(os.path.dirname(hrace_src), "..", "lib", "hrace-supp")
    if os.path.exists(supp_tool):
        shutil.copy(supp_tool, os.path.join(tmp, "lib", "hrace-supp"))

    def H(*argv, env=None, cwd=None):
        e = dict(os.environ)
        for k in ("HRACE_OPTIONS", "HRACE_RUN_OPTIONS", "LD_PRELOAD", "OMP_TOOL_LIBRARIES"):
            e.pop(k, None)
        e.update(env or {})
        p = subprocess.run([sys.executable, hrace] + list(argv), env=e, cwd=cwd,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        return p.returncode, p.stdout, p.stderr

    # ---- usage -------------------------------------------------------------------------------
    rc, out, errs = H("--bogus")
    is_(2, rc, "unknown option: exit 2")
    ok("--bogus" in errs, "unknown option: named in the message", "--bogus in stderr", errs)
    rc, out, errs = H("frobnicate")
    ok(rc == 2 and "frobnicate" in errs, "unknown subcommand: exit 2, named", "2 + name",
       (rc, errs))
    rc, out, errs = H("run", "true")
    ok(rc == 2 and "--" in errs, "run without `--`: exit 2", "2 + mention of --", (rc, errs))
    rc, out, errs = H("run", "--")
    ok(rc == 2 and "command" in errs, "run with no command: exit 2", "2", (rc, errs))
    rc, out, errs = H("run", "--frob", "--", "true")
    ok(rc == 2 and "--frob" in errs, "unknown run option: exit 2, named", "2", (rc, errs))
    rc, out, errs = H("run", "--exitcode", "many", "--", "true")
    ok(rc == 2 and "many" in errs, "malformed --exitcode: exit 2, value named", "2", (rc, errs))
    rc, out, errs = H("--help")
    ok(rc == 0 and "hrace run" in out, "--help: exit 0, shows run", "0", (rc, out))
    rc, out, errs = H("version")
    ok(rc == 0 and re.match(r"hrace \d+\.\d+", out), "version", "hrace X.Y", (rc, out))

    # ---- merge: dedup across ranks, counts, text format ----------------------------------------
    d = os.path.join(tmp, "reports")
    os.makedirs(d)
    x = "/abs/path/x.c"
    put, load = side("MPI_Put", 0, x, 25), side("load", 1, x, 31)
    write_jsonl(os.path.join(d, "rank-0.jsonl"), [
        ident(0, 2),
        race(1, 0, "remote", put, load),
        {"type": "race-count", "id": 1, "rank": 0, "count": 5},
        race(2, 0, "rma-rma", side("MPI_Accumulate", 0, x, 40, 4, 8, thread=1),
             side("MPI_Put", 0, x, 25, 0, 8)),
        {"type": "summary", "rank": 0, "races": 4, "diagnostics": 0, "unreported": 2}])
    write_jsonl(os.path.join(d, "rank-1.jsonl"), [
        ident(1, 2),
        race(1, 1, "remote", load, put),                       # the same race, sides swapped
        {"type": "diagnostic", "rank": 1, "severity": "error",
         "message": "MPI_Put outside an epoch",
         "func": "main", "file": x, "line": 12},
        {"type": "race-count", "id": 1, "rank": 1, "count": 17},
        {"type": "summary", "rank": 1, "races": 1, "diagnostics": 1}])
    out_json = os.path.join(tmp, "merged.jsonl")
    rc, out, errs = H("merge", d, "--json", out_json)
    is_(66, rc, "merge with races: exit 66")
    merged = [json.loads(line) for line in open(out_json)]
    is_(2, len(merged), "duplicate race across ranks merged: 2 distinct in --json")
    counts = sorted((m["kind"], m["count"]) for m in merged)
    is_([("remote", 22), ("rma-rma", 1)], counts, "counts summed across ranks (5+17), default 1")
    ok(all(m["type"] == "race" and "a" in m and "b" in m for m in merged),
       "JSON lines keep the race objects", "type/a/b", merged)
    want = "\n".join([
        '==hrace== WARNING: data race (remote) on window "win0" of rank 1, bytes [0,4)',
        "==hrace==   MPI_Put  by rank 0 thread 0 at main (x.c:25)",
        "==hrace==   load     by rank 1 thread 0 at main (x.c:31)",
        "==hrace==   (neither access is ordered before the other by MPI or OpenMP synchronisation)",
        "==hrace==   seen 22 times"])
    ok(want in errs, "text report of the merged race", want, errs)
    ok("==hrace==   MPI_Accumulate by rank 0 thread 1 at main (x.c:40)" in errs
       and "bytes [4,8)" in errs and "seen 1 time\n" in errs,
       "text report of the rma-rma race (overlap of both ranges)", "...", errs)
    ok("hrace: rank 1: error: MPI_Put outside an epoch at main (x.c:12)" in errs,
       "diagnostic printed with rank and location", "diagnostic line", errs)
    want = "hrace: 2 distinct data races (23 occurrences) in 3 reports from 2 ranks"
    ok(errs.rstrip().endswith(want), "summary line last", want, errs)
    ok("warning" not in errs, "no warnings for well-formed complete reports", "", errs)
    ok("hrace: note: 2 more distinct races counted but not reported" in errs,
       "races over max_reports (summary \"unreported\") noted", "note", errs)
    rc, out, errs = H("merge", d, "--quiet", "--exitcode", "7")
    ok(rc == 7 and "WARNING: data race" not in errs and "2 distinct" in errs,
       "--quiet and --exitcode", "7, summary only", (rc, errs))

    # ---- merge: malformed and truncated lines, crashed rank ----------------------------------
    d2 = os.path.join(tmp, "broken")
    os.makedirs(d2)
    write_jsonl(os.path.join(d2, "rank-0.jsonl"), [
        ident(0, 2),
        race(1, 0, "remote", put, load),
        "this is not JSON",
        {"type": "race", "id": 2, "kind": "remote", "a": "load", "b": put},
        race(3, 0, "origin-buffer", side("store", 0, None, 0), side("MPI_Put", 0, x, 25)),
        {"type": "summary", "rank": 0, "races": 1, "diagnostics": 0}])
    write_jsonl(os.path.join(d2, "rank-1.jsonl"),
                [ident(1, 2),
                 race(1, 1, "local", side("store", 1, x, 50, thread=1), side("load", 1, x, 51))],
                tail='{"type":"race","id":2,"rank":1,"ki')       # cut off by a crash
    rc, out, errs = H("merge", d2, "--json", out_json)
    is_(66, rc, "malformed lines: still exit 66")
    ok(re.search(r"rank-0\.jsonl:3: malformed", errs), "garbage line warned with file:line",
       "rank-0.jsonl:3: malformed", errs)
    ok(re.search(r"rank-0\.jsonl:4: malformed.*\"a\"", errs), "race with a malformed side warned",
       "rank-0.jsonl:4", errs)
    ok(re.search(r"rank-1\.jsonl:3: .*truncated", errs), "truncated last line warned",
       "rank-1.jsonl:3 truncated", errs)
    ok(re.search(r"rank-1\.jsonl has no summary", errs), "rank without summary warned",
       "no summary", errs)
    kinds = sorted(json.loads(line)["kind"] for line in open(out_json))
    is_(["local", "origin-buffer", "remote"], kinds,
        "the well-formed races of both files survive (also one with an unknown location)")
    ok("store    by rank 0 thread 0 at main (??)" in errs, "unknown location shown as ??",
       "... at main (??)", errs)

    # ---- merge: nothing found ------------------------------------------------------------------
    d3 = os.path.join(tmp, "clean")
    os.makedirs(d3)
    for r in (0, 1):
        write_jsonl(os.path.join(d3, f"rank-{r}.jsonl"),
                    [ident(r, 2), {"type": "summary", "rank": r, "races": 0, "diagnostics": 0}])
    rc, out, errs = H("merge", d3, "--json", out_json)
    is_((0, "hrace: no data races found (reports of 2 ranks)\n"), (rc, errs),
        "no races: exit 0, only the summary line")
    is_("", open(out_json).read(), "no races: --json file written, empty")
    d4 = os.path.join(tmp, "empty")
    os.makedirs(d4)
    rc, out, errs = H("merge", d4)
    is_((67, "hrace: no rank wrote a report: nothing was checked\n"),
        (rc, errs.splitlines(True)[-1]),
        "no report files: exit 67, says nothing was checked, not that no race was found")
    completeness_tests(H, tmp)
    ci_tests(H, tmp)

    # ---- run with fake jobs --------------------------------------------------------------------
    job = os.path.join(tmp, "fakejob.py")
    with open(job, "w") as f:
        f.write(r'''import json, os, re, signal, sys
opts = os.environ.get("HRACE_RUN_OPTIONS", "")
d = re.findall(r"report_dir=(\S+)", opts)[-1]
job = re.findall(r"report_id=(\S+)", opts)[-1]
with open(os.path.join(os.path.dirname(sys.argv[0]), "env.json"), "w") as f:
    seen = {k: os.environ.get(k) for k in ("LD_PRELOAD", "OMP_TOOL_LIBRARIES", "HRACE_OPTIONS",
                                          "HRACE_RUN_OPTIONS")}
    seen["job"] = job
    seen["report_dir"] = d
    json.dump(seen, f)
mode, status = sys.argv[1], int(sys.argv[2])
rec = {"type": "race", "id": 1, "rank": 0, "kind": "remote", "window": "w", "owner": 1,
       "a": {"op": "load", "rank": 1, "thread": 0, "func": "main", "file": "/t/y.c", "line": 9,
             "offset": 0, "size": 4},
       "b": {"op": "MPI_Put", "rank": 0, "thread": 0, "func": "main", "file": "/t/y.c", "line": 7,
             "offset": 0, "size": 4}}
with open(os.path.join(d, f"rank-0.{job}.jsonl"), "w") as f:
    f.write(json.dumps({"type": "rank", "rank": 0, "size": 1, "host": "h", "pid": os.getpid()})
            + "\n")
    if mode == "race":
        f.write(json.dumps(rec) + "\n")
    if status >= 0:
        f.write(json.dumps({"type": "summary", "rank": 0, "races": int(mode == "race"),
                            "diagnostics": 0}) + "\n")
if status < 0:
    sys.stdout.flush()
    os.kill(os.getpid(), -status)
sys.exit(status)
''')
    envfile = os.path.join(tmp, "env.json")
    user_env = {"LD_PRELOAD": "/some/other.so", "HRACE_OPTIONS": "verbosity=1"}
    rc, out, errs = H("run", "--json", out_json, "--", sys.executable, job, "race", "0",
                      env=user_env)
    is_(66, rc, "run: job reports a race, exits 0: hrace exits 66")
    seen = json.load(open(envfile))
    is_(lib + ":/some/other.so", seen["LD_PRELOAD"], "run: LD_PRELOAD prepended, user's kept")
    is_(lib, seen["OMP_TOOL_LIBRARIES"], "run: OMP_TOOL_LIBRARIES is the library")
    is_("verbosity=1", seen["HRACE_OPTIONS"], "run: the user's HRACE_OPTIONS reach the job as they are")
    is_(f"report_dir={seen['report_dir']} report_id={seen['job']} report_text=0 exitcode=0",
        seen["HRACE_RUN_OPTIONS"],
        "run: hrace's own options travel apart, in HRACE_RUN_OPTIONS (report_dir, a job id, ...)")
    ok(os.path.isabs(seen["report_dir"]) and not os.path.exists(seen["report_dir"]),
       "run: report dir absolute, removed afterwards", "absolute, gone", seen["report_dir"])
    is_(1, len(open(out_json).readlines()), "run: --json has the race")
    rc, out, errs = H("run", "--exitcode", "9", "--", sys.executable, job, "race", "0")
    is_(9, rc, "run: --exitcode 9 with a race")
    rc, out, errs = H("run", "--", sys.executable, job, "none", "3")
    ok(rc == 3 and "WARNING: data race" not in errs,
       "run: no race: the job's status (3), no report", "3", (rc, errs))
    rc, out, errs = H("run", "--", sys.executable, job, "race", "-9")
    ok(rc == 66 and "y.c:9" in errs and "no summary" in errs,
       "run: job killed after reporting: race still read, exit 66", "66", (rc, errs))
    rc, out, errs = H("run", "--", sys.executable, job, "none", "-9")
    is_(128 + 9, rc, "run: job killed by SIGKILL, no race: exit 137")
    rc, out, errs = H("run", "--", "true")
    ok(rc == 67 and "true wrote no report" in errs and "MPI program" not in errs,
       "run: a lone program (no MPI launcher) that wrote no report is told so, without the "
       "question meant for MPI jobs that lost their ranks", "67, 'wrote no report'", (rc, errs))
    keep = os.path.join(tmp, "kept")
    rc, out, errs = H("run", "--keep", keep, "--", sys.executable, job, "race", "0")
    kept = os.listdir(keep) if os.path.isdir(keep) else []
    ok(rc == 66 and len(kept) == 1 and re.match(r"rank-0\.[0-9a-f]+\.jsonl$", kept[0]),
       "run --keep keeps the reports",
       "rank-0.<job>.jsonl in kept dir", kept)
    rc, out, errs = H("run", "--keep", keep, "--", sys.executable, job, "none", "0")
    ok(rc == 0 and len(os.listdir(keep)) == 2, "a second job in the kept dir: its own file, the "
       "first job's untouched, each merged alone", "0, 2 files", (rc, os.listdir(keep), errs))
    rc, out, errs = H("merge", keep)
    ok(rc == 2 and "holds the reports of 2 jobs" in errs and "--job" in errs,
       "merge of a dir with two jobs: asks for --job", "2", (rc, errs))
    first = sorted(os.listdir(keep), key=lambda n: os.path.getmtime(os.path.join(keep, n)))[0]
    rc, out, errs = H("merge", "--job", first.split(".")[1], keep)
    is_(66, rc, "merge --job ID: that job's race")
    afile = os.path.join(tmp, "afile")
    open(afile, "w").close()
    for bad in (afile, os.path.join(afile, "sub")):          # root may write anywhere else
        rc, out, errs = H("run", "--keep", bad, "--", sys.executable, job, "race", "0")
        ok(rc == 2 and "--keep" in errs and "WARNING" not in errs,
           "--keep where no directory can be made or written: exit 2 before the job", "2",
           (rc, errs))
    rc, out, errs = H("run", "--", os.path.join(tmp, "no-such-program"))
    ok(rc == 127 and "no-such-program" in errs, "run: missing program: exit 127, named",
       "127", (rc, errs))

    launcher_tests(H, tmp, job, lib)

    report_tests(H, tmp, out_json)
    site_tests(H, tmp)
    suppression_tests(H, tmp, job, user_env)

    print(f"1..{n_run}")       # plan at the end: TAP allows it, and the count is kept once
    return 1 if n_failed else 0


def ci_tests(H, tmp):
    """--help of every command, `--` before merge's DIR, --color, --junit (parsed), and
    --gen-suppressions / --baseline, whose fingerprints survive moved lines and another root."""
    for cmd in ("run", "merge", "version"):
        rc, out, errs = H(cmd, "--help")
        ok(rc == 0 and f"hrace {cmd}" in out and (cmd == "version" or "--exitcode" in out),
           f"`hrace {cmd} --help`: exit 0, its options", "0", (rc, out))
    rc, out, errs = H("--help")
    ok(rc == 0 and "exit status" in out and "67" in out, "--help documents the exit statuses",
       "67 in help", out)
    src = os.path.join(tmp, "app")
    os.makedirs(src)
    code = ["int main(void) {", "  int x = 0;", "  load(&x);", "  put(&x);", "  other();", "}"]
    with open(os.path.join(src, "app.c"), "w") as f:
        f.write("\n".join(code) + "\n")
    app = os.path.join(src, "app.c")

    def rdir(name, shift=0, races=((3, 4),)):
        d = os.path.join(tmp, name)
        os.makedirs(d)
        recs = [ident(0, 1)]
        for i, (la, lb) in enumerate(races, 1):
            recs.append(race(i, 0, "remote", side("load", 0, app, la + shift, func="main"),
                             side("MPI_Put", 0, app, lb + shift, func="main")))
        recs.append({"type": "summary", "rank": 0, "races": len(races), "diagnostics": 0})
        write_jsonl(os.path.join(d, "rank-0.jsonl"), recs)
        return d

    d = rdir("ci1")
    rc, out, errs = H("merge", "--color", "always", "--", d)
    ok(rc == 66 and "\033[1;31m" in errs, "--color=always colours, `--` before DIR", "ESC",
       (rc, errs))
    rc, out, errs = H("merge", "--color", "sometimes", d)
    ok(rc == 2 and "sometimes" in errs, "--color with a bad value: exit 2, named", "2", (rc, errs))
    base, junit, supp = (os.path.join(tmp, n) for n in ("base.jsonl", "r.xml", "gen.supp"))
    rc, out, errs = H("merge", "--json", base, "--junit", junit, "--gen-suppressions", supp, d)
    import xml.etree.ElementTree as ET
    root = ET.parse(junit).getroot()
    cases = root.findall("./testsuite/testcase")
    ok(rc == 66 and root.tag == "testsuites" and len(cases) == 2
       and cases[0].find("failure") is not None and "app.c:3" in cases[0].get("name")
       and cases[1].find("failure") is None and root.get("failures") == "1",
       "--junit: one failing test case per race, one passing for the completeness of the check",
       "2 cases", ET.tostring(root, encoding="unicode")[:800])
    rules = [line for line in open(supp) if not line.startswith("#") and line.strip()]
    is_(["file:app.c:3\n"], rules, "--gen-suppressions: a rule for the race")
    rc, out, errs = H("merge", "--suppressions", supp, d)
    ok(rc == 0 and "1 suppressed" in errs, "the generated rules suppress the race", "0",
       (rc, errs))
    fps = [json.loads(line)["fingerprint"] for line in open(base)]
    ok(len(fps) == 1 and re.match(r"[0-9a-f]{32}$", fps[0]), "--json carries a fingerprint",
       "hex", fps)
    # The same race after two lines were inserted above it, reported from another copy of the
    # sources (another --source-root): known. A new race beside it: fails the run.
    with open(app, "w") as f:
        f.write("\n".join(["// a new comment", "#include <stdio.h>"] + code) + "\n")
    moved = rdir("ci2", shift=2)
    rc, out, errs = H("merge", "--baseline", base, moved)
    ok(rc == 0 and "1 known race" in errs and "WARNING" not in errs,
       "--baseline: a known race moved by two lines does not fail the run", "0", (rc, errs))
    both = rdir("ci3", shift=2, races=((3, 4), (5, 4)))
    rc, out, errs = H("merge", "--baseline", base, "--junit", junit, both)
    root = ET.parse(junit).getroot()
    ok(rc == 66 and "app.c:7" in errs and "app.c:5 " not in errs and root.get("skipped") == "1",
       "--baseline: only the new race is reported and fails the run (the known one skipped "
       "in JUnit)", "66", (rc, errs))
    rc, out, errs = H("merge", "--baseline", os.path.join(tmp, "nope.jsonl"), both)
    ok(rc == 2 and "nope.jsonl" in errs, "a missing baseline: exit 2, named", "2", (rc, errs))
    rc, out, errs = H("merge", "--junit", os.path.join(tmp, "no", "dir", "r.xml"), "--json",
                      os.path.join(tmp, "still.jsonl"), both)
    ok(rc == 66 and "cannot write" in errs and os.path.getsize(os.path.join(tmp, "still.jsonl")),
       "an unwritable --junit path: named, the other outputs still written", "66", (rc, errs))


def completeness_tests(H, tmp):
    """A rank file per rank, each with one rank record and a summary, or the run fails (67)."""
    def case(name, files):
        d = os.path.join(tmp, name)
        os.makedirs(d)
        for fname, records in files.items():
            write_jsonl(os.path.join(d, fname), records)
        return H("merge", d)

    done = {"type": "summary", "rank": 0, "races": 0, "diagnostics": 0}
    rc, out, errs = case("missing", {"rank-0.jsonl": [ident(0, 4), done],
                                     "rank-2.jsonl": [ident(2, 4), dict(done, rank=2)]})
    ok(rc == 67 and "2 ranks of 4 wrote no report (ranks 1, 3)" in errs
       and "no data races found" not in errs,
       "missing ranks: exit 67, named, never 'no data races found'", "67 + ranks 1, 3",
       (rc, errs))
    rc, out, errs = case("dup", {"rank-0.jsonl": [ident(0, 1, pid=7), done, ident(0, 1, pid=8),
                                                  done]})
    ok(rc == 67 and "rank 0 was reported by 2 processes (pid 7 on node1, pid 8 on node1)" in errs,
       "one rank written by two processes (two jobs, one directory): exit 67, named", "67",
       (rc, errs))
    rc, out, errs = case("sizes", {"rank-0.jsonl": [ident(0, 1), done],
                                   "rank-1.jsonl": [ident(1, 2), dict(done, rank=1)]})
    ok(rc == 67 and "disagree on the job's size (1, 2)" in errs, "two world sizes: exit 67",
       "67", (rc, errs))
    rc, out, errs = case("norecord", {"rank-0.jsonl": [done]})
    ok(rc == 67 and "rank-0.jsonl has no rank record" in errs,
       "a file without its rank record cannot count as a checked rank: exit 67", "67",
       (rc, errs))
    rc, out, errs = case("nosummary", {"rank-0.jsonl": [ident(0, 2), done],
                                       "rank-1.jsonl": [ident(1, 2)]})
    ok(rc == 67 and "rank 1 was killed" in errs and "INCOMPLETE CHECK" in errs,
       "a rank without summary (SIGKILL): named, exit 67", "67", (rc, errs))
    far = dict(ident(0, 4), hosts=2)
    rc, out, errs = case("hosts", {"rank-0.jsonl": [far, done],
                                   "rank-1.jsonl": [ident(1, 4), dict(done, rank=1)]})
    ok(rc == 67 and ("node-local file system" in errs or "could not write" in errs),
       "ranks missing from a multi-host job: the node-local directory is named as the likely cause",
       "67", (rc, errs))
    rc, out, errs = case("plain", {"rank-0.jsonl": [ident(0, 1), dict(done, instrumented=0)]})
    ok(rc == 0 and "not built with hrace-cc: only MPI-level checks ran" in errs,
       "a program not built with hrace-cc: one-line notice", "notice", (rc, errs))


FAKE_LAUNCHER = r"""#include <unistd.h>
int main(int argc, char **argv) {   /* an ELF launcher that links no MPI: runs SCRIPT */
  char *args[64] = { PYTHON, SCRIPT };
  for (int i = 1; i < argc && i < 60; i++) args[i + 1] = argv[i];
  execv(PYTHON, args);
  return 127;
}
"""

FAKE_LAUNCHER_PY = r"""import json, os, sys
kind, args = os.environ["FAKE_KIND"], sys.argv[1:]
if args == ["--version"]:
    print({"openmpi": "mpirun (Open MPI) 4.1.4", "hydra": "HYDRA build details:\n    Version: 4.0.2",
           "slurm": "slurm 22.05.8", "other": "other-tool 1.0"}[kind])
    sys.exit(0)
json.dump({"argv": args, "env": {k: os.environ.get(k) for k in
           ("LD_PRELOAD", "OMP_TOOL_LIBRARIES", "HRACE_RUN_OPTIONS")}},
          open(os.environ["FAKE_RECORD"], "w"))
env = dict(os.environ)
while args and args[0].startswith("-"):          # apply the launcher's own options
    if args[0] == "-x":
        name, _, value = args[1].partition("=")
        env[name] = value
        args = args[2:]
    elif args[0] == "-genv":
        env[args[1]] = args[2]
        args = args[3:]
    elif args[0].startswith("--export="):
        items = args[0][len("--export="):].split(",")
        if "ALL" not in items:
            env = {k: v for k, v in env.items() if k in ("PATH", "HOME")}
        for item in items:
            name, eq, value = item.partition("=")
            if eq:
                env[name] = value
        args = args[1:]
    else:
        args = args[1:]
os.execve(args[0], args, env)
"""


def launcher_tests(H, tmp, job, lib):
    """Launchers are recognised by asking them (`--version`), get hrace's variables as their own
    options, and never run with libhrace preloaded themselves."""
    fakebin = os.path.join(tmp, "fakebin")
    os.makedirs(fakebin)
    script = os.path.join(fakebin, "launcher.py")
    with open(script, "w") as f:
        f.write(FAKE_LAUNCHER_PY)
    src = os.path.join(fakebin, "launcher.c")
    with open(src, "w") as f:
        f.write(FAKE_LAUNCHER)
    exe = os.path.join(fakebin, "launch")
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    p = subprocess.run([cc, f'-DPYTHON="{sys.executable}"', f'-DSCRIPT="{script}"', src, "-o", exe],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if not ok(p.returncode == 0, "fake launcher builds", "0", p.stdout):
        return
    record = os.path.join(tmp, "launch.json")
    py = sys.executable
    for kind in ("openmpi", "hydra", "slurm", "other"):
        for export in ([], ["--export=NONE"]) if kind == "slurm" else ([],):
            env = {"FAKE_KIND": kind, "FAKE_RECORD": record, "LD_PRELOAD": "/user/own.so"}
            rc, out, errs = H("run", "--", exe, *export, py, job, "race", "0", env=env)
            seen = json.load(open(record))
            what = f"{kind}{' ' + export[0] if export else ''}"
            is_(66, rc, f"launcher {what}: the job's race is found through it")
            if kind == "other":
                is_(lib + ":/user/own.so", seen["env"]["LD_PRELOAD"],
                    "an unrecognised command gets the variables in its environment")
                continue
            is_("/user/own.so", seen["env"]["LD_PRELOAD"],
                f"launcher {what}: runs without libhrace preloaded (the user's preload kept)")
            argv = " ".join(seen["argv"])
            want = {"openmpi": f"-x LD_PRELOAD={lib}:/user/own.so -x OMP_TOOL_LIBRARIES={lib} "
                               "-x HRACE_RUN_OPTIONS=report_dir=",
                    "hydra": f"-genv LD_PRELOAD {lib}:/user/own.so -genv OMP_TOOL_LIBRARIES {lib} "
                             "-genv HRACE_RUN_OPTIONS report_dir=",
                    "slurm": (f"--export=ALL,LD_PRELOAD={lib}:/user/own.so,OMP_TOOL_LIBRARIES={lib},"
                              "HRACE_RUN_OPTIONS=report_dir=") if not export else
                             (f"--export=LD_PRELOAD={lib}:/user/own.so,OMP_TOOL_LIBRARIES={lib},"
                              "HRACE_RUN_OPTIONS=report_dir=")}[kind]
            ok(argv.startswith(want), f"launcher {what}: variables passed as its own options",
               want, argv)


def full_race(id_, rank):
    """A race with every optional field: stack with an inlined frame, region, memory, hint."""
    a = side("load", 1, "/srv/app/x.c", 31)
    a.update(func="get", file="/srv/app/h.h", line=3, stack=[
        {"func": "get", "file": "/srv/app/h.h", "line": 3, "inlined": True},
        {"func": "main", "file": "/srv/app/x.c", "line": 31, "inlined": False},
        {"func": "start", "file": "/srv/app/x.c", "line": 70, "inlined": False}], sync=None)
    b = side("MPI_Put", 0, "/usr/src/lib/y.c", 25)
    b.update(stack=[{"func": "main", "file": "/usr/src/lib/y.c", "line": 25, "inlined": False}],
             sync="exclusive lock epoch on rank 1 (MPI_Win_lock at y.c:20)")
    r = race(id_, rank, "remote", a, b, window="halo")
    r.update(addr="0x601008", variable={"name": "buf", "offset": 8, "size": 40},
             allocation=None, hint="rank 1's load (h.h:3) is not ordered after rank 0's MPI_Put")
    return r


def site_tests(H, tmp):
    """Columns, the window's and the allocation's call sites and a C++ name, as a rank writes
    them (docs/report-format.md): kept through the merge into text, JSON and SARIF."""
    d = os.path.join(tmp, "sites")
    os.makedirs(d)
    a = side("load", 1, "/srv/app/grid.cpp", 6, func="halo::Grid::at(int) const")
    a.update(column=58, stack=[{"func": "halo::Grid::at(int) const", "file": "/srv/app/grid.cpp",
                                "line": 6, "column": 58, "inlined": False},
                               {"func": "main", "file": "/srv/app/main.cpp", "line": 28,
                                "column": 14, "inlined": False}])
    b = side("MPI_Put", 0, "/srv/app/halo.cpp", 9, func="halo::push(int*)")
    b.update(column=3, stack=[{"func": "halo::push(int*)", "file": "/srv/app/halo.cpp", "line": 9,
                               "column": 3, "inlined": False},
                              {"func": "exchange", "file": "/srv/app/halo.cpp", "line": 20,
                               "column": 5, "inlined": False}])
    r = race(1, 1, "remote", a, b, window="halo")
    site = {"func": "make_grid", "file": "/srv/app/grid.cpp", "line": 18, "column": 3}
    r.update(variable=None, allocation={"what": "MPI_Win_allocate", "base": "0x7f00", "size": 32,
                                        "site": site},
             window_site={"call": "MPI_Win_allocate", "site": site})
    r2 = race(2, 1, "remote", side("load", 1, "/srv/app/a.c", 40), side("MPI_Get", 0, "/srv/app/a.c", 41),
              window="grid")
    r2.update(variable={"name": "grid", "offset": 0, "size": 32},
              window_site={"call": "MPI_Win_create", "site": dict(site, func="main", line=12)})
    write_jsonl(os.path.join(d, "rank-1.jsonl"), [ident(1, 1), r, r2,
                {"type": "summary", "rank": 1, "races": 2, "diagnostics": 0}])
    sarif, js = os.path.join(tmp, "sites.sarif"), os.path.join(tmp, "sites.jsonl")
    rc, out, errs = H("merge", d, "--sarif", sarif, "--json", js, "--source-root", "/srv")
    want = "\n".join([
        "==hrace==   memory: 32 bytes from MPI_Win_allocate at 0x7f00, called in make_grid (grid.cpp:18:3)",
        "==hrace==   load     by rank 1 thread 0 at halo::Grid::at(int) const (grid.cpp:6:58)",
        "==hrace==              called from main (main.cpp:28:14)",
        "==hrace==   MPI_Put  by rank 0 thread 0 at halo::push(int*) (halo.cpp:9:3)",
        "==hrace==              called from exchange (halo.cpp:20:5)"])
    ok(rc == 66 and want in errs and 'window: "halo"' not in errs,
       "text: columns, the allocation's call site, C++ names; no window line repeating it",
       want, errs)
    ok('==hrace==   window: "grid" made by MPI_Win_create in main (grid.cpp:12:3)' in errs,
       "text: the window's call site when a variable names the memory", "window: line", errs)
    got = [json.loads(line) for line in open(js)]
    by_kind = {g["window"]: g for g in got}
    is_((site, {"call": "MPI_Win_allocate", "site": site}, 58, 14),
        (by_kind["halo"]["allocation"]["site"], by_kind["halo"]["window_site"],
         by_kind["halo"]["a"]["column"], by_kind["halo"]["a"]["stack"][1]["column"]),
        "--json keeps the sites and the columns")
    res = {x["message"]["text"].split("\n")[0]: x for x in json.load(open(sarif))["runs"][0]["results"]}
    regions = [x["locations"][0]["physicalLocation"].get("region") for x in res.values()]
    ok({"startLine": 6, "startColumn": 58} in regions and {"startLine": 40} in regions,
       "SARIF: startColumn when the column is known, none when it is not", "both", regions)
    problem = validate_sarif(sarif)
    ok(problem is None, "SARIF with columns validates against the schema", None, problem)


def report_tests(H, tmp, out_json):
    """Text with stacks / memory / region / hint, SARIF (schema-valid), crash records, colour."""
    d = os.path.join(tmp, "full")
    os.makedirs(d)
    write_jsonl(os.path.join(d, "rank-1.jsonl"), [
        ident(1, 2), full_race(1, 1), {"type": "race-count", "id": 1, "rank": 1, "count": 4},
        race(2, 1, "rma-rma", side("MPI_Put", 0, "/srv/app/x.c", 40),
             side("MPI_Put", 0, "/srv/app/x.c", 41), window="grid"),
        {"type": "crash", "rank": 1, "reason": "signal", "signal": 11, "code": 0, "races": 2}])
    write_jsonl(os.path.join(d, "rank-0.jsonl"),
                [ident(0, 2), {"type": "crash", "rank": 0, "reason": "MPI_Abort", "signal": 0,
                               "code": 3, "races": 0}])
    sarif = os.path.join(tmp, "out.sarif")
    rc, out, errs = H("merge", d, "--sarif", sarif, "--source-root", "/srv")
    is_(66, rc, "full report: exit 66")
    want = "\n".join([
        '==hrace== WARNING: data race (remote) on window "halo" of rank 1, bytes [0,4)',
        "==hrace==   memory: variable 'buf' (40 bytes), bytes [8,12) of it",
        "==hrace==   load     by rank 1 thread 0 at get (h.h:3)",
        "==hrace==              inlined in  main (x.c:31)",
        "==hrace==              called from start (x.c:70)",
        "==hrace==   MPI_Put  by rank 0 thread 0 at main (y.c:25)",
        "==hrace==              in exclusive lock epoch on rank 1 (MPI_Win_lock at y.c:20)",
        "==hrace==   hint: rank 1's load (h.h:3) is not ordered after rank 0's MPI_Put",
        "==hrace==   seen 4 times"])
    ok(want in errs, "text: memory, inlined / called-from frames, region, hint", want, errs)
    ok("rank 1 was killed by signal 11 (SIGSEGV); its races up to then are reported" in errs,
       "crash record of a signal named", "killed by signal 11 (SIGSEGV)", errs)
    ok("rank 0 ended in MPI_Abort (code 3)" in errs, "crash record of MPI_Abort named",
       "ended in MPI_Abort (code 3)", errs)
    ok(errs.rstrip().endswith("from 2 ranks; 2 ranks ended early"),
       "summary counts the ranks that ended early", "...; 2 ranks ended early", errs)
    ok("\033[" not in errs, "no colour when stderr is not a terminal", "no ESC", errs)

    problem = validate_sarif(sarif)
    ok(problem is None, "SARIF validates against the SARIF 2.1.0 schema", None, problem)
    log = json.load(open(sarif))
    run = log["runs"][0]
    is_(("2.1.0", "hrace"), (log["version"], run["tool"]["driver"]["name"]), "SARIF version, tool")
    res = {r["ruleId"]: r for r in run["results"]}
    is_(["hrace/remote", "hrace/rma-rma"], sorted(res), "one result per distinct race, by kind")
    r = res["hrace/remote"]
    rules = run["tool"]["driver"]["rules"]
    is_("hrace/remote", rules[r["ruleIndex"]]["id"], "ruleIndex points at the result's rule")
    loc = r["locations"][0]["physicalLocation"]
    is_(({"uri": "app/h.h", "uriBaseId": "%SRCROOT%"}, {"startLine": 3}),
        (loc["artifactLocation"], loc.get("region")), "location relative to --source-root")
    rel = r["relatedLocations"][0]["physicalLocation"]["artifactLocation"]
    is_({"uri": "file:///usr/src/lib/y.c"}, rel, "other side outside the root: absolute file URI")
    is_(4, r["occurrenceCount"], "occurrenceCount is the merged count")
    is_(["get", "main", "start"],
        [f["location"]["logicalLocations"][0]["name"] for f in r["stacks"][0]["frames"]],
        "stack frames of the first access")
    ok("rank 1's load (h.h:3) is not ordered" in r["message"]["text"], "hint in the message",
       "hint", r["message"]["text"])
    is_("file:///srv/", run["originalUriBaseIds"]["%SRCROOT%"]["uri"], "%SRCROOT% defined")
    notes = run["invocations"][0].get("toolExecutionNotifications", [])
    ok(len(notes) == 2 and not run["invocations"][0]["executionSuccessful"],
       "ranks that ended early are tool notifications", 2, notes)
    fp = r["partialFingerprints"]["hraceRace/v1"]
    rc, out, errs = H("merge", d, "--sarif", sarif, "--source-root", "/srv/")
    is_(fp, json.load(open(sarif))["runs"][0]["results"][0]["partialFingerprints"]["hraceRace/v1"],
        "fingerprint stable across runs")
    clean = os.path.join(tmp, "clean")
    rc, out, errs = H("merge", clean, "--sarif", sarif)
    ok(rc == 0 and validate_sarif(sarif) is None and json.load(open(sarif))["runs"][0]["results"]
       == [], "no races: an empty, valid SARIF log", "[]", validate_sarif(sarif))

    # Colour: only on a terminal, never with NO_COLOR.
    import pty
    for no_color, want_esc in ((None, True), ("1", False)):
        master, slave = pty.openpty()
        e = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        if no_color:
            e["NO_COLOR"] = no_color
        subprocess.run([sys.executable, os.path.join(tmp, "bin", "hrace"), "merge", d],
                       stdout=subprocess.PIPE, stderr=slave, env=e, timeout=60)
        os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(master)
        text = b"".join(chunks).decode(errors="replace")
        ok(("\033[1;31mWARNING: data race" in text) == want_esc,
           f"colour on a terminal {'with' if no_color else 'without'} NO_COLOR: "
           f"{'coloured' if want_esc else 'plain'}", want_esc, text[:200])


def suppression_tests(H, tmp, job, user_env):
    """--suppressions: malformed files are usage errors naming the line; run hands the file to
    the runtime; merge applies each kind to exactly what it names."""
    def supp(name, text):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    fifo = os.path.join(tmp, "supp.fifo")
    os.mkfifo(fifo)
    for path, what in ((fifo, "a FIFO"), ("/dev/zero", "a device"), (tmp, "a directory")):
        rc, out, errs = H("merge", "--suppressions", path, tmp)
        ok(rc == 2 and f"it is {what}, not a regular file" in errs and "Traceback" not in errs,
           f"--suppressions naming {what}: exit 2 at once, no hang", "2", (rc, errs))
    rc, out, errs = H("run", "--", sys.executable, job, "race", "0",
                      env={"TMPDIR": os.path.join(tmp, "no-such-dir")}, cwd="/proc")
    ok(rc == 2 and "cannot create a report directory" in errs and "Traceback" not in errs,
       "a TMPDIR that does not exist: one line, exit 2", "2", (rc, errs))
    for text, want in (("window:halo\nfunctions:foo\n", ":2: unknown suppression kind 'functions'"),
                       ("\n# c\nfoo\n", ":3: expected KIND:PATTERN"),
                       ("function:\n", ":1: empty pattern"),
                       ("file:x.c:0\n", ":1: bad line number '0'"),
                       ("file:x.c:7x\n", ":1: bad line number '7x'")):
        path = supp("bad.supp", text)
        envfile = os.path.join(tmp, "env.json")
        if os.path.exists(envfile):
            os.unlink(envfile)
        rc, out, errs = H("run", "--suppressions", path, "--", sys.executable, job, "race", "0")
        ok(rc == 2 and path + want in errs and not os.path.exists(envfile),
           f"malformed suppressions ({want.split(': ', 1)[1]}): exit 2 before the job, line named",
           path + want, (rc, errs))
    rc, out, errs = H("run", "--suppressions", os.path.join(tmp, "missing.supp"), "--", "true")
    ok(rc == 2 and "missing.supp" in errs, "missing suppressions file: exit 2, named", 2, (rc, errs))

    good = supp("good.supp", "# nothing to hide\n")
    rc, out, errs = H("run", "--suppressions", good, "--", sys.executable, job, "race", "0",
                      env=user_env)
    seen = json.load(open(os.path.join(tmp, "env.json")))
    ok(seen["HRACE_RUN_OPTIONS"].endswith(f"exitcode=0 suppressions={good}"),
       "run: the suppressions file goes to the runtime (absolute path)", good,
       seen["HRACE_RUN_OPTIONS"])
    # Paths with white space, commas and quotes travel quoted (src/base/options.c reads them
    # back; tests/unit/test_options.c checks that side).
    odd_dir = os.path.join(tmp, 'odd dir, "q"')
    os.makedirs(odd_dir)
    odd = os.path.join(odd_dir, "s.supp")
    with open(odd, "w") as f:
        f.write("# nothing to hide\n")
    rc, out, errs = H("run", "--suppressions", odd, "--", sys.executable, job, "race", "0",
                      env=dict(user_env, HRACE_OPTIONS='verbosity=1,report_dir="/a,b" x=\'c,d\''))
    seen = json.load(open(os.path.join(tmp, "env.json")))
    quoted = '"' + odd.replace('"', '\\"') + '"'
    ok(rc == 66 and seen["HRACE_RUN_OPTIONS"].endswith(f"suppressions={quoted}"),
       "run: a suppressions path with a space, a comma and quotes goes quoted", quoted,
       (rc, errs, seen["HRACE_RUN_OPTIONS"]))
    is_('verbosity=1 report_dir="/a,b" x=\'c,d\'', seen["HRACE_OPTIONS"],
        "run: commas between the user's options become spaces, those in quotes stay")

    # merge: four races, each rule must take exactly its own.
    d = os.path.join(tmp, "supp-reports")
    os.makedirs(d)
    races = {
        "fn": race(1, 1, "remote", dict(side("load", 1, "/s/a.c", 10, func="halo_exchange"),
                                        stack=[{"func": "pack", "file": "/s/a.c", "line": 10,
                                                "inlined": True},
                                               {"func": "halo_exchange", "file": "/s/a.c",
                                                "line": 12, "inlined": False}]),
                   side("MPI_Put", 0, "/s/b.c", 20), window="w1"),
        "line": race(2, 1, "remote", side("load", 1, "/s/c.c", 30), side("MPI_Put", 0, "/s/c.c", 31),
                     window="w1"),
        "file": race(3, 1, "remote", side("load", 1, "/s/lib/d.c", 40),
                     side("MPI_Get", 0, "/s/e.c", 41), window="w1"),
        "win": race(4, 1, "rma-rma", side("MPI_Put", 0, "/s/f.c", 50),
                    side("MPI_Put", 2, "/s/f.c", 51), window="scratch"),
    }
    write_jsonl(os.path.join(d, "rank-1.jsonl"), list(races.values()) +
                [{"type": "summary", "rank": 1, "races": 4, "diagnostics": 0}])
    out_json = os.path.join(tmp, "supp.jsonl")
    cases = [
        ("function:halo_exchange", {"fn"}), ("function:pack", {"fn"}), ("function:halo", set()),
        ("file:c.c:30", {"line"}), ("file:c.c:31", {"line"}), ("file:c.c:32", set()),
        ("file:d.c", {"file"}), ("file:/s/lib/*", {"file"}), ("file:lib/d.c", set()),
        ("window:scratch", {"win"}), ("window:w1", {"fn", "line", "file"}),
        ("window:f.c", set()), ("file:scratch", set()), ("function:scratch", set()),
        # ThreadSanitizer's kinds, and trailing comments
        ("race:halo_exchange", {"fn"}), ("race:pack", {"fn"}), ("race:d.c", {"file"}),
        ("race_top:pack", {"fn"}), ("race_top:halo_exchange", set()), ("race_top:e.c", {"file"}),
        ("called_from_lib:d.c", {"file"}), ("called_from_lib:lib", {"file"}),
        ("function:halo_exchange   # the halo, known", {"fn"}),
        ("window:scratch\t# scratch space", {"win"}),
    ]
    lines_of = {k: (r["a"]["line"], r["b"]["line"]) for k, r in races.items()}
    # The README's example, copied from README.md as it stands: it must be accepted as is.
    readme = open(os.path.join(HERE, "..", "..", "README.md")).read()
    example = re.search(r"\*\*Suppressions\*\*.*?```\n(.*?)```", readme, re.S).group(1)
    rc, out, errs = H("merge", d, "--suppressions", supp("readme.supp", example))
    ok(rc == 66 and "; 2 suppressed" in errs,
       "the README's suppressions example is accepted as written (function:halo_* and "
       "window:scratch hide one each)", "66, 2 suppressed", (rc, example, errs))
    for rule, hidden in cases:
        rc, out, errs = H("merge", d, "--json", out_json, "--suppressions", supp("one.supp", rule))
        left = {min(json.loads(l)["a"]["line"], json.loads(l)["b"]["line"])
                for l in open(out_json) if l.strip()}
        want = {min(v) for k, v in lines_of.items() if k not in hidden}
        ok(left == want and (f"; {len(hidden)} suppressed" in errs) == bool(hidden),
           f"merge --suppressions '{rule}' hides exactly {sorted(hidden) or 'nothing'}",
           sorted(want), (sorted(left), errs.strip().splitlines()[-1]))


if __name__ == "__main__":
    sys.exit(main())
