#!/bin/sh
# bench/sim/mem.sh [BUILD_DIR]: issue 24, hrace's memory per rank against the job size on real
# runs. For bench/kernels/stencil.c (fence, pscw, lockall; N=64, ITERS iterations) at RANKS ranks
# (default 2 4 8 16 32; above the core count oversubscribed): the peak resident set per rank
# under `hrace run --stats` (libhrace preloaded into a plain mpicc binary: the MPI layer), the
# same binary without hrace (/usr/bin/time in each rank), their difference, and the collective
# bases kept (`--stats`' base_bytes). Prints a markdown table (KiB, means over the ranks).
set -eu
here=$(cd -- "$(dirname -- "$0")" && pwd)
build=$(cd -- "${1:-$here/../../build}" && pwd)
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/hrace-mem.XXXXXX")}
ranks=${RANKS:-2 4 8 16 32}
iters=${ITERS:-10}
modes=${MODES:-fence pscw lockall}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpicc -O2 -I"$here/../kernels" -o "$out/stencil" "$here/../kernels/stencil.c" -lm
echo "| kernel | ranks | peak RSS/rank plain KiB | with hrace KiB | hrace's KiB | bases kept B | clock entries |"
echo "|---|---|---|---|---|---|---|"
for p in $ranks; do
  for m in $modes; do
    mpirun -np "$p" /usr/bin/time -f "rss %M" "$out/stencil" "$m" 64 "$iters" >"$out/plain" 2>&1 || true
    plain=$(awk '/^rss / { s += $2; n++ } END { if (n) printf "%.0f", s / n; else print "?" }' "$out/plain")
    rm -rf "$out/rep"
    "$build/bin/hrace" run --stats --keep "$out/rep" -- mpirun -np "$p" "$out/stencil" "$m" 64 \
      "$iters" >"$out/log" 2>&1 || true
    with=$(cat "$out"/rep/* 2>/dev/null | grep -o '"mem_peak_kb":[0-9]*' |
           awk -F: '{ s += $2; n++ } END { if (n) printf "%.0f", s / n; else print "?" }')
    awk -v k="stencil $m" -v p="$p" -v plain="$plain" -v h="$with" '
      /stats: .* entries per clock/ { for (i = 1; i <= NF; i++) if ($i == "entries") e = $(i - 1) }
      /stats: memory per rank/ { for (i = 1; i <= NF; i++) if ($i == "kept") b = $(i + 1) }
      END { printf "| %s | %d | %s | %s | %.0f | %s | %s |\n", k, p, plain, h, h - plain, b, e }' \
      "$out/log"
  done
done
