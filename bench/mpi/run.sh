#!/bin/sh
# MPI latency, uninstrumented vs hrace, in one run (bench/README.md, "MPI"): Open MPI, then
# the two-rank points on MPICH when BUILD_DIR/mpich holds hrace's MPICH build.
# usage: bench/mpi/run.sh [BUILD_DIR]   (default: build; needs libhrace.so built there)
# Env: REPS (default 7), ROUNDS (alternations of plain / hrace per point, default 3).
set -eu
build=${1:-build}
lib=$(cd "$build/lib" && pwd)/libhrace.so
[ -f "$lib" ] || { echo "run.sh: $lib not found: build first" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mpicc -O2 -o "$out/mpibench" "$(dirname "$0")/mpibench.c"
reps=${REPS:-7}
rounds=${ROUNDS:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export HRACE_OPTIONS="report_text=0"
mpi=ompi

# one MODE TEST NP ITERS: the median (us) printed by mpibench
one() {
  if [ "$mpi" = mpich ]; then
    if [ "$1" = hrace ]; then
      mpirun.mpich -np "$3" -env LD_PRELOAD "$mlib" -env HRACE_OPTIONS "$HRACE_OPTIONS" \
        "$out/mpibench.mpich" "$2" "$4" "$reps" 2>/dev/null | awk '{print $3}'
    else
      mpirun.mpich -np "$3" "$out/mpibench.mpich" "$2" "$4" "$reps" 2>/dev/null | awk '{print $3}'
    fi
  elif [ "$1" = hrace ]; then
    mpirun -np "$3" -x LD_PRELOAD="$lib" -x HRACE_OPTIONS "$out/mpibench" "$2" "$4" "$reps" 2>/dev/null | awk '{print $3}'
  else
    mpirun -np "$3" "$out/mpibench" "$2" "$4" "$reps" 2>/dev/null | awk '{print $3}'
  fi
}
# median of the arguments
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

point() {   # TEST NP ITERS
  p=""; h=""
  i=0
  while [ $i -lt "$rounds" ]; do
    p="$p $(one plain "$1" "$2" "$3")"
    h="$h $(one hrace "$1" "$2" "$3")"
    i=$((i + 1))
  done
  mp=$(med $p); mh=$(med $h)
  echo "| $1 | $2 | $mp | $mh | $(awk -v a="$mp" -v b="$mh" 'BEGIN {printf "%.2f", b / a}') |"
}
# The floor of any in-band clock, plain runs only: a ping-pong as long as hrace's frame of an
# 8-byte message at 2 ranks (8 + 12 header + 2 x 4 clock bytes), and the same framed by hand.
floor() {   # TEST NP ITERS
  p=""
  i=0
  while [ $i -lt "$rounds" ]; do p="$p $(one plain "$1" "$2" "$3")"; i=$((i + 1)); done
  echo "| $1 (plain only) | $2 | $(med $p) | | |"
}

echo "Open MPI"
echo
echo "| test | ranks | plain (us) | hrace (us) | ratio |"
echo "|---|---|---|---|---|"
point self 1 200000
point selfmt 1 200000
point pp8 2 20000
floor pp28 2 20000
floor frame8 2 20000
point halo8 2 20000
point pp1m 2 200
for np in 2 4 8 16; do point barrier "$np" $((4000 / np)); done
for np in 2 4 8 16; do point allreduce "$np" $((4000 / np)); done

echo
echo "| ranks | clock bytes per message (header + entries) | MPI_THREAD_MULTIPLE, OMP_NUM_THREADS=8 |"
echo "|---|---|---|"
for np in 2 4 8 16; do
  b=$(mpirun -np "$np" -x LD_PRELOAD="$lib" -x HRACE_OPTIONS "$out/mpibench" hdr 1 1 2>/dev/null | awk '{print $3}')
  m=$(mpirun -np "$np" -x LD_PRELOAD="$lib" -x HRACE_OPTIONS -x OMP_NUM_THREADS=8 "$out/mpibench" hdrmt 1 1 2>/dev/null | awk '{print $3}')
  echo "| $np | $b | $m |"
done

mlib="$(cd "$build" && pwd)/mpich/lib/libhrace.so"
if [ -f "$mlib" ] && command -v mpicc.mpich >/dev/null && command -v mpirun.mpich >/dev/null; then
  mpicc.mpich -O2 -o "$out/mpibench.mpich" "$(dirname "$0")/mpibench.c"
  mpi=mpich
  echo
  echo "MPICH"
  echo
  echo "| test | ranks | plain (us) | hrace (us) | ratio |"
  echo "|---|---|---|---|---|"
  point self 1 200000
  point pp8 2 20000
  floor pp28 2 20000
  floor frame8 2 20000
  point halo8 2 20000
  point pp1m 2 200
  point barrier 2 2000
  point allreduce 2 2000
fi
