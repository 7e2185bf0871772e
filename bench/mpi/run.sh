#!/bin/sh
# MPI latency, uninstrumented vs hrace, in one run (bench/README.md, "MPI"): Open MPI, then
# the two-rank points on MPICH when BUILD_DIR/mpich holds hrace's MPICH build.
# usage: bench/mpi/run.sh [BUILD_DIR]   (default: build; needs libhrace.so built there)
# Env: REPS (default 7), ROUNDS (alternations of plain / hrace per point, default 3).
set -eu
build=${1:-build}
lib=$(cd "$build/lib" && pwd)/libhrace.so
[ -f "$lib" ] || { echo "run.sh: $lib not found: build first" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mpicc -O2 -o "$out/mpibench" "$(dirname "$0")/mpibench.c" -lpthread
reps=${REPS:-7}
rounds=${ROUNDS:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export HRACE_OPTIONS="report_text=0"
mpi=ompi

# one MODE TEST NP ITERS: the median (us) printed by mpibench
one() {
  if [ "$mpi" = mpich ]; then
    if [ "$1" = hrace ]; then
      mpirun.mpich -np "$3" -env LD_PRELOAD "$mlib" -env HRACE_OPTIONS "$HRACE_OPTIONS" \
        "$out/mpibench.mpich" "$2" "$4" "$reps" 2>/dev/null | awk '{print $3}'
    else
      mpirun.mpich -np "$3" "$out/mpibench.mpich" "$2" "$4" "$reps" 2>/dev/null | awk '{print $3}'
    fi
  elif [ "$1" = hrace ]; then
    mpirun -np "$3" -x LD_PRELOAD="$lib" -x HRACE_OPTIONS "$out/mpibench" "$2" "$4" "$reps" 2>/dev/null | awk '{print $3}'
  else
    mpirun -np "$3" "$out/mpibench" "$2" "$4" "$reps" 2>/dev/null | awk '{print $3}'
  fi
}
# median of the arguments
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

point() {   # TEST NP ITERS
  p=""; h=""
  i=0
  while [ $i -lt "$rounds" ]; do
    p="$p $(one plain "$1" "$2" "$3")"
    h="$h $(one hrace "$1" "$2" "$3")"
    i=$((i + 1))
  done
  mp=$(med $p); mh=$(med $h)
  echo "| $1 | $2 | $mp | $mh | $(awk -v a="$mp" -v b="$mh" 'BEGIN {printf "%.2f", b / a}') |"
}
# The floor of any in-band clock, plain runs only: a ping-pong as long as hrace's frame of an
# 8-byte message at 2 ranks (8 + 12 header + 2 x 4 clock bytes), and the same framed by hand.
floor() {   # TEST NP ITERS
  p=""
  i=0
  while [ $i -lt "$rounds" ]; do p="$p $(one plain "$1" "$2" "$3")"; i=$((i + 1)); done
  echo "| $1 (plain only) | $2 | $(med $p) | | |"
}

echo "Open MPI"
echo
echo "| test | ranks | plain (us) | hrace (us) | ratio |"
echo "|---|---|---|---|---|"
point self 1 200000
point selfmt 1 200000
point pp8 2 20000
floor pp10 2 20000
floor pp12 2 20000
floor pp28 2 20000
floor frame8 2 20000
point halo8 2 20000
point pp1m 2 200
for np in 2 4 8 16; do point barrier "$np" $((4000 / np)); done
for np in 2 4 8 16; do point allreduce "$np" $((4000 / np)); done

# MPI_THREAD_MULTIPLE with OMP_NUM_THREADS=8 (8 exporter slots per rank): an 8-byte
# ping-pong with one MPI-calling thread per rank (ppmt) and after a second thread of every
# rank made one MPI call (ppmt2: every clock then has a tail), with hrace's default
# (wire_slots=1: a frame carries one entry per rank, a non-zero tail goes in a second message)
# and with wire_slots=0 (every entry in the frame).
onemt() {   # TEST EXTRA_OPTIONS: hrace's median (us), Open MPI, OMP_NUM_THREADS=8
  mpirun -np 2 -x LD_PRELOAD="$lib" -x HRACE_OPTIONS="$HRACE_OPTIONS$2" -x OMP_NUM_THREADS=8 \
    "$out/mpibench" "$1" 20000 "$reps" 2>/dev/null | awk '{print $3}'
}
mt() {   # TEST: plain / default / wire_slots=0 medians over ROUNDS alternations
  p=""; h=""; d=""
  i=0
  while [ $i -lt "$rounds" ]; do
    p="$p $(one plain "$1" 2 20000)"
    h="$h $(onemt "$1" "")"
    d="$d $(onemt "$1" ",wire_slots=0")"
    i=$((i + 1))
  done
  mp=$(med $p); mh=$(med $h); md=$(med $d)
  echo "| $1 | $mp | $mh ($(awk -v a="$mp" -v b="$mh" 'BEGIN {printf "%.2f", b / a}')x) | $md ($(awk -v a="$mp" -v b="$md" 'BEGIN {printf "%.2f", b / a}')x) |"
}
# Allreduce with 8 exporter slots per rank (the layout of MPI_THREAD_MULTIPLE and
# OMP_NUM_THREADS=8): its exchange goes in layers (src/mpi/coll.c).
echo
echo "| Allreduce, exporters=8 | ranks | plain (us) | hrace (us) | ratio |"
echo "|---|---|---|---|---|"
saved=$HRACE_OPTIONS
HRACE_OPTIONS="$saved,exporters=8"
for np in 2 4; do point allreduce "$np" $((4000 / np)); done
HRACE_OPTIONS=$saved

echo
echo "| MPI_THREAD_MULTIPLE, 2 ranks | plain (us) | hrace, wire_slots=1 (default) | hrace, wire_slots=0 |"
echo "|---|---|---|---|"
mt ppmt
mt ppmt2

# Clock bytes: the frame of a 0-byte message (PMPI_Probe), and the tail a message carries
# once a second thread of every rank has made an MPI call (hrace's note at MPI_Finalize).
tail_bytes() {   # NP OPTIONS: tail bytes per tail sent by rank 0 (0 when none)
  mpirun -np "$1" -x LD_PRELOAD="$lib" -x HRACE_OPTIONS="$HRACE_OPTIONS,verbosity=1$2" -x OMP_NUM_THREADS=8 \
    "$out/mpibench" hdrmt2 1 1 2>&1 >/dev/null |
    awk '/rank 0: note: clock tails sent/ { gsub(/[()]/, ""); print ($8 ? $9 / $8 : 0) }'
}
# A barrier's exchange: hdrmt makes one (the initial thread's), hdrmt2 a second one after a
# second thread of every rank called MPI (its entries are the clock's second layer).
coll_bytes() {   # NP TEST: clock bytes rank 0 contributed to collective exchanges
  mpirun -np "$1" -x LD_PRELOAD="$lib" -x HRACE_OPTIONS="$HRACE_OPTIONS,verbosity=1" -x OMP_NUM_THREADS=8 \
    "$out/mpibench" "$2" 1 1 2>&1 >/dev/null |
    awk '/rank 0: note: collective clock exchanges/ { gsub(/[()]/, ""); print $9 }'
}
echo
echo "| ranks | frame clock bytes (header + entries) | MULTIPLE, OMP_NUM_THREADS=8: frame | + tail, 2 exporters per rank | MULTIPLE, wire_slots=0: frame | MULTIPLE: barrier exchange | same, 2 exporters per rank |"
echo "|---|---|---|---|---|---|---|"
for np in 2 4 8 16; do
  b=$(mpirun -np "$np" -x LD_PRELOAD="$lib" -x HRACE_OPTIONS "$out/mpibench" hdr 1 1 2>/dev/null | awk '{print $3}')
  m=$(mpirun -np "$np" -x LD_PRELOAD="$lib" -x HRACE_OPTIONS -x OMP_NUM_THREADS=8 "$out/mpibench" hdrmt 1 1 2>/dev/null | awk '{print $3}')
  t=$(tail_bytes "$np" "")
  d=$(mpirun -np "$np" -x LD_PRELOAD="$lib" -x HRACE_OPTIONS="$HRACE_OPTIONS,wire_slots=0" -x OMP_NUM_THREADS=8 "$out/mpibench" hdrmt 1 1 2>/dev/null | awk '{print $3}')
  c1=$(coll_bytes "$np" hdrmt)
  c2=$(coll_bytes "$np" hdrmt2)
  echo "| $np | $b | $m | $t | $d | $c1 | $((c2 - c1)) |"
done

mlib="$(cd "$build" && pwd)/mpich/lib/libhrace.so"
if [ -f "$mlib" ] && command -v mpicc.mpich >/dev/null && command -v mpirun.mpich >/dev/null; then
  mpicc.mpich -O2 -o "$out/mpibench.mpich" "$(dirname "$0")/mpibench.c" -lpthread
  mpi=mpich
  echo
  echo "MPICH"
  echo
  echo "| test | ranks | plain (us) | hrace (us) | ratio |"
  echo "|---|---|---|---|---|"
  point self 1 200000
  point pp8 2 20000
  floor pp28 2 20000
  floor frame8 2 20000
  point halo8 2 20000
  point pp1m 2 200
  point barrier 2 2000
  point allreduce 2 2000
fi
