#!/bin/sh
# bench/kernels/run.sh [BUILD_DIR]: the "Application kernels" table of bench/README.md.
#
# Builds every kernel of this directory three ways, all with clang 14 at -O2 (Open MPI's mpicc
# with OMPI_CC=clang, so that OpenMP kernels run on LLVM's libomp in every mode):
#   plain: mpicc -O2 [-fopenmp]
#   hrace: BUILD_DIR/bin/hrace-cc -O2 [-fopenmp]
#   tsan:  mpicc -O2 -g -fsanitize=thread [-fopenmp]   (ThreadSanitizer's own runtime)
# and runs each configuration in four modes, interleaved (plain, mpi, hrace, tsan, plain, ...):
#   plain  the plain binary under mpirun
#   mpi    the plain binary under `hrace run` (libhrace preloaded: the MPI layer only)
#   hrace  the hrace-cc binary under `hrace run` (MPI layer + load/store checks)
#   tsan   the TSan binary under mpirun; OpenMP kernels with Archer
#          (OMP_TOOL_LIBRARIES=libarcher.so), checked to load (ARCHER_OPTIONS=verbose=1)
# Each kernel prints its timed region (max over ranks) and its peak RSS (getrusage, max over
# ranks); the script also takes the wall time of the whole job (launcher, MPI_Init, setup and
# verification included). Medians over REPS repetitions; ratios are of medians.
#
# Environment:
#   REPS=3          repetitions per mode (median)
#   RANKS="2 4 8"   rank counts; above the core count mpirun gets --oversubscribe
#   SIZES="small large"
#   KERNELS=REGEX   only the configurations whose name matches (e.g. 'stencil|wave')
#   OMP_NUM_THREADS threads per rank of the hybrid kernel (default 2)
#   QUICK=1         smoke test: REPS=1, RANKS=2, SIZES=tiny
#   OUT=DIR         keep binaries, per-run logs and the raw results there (default: a temp dir)
#   WINDOW=1        a fifth mode, hwin: the hrace-cc binary under `hrace run` with
#                   HRACE_OPTIONS=mode=window (window memory only, no full mode), in its own table
set -eu

here=$(cd -- "$(dirname -- "$0")" && pwd)
build=$(cd -- "${1:-$here/../../build}" && pwd)
reps=${REPS:-3}
ranks_list=${RANKS:-2 4 8}
sizes=${SIZES:-small large}
if [ "${QUICK:-0}" = 1 ]; then reps=1; ranks_list=2; sizes=tiny; fi
filter=${KERNELS:-.}
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/hrace-kernels.XXXXXX")}
mkdir -p "$out"
cores=$(nproc)
archer=${ARCHER:-/usr/lib/llvm-14/lib/libarcher.so}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_CC=clang
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
# TSan: report without failing the job (a report is counted below), skip uninstrumented MPI.
export TSAN_OPTIONS="exitcode=0 ignore_noninstrumented_modules=1 ${TSAN_OPTIONS:-}"

# name | source | openmp | tiny args | small args | large args | extra environment
configs='stencil-fence|stencil|0|fence 64 4|fence 512 40|fence 2048 40|
stencil-pscw|stencil|0|pscw 64 4|pscw 512 40|pscw 2048 40|
stencil-lockall|stencil|0|lockall 64 4|lockall 512 40|lockall 2048 40|
transpose-get|transpose|0|get 64 2|get 512 8|get 2048 4|
transpose-alltoall|transpose|0|alltoall 64 2|alltoall 512 8|alltoall 2048 4|
hist-acc|hist|0|acc 1000 1|acc 20000 2|acc 200000 2|
hist-dht|hist|0|dht 500 1|dht 2000 2|dht 20000 2|OMPI_MCA_osc=ucx
hybrid-master|hybrid|1|master 64 4|master 512 40|master 2048 40|
hybrid-multiple|hybrid|1|multiple 64 4|multiple 512 40|multiple 2048 40|
hybrid-tasks|hybrid|1|tasks 64 4|tasks 512 40|tasks 2048 40|
particles-lockall|particles|0|1000 4|20000 20|200000 40|
wavefront-pscw|wavefront|0|64 64 2|1000 1000 5|4000 4000 10|'
# hist-dht runs on Open MPI's osc/ucx in every mode: 4.1.4's default osc/rdma segfaults in
# MPI_Compare_and_swap under lock_all on this machine (plain MPI, without hrace). hist-acc stays
# on osc/rdma: its accumulates took 10-100x longer on osc/ucx, plain, and varied wildly.

