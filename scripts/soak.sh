#!/usr/bin/env bash
# scripts/soak.sh N [BUILD_DIR] [-- CTEST ARGS...]: run the suite N times (CTest, -j2 unless the
# arguments say otherwise) and list every test whose verdict ever changed. A verdict must not
# depend on timing (hrace judges by happens-before), so any flip is a bug, of hrace or of the
# test. Exits 1 when a test flipped or failed in every run, 0 when all N runs agreed (tests
# skipped in every run, for want of an optional package, are listed apart and do not count).
# Example: scripts/soak.sh 10;  scripts/soak.sh 5 build -- -L e2e
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:?usage: scripts/soak.sh N [BUILD_DIR] [-- CTEST ARGS...]}
shift
build=build
if (($#)) && [[ $1 != -- ]]; then build=$1; shift; fi
if (($#)) && [[ $1 == -- ]]; then shift; fi
extra=("$@")
((${#extra[@]})) || extra=(-j2)
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "soak: N must be a positive integer, got '$runs'" >&2; exit 2; }
[[ -f $build/CTestTestfile.cmake ]] || { echo "soak: no CTest tree in $build (build it first)" >&2; exit 2; }

logs=$(mktemp -d "${TMPDIR:-/tmp}/hrace-soak-XXXXXX")
trap 'rm -rf "$logs"' EXIT
# The runs' logs (with each failing test's output and every test's time) are kept in
# $build/soak-logs: an intermittent failure is worth nothing without them, and the times say
# which tests come near their timeouts under load.
for ((i = 1; i <= runs; i++)); do
  ctest --test-dir "$build" --output-on-failure "${extra[@]}" >"$logs/run-$i.log" 2>&1 || true
  echo "soak: run $i of $runs: $(grep -E 'tests passed' "$logs/run-$i.log" | tail -1)"
done

if python3 - "$logs" "$runs" <<'PY'
import os, re, sys
logs, runs = sys.argv[1], int(sys.argv[2])
verdicts = {}                     # test -> [verdict per run]
line = re.compile(r"Test\s+#\d+: (\S+) \.+\**\s*(Passed|Failed|Timeout|Not Run|Exception|\S+)")
for i in range(1, runs + 1):
    for m in line.finditer(open(os.path.join(logs, f"run-{i}.log"), errors="replace").read()):
        verdicts.setdefault(m.group(1), {})[i] = m.group(2)
flipped = {t: v for t, v in verdicts.items() if len(set(v.values())) > 1}
# A test skipped in every run (an optional package is missing: exit 77, CTest's "Skipped")
# did not fail; it is counted apart. Skipped in some runs only is a change like any other.
skipped = sorted(t for t, v in verdicts.items() if set(v.values()) == {"Skipped"})
always = sorted(t for t, v in verdicts.items()
                if set(v.values()) - {"Passed", "Skipped"} and t not in flipped)
print(f"soak: {len(verdicts)} tests, {runs} runs: {len(flipped)} changed their verdict, "
      f"{len(always)} failed in every run, {len(skipped)} skipped in every run")
for t in sorted(flipped):
    print(f"  changed: {t}: " + " ".join(f"{i}:{flipped[t].get(i, '-')}" for i in range(1, runs + 1)))
for t in always:
    print(f"  always failing: {t}")
for t in skipped:
    print(f"  always skipped: {t}")
sys.exit(1 if flipped or always else 0)
PY
then status=0
else status=$?
fi
rm -rf "$build/soak-logs"
mkdir -p "$build/soak-logs"
cp "$logs"/run-*.log "$build/soak-logs/"
echo "soak: the runs' logs are in $build/soak-logs"
exit "$status"
