#!/usr/bin/env bash
# Build hrace into ./build and run the whole test suite through CTest (unit tests, the launcher's
# tests, the end-to-end cases). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh --test
cmake -S . -B build
cmake --build build -j2

# pipefail: the pipeline fails with ctest's status. An empty test list is a failure too.
status=0
ctest --test-dir build --output-on-failure --no-tests=error -j2 2>&1 | tee build/ctest.log ||
  status=$?
summary=$(grep -E 'tests passed|No tests were found' build/ctest.log | tail -1 || true)
echo "test.sh: ${summary:-no ctest summary line (see build/ctest.log)}"

# The documented MPICH build, a tree of its own (docs/mpi.md): it must build, and its suite runs
# on MPICH by itself (lib/libhrace.build). The cases build/ already ran on MPICH as case-mpich/
# (the same sources, built as build/mpich; label mpich-twin, tests/CMakeLists.txt) are not run
# twice.
if command -v mpicc.mpich >/dev/null 2>&1; then
  mstatus=0
  { cmake -S . -B build-mpich -DMPI_C_COMPILER=mpicc.mpich &&
    cmake --build build-mpich -j2; } || mstatus=$?
  if [ "$mstatus" = 0 ]; then
    ctest --test-dir build-mpich --output-on-failure --no-tests=error -j2 \
          -LE mpich-twin 2>&1 | tee build-mpich/ctest.log ||
      mstatus=$?
    msummary=$(grep -E 'tests passed|No tests were found' build-mpich/ctest.log | tail -1 || true)
  fi
  echo "test.sh: MPICH tree (build-mpich): ${msummary:-build failed or no ctest summary line}"
  [ "$mstatus" = 0 ] || status=$mstatus
fi
exit "$status"
