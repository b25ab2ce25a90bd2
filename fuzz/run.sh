#!/usr/bin/env bash
# Runs the five libFuzzer targets of build/fuzz for a fixed number of inputs each (-runs, fixed
# -seed), each from its seed corpus in the repository and the structure-aware seeds of
# fuzz/structured.py; any crash, sanitizer report, uncaught
# exception or 20 s input fails (exit != 0, the input saved under the work folder).
# The targets run JOBS at a time (default 2: CI's two cores; a libFuzzer process is one thread), each
# in its own process with its own corpus and log and the same fixed seed, so the inputs each one tries
# do not depend on JOBS; the logs are printed in the targets' order once all have finished, and a
# failing target no longer stops the others (all five report). RSS limit 2 GiB each, so 4 GiB at most.
# Usage: fuzz/run.sh [BUILD_DIR [RUNS [JOBS]]]   (defaults: build/fuzz, 20000 inputs per target, 2)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/fuzz}
runs=${2:-20000}
jobs=${3:-2}
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

fuzz_one() {  # fuzz_one NAME: one target; its exit status in $work/status_NAME
  local t=$1 status=0
  # The new inputs go to a scratch folder (listed first); the seeds are read only.
  "$build/fuzz/fuzz_$t" -runs="$runs" -seed=21 -timeout=20 -rss_limit_mb=2048 -max_len=16384 \
    -artifact_prefix="$work/${t}-" -print_final_stats=1 "$work/new_$t" "$work/seed_$t" 2>"$work/log_$t" || status=$?
  echo "$status" >"$work/status_$t"
}
targets=(spec trace cli policy profile)
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true  # one target finished (its status is in its file)
    running=$((running - 1))
  fi
  echo "== fuzz_$t: $runs inputs, seed 21, corpus $(ls "$work/seed_$t" | wc -l) files ==" >&2
  fuzz_one "$t" &
  running=$((running + 1))
done
wait
failed=0
for t in "${targets[@]}"; do
  if [ "$(cat "$work/status_$t" 2>/dev/null || echo missing)" = 0 ]; then
    echo "== fuzz_$t ==" >&2
    grep -E "^Done|stat::number_of_executed_units|INITED" "$work/log_$t" >&2
  else
    echo "== fuzz_$t FAILED (status $(cat "$work/status_$t" 2>/dev/null || echo missing)) ==" >&2
    tail -40 "$work/log_$t" >&2
    failed=1
  fi
done
if [ "$failed" = 1 ]; then
  mkdir -p "$build/findings"
  cp "$work"/*crash-* "$work"/*timeout-* "$work"/*oom-* "$build/findings/" 2>/dev/null || true
  exit 1
fi
