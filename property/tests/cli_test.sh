#!/usr/bin/env bash
# hcts-property's command line: --help and --list succeed; a usage error names
# the wrong value and what is allowed, and exits 2.
#   cli_test.sh HCTS_PROPERTY
set -uo pipefail
prop=$1
here=$(cd "$(dirname "$0")" && pwd)
failed=0
check() { "$here/expect_exit.sh" "$@" >/dev/null 2>&1 || { "$here/expect_exit.sh" "$@"; failed=1; }; echo "checked: ${*:4}"; }

check 0 '--timeout-unit.*s.*ms' -- "$prop" --help
check 0 'WriteBeforeNotify.*WWN\.VIS\.1' -- "$prop" --list
check 2 "--driver: 'foo' is not allowed; allowed: sim, hcomm" -- "$prop" --driver foo
check 2 "--cases: 'abc' is not allowed; allowed: a whole number" -- "$prop" --cases abc
check 2 "--cases: '0' is not allowed" -- "$prop" --cases 0
check 2 "--property: 'Nope' is not allowed; allowed: WriteBeforeNotify, IndexBounds" -- "$prop" --property Nope
check 2 "--timeout-unit: 'min' is not allowed; allowed: s, ms" -- "$prop" --timeout-unit min
check 2 "--sim-fault: 'bad' is not allowed; allowed: none, notify-before-data" -- "$prop" --sim-fault bad
check 2 'not expected.*--bogus' -- "$prop" --bogus
check 2 '--mpi needs --driver hcomm' -- "$prop" --mpi --driver sim
check 2 '--sim-fault needs --driver sim' -- "$prop" --sim-fault host-accepted
check 0 'PASS after 5 cases' -- "$prop" --driver sim --property IndexBounds --cases 5
exit $failed
