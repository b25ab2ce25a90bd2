#!/bin/sh
# Print README.md's generated part: the definitions each statement uses, then the statement of every
# theorem listed in theorems.txt, extracted verbatim from the .v files (a theorem's statement is the
# text from "Theorem <name>" up to, not including, its "Proof" line).
# Usage: statements.sh <proofs source dir>. The test proofs_references checks README.md against it.
set -eu
dir=${1:-.}
files=$(grep -v '^#' "$dir/theorems.txt" | awk 'NF { print $1 }' | awk '!seen[$0]++')
printf '### Definitions used by the statements\n\n'
for file in $files; do
  defs=$(awk '
    /^(Definition|Fixpoint|Inductive|Record) / { on = 1 }
    on { print }
    on && /\.$/ { on = 0; print "" }
  ' "$dir/$file")
  [ -n "$defs" ] || continue
  printf '%s\n```coq\n%s\n```\n\n' "$file" "$defs"
done
printf '### Statements\n\n'
grep -v '^#' "$dir/theorems.txt" | while read -r file name kind; do
  [ -n "$file" ] || continue
  printf '#### `%s` (%s, %s)\n```coq\n' "$name" "$file" "$kind"
  awk -v name="$name" '
    $0 ~ "^(Theorem|Lemma) " name "( |$)" { on = 1 }
    on && /^Proof/ { exit }
    on { print }
  ' "$dir/$file"
  printf '```\n\n'
done
