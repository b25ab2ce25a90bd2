#!/usr/bin/env bash
# Runs the five libFuzzer targets of build/fuzz for a fixed number of inputs each (-runs, fixed
# -seed), each from its seed corpus in the repository and the structure-aware seeds of
# fuzz/structured.py; any crash, sanitizer report, uncaught
# exception or 20 s input fails (exit != 0, the input saved under the work folder).
# Usage: fuzz/run.sh [BUILD_DIR [RUNS]]   (defaults: build/fuzz, 20000 inputs per target)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/fuzz}
runs=${2:-20000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

seeds() {  # seeds NAME FILE... : a seed folder holding copies of the files (named by their path)
  mkdir -p "$work/seed_$1" "$work/new_$1"
  local name=$1 f
  shift
  for f in "$@"; do cp "$f" "$work/seed_$name/${f//\//_}"; done
}
seeds spec papers/*/study.toml tests/papers/*.toml tests/mpi/*.toml
seeds trace fuzz/corpus/trace/* tests/traces/*.csv
seeds cli fuzz/corpus/cli/*
seeds profile fuzz/corpus/profile/*  # each behind its reader byte: even inline, odd CSV
mkdir -p "$work/seed_policy" "$work/new_policy"  # the example policy files, each behind its format byte
for f in tests/policy/retrylab/*.toml:0 tests/policy/grpc/*.json:1 tests/policy/envoy/*.yaml:2 tests/policy/aws/config:3 \
         tests/policy/resilience4j/*.yml:4; do
  for g in ${f%:*}; do { printf "\\$(printf '%03o' "${f##*:}")"; cat "$g"; } > "$work/seed_policy/${g//\//_}"; done
done
# Structure-aware seeds beside them (deep nesting, YAML aliases, duplicate keys, encodings, for every
# format a user hands retrylab): fuzz/structured.py writes them into the same seed folders.
python3 fuzz/structured.py "$work"

for t in spec trace cli policy profile; do
  echo "== fuzz_$t: $runs inputs, seed 21, corpus $(ls "$work/seed_$t" | wc -l) files ==" >&2
  # The new inputs go to a scratch folder (listed first); the seeds are read only.
  "$build/fuzz/fuzz_$t" -runs="$runs" -seed=21 -timeout=20 -rss_limit_mb=2048 -max_len=16384 \
    -artifact_prefix="$work/" -print_final_stats=1 "$work/new_$t" "$work/seed_$t" 2>"$work/log_$t" ||
    { tail -40 "$work/log_$t" >&2; mkdir -p "$build/findings"; cp "$work"/crash-* "$work"/timeout-* "$work"/oom-* "$build/findings/" 2>/dev/null || true; exit 1; }
  grep -E "^Done|stat::number_of_executed_units|INITED" "$work/log_$t" >&2
done
