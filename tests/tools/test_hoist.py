#!/usr/bin/env python3
"""What hrace-cc's loop-hoisting pass turns into range checks (docs/access.md, "Loop hoisting").

usage: test_hoist.py BUILD_DIR CASE.c...

For each access_hoist_* and access_hoist2d_* case: compile it with hrace-cc (clang 14, the case's
own cflags and -fopenmp) with HRACE_PASS_VERBOSE=1, which makes the pass print the source line of
every range check it emits, and check the case's trailing comments, a comma-separated list of
marks: every line marked `hoisted` must have a check hoisted out of its innermost loop, no line
marked `not hoisted` may; every line marked `hoisted outer` must have one hoisted out of an
outer loop (a loop nest), no line marked `not hoisted outer` may (e.g. `/* hoisted, not hoisted
outer */`). The end-to-end runs of the same cases check that the verdicts are right; this checks
that they exercised the pass at all. TAP; skips when the
build has no plugin (no LLVM 14)."""
import os, re, shlex, subprocess, sys, tempfile

build, cases = sys.argv[1], sys.argv[2:]
plugin = os.path.join(build, "lib", "libhrace-pass.so")
print("1..%d" % len(cases))
if not os.path.exists(plugin):
    for i, c in enumerate(cases, 1):
        print("ok %d - %s # SKIP no libhrace-pass.so in this build" % (i, os.path.basename(c)))
    sys.exit(0)
failed = 0
with tempfile.TemporaryDirectory() as tmp:
    for i, case in enumerate(cases, 1):
        name = os.path.basename(case)
        text = open(case).read()
        want, never, want_outer, never_outer = set(), set(), set(), set()
        marks = {"hoisted": want, "not hoisted": never, "hoisted outer": want_outer,
                 "not hoisted outer": never_outer}
        for n, line in enumerate(text.split("\n"), 1):
            mark = r"(?:not )?hoisted(?: outer)?"
            m = re.search(r"/\* (%s(?:, %s)*) \*/\s*$" % (mark, mark), line)
            for mark in m.group(1).split(", ") if m else []: marks[mark].add(n)
        flags = ["-fopenmp"] if re.search(r"^ \* openmp: yes", text, re.M) else []
        for m in re.finditer(r"^ \* cflags: (.*)$", text, re.M): flags += shlex.split(m.group(1))
        env = dict(os.environ, HRACE_PASS_VERBOSE="1", HRACE_CC="clang")
        env.pop("HRACE_CC_HOIST", None)
        r = subprocess.run([os.path.join(build, "bin", "hrace-cc"), "-c", case, "-o",
                            os.path.join(tmp, "x.o")] + flags, env=env, capture_output=True, text=True)
        got = {int(m) for m in re.findall(r"hoisted at line (\d+)", r.stderr)}
        got_outer = {int(m) for m in
                     re.findall(r"hoisted out of an outer loop at line (\d+)", r.stderr)}
        problems = []
        if r.returncode: problems.append("compile failed: " + r.stderr[-2000:])
        if want - got: problems.append("not hoisted, should be: lines %s" % sorted(want - got))
        if never & got: problems.append("hoisted, must not be: lines %s" % sorted(never & got))
        if want_outer - got_outer:
            problems.append("not hoisted out of the outer loop, should be: lines %s"
                            % sorted(want_outer - got_outer))
        if never_outer & got_outer:
            problems.append("hoisted out of the outer loop, must not be: lines %s"
                            % sorted(never_outer & got_outer))
        if not (want or never or want_outer or never_outer):
            problems.append("no /* hoisted */ or /* not hoisted */ line")
        if problems:
            failed += 1
            print("not ok %d - %s" % (i, name))
            for p in problems: print("#   " + p.replace("\n", "\n#   "))
            print("#   pass said:\n#   " + r.stderr.strip().replace("\n", "\n#   "))
        else:
            print("ok %d - %s (hoisted lines %s, out of outer loops %s)"
                  % (i, name, sorted(got), sorted(got_outer)))
sys.exit(1 if failed else 0)
