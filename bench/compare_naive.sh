#!/usr/bin/env bash
# retrylab's plain event loop against a straightforward event simulator (a peer written
# independently: std::priority_queue and xoshiro256**), whole processes on one core, same work:
#   classic  free, full jitter, N = 100, 20,000 runs
#   shared   steady `shared`, full jitter, rate 0.15, horizon 20,000, 1,000 runs, collapse 3,000
#   collision steady `collision`, full jitter, rate 0.1, same horizon, runs and collapse
# Each pair runs REPS times, interleaved (peer, retrylab, peer, ...), so both see the same load; the
# script prints per repetition the CPU seconds (user + sys) and wall seconds of each, and the median
# of the ratios peer / retrylab (> 1: retrylab is faster). On a shared machine CPU time is the figure
# to read: wall time counts the time other processes held the core.
#
#   bench/compare_naive.sh PATH/naive_sim.cpp [REPS]      (or NAIVE_SIM=PATH/naive_sim.cpp)
# Environment: RETRYLAB (default build/release/cli/retrylab), CXX (default g++), WORK (default a
# temporary folder), SCENARIOS (default "classic shared collision").
# The peer is built with `$CXX -O2`, as its header says. Without a peer source the script exits 2.
set -euo pipefail
cd "$(dirname "$0")/.."
peer_src=${1:-${NAIVE_SIM:-}}
reps=${2:-${REPS:-5}}
retrylab=${RETRYLAB:-$PWD/build/release/cli/retrylab}
cxx=${CXX:-g++}
scenarios=${SCENARIOS:-classic shared collision}
[ -n "$peer_src" ] && [ -f "$peer_src" ] || {
  echo "compare_naive: give the peer's source: bench/compare_naive.sh PATH/naive_sim.cpp [REPS]" >&2; exit 2; }
[ -x "$retrylab" ] || { echo "compare_naive: no retrylab at $retrylab (set RETRYLAB)" >&2; exit 2; }
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "compare_naive: REPS must be a positive integer" >&2; exit 2; }
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
"$cxx" -O2 -o "$work/naive_sim" "$peer_src"

peer_args() {
  case $1 in
    classic) echo "classic model=free strat=full N=100 runs=20000" ;;
    shared) echo "steady model=shared strat=full lambda=0.15 H=20000 runs=1000 collapse=3000" ;;
    collision) echo "steady model=collision strat=full lambda=0.1 H=20000 runs=1000 collapse=3000" ;;
  esac
}
retrylab_args() {
  case $1 in
    classic) echo "simulate --model free --strategy full --clients 100 --runs 20000 --threads 1" ;;
    shared) echo "simulate --model shared --strategy full --rate 0.15 --horizon 20000 --runs 1000 --collapse 3000 --threads 1" ;;
    collision) echo "simulate --model collision --strategy full --rate 0.1 --horizon 20000 --runs 1000 --collapse 3000 --threads 1" ;;
  esac
}

# Prints "cpu wall" seconds of one command (its output discarded).
timed() {
  local TIMEFORMAT='%U %S %R' t
  t=$( { time "$@" > /dev/null 2>&1; } 2>&1 )
  awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' <<< "$t"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "peer: $peer_src (built with $cxx -O2); retrylab: $retrylab; $reps repetitions"
for s in $scenarios; do
  [ -n "$(peer_args "$s")" ] || { echo "compare_naive: unknown scenario $s" >&2; exit 2; }
  echo "== $s"
  echo "   peer:     naive_sim $(peer_args "$s")"
  echo "   retrylab: retrylab $(retrylab_args "$s")"
  : > "$work/$s.cpu"; : > "$work/$s.wall"
  for ((i = 1; i <= reps; i++)); do
    # shellcheck disable=SC2046  # the argument lists are meant to split
    read -r pc pw < <(timed "$work/naive_sim" $(peer_args "$s"))
    # shellcheck disable=SC2046
    read -r rc rw < <(timed "$retrylab" $(retrylab_args "$s"))
    awk -v a="$pc" -v b="$rc" 'BEGIN { print (b > 0 ? a / b : 0) }' >> "$work/$s.cpu"
    awk -v a="$pw" -v b="$rw" 'BEGIN { print (b > 0 ? a / b : 0) }' >> "$work/$s.wall"
    echo "   rep $i: peer cpu ${pc}s wall ${pw}s, retrylab cpu ${rc}s wall ${rw}s"
  done
  echo "ratio $s peer/retrylab: cpu median $(median < "$work/$s.cpu"), wall median $(median < "$work/$s.wall")"
done
