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
exit "$status"
