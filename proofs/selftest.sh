#!/bin/sh
# The checkers can fail: run check_assumptions.sh and check_references.sh on planted faults and
# require each to reject them (a checker that accepts everything would pass the real checks too).
# Usage: selftest.sh <coqc> <source dir>
set -u
coqc=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
status=0
expect_fail() { # <what> <expected message fragment> <command...>
  what=$1; msg=$2; shift 2
  if "$@" > "$work/out.txt" 2>&1; then echo "selftest: $what was ACCEPTED (checker cannot fail)"; status=1
  elif ! grep -qF "$msg" "$work/out.txt"; then
    echo "selftest: $what rejected, but not with \"$msg\":"; cat "$work/out.txt"; status=1
  else echo "selftest: $what rejected, as it must be"; fi
}

# 1. a theorem proved from a new Axiom, and one Admitted
mkdir -p "$work/coq"
cat > "$work/coq/Planted.v" <<'V'
Axiom planted_axiom : 1 = 2.
Theorem from_axiom : 1 = 2. Proof. exact planted_axiom. Qed.
Theorem admitted_one : 2 = 3. Admitted.
V
(cd "$work/coq" && "$coqc" -R . Retrylab Planted.v) || { echo "selftest: cannot compile the planted file"; exit 1; }
echo "Planted.v from_axiom extra" > "$work/l1.txt"
echo "Planted.v admitted_one extra" > "$work/l2.txt"
expect_fail "a theorem resting on a new Axiom" "Planted.planted_axiom (not allowed)" sh "$src/proofs/check_assumptions.sh" "$coqc" "$work/coq" "$work/l1.txt"
expect_fail "an Admitted theorem" "Planted.admitted_one (not allowed)" sh "$src/proofs/check_assumptions.sh" "$coqc" "$work/coq" "$work/l2.txt"

# 2. a copy of the tree with, in turn: a citation of a missing theorem, an uncited main theorem,
#    an Admitted in a .v file, a README statement out of date
plant() { rm -rf "$work/tree"; mkdir -p "$work/tree"
          for d in proofs analytic montecarlo cli validation tests; do
            [ -d "$src/$d" ] && cp -R "$src/$d" "$work/tree/$d"
          done
          rm -f "$work/tree/proofs"/*.vo "$work/tree/proofs"/*.glob; }
plant; echo '// Proof: proofs/Aloha.v: no_such_theorem' > "$work/tree/analytic/planted.hpp"
expect_fail "a citation of a missing theorem" "no_such_theorem, which is not a Theorem" sh "$work/tree/proofs/check_references.sh" "$work/tree"
plant; echo 'Aloha.v aloha_planted_uncited main' >> "$work/tree/proofs/theorems.txt"
expect_fail "an uncited main theorem" "aloha_planted_uncited" sh "$work/tree/proofs/check_references.sh" "$work/tree"
plant; printf '\nTheorem planted : 1 = 1.\nAdmitted.\n' >> "$work/tree/proofs/Engine.v"
expect_fail "Admitted in a .v file" "forbidden vernacular" sh "$work/tree/proofs/check_references.sh" "$work/tree"
plant; sed 's/^Theorem aloha_at_one : aloha 1 = exp (-2)/Theorem aloha_at_one : aloha 1 = exp (-3)/' "$src/proofs/Aloha.v" > "$work/tree/proofs/Aloha.v"
expect_fail "a README statement out of date" "README.md statements differ" sh "$work/tree/proofs/check_references.sh" "$work/tree"
exit $status
