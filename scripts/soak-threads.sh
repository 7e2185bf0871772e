#!/bin/bash
# Soak for the MPI_THREAD_MULTIPLE stall of docs/testing.md ("Known intermittent"): run the
# two cases that stalled together, side by side, N times, under hrace; when a run is older
# than 15 s, print every thread's stack of both jobs' ranks (gdb) and stop.
# usage: scripts/soak-threads.sh [BUILD_DIR] [N]   (default build, 400; the cases must have
# run once under CTest, which builds them: ctest -R "case-tail/mpi_threads|case-shared-slot")
set -u
B=$(cd "${1:-build}" && pwd)
N=${2:-400}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
a=$B/cases-tail/mpi_threads_norace
b=$B/cases-shared-slot/hyb_tail_threads_race
[ -x "$a/mpi_threads_norace" ] && [ -x "$b/hyb_tail_threads_race" ] ||
  { echo "soak-threads.sh: run the cases under CTest first (see the header)" >&2; exit 2; }
stacks() {
  for p in $(pgrep -f "^\./(mpi_threads_norace|hyb_tail_threads_race)"); do
    echo "--- pid $p: $(ps -o etimes=,pcpu=,args= -p "$p")"
    timeout 60 gdb -p "$p" -batch -ex "thread apply all bt 30" 2>/dev/null | grep -E "^#|^Thread" | cut -c1-160
  done
}
slow=0
for i in $(seq 1 "$N"); do
  (cd "$a" && OMP_NUM_THREADS=2 HRACE_OPTIONS=wire_slots=-1,report_text=0 timeout 90 \
     "$B/bin/hrace" run -- mpirun -np 2 ./mpi_threads_norace > /dev/null 2>&1) &
  p1=$!
  (cd "$b" && OMP_NUM_THREADS=4 HRACE_OPTIONS=exporters=2,report_text=0 timeout 90 \
     "$B/bin/hrace" run -- mpirun -np 2 ./hyb_tail_threads_race > /dev/null 2>&1) &
  p2=$!
  t0=$SECONDS
  while kill -0 $p1 2>/dev/null || kill -0 $p2 2>/dev/null; do
    sleep 0.2
    if [ $((SECONDS - t0)) -gt 15 ]; then
      echo "pair $i: a run is older than 15 s; stacks:"
      stacks
      wait
      exit 1
    fi
  done
  wait
  [ $((SECONDS - t0)) -gt 8 ] && slow=$((slow + 1)) && echo "pair $i took $((SECONDS - t0)) s"
done
echo "soak-threads.sh: $N pairs, $slow slower than 8 s, none stalled"
