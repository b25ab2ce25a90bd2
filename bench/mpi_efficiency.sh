#!/usr/bin/env bash
# Parallel efficiency of the MPI split (issue 9): paper 1 (papers/cap-is-doing-the-work) reproduced
# by one process with one engine thread, then by `mpirun -np 2` with one engine thread per rank
# (rank 0 hands out the work and computes too); prints both wall times, the speed-up T1/T2 and the
# efficiency T1/(2·T2), and checks that the two output folders hold the same bytes.
#
#   bench/mpi_efficiency.sh [quick|full]        (default quick: about a minute per configuration on
#                                                2 cores; full: about 15 minutes each)
# Environment: RETRYLAB (default build/release/cli/retrylab, an MPI build), WORK (default
# /tmp/retrylab-mpi-bench), RANKS (default 2), MPIEXEC_FLAGS (extra mpirun flags). A passing
# validation certificate is needed: when RETRYLAB_CERTIFICATE_DIR is unset the script uses
# WORK/certificates and runs `retrylab validate --quick` there first if it is empty.
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
  if [ -z "$(ls -A "$RETRYLAB_CERTIFICATE_DIR" 2> /dev/null)" ]; then
    echo "mpi_efficiency: validating this build first (validate --quick)" >&2
    "$retrylab" validate --quick --quiet > /dev/null
  fi
fi

# A copy of the paper folder (spec and README template) per configuration.
fresh() {
  rm -rf "$1"; mkdir -p "$1"
  cp "$paper/study.toml" "$paper/README.template.md" "$1/"
}
seconds() { date +%s.%N; }

one=$work/ranks1 many=$work/ranks$ranks
fresh "$one"; fresh "$many"
echo "mpi_efficiency: $paper at scale $scale; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
t0=$(seconds)
"$retrylab" reproduce "$one" --scale "$scale" --threads 1 --no-validate --quiet
t1=$(seconds)
# shellcheck disable=SC2086
mpirun -np "$ranks" ${MPIEXEC_FLAGS:-} "$retrylab" reproduce "$many" --scale "$scale" --threads 1 --no-validate --quiet
t2=$(seconds)

if diff -r "$one" "$many" > "$work/diff.txt"; then same=yes; else same=NO; fi
awk -v a="$t0" -v b="$t1" -v c="$t2" -v k="$ranks" -v s="$scale" -v same="$same" 'BEGIN {
  w1 = b - a; wk = c - b;
  printf "scale %s: 1 rank x 1 thread %.1f s; %d ranks x 1 thread %.1f s; speed-up %.2f; efficiency %.0f%%; outputs identical: %s\n",
         s, w1, k, wk, w1 / wk, 100 * w1 / (k * wk), same }'
[ "$same" = yes ] || { head -20 "$work/diff.txt" >&2; exit 1; }
