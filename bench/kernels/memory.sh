#!/bin/sh
# bench/kernels/memory.sh BASE_BUILD NEW_BUILD: memory over long runs (issue 21 item 4), the
# "Memory over long runs" table of bench/README.md.
#
# Builds wavefront.c, hybrid.c, steps.c, p2p.c and stencil.c with each build's hrace-cc (clang 14 through Open MPI's mpicc,
# -O2, as run.sh does) and runs them under that build's `hrace run` at growing lengths, the two
# builds interleaved (base, new, base, new, ...), 2 ranks. Prints, per kernel, length and
# build, the median over REPS runs of the timed region (max over ranks) and of the peak
# resident set (getrusage, max over ranks).
#
# Environment:
#   REPS=3                     repetitions (median)
#   WAVE="10 100 400 1000"     wavefront 200x200 sweeps
#   HYB="20 200 800 3200"      hybrid master 128 steps, OMP_NUM_THREADS=2 per rank (one
#                              parallel region for the run)
#   STEPS="2000 20000 60000"   steps 2048: a parallel region per step, OMP_NUM_THREADS=2
#   MULTI="200 800 3200"       hybrid multiple 128 steps (MPI_THREAD_MULTIPLE, every thread puts)
#   TASKS="200 800 3200"       hybrid tasks 128 steps (a task per block of rows)
#   P2P="1000 4000 16000"      p2p 2048 steps: a parallel region and an MPI_Sendrecv per step,
#                              no RMA call
#   STENCIL="10 40 160"        stencil fence 1024 steps (two 4 MiB windows per rank, rows
#                              summarized by spans: their granule pages given back)
#   HYBL="10 40 160"           hybrid master 1024 steps (the same at the large size)
# A list set to "" skips its kernel.
set -eu
base=$(cd -- "$1" && pwd)
new=$(cd -- "$2" && pwd)
here=$(cd -- "$(dirname -- "$0")" && pwd)
reps=${REPS:-3}
out=$(mktemp -d "${TMPDIR:-/tmp}/hrace-memory.XXXXXX")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_CC=clang OMP_NUM_THREADS=2
for b in base new; do
  eval "dir=\$$b"
  "$dir/bin/hrace-cc" -O2 "$here/wavefront.c" -o "$out/wavefront.$b" -lm
  "$dir/bin/hrace-cc" -O2 -fopenmp "$here/hybrid.c" -o "$out/hybrid.$b" -lm
  "$dir/bin/hrace-cc" -O2 -fopenmp "$here/steps.c" -o "$out/steps.$b" -lm
  "$dir/bin/hrace-cc" -O2 -fopenmp "$here/p2p.c" -o "$out/p2p.$b" -lm
  "$dir/bin/hrace-cc" -O2 "$here/stencil.c" -o "$out/stencil.$b" -lm
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
one() {   # kernel build args... -> "time rss_kb"
  k=$1 b=$2
  shift 2
  eval "dir=\$$b"
  "$dir/bin/hrace" run --quiet -- mpirun -np 2 "$out/${k%%-*}.$b" "$@" 2>/dev/null |
    awk '/^KERNEL/ { for (i = 1; i < NF; i++) { if ($i == "time") t = $(i + 1); if ($i == "rss_kb") r = $(i + 1) } print t, r }'
}
printf '%-10s %8s %-5s %10s %10s\n' kernel length build time_s rss_MiB
run() {   # kernel length args...
  k=$1 len=$2
  shift 2
  : > "$out/r.base"; : > "$out/r.new"
  i=0
  while [ $i -lt "$reps" ]; do
    for b in base new; do one "$k" "$b" "$@" >> "$out/r.$b"; done
    i=$((i + 1))
  done
  for b in base new; do
    t=$(cut -d' ' -f1 "$out/r.$b" | median)
    r=$(cut -d' ' -f2 "$out/r.$b" | median)
    printf '%-10s %8s %-5s %10s %10.1f\n' "$k" "$len" "$b" "$t" "$(echo "$r / 1024" | bc -l)"
  done
}
for n in ${WAVE-10 100 400 1000}; do run wavefront "$n" 200 200 "$n"; done
for n in ${HYB-20 200 800 3200}; do run hybrid "$n" master 128 "$n"; done
for n in ${STEPS-2000 20000 60000}; do run steps "$n" 2048 "$n"; done
for n in ${MULTI-200 800 3200}; do run hybrid-mul "$n" multiple 128 "$n"; done
for n in ${TASKS-200 800 3200}; do run hybrid-tsk "$n" tasks 128 "$n"; done
for n in ${P2P-1000 4000 16000}; do run p2p "$n" 2048 "$n"; done
for n in ${STENCIL-10 40 160}; do run stencil "$n" fence 1024 "$n"; done
for n in ${HYBL-10 40 160}; do run hybrid-lg "$n" master 1024 "$n"; done
rm -rf "$out"
