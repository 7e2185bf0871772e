#!/usr/bin/env python3
"""TAP: the floors of src/ (docs/design.md, "Layers") hold, read from the #include lines.

Floors, bottom up: base -> clocks -> report -> core -> access, omp -> mpi, rma. A file may
include headers of its own folder and of lower floors, never of a higher one; where a lower
floor needs an upper one at run time it declares a hook that the upper floor registers.
Folders on one floor stay apart (access and omp; mpi and rma) except for the edges listed in
SIBLING, each with its reason. A folder of src/ that is not on a floor fails too, so a new one
has to be placed. And no header outside base/ is included by more than a third of the .c files
(issue 20: a header everybody includes is a floor of its own in disguise).

    test_layers.py [SRC_DIR]        (default: the src/ beside tests/)
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402

FLOORS = {
    "base": 0,      # containers, hashing, lists, logging, options, compiler macros
    "clocks": 1,    # vector clocks, shadow cells, the happens-before test
    "report": 2,    # symbolizer, suppressions, the report writer and composer
    "core": 3,      # process / thread state, happens-before operations, hooks, transport
    "access": 4,    # ThreadSanitizer-ABI entry points
    "omp": 4,       # OMPT tool
    "mpi": 5,       # PMPI layer
    "rma": 5,       # windows, epochs, RMA operations
}
# (from, to): allowed include edges between folders of one floor.
SIBLING = {
    # RMA's wrappers are MPI wrappers: they enter through mpi/wrap.h, exchange clocks over
    # mpi/sync.h's shadow communicators and watch requests through mpi/request.h; the
    # progress thread hands synchronous-send queries to mpi/posted.h. mpi/ never includes rma/.
    ("rma", "mpi"),
}

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(top, "src")
inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

checks = []
for folder in sorted(os.listdir(src)):
    if not os.path.isdir(os.path.join(src, folder)):
        continue
    if folder not in FLOORS:
        checks.append((False, f"src/{folder} is on a floor", "add it to FLOORS and docs/design.md"))
        continue
    for root, _, files in os.walk(os.path.join(src, folder)):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            bad = []
            for m in inc_re.finditer(open(path, encoding="utf-8").read()):
                target = m.group(1)
                if "/" not in target:       # include/ (hrace.h, hrace_options.inc) or a sibling file
                    continue
                to = target.split("/", 1)[0]
                if to == folder:
                    continue
                if to not in FLOORS:
                    bad.append(f"{target} (not on a floor)")
                elif FLOORS[to] > FLOORS[folder]:
                    bad.append(f"{target} (floor {FLOORS[to]} above {folder}'s {FLOORS[folder]})")
                elif FLOORS[to] == FLOORS[folder] and (folder, to) not in SIBLING:
                    bad.append(f"{target} (same floor as {folder}, not an allowed edge)")
            checks.append((not bad, f"{rel} includes nothing above its floor", "; ".join(bad)))

# Fan-in: how many .c files include each header (outside base/).
cfiles, fanin = 0, {}
for root, _, files in os.walk(src):
    for name in files:
        if not name.endswith(".c"):
            continue
        cfiles += 1
        seen = set(inc_re.findall(open(os.path.join(root, name), encoding="utf-8").read()))
        for target in seen:
            if "/" in target and not target.startswith("base/"):
                fanin[target] = fanin.get(target, 0) + 1
wide = sorted(f"{h} ({n} of {cfiles})" for h, n in fanin.items() if 3 * n > cfiles)
checks.append((not wide, "no header outside base/ is included by more than a third of the .c files",
               "; ".join(wide)))

tap.report(checks)
