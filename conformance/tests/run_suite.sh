#!/usr/bin/env bash
# Runs hcts-conformance under MPI (through mpi_harness/launch) against one IUT,
# validates the real results.json against the schema, and checks both the exit
# status and what the results say (hcts-selfcheck).
#   run_suite.sh BIN_DIR OUT_DIR IUT EXPECTED_EXIT SELFCHECK_ARGS...
# Environment: RUN_SUITE_NP (ranks, default 2; more than the cores is fine:
# oversubscribed); RUN_SUITE_NODES=K runs them on K simulated nodes (root only:
# exit 77, skipped, otherwise); RUN_SUITE_ARGS: more hcts-conformance options;
# HCTS_SELFCHECK_{RANKS,HOSTS,PARTIES_APART,SUBSET,SEGMENT}: more hcts-selfcheck checks.
set -uo pipefail
bin=$1 out=$2 iut=$3 want_exit=$4
shift 4
np=${RUN_SUITE_NP:-2} nodes=${RUN_SUITE_NODES:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$out"
rm -f "$out/results.json"
read -r -a extra <<<"${RUN_SUITE_ARGS:-}"
suite=("$bin/hcts-conformance" --iut "$iut" --results "$out/results.json" --repeat 128 --case-timeout 60
  --transport softverbs "${extra[@]}")
[[ -n ${SOFTVERBS_SEED:-} ]] && suite+=(--mode adversarial --seed "$SOFTVERBS_SEED")
export HCTS_MPI_LOG_DIR=$out/logs
launch=("$root/mpi_harness/launch" --np "$np")
if [[ -n $nodes ]]; then
  if ((EUID != 0)); then
    echo "run_suite: the simulated cluster needs root (network namespaces); skipped"
    exit 77
  fi
  launch+=(--nodes "$nodes")
  # The cluster forwards LD_LIBRARY_PATH and its own settings; the rest by name.
  fwd=""
  for v in HCTS_MPI_LOG_DIR SOFTVERBS_SEED HCOMM_REF_PRODUCT HCOMM_REF_MAX_WRITE HCOMM_REF_TIMEOUT_UNIT; do
    [[ -n ${!v:-} ]] && fwd+=" -x $v"
  done
  export HCTS_MPIRUN_ARGS="${HCTS_MPIRUN_ARGS:-}$fwd"
fi
"${launch[@]}" -- "${suite[@]}" >"$out/suite.log" 2>&1
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
"$root/reports/schema/validate" "$out/results.json" || exit 1
checks=()
[[ -n ${HCTS_SELFCHECK_RANKS:-} ]] && checks+=(--ranks "$HCTS_SELFCHECK_RANKS")
[[ -n ${HCTS_SELFCHECK_HOSTS:-} ]] && checks+=(--hosts "$HCTS_SELFCHECK_HOSTS")
[[ -n ${HCTS_SELFCHECK_PARTIES_APART:-} ]] && checks+=(--parties-apart)
[[ -n ${HCTS_SELFCHECK_SUBSET:-} ]] && checks+=(--subset)
[[ -n ${HCTS_SELFCHECK_SEGMENT:-} ]] && checks+=(--segment-size "$HCTS_SELFCHECK_SEGMENT")
exec "$bin/hcts-selfcheck" "$out/results.json" "${checks[@]}" "$@"
