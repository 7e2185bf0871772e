#!/bin/sh
# bench/access/run.sh [BUILD_DIR]: the "Loads and stores" tables of bench/README.md.
#
# Builds loop.c four ways (uninstrumented; instrumented with empty callbacks, empty.c; with
# hrace, through BUILD_DIR/bin/hrace-cc; with ThreadSanitizer's own runtime) and mem.c three ways
# (uninstrumented with MPI, hrace, TSan), all with clang at -O2 and no vectorisation so that each
# loop iteration is one access. Then runs every variant once per round, ROUNDS rounds (default
# 5) side by side, and prints the medians as Markdown tables. MEM_MB (default 512) sets mem.c's
# size; its window is a tenth of it.
#
# Single-process windows need Open MPI's ucx one-sided component: osc/rdma (4.1.4) refuses a
# window whose group is one process, with or without hrace.
set -eu

here=$(cd -- "$(dirname -- "$0")" && pwd)
build=$(cd -- "${1:-$here/../../build}" && pwd)
rounds=${ROUNDS:-5}
mem_mb=${MEM_MB:-512}
out=${BENCH_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/hrace-bench.XXXXXX")}
cc=${CC_BENCH:-clang}
cflags="-O2 -g -fno-vectorize -fno-slp-vectorize"
tsanflags="-fsanitize=thread -mllvm -tsan-instrument-read-before-write"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_osc=ucx

mkdir -p "$out"
echo "building into $out" >&2
$cc -O2 -shared -fPIC "$here/empty.c" -o "$out/libempty.so"
$cc $cflags "$here/loop.c" -o "$out/loop_base" -lpthread
$cc $cflags $tsanflags -fno-sanitize-link-runtime "$here/loop.c" -o "$out/loop_empty" \
  -L"$out" -lempty -Wl,-rpath,"$out" -lpthread
# HRACE_CC_HOIST=0: these rows measure the per-access callbacks, which the loop-hoisting pass
# would replace by one range check per loop (bench/access/stencil.sh measures that).
HRACE_CC=$cc HRACE_CC_HOIST=0 "$build/bin/hrace-cc" $cflags -DUSE_MPI "$here/loop.c" -o "$out/loop_hrace"
$cc $cflags $tsanflags "$here/loop.c" -o "$out/loop_tsan"
OMPI_CC=$cc mpicc $cflags -DUSE_MPI "$here/mem.c" -o "$out/mem_base"
HRACE_CC=$cc HRACE_CC_HOIST=0 "$build/bin/hrace-cc" $cflags -DUSE_MPI "$here/mem.c" -o "$out/mem_hrace"
$cc $cflags "$here/mem.c" -o "$out/mem_plain"
$cc $cflags -fsanitize=thread "$here/mem.c" -o "$out/mem_tsan"

: > "$out/results"
r=1
while [ $r -le "$rounds" ]; do
  echo "round $r of $rounds" >&2
  for v in base empty hrace tsan; do
    "$out/loop_$v" | sed "s/^/loop $v /" >> "$out/results"
  done
  for w in 8 4 1; do
    for v in base hrace; do
      "$out/mem_$v" "$mem_mb" $w | sed -n "s/^rss-kb /mem $v w$w /p" >> "$out/results"
    done
  done
  for v in plain tsan; do
    "$out/mem_$v" "$mem_mb" 8 | sed -n "s/^rss-kb /mem $v w8 /p" >> "$out/results"
  done
  r=$((r + 1))
done

python3 - "$out/results" "$rounds" "$mem_mb" "$cc" <<'EOF'
import statistics, sys
from collections import defaultdict
res = defaultdict(list)
for line in open(sys.argv[1]):
    kind, var, row, val = line.split()
    res[(kind, var, row)].append(float(val))
med = {k: statistics.median(v) for k, v in res.items()}
rounds, mem_mb, cc = sys.argv[2], int(sys.argv[3]), sys.argv[4]
rows = [("miss-read", "filter miss, 8-byte load"), ("miss-write", "filter miss, 8-byte store"),
        ("gap-read", "load between two windows (in the filter's bounds)"),
        ("win-read", "window, 8-byte load"), ("win-write", "window, 8-byte store"),
        ("memcpy-out", "memcpy 4 KiB outside windows (ns per call)"),
        ("memcpy-in", "memcpy 4 KiB into a window (ns per call)"),
        ("hist-read", "filter miss, load, history on (2nd thread ran)"),
        ("hist-write", "filter miss, store, history on")]
print(f"ns per access, median of {rounds} rounds (each the median of 7 timings), {cc} -O2:\n")
print("| loop | uninstrumented | empty callbacks | hrace | TSan runtime | hrace / empty | hrace / TSan |")
print("|---|---|---|---|---|---|---|")
for key, label in rows:
    b, e, h, t = (med.get(("loop", v, key), float("nan")) for v in ("base", "empty", "hrace", "tsan"))
    print(f"| {label} | {b:.2f} | {e:.2f} | {h:.2f} | {t:.2f} | {h / e:.2f}x | {h / t:.2f}x |")
print(f"\nPeak RSS of mem.c ({mem_mb} MiB, a tenth of it in one window), median of {rounds}:\n")
print("| accesses | uninstrumented (MPI) | hrace | ratio | window shadow (hrace - uninstrumented) per window byte |")
print("|---|---|---|---|---|")
wb = (mem_mb << 20) // 10 // 4096 * 4096
for w in (8, 4, 1):
    b, h = med[("mem", "base", f"w{w}")], med[("mem", "hrace", f"w{w}")]
    print(f"| {w}-byte | {b / 1024:.0f} MiB | {h / 1024:.0f} MiB | {h / b:.2f}x | {(h - b) * 1024 / wb:.2f} |")
p, t = med[("mem", "plain", "w8")], med[("mem", "tsan", "w8")]
print(f"| 8-byte, TSan (no MPI) | {p / 1024:.0f} MiB | TSan: {t / 1024:.0f} MiB | {t / p:.2f}x | |")
EOF
echo "raw results: $out/results" >&2
