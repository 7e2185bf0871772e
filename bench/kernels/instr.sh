#!/bin/bash
# Instructions and page faults per unit of work, hrace builds A and B side by side, measures
# that a loaded machine does not move: rank 0 of a 2-rank job under callgrind (Ir, every
# function of the process, its progress thread included), and under `perf stat -e page-faults`
# (the kernel's work on the shadow's pages, which callgrind does not see). Each figure is taken
# at two sizes and divided by the difference in units (iterations, ...), so set-up, start-up
# and verification cancel (a one-time cost inside the timed loop, a window's first sweep,
# cancels too: the page faults of the whole large run are printed as well). The kernel is built once with A's hrace-cc (clang 14, -O2) and run
# under each build's `hrace run`, in window-only mode unless MODE says otherwise.
#   usage: bench/kernels/instr.sh A_BUILD B_BUILD UNITS -- KERNEL SMALL_ARGS -- LARGE_ARGS
#   e.g.   bench/kernels/instr.sh /tmp/main/build build 20 -- stencil fence 2048 20 -- fence 2048 40
# Environment: MODE=window|full (HRACE_OPTIONS=mode=...), OMP_NUM_THREADS for hybrid (2),
# PLAIN=1 for the MPI layer alone (the kernel built with mpicc, no load / store checks).
# Note: rank 0's MPI waiting (busy polling in a fence while rank 1 runs natively) shows up in
# the MPI library's own functions: compare the libhrace rows, or the totals with that in mind.
set -eu
A=$1 B=$2 units=$3
shift 3
. "$(dirname -- "$0")/two_sizes.sh"
here=$kernels
omp=()
grep -q 'omp' "$here/$k.c" && omp=(-fopenmp)
if [ "${PLAIN:-0}" = 1 ]; then   # the MPI layer alone: an uninstrumented binary
  OMPI_CC=clang mpicc -O2 -g "${omp[@]}" -I "$here" "$here/$k.c" -o "$out/$k" -lm
else
  OMPI_CC=clang "$A/bin/hrace-cc" -O2 -g "${omp[@]}" -I "$here" "$here/$k.c" -o "$out/$k" -lm
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
export HRACE_OPTIONS="mode=${MODE:-window} ${HRACE_OPTIONS:-}"
[ "$k" = hist ] && export OMPI_MCA_osc=ucx
cat > "$out/cg.sh" <<EOS
#!/bin/sh
if [ "\$OMPI_COMM_WORLD_RANK" = 0 ]; then
  exec valgrind --tool=callgrind --callgrind-out-file="\$CGOUT" "\$@" 2>/dev/null
fi
exec "\$@"
EOS
cat > "$out/pf.sh" <<EOS
#!/bin/sh
if [ "\$OMPI_COMM_WORLD_RANK" = 0 ]; then exec perf stat -x, -e page-faults -o "\$PFOUT" "\$@"; fi
exec "\$@"
EOS
chmod +x "$out/cg.sh" "$out/pf.sh"
# Per function of libhrace, and the total: "name count" lines.
funcs() {
  callgrind_annotate "$1" 2>/dev/null | awk '
    /PROGRAM TOTALS/ {gsub(",", "", $1); print "TOTAL", $1}
    /libhrace/ {n = $1; gsub(",", "", n); f = $0; sub(/^[^ ]* *\([^)]*\) */, "", f);
                sub(/ \[.*/, "", f); sub(/.*:/, "", f); s[f] += n}
    END {for (f in s) print f, s[f]}'
}
for v in A B; do
  d=$A; [ $v = B ] && d=$B
  for sz in small large; do
    if [ $sz = small ]; then args=("${small[@]}"); else args=("${large[@]}"); fi
    CGOUT="$out/cg.$v.$sz" "$d/bin/hrace" run --quiet -- mpirun -x CGOUT -np 2 "$out/cg.sh" \
      "$out/$k" "${args[@]}" > /dev/null 2>&1
    funcs "$out/cg.$v.$sz" | sort > "$out/f.$v.$sz"
    PFOUT="$out/pf.$v.$sz" "$d/bin/hrace" run --quiet -- mpirun -x PFOUT -np 2 "$out/pf.sh" \
      "$out/$k" "${args[@]}" > /dev/null 2>&1
  done
  join -a1 -a2 -e0 -o 0,1.2,2.2 "$out/f.$v.small" "$out/f.$v.large" |
    awk -v u="$units" '{printf "%s %.0f\n", $1, ($3 - $2) / u}' | sort > "$out/d.$v"
done
pf() { awk -F, '/page-faults/ {print $1}' "$out/pf.$1.$2"; }
echo "$k ${large[*]} (minus ${small[*]}), per unit of $units, rank 0:"
printf '%-40s %14s %14s\n' "" "A" "B"
join -a1 -a2 -e0 -o 0,1.2,2.2 "$out/d.A" "$out/d.B" |
  awk '{a = $2 < 0 ? -$2 : $2; b = $3 < 0 ? -$3 : $3; m = a > b ? a : b; print m, $0}' |
  sort -rn | head -16 | awk '{printf "%-40s %14d %14d\n", $2, $3, $4}'
join -a1 -a2 -e0 -o 0,1.2,2.2 "$out/d.A" "$out/d.B" |
  awk '$1 != "TOTAL" {a += $2; b += $3} END {printf "%-40s %14d %14d\n", "libhrace, all functions", a, b}'
printf '%-40s %14.1f %14.1f\n' "page faults" \
  "$(echo "($(pf A large) - $(pf A small)) / $units" | bc -l)" \
  "$(echo "($(pf B large) - $(pf B small)) / $units" | bc -l)"
printf '%-40s %14d %14d\n' "page faults, whole large run" "$(pf A large)" "$(pf B large)"
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
