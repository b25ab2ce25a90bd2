#!/usr/bin/env bash
# Parallel efficiency of the MPI split: paper 1 (papers/cap-is-doing-the-work) reproduced
# by one process with one engine thread, then by `mpirun -np 2` with one engine thread per rank
# (rank 0 hands out the work and computes too); prints both wall times, the speed-up T1/T2 and the
# efficiency T1/(2·T2), and checks that the two output folders hold the same bytes.
#
#   bench/mpi_efficiency.sh [quick|full]        (default quick: about a minute per configuration on
#                                                2 cores; full: about 15 minutes each)
# Environment: RETRYLAB (default build/release/cli/retrylab, an MPI build), WORK (default
# /tmp/retrylab-mpi-bench), RANKS (default 2), MPIEXEC_FLAGS (extra mpirun flags). A passing
# validation certificate is needed: when RETRYLAB_CERTIFICATE_DIR is unset the script uses
# WORK/certificates and runs `retrylab validate --quick` there first.
# Wall times include rendering the tables and figures (serial, rank 0): that is the job a user waits for.
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${1:-quick}
retrylab=${RETRYLAB:-$PWD/build/release/cli/retrylab}
work=${WORK:-/tmp/retrylab-mpi-bench}
ranks=${RANKS:-2}
paper=papers/cap-is-doing-the-work
[ -x "$retrylab" ] || { echo "mpi_efficiency: no retrylab at $retrylab (set RETRYLAB)" >&2; exit 2; }
command -v mpirun > /dev/null || { echo "mpi_efficiency: no mpirun (apt-get install openmpi-bin)" >&2; exit 2; }
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1}

mkdir -p "$work"
if [ -z "${RETRYLAB_CERTIFICATE_DIR:-}" ]; then
  export RETRYLAB_CERTIFICATE_DIR=$work/certificates
  echo "mpi_efficiency: validating this build first (validate --quick)" >&2
  "$retrylab" validate --quick --quiet > /dev/null
fi

# A copy of the paper folder (spec and README template) per configuration.
fresh() {
  rm -rf "$1"; mkdir -p "$1"
  cp "$paper/study.toml" "$paper/README.template.md" "$1/"
}
# Runs a command; appends "wall user+sys" (seconds, the CPU of every child process included: the
# ranks are mpirun's children) to $work/times.
timed() {
  local TIMEFORMAT='%R %U %S'
  { time "$@" 2> "$work/stderr.txt"; } 2>> "$work/times.raw" || { cat "$work/stderr.txt" >&2; return 1; }
}

# Both configurations write to the same folder name (the README names its folder), then move aside.
one=$work/ranks1 many=$work/ranks$ranks paper_out=$work/paper
rm -rf "$one" "$many"
echo "mpi_efficiency: $paper at scale $scale; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
rm -f "$work/times.raw"
fresh "$paper_out"
timed "$retrylab" reproduce "$paper_out" --out "$paper_out" --scale "$scale" --threads 1 --no-validate --quiet
mv "$paper_out" "$one"
fresh "$paper_out"
# shellcheck disable=SC2086
timed mpirun -np "$ranks" ${MPIEXEC_FLAGS:-} "$retrylab" reproduce "$paper_out" --out "$paper_out" --scale "$scale" --threads 1 --no-validate --quiet
mv "$paper_out" "$many"

if diff -r "$one" "$many" > "$work/diff.txt"; then same=yes; else same=NO; fi
# Wall-time efficiency T1/(K·TK) is the number that matters on an idle machine; CPU seconds (all
# ranks) show the work the split adds (messages, polling), which a busy shared machine does not hide.
awk -v k="$ranks" -v s="$scale" -v same="$same" -v load="$(cut -d' ' -f1 /proc/loadavg)" '
  NR == 1 { w1 = $1; c1 = $2 + $3 } NR == 2 { wk = $1; ck = $2 + $3 }
  END {
    printf "scale %s: 1 rank x 1 thread: wall %.1f s, cpu %.1f s; %d ranks x 1 thread: wall %.1f s, cpu %.1f s\n", s, w1, c1, k, wk, ck
    printf "speed-up %.2f, parallel efficiency %.0f%%; cpu ratio %.2f; outputs identical: %s; load average after: %s\n",
           w1 / wk, 100 * w1 / (k * wk), ck / c1, same, load }' "$work/times.raw"
[ "$same" = yes ] || { head -20 "$work/diff.txt" >&2; exit 1; }
