#!/bin/sh
# The repository stands on its own: no tracked text file points outside it (to a sibling
# "shared" folder, by a relative or an absolute path, or its spec directory) or names a feature by an issue number. Features are named
# by what they are; definitions live in docs/.
# Usage: self_contained.sh <repository root>. Lists every offending line (file:line:text) and exits 1
# if there is one, 0 otherwise. Files: `git ls-files` when the root is a git checkout, else every
# file under the root except .git/, build/ and out/. Binary files are skipped (grep -I).
# The patterns are written so that this script does not match itself.
set -eu
root=${1:?usage: self_contained.sh <repository root>}
cd "$root"
list=$(mktemp)
trap 'rm -f "$list"' EXIT
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z >"$list"
else
  find . \( -path ./.git -o -path ./build -o -path ./out \) -prune -o -type f -print0 >"$list"
fi
pattern='[.][.]/shared|[/]work[/]shared|shared[/]spec|\b[Ii][Ss][Ss][Uu][Ee][Ss]?[ ]+#?[0-9]|\b[Ii]ssue[-_][0-9]'
# xargs -0 -r: NUL-separated names, nothing to do for an empty list. grep exits 1 where a batch
# matches nothing (xargs then says 123); anything else is an error, not a pass.
status=0
found=$(xargs -0 -r grep -InE "$pattern" -- <"$list") || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 123 ]; then
  echo "self_contained: grep over the file list failed (xargs status $status)" >&2
  exit 2
fi
if [ -n "$found" ]; then
  printf '%s\n' "$found"
  echo "self_contained: the lines above point outside the repository or name an issue number;" \
       "say what the thing is, or point to docs/" >&2
  exit 1
fi
echo "self_contained: no tracked text file points outside the repository or names an issue number"
