#!/bin/bash
# Where a tiny epoch's time goes outside the application (issue 21 item 3): CPU time, context
# switches and system calls of a whole 2-rank job, plain (P) and under `hrace run` of builds A
# and B, at two sizes; the difference divided by the difference in epochs is the cost per epoch (the fixed
# start-up cost cancels). The same plain binary (mpicc -O2) for all; P, A and B interleaved, the
# medians of REPS (perf stat over the job: every rank, its threads, mpirun). One strace -f -c
# per rank and build at each size, for the system calls.
#   usage: bench/rma/traffic.sh A_BUILD B_BUILD REPS EPOCHS_PER_UNIT -- KERNEL SMALL_ARGS -- LARGE_ARGS
#   e.g.   bench/rma/traffic.sh /tmp/h21s-A build 5 9990 -- wavefront 1000 1000 5 -- 1000 1000 15
# EPOCHS_PER_UNIT: how many more epochs the large run has than the small (wavefront M N I:
# (M-1) * I per rank; hist dht M I: M * I * probes flushes per rank, roughly).
set -eu
A=$1 B=$2 reps=$3 units=$4
shift 4
. "$(dirname -- "$0")/../kernels/two_sizes.sh"
here=$kernels
OMPI_CC=${OMPI_CC:-clang} mpicc -O2 "$here/$k.c" -o "$out/$k" -lm
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ "$k" = hist ] && export OMPI_MCA_osc=ucx
cat > "$out/st.sh" <<EOS
#!/bin/sh
exec strace -f -c -o "$out/strace.\$OMPI_COMM_WORLD_RANK" "\$@"
EOS
chmod +x "$out/st.sh"
declare -A C S
for i in $(seq "$reps"); do
  for v in P A B; do
    pre=("$A/bin/hrace" run --quiet --)
    [ $v = B ] && pre=("$B/bin/hrace" run --quiet --)
    [ $v = P ] && pre=()
    for sz in small large; do
      if [ $sz = small ]; then args=("${small[@]}"); else args=("${large[@]}"); fi
      perf stat -x, -e task-clock,context-switches -o "$out/perf" \
        "${pre[@]}" mpirun -np 2 "$out/$k" "${args[@]}" > /dev/null 2>&1
      tc=$(awk -F, '/task-clock/ {print $1}' "$out/perf")
      cs=$(awk -F, '/context-switches/ {print $1}' "$out/perf")
      C[$v$sz]="${C[$v$sz]:-} $tc"
      S[$v$sz]="${S[$v$sz]:-} $cs"
    done
  done
done
med() { echo "$@" | tr ' ' '\n' | sort -g | awk 'NF {a[++n] = $1} END {print a[int((n + 1) / 2)]}'; }
for v in P A B; do
  cs=$(med ${C[${v}small]}) cl=$(med ${C[${v}large]})
  ss=$(med ${S[${v}small]}) sl=$(med ${S[${v}large]})
  printf '%s: task-clock %.1f us per unit (small %.0f ms, large %.0f ms), context switches %.2f per unit\n' \
    $v "$(echo "($cl - $cs) * 1000 / $units" | bc -l)" "$cs" "$cl" "$(echo "($sl - $ss) / $units" | bc -l)"
done
for v in A B; do
  d=$A; [ $v = B ] && d=$B
  for sz in small large; do
    if [ $sz = small ]; then args=("${small[@]}"); else args=("${large[@]}"); fi
    "$d/bin/hrace" run --quiet -- mpirun -np 2 "$out/st.sh" "$out/$k" "${args[@]}" > /dev/null 2>&1
    for r in 0 1; do
      awk 'NR > 2 && $NF != "total" && $1 !~ /^-/ {print $NF, ($4 ~ /^[0-9]+$/ ? $4 : $(NF-1))}' \
        "$out/strace.$r" > "$out/sc.$v.$sz.$r"
    done
  done
  for r in 0 1; do
    echo "$v rank $r system calls per unit (large - small):" $(join -a1 -a2 -e0 -o 0,1.2,2.2 \
      <(sort "$out/sc.$v.small.$r") <(sort "$out/sc.$v.large.$r") |
      awk -v u="$units" '{d = ($3 - $2) / u; if (d >= 0.05 || d <= -0.05) printf "%s %.2f ", $1, d}')
  done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
