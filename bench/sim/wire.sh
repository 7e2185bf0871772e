#!/bin/sh
# bench/sim/wire.sh [BUILD_DIR]: item 4 of issue 24 on real runs. Clock bytes per point-to-point
# message, as `hrace run --stats` reports them, for the stencil kernel (bench/kernels/stencil.c,
# lockall: a zero-byte message to each neighbour per iteration, no collective in the loop) and
# the ring halo with an allreduce per iteration (bench/sim/halo.c), at RANKS ranks (default
# 2 4 8 16 32 64; above the core count oversubscribed), with wire=dense, wire=epoch and
# wire=always (the encoding even where the dense entries fit the frame).
# Prints a markdown table: need = bytes the clocks needed (mean / max per message), wire = the
# frame's clock bytes and tails per message.
set -eu
here=$(cd -- "$(dirname -- "$0")" && pwd)
build=$(cd -- "${1:-$here/../../build}" && pwd)
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/hrace-wire.XXXXXX")}
ranks=${RANKS:-2 4 8 16 32 64}
iters=${ITERS:-10}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpicc -O2 -I"$here/../kernels" -o "$out/stencil" "$here/../kernels/stencil.c" -lm
mpicc -O2 -o "$out/halo" "$here/halo.c"
echo "| program | ranks | wire | messages | need mean | need max | wire per msg | bytes per coll. exchange |"
echo "|---|---|---|---|---|---|---|---|"
for p in $ranks; do
  for prog in stencil halo; do
    for w in dense epoch always; do
      if [ "$prog" = stencil ]; then args="lockall 64 $iters"; else args="$iters 1"; fi
      HRACE_OPTIONS="wire=$w" "$build/bin/hrace" run --stats -- \
        mpirun -x HRACE_OPTIONS -np "$p" "$out/$prog" $args >"$out/log" 2>&1 || true
      awk -v prog="$prog" -v p="$p" -v w="$w" '
        /stats: point-to-point/ { for (i = 1; i <= NF; i++) {
            if ($i == "messages,") n = $(i - 1)
            if ($i == "mean") m = $(i + 1)
            if ($i == "max") x = $(i + 1)
            if ($i == "wire") y = $(i + 1) } }
        /stats: collectives/ { for (i = 1; i <= NF; i++) if ($i == "clock" && $(i + 1) == "bytes") c = $(i - 1) }
        END { sub(/,$/, "", m); sub(/;$/, "", x);
              printf "| %s | %d | %s | %s | %s | %s | %s | %s |\n", prog, p, w, n, m, x, y, c }' "$out/log"
    done
  done
done
