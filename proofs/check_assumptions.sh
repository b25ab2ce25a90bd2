#!/bin/sh
# Run `Print Assumptions` on every theorem of theorems.txt against the compiled proofs and fail if
# any theorem depends on an axiom outside the allowed list (Admitted proofs and new Axioms would
# show up here as axioms too).
# Allowed: the axioms of Coq's standard reals (Coq 8.16 builds R from classical Dedekind cuts) and
# the two classical axioms that Coq's Reals and Coquelicot use:
#   ClassicalDedekindReals.sig_forall_dec, ClassicalDedekindReals.sig_not_dec   (Coq Reals)
#   FunctionalExtensionality.functional_extensionality_dep                      (Coq Reals)
#   Classical_Prop.classic                                                      (Coquelicot)
# Usage: check_assumptions.sh <coqc> <dir with the compiled .vo files> <theorems.txt>
set -eu
coqc=$1; vodir=$(cd "$2" && pwd); list=$3
allowed='ClassicalDedekindReals.sig_forall_dec
ClassicalDedekindReals.sig_not_dec
FunctionalExtensionality.functional_extensionality_dep
Classical_Prop.classic'
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
modules=$(grep -v '^#' "$list" | awk 'NF { sub(/\.v$/, "", $1); print $1 }' | awk '!seen[$0]++' | tr '\n' ' ')
names=$(grep -v '^#' "$list" | awk 'NF { sub(/\.v$/, "", $1); print "Retrylab." $1 "." $2 }')
count=$(printf '%s\n' "$names" | wc -l)

# check <file>: parse Print Assumptions output, report every axiom outside the allowed list.
check() {
  bad=0; current=all
  while IFS= read -r line; do
    case $line in
      '@@THEOREM '*) current=${line#@@THEOREM }; continue ;;
      'Axioms:'|'Closed under the global context'|' '*|'') continue ;;
    esac
    ax=${line%% :*}; ax=${ax%% *}
    if ! printf '%s\n' "$allowed" | grep -qxF "$ax"; then
      echo "check_assumptions: $current depends on the axiom $ax (not allowed)"; bad=1
    fi
  done < "$1"
  return $bad
}

# Fast path: one Print Assumptions over a list packing every theorem (a dependency is traversed once).
{
  echo "From Retrylab Require $modules."
  echo "Definition all_theorems : list {P : Prop & P} := cons (@existT Prop (fun P : Prop => P) _ I) ("
  printf '%s\n' "$names" | while read -r n; do echo "  cons (@existT Prop (fun P : Prop => P) _ $n) ("; done
  echo "  nil$(printf '%s\n' "$names" | sed 's/.*/)/' | tr -d '\n'))."
  echo "Print Assumptions all_theorems."
} > "$work/All.v"
if ! (cd "$work" && "$coqc" -R "$vodir" Retrylab -w -all All.v > all.txt 2>&1); then
  head -40 "$work/all.txt"; echo "check_assumptions: coqc failed (a listed theorem is missing?)"; exit 1
fi
if check "$work/all.txt"; then
  echo "check_assumptions: $count theorems use only the allowed axioms"; exit 0
fi

# Slow path, only on failure: one Print Assumptions per theorem, to name the culprits.
{
  echo "From Retrylab Require $modules."
  printf '%s\n' "$names" | while read -r n; do
    echo "Goal True. idtac \"@@THEOREM $n\". exact I. Qed."
    echo "Print Assumptions $n."
  done
} > "$work/Each.v"
(cd "$work" && "$coqc" -R "$vodir" Retrylab -w -all Each.v > each.txt 2>&1) || true
check "$work/each.txt" || true
exit 1
