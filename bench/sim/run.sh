#!/bin/sh
# bench/sim/run.sh [clocksim options]: builds the clock trace simulator (bench/sim/clocksim.c,
# src/clocks/eclock.c, src/clocks/vc.c; no MPI, no hrace build needed) and runs it; without
# options, the table of bench/README.md "Clocks at scale": every pattern at P = 64, 1024, 16384,
# 100000, the epoch clocks and the shipped form (dense clocks encoded against the latest world
# base) side by side, the grid patterns by symmetry (-s) with the check against the full
# simulation where that fits (-c).
set -eu
here=$(cd -- "$(dirname -- "$0")" && pwd)
src=$(cd -- "$here/../../src" && pwd)
out=${OUT:-${TMPDIR:-/tmp}/hrace-clocksim}
cc=${CC:-cc}
$cc -std=c11 -O2 -g -I"$src" "$here/clocksim.c" "$src/clocks/eclock.c" "$src/clocks/vc.c" -o "$out"
if [ $# -eq 0 ]; then
  set -- -s -c -P 64,1024,16384,100000
fi
exec "$out" "$@"
