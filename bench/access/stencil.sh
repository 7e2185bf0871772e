#!/bin/sh
# bench/access/stencil.sh [BUILD_DIR]: the "Loop hoisting" table of bench/README.md.
#
# Builds stencil.c three ways with clang -O2: plain (mpicc, uninstrumented), hrace-cc with
# HRACE_CC_HOIST=0 (a callback per load and store), hrace-cc with the loop-hoisting pass (its
# default with clang 14). Runs each on one rank, ROUNDS rounds (default 5) interleaved, in two
# modes: `plain` (the grids are ordinary memory, only a small halo buffer is a window: every
# access misses the filter) with N=1024, ITERS=100, and `win` (both grids are windows: every
# access is checked in the shadow) with N=512, ITERS=20. Prints the medians of the compute time
# (fences excluded), wall clock and the thread's CPU time, as a Markdown table.
#
# Single-process windows need Open MPI's ucx one-sided component (bench/access/run.sh).
set -eu
here=$(cd -- "$(dirname -- "$0")" && pwd)
build=$(cd -- "${1:-$here/../../build}" && pwd)
rounds=${ROUNDS:-5}
out=${BENCH_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/hrace-stencil.XXXXXX")}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_osc=ucx
echo "building into $out" >&2
OMPI_CC=clang mpicc -O2 -g "$here/stencil.c" -o "$out/st_plain"
HRACE_CC=clang HRACE_CC_HOIST=0 "$build/bin/hrace-cc" -O2 "$here/stencil.c" -o "$out/st_nohoist"
HRACE_CC=clang HRACE_CC_HOIST=1 "$build/bin/hrace-cc" -O2 "$here/stencil.c" -o "$out/st_hoist"
: > "$out/results"
r=1
while [ "$r" -le "$rounds" ]; do
  echo "round $r of $rounds" >&2
  for mode in plain win; do
    if [ $mode = plain ]; then args="1024 100 plain"; else args="512 20 win"; fi
    for v in plain nohoist hoist; do
      if [ $v = plain ]; then
        mpirun -np 1 "$out/st_$v" $args
      else
        LD_PRELOAD="$build/lib/libhrace.so" mpirun -np 1 -x LD_PRELOAD "$out/st_$v" $args
      fi | sed -n "s/^compute /$mode $v wall /p; s/^cpu /$mode $v cpu /p" >> "$out/results"
    done
  done
  r=$((r + 1))
done
python3 - "$out/results" "$rounds" <<'PY'
import statistics, sys
from collections import defaultdict
res = defaultdict(list)
for line in open(sys.argv[1]):
    mode, var, clock, val = line.split()
    res[(mode, var, clock)].append(float(val))
med = {k: statistics.median(v) for k, v in res.items()}
print(f"Compute time of the sweeps (s), median of {sys.argv[2]} interleaved runs, one rank, clang 14 -O2:\n")
print("| grids | time | plain clang | hrace-cc, no hoisting | hrace-cc, loop hoisting | no hoisting / plain | hoisting / plain |")
print("|---|---|---|---|---|---|---|")
for mode, label in (("plain", "not in a window (1024x1024, 100 sweeps)"), ("win", "both windows (512x512, 20 sweeps)")):
    for clock in ("wall", "cpu"):
        b, n, h = (med.get((mode, v, clock), float("nan")) for v in ("plain", "nohoist", "hoist"))
        print(f"| {label} | {clock} | {b:.4f} | {n:.4f} | {h:.4f} | {n / b:.2f}x | {h / b:.2f}x |")
PY
