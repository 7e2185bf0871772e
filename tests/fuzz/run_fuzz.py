#!/usr/bin/env python3
"""TAP: build one libFuzzer target of tests/fuzz with clang (-fsanitize=fuzzer,address,undefined)
and run it for a bounded time on the seed corpus in tests/fuzz/corpus/TARGET/. The target's
own checks (see its source) abort on a broken property; a crash, a sanitizer finding, a leak,
a timeout or running out of memory fails the test, naming the input that did it (kept in
WORK/TARGET/, with the command that replays it).

Skipped (exit 77, `1..0 # SKIP`) when clang or its libFuzzer runtime is missing
(Debian: libclang-rt-14-dev; scripts/install-deps.sh --test installs it).

The run is reproducible: a fixed seed (HRACE_FUZZ_SEED, default 1) and a fresh working corpus
each time, so that two runs explore the same inputs, bounded by --seconds (or
HRACE_FUZZ_SECONDS, to fuzz longer by hand). Inputs that found new coverage are left in
WORK/TARGET/corpus: copy the interesting ones into the seed corpus.

usage: run_fuzz.py --source DIR --work DIR [--cc CLANG] [--seconds S] TARGET"""

import argparse
import os
import shutil
import subprocess
import sys

# TARGET -> (its harness, the runtime sources it tests and needs, extra link flags,
#            extra libFuzzer flags)
TARGETS = {
    # The parser keeps every string value for the life of the process (options.h), so each
    # input allocates more than it frees and libFuzzer would run a leak check after every one
    # (5x slower). The strings stay reachable; LeakSanitizer still checks once at exit.
    "options": ("fuzz_options.c", ["src/base/options.c"], ["-lpthread"], ["-detect_leaks=0"]),
    "suppress": ("fuzz_suppress.c", ["src/report/suppress.c"], [], []),
    # report.c is #included by the harness (its escaper is static); the rest is what it links to.
    "report_json": ("fuzz_report_json.c",
                    ["src/base/log.c", "src/base/map.c", "src/base/options.c",
                     "src/report/suppress.c", "src/report/symbolize.c"],
                    ["-ldw", "-lelf", "-lpthread"], []),
}
FLAGS = ["-g", "-O1", "-fsanitize=fuzzer,address,undefined", "-fno-sanitize-recover=undefined",
         "-fno-omit-frame-pointer", "-D_GNU_SOURCE", '-DHRACE_VERSION="fuzz"']
SKIP = 77


def skip(why):
    print(f"1..0 # SKIP {why}", flush=True)
    sys.exit(SKIP)


def find_clang(wanted):
    for name in ([wanted] if wanted else []) + ["clang-14", "clang"]:
        path = shutil.which(name)
        if path:
            return path
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True, help="the hrace source tree")
    ap.add_argument("--work", required=True, help="where to build and run")
    ap.add_argument("--cc", default=os.environ.get("HRACE_FUZZ_CC"))
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("target", choices=sorted(TARGETS))
    opts = ap.parse_args()
    seconds = int(os.environ.get("HRACE_FUZZ_SECONDS", opts.seconds))
    seed = int(os.environ.get("HRACE_FUZZ_SEED", "1"))
    src = os.path.abspath(opts.source)
    work = os.path.join(os.path.abspath(opts.work), opts.target)
    os.makedirs(work, exist_ok=True)

    cc = find_clang(opts.cc)
    if not cc:
        skip("no clang found (for libFuzzer's -fsanitize=fuzzer)")
    # Does this clang have its fuzzer runtime? A one-line target tells.
    probe = os.path.join(work, "probe.c")
    with open(probe, "w") as f:
        f.write("#include <stddef.h>\n#include <stdint.h>\n"
                "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }\n")
    p = subprocess.run([cc, "-fsanitize=fuzzer", probe, "-o", os.path.join(work, "probe")],
                       capture_output=True, text=True)
    if p.returncode != 0:
        skip(f"{cc} cannot link -fsanitize=fuzzer (libFuzzer runtime missing: "
             f"Debian's libclang-rt-14-dev, scripts/install-deps.sh --test): "
             f"{p.stderr.strip().splitlines()[-1] if p.stderr.strip() else 'no message'}")

    harness, sources, libs, fuzz_flags = TARGETS[opts.target]
    exe = os.path.join(work, "fuzz_" + opts.target)
    cmd = ([cc] + FLAGS + ["-I", os.path.join(src, "include"), "-I", os.path.join(src, "src"),
                          "-I", os.path.join(src, "tests"), os.path.join(src, "tests/fuzz", harness)]
           + [os.path.join(src, s) for s in sources] + ["-o", exe] + libs)
    p = subprocess.run(cmd, capture_output=True, text=True)
    n = 1
    if p.returncode != 0:
        print(f"not ok {n} - build fuzz_{opts.target}")
        print("#   " + " ".join(cmd))
        for line in (p.stdout + p.stderr).splitlines()[-40:]:
            print(f"#   {line}")
        print(f"1..{n}")
        return 1
    print(f"ok {n} - build fuzz_{opts.target}", flush=True)

    seeds = os.path.join(src, "tests/fuzz/corpus", opts.target)
    corpus = os.path.join(work, "corpus")
    shutil.rmtree(corpus, ignore_errors=True)
    os.makedirs(corpus)
    for old in os.listdir(work):   # findings of an earlier run
        if old.split("-")[0] in ("crash", "leak", "timeout", "oom", "slow"):
            os.unlink(os.path.join(work, old))
    run = [exe, f"-seed={seed}", f"-max_total_time={seconds}", "-timeout=10",
           "-rss_limit_mb=2048", "-print_final_stats=1", f"-artifact_prefix={work}/"] + fuzz_flags + [corpus, seeds]
    p = subprocess.run(run, capture_output=True, text=True, errors="replace", cwd=work,
                       stdin=subprocess.DEVNULL)
    out = p.stdout + p.stderr
    stats = [l for l in out.splitlines() if l.startswith(("stat::number_of_executed_units",
                                                           "stat::new_units_added"))]
    n += 1
    if p.returncode != 0:
        found = sorted(f for f in os.listdir(work)
                       if f.split("-")[0] in ("crash", "leak", "timeout", "oom", "slow"))
        print(f"not ok {n} - fuzz_{opts.target} for {seconds} s (seed {seed}): exit {p.returncode}")
        print("#   " + " ".join(run))
        for line in out.splitlines()[-60:]:
            print(f"#   {line}")
        for f in found:
            print(f"#   input kept: {os.path.join(work, f)} (replay: {exe} {os.path.join(work, f)})")
        print(f"1..{n}")
        return 1
    print(f"ok {n} - fuzz_{opts.target} for {seconds} s (seed {seed}), no finding")
    for s in stats:
        print(f"#   {s}")
    print(f"1..{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
