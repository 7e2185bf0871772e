#!/usr/bin/env python3
"""Run one end-to-end case: compile it with hrace-cc, run it under `hrace run` with mpirun, and
check the verdict and the racing source lines against the case's own header (docs/testing.md).

usage: run_case.py --build DIR --work DIR [--repeat N] [--timeout S] CASE.c

Prints TAP on stdout; exits 1 when any check fails, 2 on a usage error. Each job runs in its
own session / process group and is killed as a whole when it exceeds the timeout.
--repeat N (default: $HRACE_TEST_REPEAT or 1) runs the job N times and also fails when the
verdict or the reported lines change from one run to the next."""

import argparse
import glob
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

from sarif_schema import validate_sarif   # tests/sarif_schema.py, beside this file

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RACE_EXIT = 66                   # hrace run's default exit status when a race was reported
COMPILE_TIMEOUT = 180
TAIL_LINES = 120                 # lines of job output shown on failure
# What a C main links for Fortran companions that call MPI (`use mpi`, `use mpi_f08`).
FORTRAN_MPI_LIBS = {"openmpi": ["-lmpi_usempif08", "-lmpi_usempi_ignore_tkr", "-lmpi_mpifh"],
                    "mpich": ["-lmpichfort"]}

KEYS = ("ranks", "expect", "pair", "openmp", "env", "cflags", "count", "suppressions", "golden",
        "cc", "fortran", "todo", "diagnostic", "mpi")
# cc: COMPILER        build with HRACE_CC=COMPILER (e.g. gcc) instead of hrace-cc's default
# fortran: FILE...    Fortran sources beside the case, compiled with hrace-fort and linked in;
#                     `pair:` sides in them are written FILE:LINE
# mpi: NAME           only meaningful on that MPI (openmpi or mpich: HRACE_MPICC names it);
#                     skipped on the other
# todo: REASON        the verdict depends on work not done yet: its tests are TAP TODO (they
#                     may fail without failing the case; the case must still compile)
GOLDEN_DIR = os.path.join(REPO, "tests", "golden")


class HeaderError(Exception):
    pass


class Case:
    def __init__(self, path):
        self.path = path
        self.name = os.path.splitext(os.path.basename(path))[0]
        self.ranks = None
        self.expect = None
        self.pairs = set()
        self.openmp = False
        self.env = {}
        self.cflags = []
        self.counts = {}             # (line, line) -> occurrences the merged report must show
        self.suppressions = None     # absolute path, for hrace run --suppressions
        self.golden = None           # name of the golden files in tests/golden
        self.cc = None               # HRACE_CC for the compile, or hrace-cc's default
        self.fortran = []            # absolute paths of Fortran companion sources
        self.todo = None             # why the verdict may not hold yet (TAP TODO)
        self.diagnostics = set()     # lines of the misuse diagnostics the run must report
        self.mpi = None              # "openmpi" / "mpich": the only MPI the case is meant for


def parse_header(path):
    """The `/* hrace-test ... */` block at the top of the file. Every line in it is `key: value`;
    unknown keys, repeated single-valued keys and bad values are errors naming the line."""
    case = Case(path)
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i == len(lines) or lines[i].strip() != "/* hrace-test":
        raise HeaderError("the file must start with a `/* hrace-test` comment block")
    seen = set()
    closed = False
    for number in range(i + 2, len(lines) + 1):
        text = lines[number - 1].strip()
        if text.endswith("*/"):
            closed = True
            text = text[:-2].rstrip()
        if text.startswith("*"):
            text = text[1:].strip()
        if text:
            m = re.fullmatch(r"([A-Za-z_-]+)\s*:\s*(.*)", text)
            if not m:
                hint = "" if lines[number - 1].lstrip().startswith("*") else \
                    " (is the block closed with */?)"
                raise HeaderError(f"line {number}: expected `key: value`, got {text!r}{hint}")
            key, value = m.group(1), m.group(2).strip()
            if key not in KEYS:
                raise HeaderError(f"line {number}: unknown key {key!r} (known: {', '.join(KEYS)})")
            if key in ("ranks", "expect", "openmp", "suppressions", "golden", "cc", "todo") \
                    and key in seen:
                raise HeaderError(f"line {number}: {key!r} given twice")
            seen.add(key)
            set_key(case, key, value, number, len(lines))
        if closed:
            break
    if not closed:
        raise HeaderError("the hrace-test comment block is not closed with */")
    if case.ranks is None or case.expect is None:
        raise HeaderError("the header needs `ranks:` and `expect:`")
    if case.expect == "race" and not case.pairs:
        raise HeaderError("`expect: race` needs at least one `pair: LINE LINE`")
    if case.expect == "no-race" and case.pairs:
        raise HeaderError("`expect: no-race` cannot have `pair:` lines")
    missing = set(case.counts) - case.pairs
    if missing:
        a, b = sorted(missing)[0]
        raise HeaderError(f"`count: {a} {b} ...` names no `pair: {a} {b}`")
    return case


