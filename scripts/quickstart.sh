#!/usr/bin/env bash
# Quick start: install what is missing, build hrace into ./build, and run it on the bundled
# racy example (examples/racy_put.c). Succeeds when hrace reports the race the example's
# header states (both source lines); hrace's own exit status 66 ("races found") is expected.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build
cmake --build build -j2

example=examples/racy_put.c
mkdir -p build/examples
build/bin/hrace-cc "$example" -o build/examples/racy_put

# Open MPI refuses to run as root without these; oversubscribe lets 2 ranks run on 1 core.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

echo "quickstart: build/bin/hrace run -- mpirun -np 2 ./build/examples/racy_put"
rm -f build/examples/racy_put.races.jsonl
status=0
# (timeout: a hang of the tool must not hang the quick start)
timeout -k 10 300 build/bin/hrace run --json build/examples/racy_put.races.jsonl -- \
  mpirun -np 2 ./build/examples/racy_put || status=$?

# The expected racing lines are in the example's own header (`pair: L1 L2`, docs/testing.md).
read -r want_a want_b < \
  <(sed -n 's/^ \* pair: *\([0-9]*\) *\([0-9]*\).*/\1 \2/p' "$example" | head -1)
found=$(python3 - "$want_a" "$want_b" build/examples/racy_put.races.jsonl <<'PY'
import json, sys
want = sorted(int(x) for x in sys.argv[1:3])
try:
    races = [json.loads(l) for l in open(sys.argv[3]) if l.strip()]
except (OSError, ValueError):
    races = []
print("yes" if any(sorted((r["a"]["line"], r["b"]["line"])) == want
                   and r["a"]["file"].endswith("racy_put.c") for r in races) else "no")
PY
)
if [[ $status == 66 && $found == yes ]]; then
  echo "quickstart: OK: hrace reported the race between lines $want_a and $want_b of $example"
  exit 0
fi
echo "quickstart: FAILED: expected hrace to report the race between lines $want_a and $want_b" \
     "of $example and exit 66; it exited $status" >&2
exit 1
