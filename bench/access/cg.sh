#!/bin/sh
# bench/access/cg.sh BUILD_DIR [BUILD_DIR...]: instructions per access of bench/access/loop.c's
# rows (callgrind, deterministic: for a loaded machine, where run.sh's nanoseconds are noise),
# for each build's libhrace. loop.c is built once per build with its hrace-cc (clang -O2, no
# vectorisation, no loop hoisting: one callback per access) and REPS=50 passes, one timing per
# row; each row's loop is its own function (rd_ROW / wr_ROW), whose inclusive instructions are
# divided by its 50 * 2048 accesses. The uninstrumented loop costs 3 (load) or 2 (store)
# instructions per element.
set -eu
here=$(cd -- "$(dirname -- "$0")" && pwd)
out=${BENCH_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/hrace-cg.XXXXXX")}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_osc=ucx
cflags="-O2 -g -fno-vectorize -fno-slp-vectorize -DUSE_MPI -DREPS=50 -DTIMINGS=1"
k=0
for b in "$@"; do
  k=$((k + 1))
  HRACE_CC=clang HRACE_CC_HOIST=0 "$b/bin/hrace-cc" $cflags "$here/loop.c" -o "$out/loop$k"
  valgrind --tool=callgrind --callgrind-out-file="$out/cg$k" "$out/loop$k" > /dev/null 2>&1
  printf '%s:' "$b"
  for f in rd_miss wr_miss rd_gap rd_win wr_win rd_hist wr_hist; do
    v=$(callgrind_annotate --inclusive=yes --threshold=100 "$out/cg$k" 2>/dev/null |
        awk -v f="$f" '{x = $0; gsub(",", "", $1)} index(x, ":" f " ") {print $1; exit}')
    printf ' %s %s' "$f" "$(echo "$v" | awk '{printf "%.1f", $1 / (50 * 2048)}')"
  done
  echo
done
