#!/bin/sh
# Full mode against the uninstrumented build, hrace's window-only mode and TSan + Archer, on
# the kernels of full.c (bench/README.md, "Full mode: thread races on all memory").
# usage: bench/omp/full.sh [BUILD_DIR [RUNS]]   (defaults: build, 5); 2 threads.
# Prints, per kernel and build, the median wall time of the kernel and the median peak RSS of
# the process (GNU time), and their ratios to the uninstrumented build. hrace-full-nohoist is
# hrace-cc with HRACE_CC_HOIST=0 (a callback per load and store, as for gcc / gfortran code and
# loops the pass cannot hoist).
set -eu
build=${1:-build}
runs=${2:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
src=$(dirname "$0")/full.c
archer=${ARCHER:-/usr/lib/llvm-14/lib/libarcher.so}
clang -O2 -fopenmp -o "$out/plain" "$src"
clang -O2 -g -fopenmp -fsanitize=thread -o "$out/tsan" "$src"
"$build/bin/hrace-cc" -O2 -fopenmp -o "$out/hrace" "$src"
HRACE_CC_HOIST=0 "$build/bin/hrace-cc" -O2 -fopenmp -o "$out/nohoist" "$src"
export OMP_NUM_THREADS=2 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# one run: "seconds kib"
one() {
  /usr/bin/time -f "maxrss %M" env "$@" > "$out/o" 2> "$out/e" || { cat "$out/e" >&2; exit 1; }
  s=$(awk '/ s \(checksum/ {print $(NF-3)}' "$out/o")
  k=$(awk '/^maxrss/ {print $2}' "$out/e")
  echo "$s $k"
}
for k in "loop 4000000 50" "stencil 1024 40"; do
  set -- $k
  echo "## $1 N=$2 reps=$3, $runs runs, medians"
  echo "| build | time (s) | x plain | peak RSS (MiB) | x plain |"
  echo "|---|---|---|---|---|"
  pt=""; pr=""
  for b in plain hrace-full hrace-window hrace-full-nohoist tsan-archer; do
    : > "$out/t"; : > "$out/r"
    i=0
    while [ $i -lt "$runs" ]; do
      case $b in
        plain) r=$(one "$out/plain" "$@") ;;
        hrace-full) r=$(one HRACE_OPTIONS=mode=full "$out/hrace" "$@") ;;
        hrace-window) r=$(one HRACE_OPTIONS=mode=window "$out/hrace" "$@") ;;
        hrace-full-nohoist) r=$(one HRACE_OPTIONS=mode=full "$out/nohoist" "$@") ;;
        tsan-archer) r=$(one OMP_TOOL_LIBRARIES="$archer" TSAN_OPTIONS=ignore_noninstrumented_modules=1 "$out/tsan" "$@") ;;
      esac
      echo "$r" | awk '{print $1}' >> "$out/t"
      echo "$r" | awk '{print $2}' >> "$out/r"
      i=$((i + 1))
    done
    t=$(median < "$out/t"); r=$(median < "$out/r")
    [ -z "$pt" ] && pt=$t && pr=$r
    awk -v b="$b" -v t="$t" -v r="$r" -v pt="$pt" -v pr="$pr" \
      'BEGIN {printf "| %s | %.3f | %.1f | %.0f | %.1f |\n", b, t, t / pt, r / 1024, r / pr}'
  done
done
