#!/bin/sh
# Many puts from distinct origin buffers in one lock_all epoch, then 100 000 gets into one
# buffer (issue 22 item 7), plain vs hrace, in one run (bench/README.md, "RMA").
# usage: bench/rma/run.sh [BUILD_DIR]   (default: build)
set -eu
build=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
src=$(dirname "$0")/manyputs.c
mpicc -O2 -o "$out/plain" "$src"
"$build/bin/hrace-cc" -O2 -o "$out/hrace" "$src"
gets=$(dirname "$0")/manygets.c
mpicc -O2 -o "$out/gplain" "$gets"
"$build/bin/hrace-cc" -O2 -o "$out/ghrace" "$gets"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "| puts in one epoch | plain (ms) | hrace (ms) | hrace us per put |"
echo "|---|---|---|---|"
for n in 1000 4000 16000 64000; do
  p=$(mpirun -np 2 "$out/plain" "$n" | awk '{print $3}')
  h=$("$build/bin/hrace" run --quiet -- mpirun -np 2 "$out/hrace" "$n" 2>/dev/null | awk '{print $3}')
  echo "| $n | $p | $h | $(awk -v h="$h" -v n="$n" 'BEGIN {printf "%.2f", h * 1000 / n}') |"
done
echo
echo "| 100 000 gets into one buffer, run | plain (ms) | hrace (ms) |"
echo "|---|---|---|"
for k in 1 2 3 4 5; do
  p=$(mpirun -np 2 "$out/gplain" 100000 | awk '{print $3}')
  h=$("$build/bin/hrace" run --quiet -- mpirun -np 2 "$out/ghrace" 100000 2>/dev/null | awk '{print $3}')
  echo "| $k | $p | $h |"
done
