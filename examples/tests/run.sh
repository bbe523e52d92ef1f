#!/usr/bin/env bash
# ctest examples.<name>.*: runs an example's test program, built by examples.build, on the
# installed hcts: under the installed mpi_harness/launch with 4 ranks, on the installed
# softverbs. Adversarial runs set SOFTVERBS_SEED in the environment (ctest does).
# usage: run.sh PREFIX PROGRAM [--nodes K | --devices N] [--expect-failure REGEX] [-- PROGRAM_ARGS...]
#   --nodes K: on K simulated nodes (root only: exit 77, skipped, otherwise)
#   --devices N: one process that sees N devices, under the installed `hcts launch --devices N`
#   --expect-failure REGEX: inverted, for a broken variant: passes only if the program fails
#     (exit status not 0) and its output matches REGEX, i.e. its own check caught the fault.
#   --seams BUILD_DIR: on that build tree's libhcomm.so and libascendcl.so instead of the
#     installed ones, which have their mutant seams compiled out (HCTS_MUTANT_SEAMS=0): the
#     broken variants switch a mutant on with HCTS_MUTANT.
set -uo pipefail
prefix=$1 program=$2
shift 2
nodes='' devices='' expect='' seams=''
while (($#)); do
  case $1 in
    --nodes) nodes=$2; shift 2 ;;
    --devices) devices=$2; shift 2 ;;
    --expect-failure) expect=$2; shift 2 ;;
    --seams) seams=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $program ]] || { echo "run.sh: $program is not built (fixture examples.build)" >&2; exit 1; }
launch=(--np 4)
if [[ -n $nodes ]]; then
  ((EUID == 0)) || { echo "run.sh: simulated nodes need root (network namespaces); skipped"; exit 77; }
  launch+=(--nodes "$nodes")
fi
export LD_LIBRARY_PATH=$prefix/lib/hcts/softverbs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Searched before the program's RUNPATH (the prefix), so its libhcomm.so comes from there.
[[ -z $seams ]] || export LD_LIBRARY_PATH=$seams/lib:$LD_LIBRARY_PATH
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$(dirname "$program")" || exit 1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if [[ -n $devices && -n $seams ]]; then
  # The installed hcts launch puts the prefix's libraries first: the source tree's, told to
  # use the build tree as it is (HCTS_BUILD_DIR), puts that tree's first.
  HCTS_BUILD_DIR=$seams "$here/../../hcts" launch --devices "$devices" -- "$program" "$@" 2>&1 | tee "$out"
elif [[ -n $devices ]]; then
  "$prefix/bin/hcts" launch --devices "$devices" -- "$program" "$@" 2>&1 | tee "$out"
else
  "$prefix/libexec/hcts/mpi_harness/launch" "${launch[@]}" -- "$program" "$@" 2>&1 | tee "$out"
fi
status=${PIPESTATUS[0]}
[[ -z $expect ]] && exit "$status"
if ((status == 0)); then
  echo "run.sh: INVERTED TEST FAILED: $(basename "$program") passed, but its fault must make it fail"
  exit 1
fi
if ! grep -Eq -- "$expect" "$out"; then
  echo "run.sh: INVERTED TEST FAILED: $(basename "$program") failed (status $status), but printed nothing matching '$expect'"
  exit 1
fi
echo "run.sh: as expected, $(basename "$program") caught the fault (status $status, output matches '$expect')"
exit 0
