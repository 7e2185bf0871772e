#!/bin/bash
# Short epochs (issue 21 item 3): the `mpi` column of bench/kernels/run.sh for one kernel, A/B.
# The same plain binary (mpicc -O2) under mpirun, then under `hrace run` of a reference build
# (BEFORE) and of this build, interleaved, REPS times; prints the medians of the kernels' timed
# regions and their ratios to the plain median. The two builds differ only in libhrace.so when
# BEFORE is a copy of this build's bin/ and lib/ with the old library (bench/README.md,
# "Session 11: short epochs").
#   usage: bench/rma/epochs.sh BEFORE_BUILD_DIR [BUILD_DIR] [REPS] -- KERNEL ARGS...
#   e.g.   bench/rma/epochs.sh /tmp/base build 7 -- stencil pscw 512 40
set -eu
before=$1 build=${2:-build} reps=${3:-7}
while [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done
shift
k=$1; shift
here=$(cd -- "$(dirname -- "$0")/../kernels" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
OMPI_CC=${OMPI_CC:-clang} mpicc -O2 "$here/$k.c" -o "$out/$k" -lm
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
declare -A T
for i in $(seq "$reps"); do
  for v in plain A B; do
    case $v in
      plain) pre=() ;;
      A) pre=("$before/bin/hrace" run --quiet --) ;;
      B) pre=("$build/bin/hrace" run --quiet --) ;;
    esac
    t=$("${pre[@]}" mpirun -np 2 "$out/$k" "$@" 2>&1 | awk '/^KERNEL/ {print $11}')
    T[$v]="${T[$v]:-} $t"
  done
done
med() { echo "$@" | tr ' ' '\n' | sort -g | awk 'NF {a[++n] = $1} END {print a[int((n + 1) / 2)]}'; }
p=$(med ${T[plain]}) a=$(med ${T[A]}) b=$(med ${T[B]})
echo "$k $* plain $p before $a ($(echo "$a / $p" | bc -l | cut -c1-5)x) after $b" \
     "($(echo "$b / $p" | bc -l | cut -c1-5)x) load $(cut -d' ' -f1-3 /proc/loadavg)"
