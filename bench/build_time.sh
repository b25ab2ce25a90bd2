#!/usr/bin/env bash
# The CPU seconds a clean build spends, command by command (docs/speed.md, "Build time"): configures
# BUILD (a folder that must not exist yet) with the release preset (or PRESET), no compiler cache
# (CCACHE_DISABLE=1) and this script as the compiler and linker launcher, builds TARGET... (default:
# everything) with `nice ninja -j2`, and prints the total CPU seconds (user + system), the number of
# commands and the 15 dearest. CPU time, not wall time: on a shared machine the load stretches the
# wall time (and ninja's job-seconds) several times over, the CPU time little. Custom commands (the
# Coq proofs) are not compilers and are not counted.
#   bench/build_time.sh [--preset PRESET] BUILD [TARGET...]   (PRESET: release, sanitize; default release)
#   bench/build_time.sh --report LOG      (the figures of a log again; BUILD/cpu.log)
set -euo pipefail
if [ "${1:-}" = --launch ]; then  # the launcher: --launch LOG COMMAND...
  log=$2
  shift 2
  out=unknown prev=
  for a in "$@"; do
    [ "$prev" = -o ] && out=$a
    prev=$a
  done
  exec /usr/bin/time -a -o "$log" -f "%U %S %e $out" "$@"
fi
report() {
  awk '{cpu = $1 + $2; sum += cpu; n++; print cpu, $4} END {printf "total %.0f CPU s in %d commands\n", sum, n > "/dev/stderr"}' "$1" |
    sort -rn | head -15
}
if [ "${1:-}" = --report ]; then
  report "$2"
  exit 0
fi
preset=release
if [ "${1:-}" = --preset ]; then
  preset=${2:?--preset needs a name}
  shift 2
fi
[ $# -ge 1 ] || { echo "usage: bench/build_time.sh [--preset PRESET] BUILD [TARGET...]" >&2; exit 2; }
build=$(realpath -m "$1")
shift
[ -e "$build" ] && { echo "build_time.sh: $build exists; a clean build needs a new folder" >&2; exit 2; }
cd "$(dirname "$0")/.."
self=$(realpath "$0")
export CCACHE_DISABLE=1
nice cmake --preset "$preset" -B "$build" "-DCMAKE_CXX_COMPILER_LAUNCHER=$self;--launch;$build/cpu.log" \
  "-DCMAKE_CXX_LINKER_LAUNCHER=$self;--launch;$build/cpu.log" >"$build.configure.log"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
nice ninja -C "$build" -j2 "$@" >"$build.build.log"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
report "$build/cpu.log"
