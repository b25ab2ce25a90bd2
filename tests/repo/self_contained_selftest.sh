#!/bin/sh
# self_contained.sh can fail: in a scratch folder (not a git checkout, so the file walk is used) a
# clean file passes, and each planted kind of line (a path into the sibling shared folder, its spec
# directory, an issue number in either case, an issue-N tag) makes it exit 1 and list that line.
# The planted text is assembled at run time so that this file itself stays clean.
set -eu
check=${1:?usage: self_contained_selftest.sh <path to self_contained.sh>}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/docs" "$dir/build"
printf 'The models are in docs/models.md; paper 2 of the studies; issued probes.\n' >"$dir/docs/ok.md"
printf 'see ../%s/spec/models.md\n' shared >"$dir/build/ignored.txt"  # build/ is not walked
sh "$check" "$dir" >/dev/null || { echo "selftest: a clean folder failed" >&2; exit 1; }
n=0
sh_=shared
for line in "see ../$sh_/x" "see /work/$sh_/seeds/a.txt" "rules in $sh_/spec/models.md" "$(printf 'added by issue %d' 8)" \
            "$(printf "Issue %d's metrics" 8)" "$(printf '(issues %d and 9)' 4)" "$(printf 'tagged issue-%d' 8)"; do
  printf 'int x;  // %s\n' "$line" >"$dir/planted.cpp"
  status=0
  out=$(sh "$check" "$dir" 2>/dev/null) || status=$?
  if [ "$status" -ne 1 ]; then echo "selftest: planted line '$line' not caught (status $status)" >&2; exit 1; fi
  printf '%s\n' "$out" | grep -qF "planted.cpp:1:" || { echo "selftest: '$line' not listed" >&2; exit 1; }
  n=$((n + 1))
done
rm "$dir/planted.cpp"
sh "$check" "$dir" >/dev/null || { echo "selftest: folder failed after removing the planted line" >&2; exit 1; }
echo "selftest: self_contained.sh caught all $n planted lines and passes a clean folder"
