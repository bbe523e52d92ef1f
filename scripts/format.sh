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
  # Batches of files per clang-format process, both cores busy: one process per file spent
  # most of a minute of CI starting clang-format 450 times.
  status=0
  out=$(printf '%s\0' "${files[@]}" | xargs -0 -n 48 -P "$(nproc)" clang-format --dry-run --Werror 2>&1 >/dev/null) ||
    status=$?
  mapfile -t bad < <(sed -nE 's/^(.+):[0-9]+:[0-9]+: (error|warning): code should be clang-formatted.*/\1/p' <<<"$out" | sort -u)
  for f in "${bad[@]+"${bad[@]}"}"; do echo "format: ${f#./} is not formatted (run ./hcts format)"; done
  if ((${#bad[@]})); then
    echo "format: ${#bad[@]} of ${#files[@]} files need formatting" >&2
    exit 1
  fi
  # clang-format failed on something that is not a formatting difference (a file it cannot
  # read, a broken .clang-format): its own words, and a failure.
  if ((status != 0)); then
    echo "$out" >&2
    echo "format: clang-format failed (xargs exit $status) without naming an unformatted file" >&2
    exit 1
  fi
  echo "format: all ${#files[@]} files formatted"
else
  clang-format -i "${files[@]}"
  echo "format: formatted ${#files[@]} files"
fi
