#!/bin/bash
# Tiny PSCW epochs, A/B (bench/README.md, "Session 16: tiny PSCW epochs"): the wavefront and
# the PSCW stencil in three modes, plain / mpi (the plain binary under `hrace run`: the MPI
# layer alone) / hwin (the hrace-cc binary under `hrace run` with HRACE_OPTIONS=mode=window),
# the hrace modes with build A's and build B's library on the same binaries (built once with
# B's hrace-cc and clang -O2), interleaved P, A, B per repetition; prints the median of each
# kernel's timed region (max over ranks, seconds), B / A, and the ratios to plain (meaningful
# only on a quiet machine: Open MPI's busy polling makes plain swing most under load).
#   usage: bench/rma/pscw_ab.sh A_BUILD B_BUILD REPS
set -eu
A=$(cd -- "$1" && pwd) B=$(cd -- "$2" && pwd) reps=$3
here=$(cd -- "$(dirname -- "$0")/../kernels" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_CC=clang
for k in wavefront stencil; do
  mpicc -O2 "$here/$k.c" -o "$out/$k.plain" -lm
  "$B/bin/hrace-cc" -O2 "$here/$k.c" -o "$out/$k.hrace" -lm
done
configs='wavefront|1000 1000 5
wavefront|4000 4000 10
stencil|pscw 512 40
stencil|pscw 2048 40'
t() { awk '/^KERNEL/ {for (i = 1; i < NF; i++) if ($i == "time") print $(i + 1)}'; }
med() { tr ' ' '\n' | sort -g | awk 'NF {a[++n] = $1} END {print a[int((n + 1) / 2)]}'; }
echo "| kernel | args | plain | mpi A | mpi B | mpi B/A | hwin A | hwin B | hwin B/A | mpi A x | mpi B x | hwin A x | hwin B x |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
while IFS='|' read -r k args; do
  declare -A T=()
  for i in $(seq "$reps"); do
    T[P]+=" $(mpirun -np 2 "$out/$k.plain" $args < /dev/null 2>/dev/null | t)"
    for v in A B; do
      d=$A; [ $v = B ] && d=$B
      T[m$v]+=" $("$d/bin/hrace" run --quiet -- mpirun -np 2 "$out/$k.plain" $args < /dev/null 2>/dev/null | t)"
      T[w$v]+=" $(HRACE_OPTIONS=mode=window "$d/bin/hrace" run --quiet -- mpirun -np 2 \
                   "$out/$k.hrace" $args < /dev/null 2>/dev/null | t)"
    done
  done
  p=$(echo ${T[P]} | med)
  m() { echo ${T[$1]} | med; }
  q() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }
  echo "| $k | $args | $p | $(m mA) | $(m mB) | $(q $(m mB) $(m mA)) | $(m wA) | $(m wB) |" \
       "$(q $(m wB) $(m wA)) | $(q $(m mA) $p) | $(q $(m mB) $p) | $(q $(m wA) $p) | $(q $(m wB) $p) |"
  unset T
done <<< "$configs"
