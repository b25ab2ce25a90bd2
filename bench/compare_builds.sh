#!/usr/bin/env bash
# Two builds of retrylab's engine_bench against each other, interleaved (A, B, B, A, A, B, ...), so
# both see the same load on a shared machine: for each benchmark the CPU time per iteration of
# every repetition and the median of the ratios A / B (> 1: B is faster). Use it to show that a
# change to the event loop costs nothing: A = the build before, B = the build after.
#
#   bench/compare_builds.sh A/engine_bench B/engine_bench [REPS] [FILTER]
# REPS defaults to 6, FILTER (a Google Benchmark regex) to the plain loop's three benchmarks.
set -euo pipefail
a=${1:-}
b=${2:-}
reps=${3:-6}
filter=${4:-'BM_ClassicFreeFull/100$|BM_SteadySharedFull15$|BM_SteadyCollisionFull10$'}
[ -x "$a" ] && [ -x "$b" ] || {
  echo "compare_builds: give two engine_bench programs: bench/compare_builds.sh A B [REPS] [FILTER]" >&2; exit 2; }
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "compare_builds: REPS must be a positive integer" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ((i = 1; i <= reps; i++)); do
  if ((i % 2)); then order=("A:$a" "B:$b"); else order=("B:$b" "A:$a"); fi
  for entry in "${order[@]}"; do
    name=${entry%%:*}
    "${entry#*:}" --benchmark_filter="$filter" --benchmark_min_time=0.3 \
      --benchmark_out="$work/out.csv" --benchmark_out_format=csv > /dev/null 2>&1
    grep '^"BM' "$work/out.csv" | sed "s|^|$name,|" >> "$work/all.csv"
  done
done
python3 - "$work/all.csv" <<'EOF'
import csv, collections, statistics, sys
times = collections.defaultdict(lambda: collections.defaultdict(list))
for row in csv.reader(open(sys.argv[1])):
    times[row[1]][row[0]].append(float(row[4]))  # cpu_time per iteration
print(f"{'benchmark':32} {'A cpu':>10} {'B cpu':>10}  median A/B  (per repetition)")
for name, t in times.items():
    ratios = [x / y for x, y in zip(t["A"], t["B"])]
    print(f"{name:32} {statistics.median(t['A']):10.4g} {statistics.median(t['B']):10.4g}  "
          f"{statistics.median(ratios):10.3f}  ({', '.join(f'{r:.3f}' for r in ratios)})")
EOF
