#!/usr/bin/env bash
# Formats every C and C++ file of the tree with .clang-format (clang-format 14,
# Debian 12), or with --check reports the files that are not formatted.
#   scripts/format.sh [--check]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
command -v clang-format >/dev/null || { echo "format: clang-format is not installed (apt-get install clang-format)" >&2; exit 2; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.c' '*.cpp' '*.h')
else
  mapfile -t files < <(find . -path ./build -prune -o -path './build-*' -prune -o \( -name '*.c' -o -name '*.cpp' -o -name '*.h' \) -print)
fi
if [[ ${1:-} == --check ]]; then
  bad=0
  for f in "${files[@]}"; do
    clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || { echo "format: $f is not formatted (run ./hcts format)"; bad=$((bad + 1)); }
  done
  ((bad == 0)) || { echo "format: $bad of ${#files[@]} files need formatting" >&2; exit 1; }
  echo "format: all ${#files[@]} files formatted"
else
  clang-format -i "${files[@]}"
  echo "format: formatted ${#files[@]} files"
fi
