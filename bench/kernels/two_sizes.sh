# Sourced by bench/kernels/instr.sh and bench/rma/traffic.sh: after their own leading
# arguments have been shifted off, "-- KERNEL SMALL_ARGS -- LARGE_ARGS" into $k, the arrays
# small and large, a temporary directory $out (removed at exit) and $kernels, the directory
# of the kernels' sources.
[ "$1" = "--" ] && shift
k=$1; shift
small=() large=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do small+=("$1"); shift; done
shift
large=("$@")
kernels=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
