#!/usr/bin/env bash
# Runs hcts-conformance under mpirun -np 2 against one IUT and checks both its
# exit status and what results.json says (hcts-selfcheck).
#   run_suite.sh BIN_DIR OUT_DIR IUT EXPECTED_EXIT SELFCHECK_ARGS...
set -uo pipefail
bin=$1 out=$2 iut=$3 want_exit=$4
shift 4
mkdir -p "$out"
rm -f "$out/results.json"
mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader,tcp --mca btl_tcp_if_include lo \
  --mca oob_tcp_if_include lo -x LD_LIBRARY_PATH ${SOFTVERBS_SEED:+-x SOFTVERBS_SEED} \
  ${HCOMM_REF_PRODUCT:+-x HCOMM_REF_PRODUCT} ${HCTS_PROTOCOL:+-x HCTS_PROTOCOL} ${HCTS_PROTOCOL_ALT:+-x HCTS_PROTOCOL_ALT} -np 2 \
  "$bin/hcts-conformance" --iut "$iut" --results "$out/results.json" --repeat 128 --case-timeout 60 \
  >"$out/suite.log" 2>&1
got=$?
grep '^hcts:' "$out/suite.log" | grep -v ' PASS ' || true
if [[ $want_exit == nonzero ]]; then
  ((got != 0)) || { echo "run_suite: exit status 0, expected non-zero"; exit 1; }
elif ((got != want_exit)); then
  echo "run_suite: exit status $got, expected $want_exit (log: $out/suite.log)"
  exit 1
fi
# A crash would show as a signal exit status (> 128) even when non-zero is expected.
((got < 128)) || { echo "run_suite: the suite died with status $got"; exit 1; }
exec "$bin/hcts-selfcheck" "$out/results.json" "$@"