def set_key(case, key, value, number, nlines):
    bad = f"line {number}: bad {key} {value!r}: "
    if key == "ranks":
        if not re.fullmatch(r"[0-9]+", value) or int(value) > 256:
            raise HeaderError(bad + "want a number of ranks 1..256, or 0 (run without mpirun)")
        case.ranks = int(value)
    elif key == "expect":
        if value not in ("race", "no-race"):
            raise HeaderError(bad + "want `race` or `no-race`")
        case.expect = value
    elif key == "pair" and ":" in value:
        # Sides in companion files (fortran:) are FILE:LINE; a side in the case itself may
        # still be a plain LINE.
        parts = value.split()
        sides = [re.fullmatch(r"(?:([A-Za-z0-9_.+-]+):)?([1-9][0-9]*)", p) for p in parts]
        if len(parts) != 2 or not all(sides):
            raise HeaderError(bad + "want two sides, each LINE or FILE:LINE")
        own = os.path.basename(case.path)
        case.pairs.add(norm_pair(*[(m.group(1) or own, int(m.group(2))) for m in sides], own))
    elif key == "pair":
        parts = value.split()
        if len(parts) != 2 or not all(re.fullmatch(r"[1-9][0-9]*", p) for p in parts):
            raise HeaderError(bad + "want two source line numbers")
        a, b = int(parts[0]), int(parts[1])
        if max(a, b) > nlines:
            raise HeaderError(bad + f"the file has only {nlines} lines")
        case.pairs.add((min(a, b), max(a, b)))
    elif key == "diagnostic" and ":" in value:
        # A diagnostic in a companion file (fortran:) is FILE:LINE.
        m = re.fullmatch(r"([A-Za-z0-9_.+-]+):([1-9][0-9]*)", value)
        if not m:
            raise HeaderError(bad + "want LINE or FILE:LINE")
        own = os.path.basename(case.path)
        case.diagnostics.add(int(m.group(2)) if m.group(1) == own
                             else f"{m.group(1)}:{int(m.group(2))}")
    elif key == "diagnostic":
        if not re.fullmatch(r"[1-9][0-9]*", value) or int(value) > nlines:
            raise HeaderError(bad + f"want the source line of the misused call (1..{nlines})")
        case.diagnostics.add(int(value))
    elif key == "cc":
        if not re.fullmatch(r"[A-Za-z0-9_.+/-]+", value):
            raise HeaderError(bad + "want one compiler command, e.g. gcc")
        case.cc = value
    elif key == "fortran":
        for name in value.split():
            path = os.path.join(os.path.dirname(case.path), name)
            if not os.path.isfile(path):
                raise HeaderError(bad + f"no file {name!r} beside the case")
            case.fortran.append(os.path.abspath(path))
    elif key == "mpi":
        if value not in ("openmpi", "mpich"):
            raise HeaderError(bad + "want `openmpi` or `mpich`")
        case.mpi = value
    elif key == "todo":
        if not value:
            raise HeaderError(bad + "say what the verdict waits for")
        case.todo = value
    elif key == "openmp":
        if value not in ("yes", "no"):
            raise HeaderError(bad + "want `yes` or `no`")
        case.openmp = value == "yes"
    elif key == "env":
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", value)
        if not m:
            raise HeaderError(bad + "want NAME=VALUE")
        case.env[m.group(1)] = m.group(2)
    elif key == "cflags":
        try:
            case.cflags += shlex.split(value)
        except ValueError as e:
            raise HeaderError(bad + str(e))
    elif key == "count":
        parts = value.split()
        if len(parts) != 3 or not all(re.fullmatch(r"[1-9][0-9]*", p) for p in parts):
            raise HeaderError(bad + "want two source line numbers and a count")
        a, b, n = (int(p) for p in parts)
        case.counts[(min(a, b), max(a, b))] = n
    elif key == "suppressions":
        path = os.path.join(os.path.dirname(case.path), value)
        if not os.path.isfile(path):
            raise HeaderError(bad + "no such file beside the case")
        case.suppressions = os.path.abspath(path)
    elif key == "golden":
        if not re.fullmatch(r"[A-Za-z0-9_-]+", value):
            raise HeaderError(bad + "want a name of letters, digits, _ and -")
        case.golden = value