echo "building into $out" >&2
for src in $(echo "$configs" | cut -d'|' -f2,3 | sort -u); do
  k=${src%|*}; omp=${src#*|}
  f=""; [ "$omp" = 1 ] && f=-fopenmp
  mpicc -O2 $f "$here/$k.c" -o "$out/$k.plain" -lm
  "$build/bin/hrace-cc" -O2 $f "$here/$k.c" -o "$out/$k.hrace" -lm
  mpicc -O2 -g -fsanitize=thread $f "$here/$k.c" -o "$out/$k.tsan" -lm
done

# run MODE KERNEL OPENMP RANKS ARGS ENV -> one line: kernel-s wall-s rss-kb status
run_one() {
  mode=$1 k=$2 omp=$3 np=$4 args=$5 xenv=$6 log=$7
  over=""; [ "$np" -gt "$cores" ] && over=--oversubscribe
  case $mode in
    plain) set -- mpirun -np "$np" $over "$out/$k.plain" ;;
    mpi)   set -- "$build/bin/hrace" run --quiet -- mpirun -np "$np" $over "$out/$k.plain" ;;
    hrace) set -- "$build/bin/hrace" run --quiet -- mpirun -np "$np" $over "$out/$k.hrace" ;;
    hwin)  set -- env HRACE_OPTIONS=mode=window \
             "$build/bin/hrace" run --quiet -- mpirun -np "$np" $over "$out/$k.hrace" ;;
    tsan)  if [ "$omp" = 1 ]; then
             set -- env OMP_TOOL_LIBRARIES="$archer" ARCHER_OPTIONS=verbose=1 \
               mpirun -np "$np" $over "$out/$k.tsan"
           else set -- mpirun -np "$np" $over "$out/$k.tsan"; fi ;;
  esac
  t0=$(date +%s.%N)
  rc=0
  env $xenv timeout 900 "$@" $args < /dev/null > "$log" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  line=$(grep '^KERNEL ' "$log" | tail -1)
  status=ok
  if [ -z "$line" ]; then status=norun
  elif [ "$rc" = 66 ]; then status=race
  elif [ "$rc" != 0 ] || ! echo "$line" | grep -q ' OK$'; then status=fail; fi
  if [ "$mode" = tsan ]; then
    grep -q 'WARNING: ThreadSanitizer' "$log" && status=tsan-report
    if [ "$omp" = 1 ] && ! grep -q 'Archer detected OpenMP application' "$log"; then
      status=no-archer
    fi
  fi
  kt=$(echo "$line" | awk '{for (i = 1; i < NF; i++) if ($i == "time") print $(i + 1)}')
  kb=$(echo "$line" | awk '{for (i = 1; i < NF; i++) if ($i == "rss_kb") print $(i + 1)}')
  echo "${kt:-nan} $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') ${kb:-0} $status"
}

modes="plain mpi hrace tsan"; [ "${WINDOW:-0}" = 1 ] && modes="$modes hwin"
results=$out/results
: > "$results"
for np in $ranks_list; do
  [ "$np" -gt "$cores" ] && echo "note: $np ranks on $cores cores: oversubscribed (--oversubscribe)" >&2
  echo "$configs" | while IFS='|' read -r name k omp tiny small large xenv; do
    echo "$name" | grep -Eq "$filter" || continue
    for size in $sizes; do
      case $size in tiny) args=$tiny ;; small) args=$small ;; large) args=$large ;; esac
      r=1
      while [ $r -le "$reps" ]; do
        for mode in $modes; do
          log=$out/log.$name.$size.$np.$mode.$r
          res=$(run_one "$mode" "$k" "$omp" "$np" "$args" "$xenv" "$log")
          echo "$name $size $np $mode $r $res" >> "$results"
          echo "$name $size ($args) np=$np $mode rep $r: $res (load $(cut -d' ' -f1 /proc/loadavg))" >&2
        done
        r=$((r + 1))
      done
    done
  done
