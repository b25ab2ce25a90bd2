#!/usr/bin/env bash
# The MPI split, end to end through the CLI: one case per ctest test.
#   mpi_test.sh CASE RETRYLAB MPIEXEC WORK_DIR TESTS_DIR
# Cases: certificate (validate --quick into the test's certificate folder), single (no launcher:
# the reference outputs, and the tiny study's golden bytes of tests/papers), np2, np3 (the same bytes
# under mpirun), kill_resume (a rank killed mid-way, then --resume on another rank count), gate (no
# certificate: every rank refuses, one message; a bad spec and a --resume on another study's folder
# end every rank with exit 2 and one line). The environment (CMakeLists.txt) points
# RETRYLAB_CERTIFICATE_DIR into WORK_DIR and sets what Open MPI needs as root on loopback.
set -euo pipefail
case_=$1 retrylab=$2 mpiexec=$3 work=$4 tests=$5
spec=$tests/mpi/mpi_study.toml
mkdir -p "$work"
cd "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }
# Every file of folder $2 has the bytes of the same file in $1, and no file is missing or extra.
same() {
  diff -r "$1" "$2" > "$work/diff.txt" 2>&1 || { head -20 "$work/diff.txt" >&2; fail "$2 differs from $1"; }
}
lines() { if [ -f "$1" ]; then wc -l < "$1"; else echo 0; fi; }
certificate_of() { sed -n 's/^retrylab: results rest on validation certificate \(.*\)$/\1/p' "$1"; }
# A paper folder (study.toml + README.template.md) for `reproduce`.
make_paper() {
  rm -rf "$1"; mkdir -p "$1"
  cp "$spec" "$1/study.toml"
  printf '# MPI test paper ({{scale}}, certificate {{certificate}})\n<!-- include: steady_latency.md -->\n' > "$1/README.template.md"
}

case $case_ in
certificate)
  rm -rf "$RETRYLAB_CERTIFICATE_DIR"
  "$retrylab" validate --quick --threads 2 --quiet > /dev/null
  ;;