# ---- TAP -------------------------------------------------------------------------------------

class Tap:
    def __init__(self, planned):
        self.n = 0
        self.failed = 0
        print(f"1..{planned}", flush=True)

    todo = None                      # set: later tests are TAP TODO (header key `todo:`)

    def ok(self, cond, name, wanted=None, got=None):
        self.n += 1
        print(f"{'ok' if cond else 'not ok'} {self.n} - {name}" +
              (f" # TODO {self.todo}" if self.todo else ""))
        if not cond:
            self.failed += 0 if self.todo else 1
            if wanted is not None or got is not None:
                print(f"#   wanted: {wanted}\n#      got: {got}")
        sys.stdout.flush()
        return cond

    def skip(self, name, why):
        self.n += 1
        print(f"ok {self.n} - {name} # SKIP {why}", flush=True)

    @staticmethod
    def diag(title, text):
        lines = text.rstrip("\n").split("\n") if text.strip() else []
        print(f"# {title}" + ("" if lines else " (empty)"))
        if len(lines) > TAIL_LINES:
            print(f"#   ... {len(lines) - TAIL_LINES} earlier lines not shown")
            lines = lines[-TAIL_LINES:]
        for line in lines:
            print(f"#   {line}")
        sys.stdout.flush()


# ---- processes -------------------------------------------------------------------------------

def session_members(sid):
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 3 and int(fields[3]) == sid:       # state ppid pgrp session
            pids.append(int(entry))
    return pids


def kill_session(sid, sig):
    """Signal the process group and every other process left in the session (ranks that put
    themselves in a group of their own)."""
    try:
        os.killpg(sid, sig)
    except OSError:
        pass
    for pid in session_members(sid):
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def run_in_session(cmd, cwd, env, timeout, out_path, err_path):
    """Run CMD in a new session with output to files (no pipe a stray grandchild could hold
    open). Returns (status, timed_out, leftovers)."""
    with open(out_path, "w") as out, open(err_path, "w") as err:
        try:
            p = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=err, start_new_session=True)
        except OSError as e:
            err.write(f"cannot run {cmd[0]}: {e.strerror}\n")
            return 127, False, 0
        timed_out = False
        try:
            status = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_session(p.pid, signal.SIGTERM)
            try:
                status = p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                kill_session(p.pid, signal.SIGKILL)
                status = p.wait()
        leftovers = session_members(p.pid)
        if leftovers:
            kill_session(p.pid, signal.SIGKILL)
            deadline = time.time() + 5
            while session_members(p.pid) and time.time() < deadline:
                time.sleep(0.05)
    return status, timed_out, len(leftovers)


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def norm_pair(x, y, own):
    """A pair of (file basename, line) sides as the set stores it: (line, line) when both are
    in the case's own file, else ordered sides with the other files' sides as (file, line)."""
    if x[0] == own and y[0] == own:
        return (min(x[1], y[1]), max(x[1], y[1]))
    side = lambda s: s[1] if s[0] == own else s
    key = lambda s: (0, "", s) if isinstance(s, int) else (1,) + s
    return tuple(sorted((side(x), side(y)), key=key))


def fmt_side(s):
    return str(s) if isinstance(s, int) else f"{s[0]}:{s[1]}"


def fmt_pairs(pairs):
    if pairs is None:
        return "(no JSON report)"
    key = lambda p: tuple((0, "", s) if isinstance(s, int) else (1,) + s for s in p)
    return "{" + ", ".join(f"{fmt_side(a)} {fmt_side(b)}" for a, b in sorted(pairs, key=key)) + "}"


