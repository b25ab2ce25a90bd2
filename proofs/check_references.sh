#!/bin/sh
# Consistency between analytic/ and proofs/ (no Coq needed):
#  1. every "// Proof: proofs/<File>.v: <name>" in analytic/*.hpp and montecarlo/*.hpp, and every
#     theorem named after "proofs/<File>.v:" in the C++ sources (analytic, montecarlo, cli,
#     validation, tests), is a
#     Theorem or Lemma that exists in that file;
#  2. every main theorem of proofs/theorems.txt is cited at least once there;
#  3. every theorem of theorems.txt is a Theorem in its file;
#  4. no .v file contains Admitted, admit, Axiom, Parameter or Conjecture;
#  5. proofs/README.md's table names every theorem of theorems.txt, and README.md contains, verbatim, the generated definitions and statements
#     (statements.sh) between its "statements:begin" and "statements:end" markers.
# Usage: check_references.sh <source dir>
set -eu
src=$1
p=$src/proofs
status=0
fail() { echo "check_references: $*"; status=1; }

hdrs=$(ls "$src"/analytic/*.hpp "$src"/montecarlo/*.hpp 2>/dev/null || true)
# 1. strict citations "// Proof: proofs/<File>.v: <name>" in the analytic and engine headers
refs=$(grep -ho '// Proof: proofs/[A-Za-z0-9_]*\.v: [A-Za-z0-9_]*' $hdrs | sed 's|// Proof: proofs/||; s|: | |' | sort -u)
[ -n "$refs" ] || fail "no // Proof: references found in analytic/*.hpp"
# every mention "proofs/<File>.v: name, name (also name)" in the C++ sources of analytic/,
# montecarlo/, cli/, validation/, tests/:
# each identifier containing an underscore must be a Theorem/Lemma of that file
mentions=$(grep -rho --include='*.hpp' --include='*.cpp' 'proofs/[A-Za-z0-9_]*\.v: [^"]*' \
    "$src"/analytic "$src"/montecarlo "$src"/cli "$src"/validation "$src"/tests 2>/dev/null \
  | awk '{ file = $1; sub(/^proofs\//, "", file); sub(/:$/, "", file);
           for (i = 2; i <= NF; i++) { w = $i; gsub(/[^A-Za-z0-9_]/, "", w);
             if (w ~ /_/) print file, w; else if (w != "also" && w != "via") break } }' | sort -u)
printf '%s\n%s\n' "$refs" "$mentions" | awk 'NF' | sort -u | {
  bad=0
  while read -r file name; do
    if [ ! -f "$p/$file" ]; then echo "check_references: sources cite proofs/$file, which does not exist"; bad=1; continue; fi
    grep -Eq "^(Theorem|Lemma) $name( |$)" "$p/$file" \
      || { echo "check_references: sources cite $file: $name, which is not a Theorem/Lemma there"; bad=1; }
  done
  exit $bad
} || status=1

# 2./3. the theorem list against the files and the headers
grep -v '^#' "$p/theorems.txt" | awk 'NF' | {
  bad=0
  while read -r file name kind; do
    grep -Eq "^Theorem $name( |$)" "$p/$file" || { echo "check_references: theorems.txt lists $file: $name, not a Theorem there"; bad=1; }
    if [ "$kind" = main ] && ! printf '%s\n%s\n' "$refs" "$mentions" | grep -qxF "$file $name"; then
      echo "check_references: main theorem $file: $name is cited nowhere in analytic/, montecarlo/, cli/, validation/, tests/"; bad=1
    fi
  done
  exit $bad
} || status=1

if grep -nE '\b(Admitted|admit|Axiom|Axioms|Parameter|Parameters|Conjecture)\b' "$p"/*.v; then
  fail "forbidden vernacular (Admitted/admit/Axiom/Parameter/Conjecture) in proofs/*.v"
fi

# the README table (before the generated part) names every theorem of theorems.txt
table=$(awk '/<!-- statements:begin -->/ { exit } { print }' "$p/README.md")
grep -v '^#' "$p/theorems.txt" | awk 'NF' | {
  bad=0
  while read -r file name kind; do
    printf '%s\n' "$table" | grep -qF "\`$name\`" || { echo "check_references: README.md's table does not list $name"; bad=1; }
  done
  exit $bad
} || status=1

expected=$(sh "$p/statements.sh" "$p")
actual=$(awk '/<!-- statements:end -->/ { on = 0 } on { print } /<!-- statements:begin -->/ { on = 1 }' "$p/README.md")
if [ "$expected" != "$actual" ]; then
  fail "README.md statements differ from the .v files; regenerate with: sh proofs/statements.sh proofs"
  printf '%s\n' "$expected" > "${TMPDIR:-/tmp}/retrylab-statements.expected"
  printf '%s\n' "$actual" > "${TMPDIR:-/tmp}/retrylab-statements.actual"
  diff "${TMPDIR:-/tmp}/retrylab-statements.expected" "${TMPDIR:-/tmp}/retrylab-statements.actual" | head -20 || true
fi
[ $status -eq 0 ] && echo "check_references: analytic citations, theorem list, README statements consistent; no Admitted/Axiom"
exit $status