done

python3 - "$results" "$reps" <<'EOF'
import statistics, sys
from collections import defaultdict
rows = defaultdict(list)
order = []
for line in open(sys.argv[1]):
    name, size, np, mode, rep, kt, wall, kb, status = line.split()
    key = (name, size, int(np))
    if key not in order:
        order.append(key)
    rows[key + (mode,)].append((float(kt), float(wall), int(kb), status))
def med(key, mode, i):
    v = [r[i] for r in rows[key + (mode,)] if r[3] in ("ok", "tsan-report")]
    return statistics.median(v) if v else float("nan")
def ratio(a, b):
    return "n/a" if a != a or b != b or b == 0 else f"{a / b:.2f}"
print(f"Medians over {sys.argv[2]} runs per mode; time = the kernel's timed region (max over "
      "ranks), wall = the whole job, mem = peak RSS (max over ranks).")
print()
print("| kernel | size | ranks | plain (s) | mpi x | hrace x | tsan x | plain wall (s) | hrace wall x "
      "| tsan wall x | plain MiB | mpi mem x | hrace mem x | tsan mem x | not ok |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for key in order:
    t = {m: med(key, m, 0) for m in ("plain", "mpi", "hrace", "tsan")}
    w = {m: med(key, m, 1) for m in ("plain", "mpi", "hrace", "tsan")}
    kb = {m: med(key, m, 2) for m in ("plain", "mpi", "hrace", "tsan")}
    bad = [f"{m}:{r[3]}" for m in ("plain", "mpi", "hrace", "tsan")
           for r in rows[key + (m,)] if r[3] != "ok"]
    print(f"| {key[0]} | {key[1]} | {key[2]} | {t['plain']:.4f} | {ratio(t['mpi'], t['plain'])} "
          f"| {ratio(t['hrace'], t['plain'])} | {ratio(t['tsan'], t['plain'])} | {w['plain']:.2f} "
          f"| {ratio(w['hrace'], w['plain'])} | {ratio(w['tsan'], w['plain'])} "
          f"| {kb['plain'] / 1024:.0f} | {ratio(kb['mpi'], kb['plain'])} "
          f"| {ratio(kb['hrace'], kb['plain'])} | {ratio(kb['tsan'], kb['plain'])} "
          f"| {' '.join(sorted(set(bad))) or ''} |")
win = [key for key in order if rows[key + ("hwin",)]]
if win:
    print()
    print("Full mode (hrace, the default) against window-only mode (hwin: HRACE_OPTIONS=mode=window),"
          " ratios to plain:")
    print()
    print("| kernel | size | ranks | hrace x | hwin x | tsan x | hrace mem x | hwin mem x | tsan mem x | not ok |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for key in win:
        t = {m: med(key, m, 0) for m in ("plain", "hrace", "hwin", "tsan")}
        kb = {m: med(key, m, 2) for m in ("plain", "hrace", "hwin", "tsan")}
        bad = [f"hwin:{r[3]}" for r in rows[key + ("hwin",)] if r[3] != "ok"]
        print(f"| {key[0]} | {key[1]} | {key[2]} | {ratio(t['hrace'], t['plain'])} "
              f"| {ratio(t['hwin'], t['plain'])} | {ratio(t['tsan'], t['plain'])} "
              f"| {ratio(kb['hrace'], kb['plain'])} | {ratio(kb['hwin'], kb['plain'])} "
              f"| {ratio(kb['tsan'], kb['plain'])} | {' '.join(sorted(set(bad))) or ''} |")
EOF
echo "raw results: $results" >&2
