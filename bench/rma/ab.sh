#!/bin/sh
# 100 000 gets into one buffer and 64 000 puts from distinct buffers in one epoch (issue 22
# item 7): plain, a reference build and this build, interleaved, RUNS runs each, wall of the
# epoch at rank 0 (ms). For the gets also this build in window mode (HRACE_OPTIONS=mode=window)
# and the plain binary under `hrace run` (no instrumented loads: the MPI layer alone), and the
# get loop alone ("manygets-loop": without lock_all / unlock_all), and lock_all's and unlock_all's
# own ("manygets-lock", "manygets-unlock").
# usage: bench/rma/ab.sh BEFORE_BUILD_DIR [BUILD_DIR] [RUNS]
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
# one run: NAME KIND PROGRAM-LINE...; prints "NAME KIND epoch" (and "NAME-loop KIND loop")
one() {
  name=$1 kind=$2
  shift 2
  line=$("$@" 2>/dev/null | grep " ms ")
  echo "$name $kind $(echo "$line" | awk '{print $3}')"
  case $line in *" loop "*) echo "$name-loop $kind $(echo "$line" | awk '{print $NF}')" ;; esac
  case $line in *" lock_all "*)
    echo "$line" | awk -v n="$name" -v k="$kind" '{for (i = 1; i < NF; i++) {
      if ($i == "lock_all") print n "-lock " k " " $(i + 1)
      if ($i == "unlock_all") print n "-unlock " k " " $(i + 1) }}' ;; esac
}
for p in "manygets 100000" "manyputs 64000"; do
  set -- $p
  for k in $(seq "$runs"); do
    one "$1" plain mpirun -np 2 "$out/$1.plain" "$2"
    one "$1" before "$before/bin/hrace" run --quiet -- mpirun -np 2 "$out/$1.before" "$2"
    one "$1" after "$build/bin/hrace" run --quiet -- mpirun -np 2 "$out/$1.after" "$2"
    if [ "$1" = manygets ]; then
      one "$1" after-window env HRACE_OPTIONS=mode=window \
        "$build/bin/hrace" run --quiet -- mpirun -x HRACE_OPTIONS -np 2 "$out/$1.after" "$2"
      one "$1" after-plainbin "$build/bin/hrace" run --quiet -- mpirun -np 2 "$out/$1.plain" "$2"
    fi
  done
done | sort -k1,2 -k3n | awk '{k = $1 " " $2; v[k] = v[k] " " $3} END {for (k in v) print k ":" v[k]}' | sort
