#!/usr/bin/env bash
# Runs a command and requires its exit status and a pattern in its output.
#   expect_exit.sh STATUS REGEX -- COMMAND [ARGS...]
set -uo pipefail
want=$1 regex=$2
shift 2
[[ ${1:-} == -- ]] && shift
out=$("$@" 2>&1)
got=$?
printf '%s\n' "$out"
if [[ $got -ne $want ]]; then
  echo "FAILED: exit status $got, expected $want: $*" >&2
  exit 1
fi
if ! grep -Eq -- "$regex" <<<"$out"; then
  echo "FAILED: the output does not match /$regex/" >&2
  exit 1
fi
echo "ok: exit $got and /$regex/"
