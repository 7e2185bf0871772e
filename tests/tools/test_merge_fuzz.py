#!/usr/bin/env python3
"""TAP: `hrace merge` never ends in a traceback, whatever the rank files hold (issue 23).

Seeded mutations of a valid two-rank report directory (bytes flipped, lines cut, duplicated or
dropped, values replaced by every JSON type, deep nesting, huge numbers, NUL and non-UTF-8
bytes, directories and FIFOs where files should be) are merged in-process, with --json and
--sarif written; each run must return an exit status (0, 2, 66, 67), never raise. Then
200 000 race records (the size of a long, racy run) are merged once, timed and measured.

usage: test_merge_fuzz.py [--hrace PATH] [--runs N] [--seconds S] [--seed K]"""

import contextlib
import copy
import importlib.machinery
import importlib.util
import io
import json
import os
import random
import resource
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import Tap  # noqa: E402  (tests/tools/tap.py)

T = Tap()
ok = T.ok
HERE = os.path.dirname(os.path.abspath(__file__))



def load(path):
    loader = importlib.machinery.SourceFileLoader("hrace_launcher", path)
    spec = importlib.util.spec_from_loader("hrace_launcher", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def side(op, rank, line):
    return {"op": op, "rank": rank, "thread": 0, "func": "main", "file": "/src/a.c",
            "line": line, "offset": 0, "size": 4,
            "stack": [{"func": "main", "file": "/src/a.c", "line": line, "inlined": False}],
            "sync": None}


def valid_files():
    files = {}
    for r in (0, 1):
        recs = [{"type": "rank", "rank": r, "size": 2, "hosts": 1, "host": "n", "pid": 10 + r,
                 "mpi": "Open MPI v4.1.4", "mpi_built": "Open MPI 4.1.4", "hrace": "0.1.0"},
                {"type": "race", "id": 1, "rank": r, "kind": "remote", "window": "w", "owner": 1,
                 "base": "0x10", "addr": "0x10", "variable": {"name": "g", "offset": 0, "size": 8},
                 "allocation": None, "hint": "h", "a": side("load", 1, 9),
                 "b": side("MPI_Put", 0, 7)},
                {"type": "diagnostic", "rank": r, "severity": "error", "message": "m",
                 "func": "main", "file": "/src/a.c", "line": 3},
                {"type": "race-count", "id": 1, "rank": r, "count": 3},
                {"type": "summary", "rank": r, "races": 1, "diagnostics": 1, "unreported": 0,
                 "suppressed": 0, "instrumented": 1}]
        files[f"rank-{r}.jsonl"] = recs
    return files


ODD_VALUES = [None, True, False, 0, -1, 2 ** 70, 1.5, float("nan"), "", "x" * 300, "\u0000\u001b",
              [], [1, [2]], {}, {"a": {"b": []}}, ["id"], {"file": 3}, -(2 ** 63)]


def mutate_record(rng, rec):
    if not isinstance(rec, dict) or not rec:
        return rec
    rec = json.loads(json.dumps(rec))
    for _ in range(rng.randint(1, 3)):
        target = rec
        if rng.random() < 0.4:                       # reach into a side or a stack frame
            inner = [v for v in rec.values() if isinstance(v, dict)]
            if inner:
                target = rng.choice(inner)
        if not target:
            continue
        key = rng.choice(list(target))
        what = rng.random()
        if what < 0.15:
            del target[key]
        elif what < 0.25:
            target[rng.choice(["type", "kind", "id", "rank", "size", "count", "races"])] = \
                copy.deepcopy(rng.choice(ODD_VALUES))
        else:
            target[key] = copy.deepcopy(rng.choice(ODD_VALUES))
    return rec


def mutate_bytes(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        how = rng.random()
        if not data:
            break
        i = rng.randrange(len(data))
        if how < 0.3:
            data[i] = rng.randrange(256)
        elif how < 0.45:
            del data[i:]
        elif how < 0.6:
            data[i:i] = rng.choice([b"\0", b"\xff\xfe", b"\n", b"{", b"]]]", b'"', b"\\u12"])
        elif how < 0.7:
            data[i:i] = b"[" * 50000 + b"]" * 50000     # deep nesting
        else:
            data[i:i] = b"\n" + data[i:i + rng.randrange(200)]
    return bytes(data)


def write_case(rng, d):
    files = valid_files()
    for name in list(files):
        recs = files[name]
        if rng.random() < 0.5:
            recs = [mutate_record(rng, r) if rng.random() < 0.4 else r for r in recs]
        if rng.random() < 0.2:
            rng.shuffle(recs)
        if rng.random() < 0.15:
            recs = recs + recs[:rng.randint(0, len(recs))]
        data = "".join(json.dumps(r, allow_nan=True) + "\n" for r in recs).encode()
        if rng.random() < 0.4:
            data = mutate_bytes(rng, data)
        path = os.path.join(d, name)
        if rng.random() < 0.03:
            os.mkdir(path)                           # a stale directory where a file should be
        elif rng.random() < 0.03:
            os.mkfifo(path)                          # a FIFO: must not block the merge
        else:
            with open(path, "wb") as f:
                f.write(data)
    if rng.random() < 0.05:
        with open(os.path.join(d, "rank-7.jsonl"), "wb") as f:
            f.write(os.urandom(rng.randrange(1, 512)))


def fuzz(hrace, tmp, runs, seconds, seed):
    rng = random.Random(seed)
    start, done, statuses, failure = time.monotonic(), 0, {}, None
    out_json, out_sarif = os.path.join(tmp, "o.jsonl"), os.path.join(tmp, "o.sarif")
    while done < runs and time.monotonic() - start < seconds:
        d = os.path.join(tmp, f"c{done}")
        os.mkdir(d)
        write_case(rng, d)
        sink = io.StringIO()
        try:
            with contextlib.redirect_stderr(sink), contextlib.redirect_stdout(sink):
                status = hrace.main(["merge", "--json", out_json, "--sarif", out_sarif, d])
        except BaseException as e:                  # noqa: B902 (SystemExit too: no exits)
            import traceback
            failure = (done, "".join(traceback.format_exception(e)),
                       {n: open(os.path.join(d, n), "rb").read()[:400]
                        for n in os.listdir(d) if os.path.isfile(os.path.join(d, n))})
            break
        statuses[status] = statuses.get(status, 0) + 1
        shutil.rmtree(d)
        done += 1
    return done, statuses, failure, time.monotonic() - start


def big_merge(hrace, tmp, n=200000):
    """n race records over 4 ranks, n/4 distinct races: streamed, not held in memory."""
    d = os.path.join(tmp, "big")
    os.mkdir(d)
    per = n // 4
    for r in range(4):
        with open(os.path.join(d, f"rank-{r}.jsonl"), "w") as f:
            f.write(json.dumps({"type": "rank", "rank": r, "size": 4, "hosts": 1, "host": "n",
                                "pid": r}) + "\n")
            for i in range(per):
                rec = {"type": "race", "id": i + 1, "rank": r, "kind": "remote", "window": "w",
                       "owner": 1, "base": "0x10", "hint": "no synchronisation " * 10,
                       "a": side("load", 1, 1000 + r * per // 4 + i % (per // 4)),
                       "b": side("MPI_Put", 0, 7)}
                f.write(json.dumps(rec) + "\n")
            f.write(json.dumps({"type": "summary", "rank": r, "races": per}) + "\n")
    size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.process_time()
    sink = io.StringIO()
    with contextlib.redirect_stderr(sink):
        status = hrace.main(["merge", "--quiet", "--json", os.path.join(tmp, "big.jsonl"), d])
    took = time.process_time() - t0
    grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    return status, took, size, grew, sink.getvalue()


def main():
    args = sys.argv[1:]
    opts = {"--hrace": os.path.join(HERE, "..", "..", "tools", "hrace"), "--runs": "10000",
            "--seconds": "90", "--seed": "15"}
    while args:
        if args[0] not in opts or len(args) < 2:
            print(__doc__, file=sys.stderr)
            return 2
        opts[args[0]] = args[1]
        args = args[2:]
    hrace = load(os.path.abspath(opts["--hrace"]))
    tmp = tempfile.mkdtemp(prefix="hrace-fuzz-")
    try:
        runs, seconds, seed = int(opts["--runs"]), float(opts["--seconds"]), int(opts["--seed"])
        done, statuses, failure, took = fuzz(hrace, tmp, runs, seconds, seed)
        detail = ""
        if failure:
            detail = f"case {failure[0]} (seed {seed}):\n{failure[1]}\n{failure[2]}"
        ok(failure is None, f"{done} mutated report directories merged without a traceback "
           f"({took:.0f} s, seed {seed}, statuses {dict(sorted(statuses.items()))})", detail)
        ok(set(statuses) <= {0, 2, 66, 67}, "every status is one hrace documents", statuses)
        ok(done >= min(runs, 1000), f"at least {min(runs, 1000)} cases ran in the time bound",
           done)
        status, took, size, grew, errs = big_merge(hrace, tmp)
        print(f"# 200000 race records ({size / 1e6:.0f} MB): {took:.1f} s of CPU, peak RSS grew by "
              f"{grew / 1024:.0f} MB")
        ok(status == 66 and "50000 distinct data races (200000 occurrences)" in errs,
           "200 000 race records merged: 50 000 distinct, every occurrence counted", errs[-500:])
        ok(grew < 200 * 1024, f"... in less than 200 MB more memory ({grew / 1024:.0f} MB)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == "__main__":
    sys.exit(main())