def reported_pairs(json_path, case_base, companions=()):
    """Unordered (line, line) pairs of the reported races whose both sides are in the case's
    own file (or its companion files: norm_pair), or None when the report is missing or
    unreadable."""
    try:
        with open(json_path) as f:
            races = [json.loads(line) for line in f if line.strip()]
        pairs = set()
        mine = {case_base, *companions}
        for r in races:
            a, b = r["a"], r["b"]
            fa, fb = (os.path.basename(s.get("file") or "") for s in (a, b))
            if fa in mine and fb in mine:
                pairs.add(norm_pair((fa, a["line"]), (fb, b["line"]), case_base))
        return pairs
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def reported_counts(json_path, case_base):
    """(line, line) -> summed "count" of the merged races in the case's own file."""
    counts = {}
    try:
        with open(json_path) as f:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line)
                a, b = r["a"], r["b"]
                if os.path.basename(a.get("file") or "") == case_base and \
                        os.path.basename(b.get("file") or "") == case_base:
                    p = (min(a["line"], b["line"]), max(a["line"], b["line"]))
                    counts[p] = counts.get(p, 0) + r.get("count", 1)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return counts


# ---- golden reports ----------------------------------------------------------------------------
# Only the fields that are the same in every run and on every machine are compared: addresses,
# per-rank ids, absolute paths (reduced to basenames) and the version are normalised away.
# HRACE_UPDATE_GOLDEN=1 writes the golden files from this run instead of comparing.

HEX = re.compile(r"0x[0-9a-fA-F]+")


def _basenames(x):
    if isinstance(x, dict):
        return {k: (os.path.basename(v) if k == "file" and isinstance(v, str) else _basenames(v))
                for k, v in x.items() if k not in ("base", "addr", "id")}
    if isinstance(x, list):
        return [_basenames(v) for v in x]
    return x


def build_info(build):
    """The key=value lines of BUILD/lib/libhrace.build (docs/mpi.md); {} without it."""
    info = {}
    try:
        with open(os.path.join(build, "lib", "libhrace.build")) as f:
            for line in f:
                key, sep, value = line.rstrip("\n").partition("=")
                if sep:
                    info[key] = value
    except OSError:
        pass
    return info


def reported_diagnostics(report_dir, case_base, companions=()):
    """Lines of this case's file at which the ranks' own report files have a misuse diagnostic
    (the launcher's merged --json carries races only); in a companion file, "FILE:LINE"."""
    lines = set()
    for path in glob.glob(os.path.join(report_dir, "rank-*.jsonl")):
        for text in open(path, errors="replace"):
            try:
                rec = json.loads(text)
            except ValueError:
                continue
            if not (isinstance(rec, dict) and rec.get("type") == "diagnostic" and
                    isinstance(rec.get("line"), int)):
                continue
            base = os.path.basename(str(rec.get("file") or ""))
            if base == case_base:
                lines.add(rec["line"])
            elif base in companions:
                lines.add(f"{base}:{rec['line']}")
    return lines


def golden_json(path):
    with open(path) as f:
        races = [_basenames(json.loads(line)) for line in f if line.strip()]
    return "".join(json.dumps(r, sort_keys=True) + "\n" for r in races)


def golden_text(path):
    keep = [line for line in read(path).splitlines()
            if line.startswith("==hrace==") or line.startswith("hrace: ")]
    return "".join(HEX.sub("0xADDR", line) + "\n" for line in keep)


def golden_sarif(path):
    with open(path) as f:
        log = json.load(f)
    for run in log.get("runs", []):
        run["tool"]["driver"]["version"] = "VERSION"
        run.pop("originalUriBaseIds", None)
        for inv in run.get("invocations", []):
            inv.pop("exitCode", None)
    return HEX.sub("0xADDR", json.dumps(log, indent=1, sort_keys=True)) + "\n"


