#!/usr/bin/env bash
# Litmus L13 needs 3 ranks (run_suite.sh runs 2): runs only that case on 3 ranks
# against the reference and checks it reported a profile (never NOT_SUPPORTED).
#   run_l13.sh BIN_DIR OUT_DIR IUT
set -uo pipefail
bin=$1 out=$2 iut=$3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$out"
rm -f "$out/results.json"
HCTS_MPI_LOG_DIR=$out/logs "$root/mpi_harness/launch" --np 3 -- \
  "$bin/hcts-conformance" --iut "$iut" --results "$out/results.json" --repeat 256 --case-timeout 60 \
  --gtest_filter=Litmus.L13_ThreeParty >"$out/suite.log" 2>&1
got=$?
grep '^hcts:' "$out/suite.log" || true
# A filtered run exits by what it judged (summary.judged): 0 when L13 passed; anything else is wrong.
((got == 0)) || { echo "run_l13: exit status $got, expected 0 (a subset whose judged clause passed; log: $out/suite.log)"; exit 1; }
exec "$bin/hcts-selfcheck" "$out/results.json" clause WWN.LIT.13 PROFILE
