#!/bin/sh
# 100 000 gets into one buffer and 64 000 puts from distinct buffers in one epoch (issue 22
# item 7): plain, a reference build and this build, interleaved, RUNS runs each, wall of the
# epoch at rank 0 (ms). usage: bench/rma/ab.sh BEFORE_BUILD_DIR [BUILD_DIR] [RUNS]
set -eu
before=$1 build=${2:-build} runs=${3:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
d=$(dirname "$0")
for p in manygets manyputs; do
  mpicc -O2 -o "$out/$p.plain" "$d/$p.c"
  "$before/bin/hrace-cc" -O2 -o "$out/$p.before" "$d/$p.c"
  "$build/bin/hrace-cc" -O2 -o "$out/$p.after" "$d/$p.c"
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for p in "manygets 100000" "manyputs 64000"; do
  set -- $p
  for k in $(seq "$runs"); do
    echo "$1 plain $(mpirun -np 2 "$out/$1.plain" "$2" | awk '{print $3}')"
    echo "$1 before $("$before/bin/hrace" run --quiet -- mpirun -np 2 "$out/$1.before" "$2" 2>/dev/null | awk '{print $3}')"
    echo "$1 after $("$build/bin/hrace" run --quiet -- mpirun -np 2 "$out/$1.after" "$2" 2>/dev/null | awk '{print $3}')"
  done
done | sort -k1,2 -k3n | awk '{k = $1 " " $2; v[k] = v[k] " " $3} END {for (k in v) print k ":" v[k]}' | sort
