#!/bin/sh
# A burst of N OpenMP tasks created by one thread before a taskwait, plain vs hrace, in one run
# (bench/README.md, "OpenMP tasks"). usage: bench/omp/run.sh [BUILD_DIR]   (default: build)
set -eu
build=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
src=$(dirname "$0")/manytasks.c
OMPI_CC=clang mpicc -O2 -fopenmp -o "$out/plain" "$src"
"$build/bin/hrace-cc" -O2 -fopenmp -o "$out/hrace" "$src"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
echo "| tasks | plain (ms) | hrace (ms) |"
echo "|---|---|---|"
for n in 2000 8000 32000 128000; do
  p=$(mpirun -np 1 "$out/plain" "$n" | awk '{print $3}')
  h=$("$build/bin/hrace" run --quiet -- mpirun -np 1 "$out/hrace" "$n" 2>/dev/null | awk '/tasks:/ {print $3}')
  echo "| $n | $p | $h |"
done