single)
  # A plain run of the MPI build (no launcher, so no MPI_Init) behaves as before: the tiny study of
  # tests/papers gives its golden text bytes, the certificate id aside.
  rm -rf single-tiny ref-quick ref-paper
  "$retrylab" run "$tests/papers/tiny_study.toml" --out single-tiny --threads 2 2> single-tiny.err
  cert=$(certificate_of single-tiny.err)
  [ -n "$cert" ] || fail "no certificate line in single-tiny.err"
  n=0
  for g in "$tests"/papers/golden/*; do
    b=$(basename "$g")
    sed "s/$cert/test-certificate/g" "single-tiny/$b" | cmp -s - "$g" || fail "single-tiny/$b differs from $g"
    n=$((n + 1))
  done
  [ "$n" -ge 20 ] || fail "only $n golden files compared"
  # The references for the mpirun cases.
  "$retrylab" run "$spec" --out ref-quick --threads 1 --quiet
  make_paper ref-paper
  "$retrylab" reproduce ref-paper --out ref-paper --scale full --no-validate --threads 1 --quiet
  ;;
np2)
  rm -rf np2
  "$mpiexec" -np 2 "$retrylab" run "$spec" --out np2 --threads 1 2> np2.err
  same ref-quick np2
  # Progress and the gate's line come from rank 0 alone.
  [ "$(grep -c 'results rest on validation certificate' np2.err)" -eq 1 ] || fail "np2.err: not one certificate line"
  [ "$(grep -c 'points run, 0 resumed, [0-9]* files' np2.err)" -eq 1 ] || fail "np2.err: not one summary line"
  ;;
np3)
  rm -rf np3
  "$mpiexec" -np 3 "$retrylab" run "$spec" --out np3 --threads 2 --quiet
  same ref-quick np3
  make_paper np3-paper
  "$mpiexec" -np 3 "$retrylab" reproduce np3-paper --out np3-paper --scale full --no-validate --threads 1 --quiet
  same ref-paper np3-paper
  ;;
kill_resume)
  rm -rf killed; mkdir killed
  total=$(lines ref-quick/results.jsonl)
  "$mpiexec" -np 2 "$retrylab" run "$spec" --out killed --threads 1 --quiet 2> killed.err &
  job=$!
  # Kill rank 1 (a worker) with SIGKILL once rank 0 has recorded 12 points (of 46; the steady sweep,
  # most of the work, comes after them).
  for _ in $(seq 1 1200); do [ "$(lines killed/results.jsonl)" -ge 13 ] && break; sleep 0.025; done
  victim=""
  for child in $(pgrep -P "$job" || true); do
    if tr '\0' '\n' < "/proc/$child/environ" 2> /dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then victim=$child; fi
  done
  [ -n "$victim" ] || { wait "$job" || true; fail "no rank 1 process to kill (did the job end first?)"; }
  kill -KILL "$victim"
  rc=0; wait "$job" || rc=$?
  [ "$rc" -ne 0 ] || fail "the job whose rank 1 was killed exited 0"
  grep -q 'rank 1' killed.err || { cat killed.err >&2; fail "killed.err does not name rank 1"; }
  recorded=$(lines killed/results.jsonl)
  [ "$recorded" -lt "$total" ] || fail "every point was recorded before the kill: nothing to resume"
  echo "killed rank 1 (exit $rc) with $((recorded - 1)) of $((total - 1)) points recorded" >&2
  "$mpiexec" -np 3 "$retrylab" run "$spec" --out killed --threads 1 --resume 2> resumed.err
  grep -q "resumed" resumed.err || fail "the restart did not resume"
  same ref-quick killed
  ;;
hang)
  # A rank that stops answering (SIGSTOP: alive but silent) is named by rank 0 after
  # RETRYLAB_MPI_SILENCE seconds; the job ends and a plain single-process --resume finishes it.
  rm -rf hung; mkdir hung
  total=$(lines ref-quick/results.jsonl)
  RETRYLAB_MPI_SILENCE=3 "$mpiexec" -np 2 "$retrylab" run "$spec" --out hung --threads 1 --quiet 2> hung.err &
  job=$!
  for _ in $(seq 1 1200); do [ "$(lines hung/results.jsonl)" -ge 13 ] && break; sleep 0.025; done
  victim=""
  for child in $(pgrep -P "$job" || true); do
    if tr '\0' '\n' < "/proc/$child/environ" 2> /dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then victim=$child; fi
  done
  [ -n "$victim" ] || { wait "$job" || true; fail "no rank 1 process to stop (did the job end first?)"; }
  kill -STOP "$victim"
  line='^retrylab: rank 1 failed: sent nothing for [0-9]* s while holding work'
  for _ in $(seq 1 600); do grep -q "$line" hung.err && break; sleep 0.1; done
  # Whether or not mpirun's SIGTERM reaches a stopped process, it must go now.
  kill -KILL "$victim" 2> /dev/null || true
  rc=0; wait "$job" || rc=$?
  [ "$rc" -ne 0 ] || fail "the job whose rank 1 was stopped exited 0"
  grep -q "$line" hung.err || { cat hung.err >&2; fail "hung.err has no line naming rank 1"; }
  [ "$(lines hung/results.jsonl)" -lt "$total" ] || fail "every point was recorded before the stop"
  "$retrylab" run "$spec" --out hung --threads 2 --resume --quiet
  same ref-quick hung
  ;;
gate)
  rm -rf gate gate-certificates; mkdir gate-certificates
  rc=0
  RETRYLAB_CERTIFICATE_DIR=$work/gate-certificates "$mpiexec" -np 2 "$retrylab" run "$spec" --out gate 2> gate.err || rc=$?
  [ "$rc" -eq 1 ] || { cat gate.err >&2; fail "an uncertified build under mpirun exited $rc, not 1"; }
  [ "$(grep -c 'has no passing validation certificate' gate.err)" -eq 1 ] || { cat gate.err >&2; fail "gate.err: not one refusal line"; }
  [ ! -e gate/results.jsonl ] || fail "a refused run wrote results"
  # Refusals on rank 0 after the gate let the other ranks go: exit 2 and one line, no hang.
  printf '[study]\nname = "b"\n[sweep.s]\nkind = "grid"\nrunz = 3\n' > bad.toml
  rc=0; "$mpiexec" -np 2 "$retrylab" run bad.toml --out gate 2> bad.err || rc=$?
  [ "$rc" -eq 2 ] || { cat bad.err >&2; fail "a bad spec under mpirun exited $rc, not 2"; }
  [ "$(grep -c 'bad.toml:5: sweep.s.runz is not a known key' bad.err)" -eq 1 ] || { cat bad.err >&2; fail "bad.err: not one error line"; }
  rm -rf other; "$retrylab" run "$tests/papers/tiny_study.toml" --out other --threads 2 --quiet
  rc=0; "$mpiexec" -np 2 "$retrylab" run "$spec" --out other --resume --quiet 2> other.err || rc=$?
  [ "$rc" -eq 2 ] || { cat other.err >&2; fail "--resume on another study's folder under mpirun exited $rc, not 2"; }
  [ "$(grep -c -- '--resume' other.err)" -eq 1 ] || { cat other.err >&2; fail "other.err: not one --resume line"; }
  ;;
*)
  fail "unknown case $case_"
  ;;
esac
