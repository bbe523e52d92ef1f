#!/usr/bin/env bash
# tools.env: hcts-env (and `hcts env`) list every component's settings with this
# environment's values, flag values a component would not accept, and each component's
# table holds every variable its sources read (none parsed by hand beside the table).
# usage: env_test.sh HCTS_ENV SOURCE_DIR BUILD_DIR
set -euo pipefail
tool=$1 src=$2 build=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "--- $*"; }
# A clean environment: only what the test sets.
run() { env -i PATH="$PATH" "$@"; }

step "defaults in a clean environment"
out=$(run "$tool") || fail "hcts-env exited $? in a clean environment: $out"
for line in HCOMM_REF_TIMEOUT_UNIT=s HCOMM_REF_LOG=warn HCCL_BUFFSIZE=200 HCOMM_REF_BOOTSTRAP_TIMEOUT_S=120 \
  HCOMM_REF_POLL_US=200 HCOMM_REF_PRODUCT=atlas350 HCOMM_REF_IB_DEV=; do
  grep -qx -- "$line" <<<"$out" || fail "no line '$line' in:
$out"
done
grep -q '^# reference_impl: ' <<<"$out" || fail "no reference_impl table heading"
grep -q '^# enum: one of s|ms; default s$' <<<"$out" || fail "HCOMM_REF_TIMEOUT_UNIT's type line is missing"

step "a set value is shown as set; --set lists only those; --brief only NAME=value"
out=$(run HCOMM_REF_TIMEOUT_UNIT=ms "$tool") || fail "exit $?"
grep -qx 'HCOMM_REF_TIMEOUT_UNIT=ms  # set' <<<"$out" || fail "HCOMM_REF_TIMEOUT_UNIT=ms not shown as set"
out=$(run HCOMM_REF_TIMEOUT_UNIT=ms HCOMM_REF_POLL_US=0 "$tool" --set --brief) || fail "exit $?"
[[ $out == $'HCOMM_REF_TIMEOUT_UNIT=ms\nHCOMM_REF_POLL_US=0' ]] || fail "--set --brief printed:
$out"

step "a value the component would not accept: named, with what is allowed; exit status 1"
status=0
out=$(run HCOMM_REF_TIMEOUT_UNIT=hours HCOMM_REF_BOOTSTRAP_TIMEOUT_S=0 "$tool") || status=$?
((status == 1)) || fail "exit status $status, not 1, with bad values"
grep -qF "# NOT ALLOWED: HCOMM_REF_TIMEOUT_UNIT='hours' is not one of s|ms" <<<"$out" || fail "bad unit not flagged"
grep -qF "# NOT ALLOWED: HCOMM_REF_BOOTSTRAP_TIMEOUT_S='0' is not a whole number in [1, 86399]" <<<"$out" ||
  fail "bad bootstrap timeout not flagged"

step "usage"
run "$tool" --help | grep -q '^usage: hcts-env' || fail "--help prints no usage"
status=0
run "$tool" --component nosuch >/dev/null 2>&1 || status=$?
((status == 2)) || fail "--component nosuch: exit status $status, not 2"
out=$(run "$tool" --brief --component reference_impl) || fail "exit $?"
! grep -q '^SOFTVERBS_' <<<"$out" || fail "--component reference_impl lists softverbs' settings"

step "./hcts env runs it (HCTS_BUILD_DIR: building nothing)"
out=$(run HCTS_BUILD_DIR="$build" "$src/hcts" env --brief) || fail "./hcts env exited $?"
grep -qx 'HCOMM_REF_NOTIFY=binary' <<<"$out" || fail "./hcts env lists no HCOMM_REF_NOTIFY=binary"

# Every variable a component's sources name is in its table, and only the table file and
# the settings header read the environment. $1: folder, $2: variable pattern, $3: component,
# $4: names that match the pattern but are no variables.
listed=$(run "$tool" --brief | sed 's/=.*//')
check_component() {
  local dir=$1 pattern=$2 component=$3 not=${4:-^$} names name
  names=$(grep -rhoE "\\b($pattern)\\b" "$src/$dir" --include='*.cpp' --include='*.h' --include='*.c' |
    grep -vE "$not" | sort -u)
  for name in $names; do
    grep -qx -- "$name" <<<"$listed" || fail "$dir names $name, which $component's table does not list"
  done
  no_getenv "$dir"
  step "$component: every variable of $dir is in its table; no getenv"
}
# Only the tables' parse functions read the environment; the system's own variables (HOME,
# LD_LIBRARY_PATH) and other libraries' (RapidCheck's RC_PARAMS) are no settings of hcts.
no_getenv() {
  ! grep -rn 'getenv' "$src/$1" --include='*.cpp' --include='*.h' --include='*.c' |
    grep -vE 'getenv\("(HOME|LD_LIBRARY_PATH|RC_PARAMS)"\)' ||
    fail "$1 reads the environment by hand above (read it through its settings table)"
}
# HCOMM_REF_ABI_VERSION and HCOMM_REF_ACL_WAIT_* are names of hcomm_ref.h, SOFTVERBS_PRIVATE*
# version nodes of softverbs' libraries: no variables.
check_component reference_impl/src 'HCOMM_REF_[A-Z0-9_]+|HCCL_BUFFSIZE' reference_impl '^HCOMM_REF_(ABI_VERSION|ACL_WAIT_)'

check_component softverbs/src 'SOFTVERBS_[A-Z0-9_]+|SYSFS_PATH' softverbs '^SOFTVERBS_PRIVATE'
check_component softverbs/rdmacm/src 'SOFTVERBS_[A-Z0-9_]+' softverbs '^SOFTVERBS_PRIVATE'

check_component acl_runtime/src 'HCTS_ACL_[A-Z0-9_]+|ASCEND_HOME_PATH' acl_runtime
for dir in core/src core/mutant conformance/src property/driver property/machine mpi_harness/src bench/src selftest/runner; do
  no_getenv "$dir"
done
step "suite: no getenv in the suite's programs"
for name in HCTS_COMMAND HCTS_SUITE_COMMIT HCTS_MPI_LOG_DIR HCTS_CASE_DEADLINE_S HCTS_PROTOCOL HCTS_PROTOCOL_ALT \
  HCTS_PROPERTY_PROTOCOL HCTS_EXHAUSTIVE SOURCE_DATE_EPOCH HCTS_MUTANT; do
  grep -qx -- "$name" <<<"$listed" || fail "the suite's table does not list $name"
done

# Each component's README documents every variable of its table.
readme() {
  local component=$1 file=$2 name
  for name in $(run "$tool" --brief --component "$component" | sed 's/=.*//'); do
    grep -q "\`$name\`" "$src/$file" || fail "$file does not document $name"
  done
  step "$file documents every variable of $component's table"
}
readme reference_impl reference_impl/README.md
readme softverbs softverbs/README.md
readme acl_runtime acl_runtime/README.md
echo PASS