def check_golden(tap, tag, case, json_path, err_path, sarif_path):
    update = os.environ.get("HRACE_UPDATE_GOLDEN") == "1"
    passed = True
    for ext, make, src in (("jsonl", golden_json, json_path), ("txt", golden_text, err_path),
                           ("sarif", golden_sarif, sarif_path)):
        golden = os.path.join(GOLDEN_DIR, f"{case.golden}.{ext}")
        try:
            got = make(src)
        except (OSError, ValueError, KeyError, TypeError) as e:
            got = f"(unreadable: {e})"
        problem = validate_sarif(src) if ext == "sarif" else None
        if update and problem is None:
            with open(golden, "w") as f:
                f.write(got)
        want = read(golden)
        name = f"{tag}: {ext} report matches tests/golden/{case.golden}.{ext}"
        if ext == "sarif":
            name += " and validates against the SARIF 2.1.0 schema"
        ok = tap.ok(got == want and problem is None, name)
        if not ok:
            if problem:
                print(f"#   schema: {problem}")
            import difflib
            for line in list(difflib.unified_diff(want.splitlines(), got.splitlines(), "golden",
                                                  "this run", lineterm=""))[:60]:
                print(f"#   {line}")
        passed &= ok
    return passed


# ---- main ------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True, help="the hrace build directory (bin/, lib/)")
    ap.add_argument("--work", required=True, help="directory for the case's binary and outputs")
    ap.add_argument("--repeat", type=int, default=None, help="runs of the job (default 1)")
    ap.add_argument("--timeout", type=float, default=150.0, help="seconds per run (default 150)")
    ap.add_argument("case")
    opts = ap.parse_args()
    repeat = opts.repeat
    if repeat is None:
        env_repeat = os.environ.get("HRACE_TEST_REPEAT", "1")
        if not env_repeat.isdigit():
            ap.error(f"HRACE_TEST_REPEAT wants a positive integer, got {env_repeat!r}")
        repeat = int(env_repeat)
    if repeat < 1 or opts.timeout <= 0:
        ap.error("--repeat and --timeout must be positive")

    case_path = os.path.abspath(opts.case)
    try:
        case = parse_header(case_path)
    except (HeaderError, OSError) as e:
        tap = Tap(1)
        tap.ok(False, f"header of {os.path.basename(case_path)}: {e}")
        return 1

    build = os.path.abspath(opts.build)
    work = os.path.join(os.path.abspath(opts.work), case.name)
    os.makedirs(work, exist_ok=True)
    exe = os.path.join(work, case.name)
    tap = Tap(planned(case, repeat))

    env = dict(os.environ)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OMPI_MCA_rmaps_base_oversubscribe": "1"})
    env.update(case.env)

    # Compile. The MPI is the build's (lib/libhrace.build: hrace-cc uses its wrappers), unless
    # HRACE_MPICC names another.
    built = build_info(build)
    if env.get("HRACE_MPICC"):
        running = "mpich" if "mpich" in env["HRACE_MPICC"] else "openmpi"
    else:
        running = built.get("mpi", "openmpi")
    if case.mpi and case.mpi != running:
        for _ in range(planned(case, repeat)):
            tap.skip(f"{case.name}", f"meant for {case.mpi}, this run uses {running}")
        return 0
    # The compiler the case asks for, or the one a variant of the suite sets (case-clang16/:
    # HRACE_CC=clang-16): an optional package, so its absence skips the case, never fails it.
    cc = case.cc or env.get("HRACE_CC")
    if cc:
        if not shutil.which(cc, path=env.get("PATH")):
            for _ in range(planned(case, repeat)):
                tap.skip(f"{case.name}", f"compiler {cc} is not installed")
            return 0
        env["HRACE_CC"] = cc
    objects = []
    compiled = True
    for src in case.fortran:             # companions first, with hrace-fort
        obj = os.path.join(work, os.path.splitext(os.path.basename(src))[0] + ".o")
        fc = [os.path.join(build, "bin", "hrace-fort")] + (["-fopenmp"] if case.openmp else []) + \
            ["-c", src, "-o", obj]
        status, timed_out, _ = run_in_session(fc, work, env, COMPILE_TIMEOUT,
                                              os.path.join(work, "compile.out"),
                                              os.path.join(work, "compile.err"))
        if status != 0 or timed_out:
            compiled = False
            cc = fc
            break
        objects.append(obj)
    if compiled:
        cc = [os.path.join(build, "bin", "hrace-cc")] + (["-fopenmp"] if case.openmp else []) + \
            case.cflags + ["-I", os.path.join(REPO, "include"), case_path] + objects + \
            (FORTRAN_MPI_LIBS[running] + ["-lgfortran"] if objects else []) + ["-o", exe]
        if os.path.exists(exe):
            os.unlink(exe)
        status, timed_out, _ = run_in_session(cc, work, env, COMPILE_TIMEOUT,
                                              os.path.join(work, "compile.out"),
                                              os.path.join(work, "compile.err"))
        compiled = status == 0 and not timed_out and os.path.isfile(exe)
    if not tap.ok(compiled, f"compile {case.name}.c with hrace-cc"):
        print("# " + " ".join(shlex.quote(c) for c in cc))
        Tap.diag("compiler output:", read(os.path.join(work, "compile.out")) +
                 read(os.path.join(work, "compile.err")))
        for _ in range(tap_left(tap, case, repeat)):
            tap.skip("run", "the case did not compile")
        return 1

    # Run, `repeat` times.
    tap.todo = case.todo
    mpirun = os.environ.get("HRACE_TEST_MPIRUN") or built.get("mpiexec", "mpirun")
    want_status = RACE_EXIT if case.expect == "race" else 0
    case_base = os.path.basename(case_path)
    outcomes = []
    for k in range(1, repeat + 1):
        tag = f"run {k}/{repeat}" if repeat > 1 else "run"
        json_path = os.path.join(work, f"races-{k}.jsonl")
        out_path, err_path = (os.path.join(work, f"run-{k}.{s}") for s in ("stdout", "stderr"))
        if os.path.exists(json_path):
            os.unlink(json_path)
        sarif_path = os.path.join(work, f"races-{k}.sarif")
        keep_dir = os.path.join(work, f"reports-{k}")
        shutil.rmtree(keep_dir, ignore_errors=True)
        extra = ["--keep", keep_dir]
        extra += ["--suppressions", case.suppressions] if case.suppressions else []
        if case.golden:
            extra += ["--sarif", sarif_path, "--source-root", REPO]
        cmd = [os.path.join(build, "bin", "hrace"), "run", "--json", json_path] + extra + \
            (["--", mpirun, "-np", str(case.ranks), "./" + case.name] if case.ranks else
             ["--", "./" + case.name])
        t0 = time.time()
        status, timed_out, leftovers = run_in_session(cmd, work, env, opts.timeout,
                                                      out_path, err_path)
        took = time.time() - t0
        if timed_out:
            passed = tap.ok(False, f"{tag}: finished within {opts.timeout:g} s (killed)")
        else:
            passed = tap.ok(status == want_status,
                            f"{tag}: exit status ({case.expect} expected, {took:.1f} s)",
                            want_status, status)
        pairs = reported_pairs(json_path, case_base,
                               [os.path.basename(f) for f in case.fortran])
        passed &= tap.ok(pairs == case.pairs, f"{tag}: racing line pairs in {case_base}",
                         fmt_pairs(case.pairs), fmt_pairs(pairs))
        diags = reported_diagnostics(keep_dir, case_base,
                                     [os.path.basename(f) for f in case.fortran])
        passed &= tap.ok(diags == case.diagnostics, f"{tag}: misuse diagnostics in {case_base}",
                         sorted(case.diagnostics, key=str), sorted(diags, key=str))
        if case.counts:
            counts = reported_counts(json_path, case_base)
            got = {p: counts.get(p) for p in case.counts}
            passed &= tap.ok(got == case.counts, f"{tag}: occurrence counts of the races",
                             case.counts, got)
        if case.golden:
            passed &= check_golden(tap, tag, case, json_path, err_path, sarif_path)
        if leftovers:
            print(f"# {leftovers} process(es) were still running after the job ended: killed")
        if not passed:
            print("# " + " ".join(shlex.quote(c) for c in cmd))
            Tap.diag("job stderr:", read(err_path))
            Tap.diag("job stdout:", read(out_path))
        outcomes.append((None if timed_out else status, fmt_pairs(pairs)))
    if repeat > 1:
        stable = all(o == outcomes[0] for o in outcomes)
        tap.ok(stable, f"verdict and lines the same in all {repeat} runs",
               outcomes[0], next((o for o in outcomes if o != outcomes[0]), outcomes[0]))
    return 1 if tap.failed else 0


def per_run(case):
    return 3 + (1 if case.counts else 0) + (3 if case.golden else 0)


def planned(case, repeat):
    return 1 + per_run(case) * repeat + (1 if repeat > 1 else 0)


def tap_left(tap, case, repeat):
    return planned(case, repeat) - tap.n


if __name__ == "__main__":
    sys.exit(main())
