#!/bin/sh
# bench/sim/mem.sh [BUILD_DIR]: issue 24, hrace's memory per rank against the job size on real
# runs. For bench/kernels/stencil.c (fence, pscw, lockall; N=64, ITERS iterations) at RANKS ranks
# (default 2 4 8 16 32; above the core count oversubscribed): the peak resident set per rank
# under `hrace run --stats` (libhrace preloaded into a plain mpicc binary: the MPI layer), the
# same binary without hrace (/usr/bin/time in each rank), their difference, and the collective
# bases kept (`--stats`' base_bytes). With HYBRID=1 (the default) also bench/kernels/hybrid.c
# master 64 ITERS, OMP_NUM_THREADS=2, built with clang through mpicc (plain) and with hrace-cc
# (under hrace: MPI layer and load/store checks, so its share includes the shadow memory).
# Prints a markdown table (KiB, means over the ranks).
set -eu
here=$(cd -- "$(dirname -- "$0")" && pwd)
build=$(cd -- "${1:-$here/../../build}" && pwd)
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/hrace-mem.XXXXXX")}
ranks=${RANKS:-2 4 8 16 32}
iters=${ITERS:-10}
modes=${MODES-fence pscw lockall}
hybrid=${HYBRID:-1}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
mpicc -O2 -I"$here/../kernels" -o "$out/stencil" "$here/../kernels/stencil.c" -lm
for m in $modes; do echo "stencil $m" >>"$out/runs"; done
if [ "$hybrid" = 1 ]; then
  OMPI_CC=clang mpicc -O2 -fopenmp -I"$here/../kernels" -o "$out/hybrid" "$here/../kernels/hybrid.c" -lm
  OMPI_CC=clang "$build/bin/hrace-cc" -O2 -fopenmp -I"$here/../kernels" -o "$out/hybrid.hrace" \
    "$here/../kernels/hybrid.c" -lm
  echo "hybrid master" >>"$out/runs"
fi
echo "| kernel | ranks | peak RSS/rank plain KiB | with hrace KiB | hrace's KiB | bases kept B | clock entries |"
echo "|---|---|---|---|---|---|---|"
for p in $ranks; do
  while read -r k m; do
    prog=$out/$k
    hprog=$prog
    if [ "$k" = hybrid ]; then hprog=$out/hybrid.hrace; fi
    mpirun -np "$p" -x OMP_NUM_THREADS /usr/bin/time -f "rss %M" "$prog" "$m" 64 "$iters" \
      </dev/null >"$out/plain" 2>&1 || true
    plain=$(awk '/^rss / { s += $2; n++ } END { if (n) printf "%.0f", s / n; else print "?" }' "$out/plain")
    rm -rf "$out/rep"
    "$build/bin/hrace" run --stats --keep "$out/rep" -- mpirun -np "$p" -x OMP_NUM_THREADS \
      "$hprog" "$m" 64 "$iters" </dev/null >"$out/log" 2>&1 || true
    with=$(cat "$out"/rep/* 2>/dev/null | grep -o '"mem_peak_kb":[0-9]*' |
           awk -F: '{ s += $2; n++ } END { if (n) printf "%.0f", s / n; else print "?" }')
    awk -v k="$k $m" -v p="$p" -v plain="$plain" -v h="$with" '
      /stats: .* entries per clock/ { for (i = 1; i <= NF; i++) if ($i == "entries") e = $(i - 1) }
      /stats: memory per rank/ { for (i = 1; i <= NF; i++) if ($i == "kept") b = $(i + 1) }
      END { printf "| %s | %d | %s | %s | %.0f | %s | %s |\n", k, p, plain, h, h - plain, b, e }' \
      "$out/log"
  done <"$out/runs"
done
