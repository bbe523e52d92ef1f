#!/usr/bin/env bash
# Runs hcts-conformance under MPI against one IUT and checks both its exit
# status and what results.json says (hcts-selfcheck).
#   run_suite.sh BIN_DIR OUT_DIR IUT EXPECTED_EXIT SELFCHECK_ARGS...
# Environment: RUN_SUITE_NP (ranks, default 2; more than the cores is fine:
# oversubscribed); RUN_SUITE_NODES=K runs them on K simulated nodes through
# mpi_harness/cluster (root only: exit 77, skipped, otherwise), where MPI uses
# the nodes' veth0, not lo.
set -uo pipefail
bin=$1 out=$2 iut=$3 want_exit=$4
shift 4
np=${RUN_SUITE_NP:-2} nodes=${RUN_SUITE_NODES:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out"
rm -f "$out/results.json"
suite=("$bin/hcts-conformance" --iut "$iut" --results "$out/results.json" --repeat 128 --case-timeout 60)
export HCTS_MPI_LOG_DIR=$out/logs
if [[ -n $nodes ]]; then
  if ((EUID != 0)); then
    echo "run_suite: the simulated cluster needs root (network namespaces); skipped"
    exit 77
  fi
  # The cluster forwards LD_LIBRARY_PATH and its own settings; the rest by name.
  fwd=()
  for v in HCTS_MPI_LOG_DIR SOFTVERBS_SEED HCOMM_REF_PRODUCT HCTS_PROTOCOL HCTS_PROTOCOL_ALT; do
    [[ -n ${!v:-} ]] && fwd+=(--mpirun-arg -x --mpirun-arg "$v")
  done
  "$here/../../mpi_harness/cluster" --nodes "$nodes" --np "$np" "${fwd[@]}" -- "${suite[@]}" >"$out/suite.log" 2>&1
else
  mpirun --allow-run-as-root --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader,tcp \
    --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo -x LD_LIBRARY_PATH -x HCTS_MPI_LOG_DIR \
    ${SOFTVERBS_SEED:+-x SOFTVERBS_SEED} ${HCOMM_REF_PRODUCT:+-x HCOMM_REF_PRODUCT} ${HCTS_PROTOCOL:+-x HCTS_PROTOCOL} \
    ${HCTS_PROTOCOL_ALT:+-x HCTS_PROTOCOL_ALT} -np "$np" "${suite[@]}" >"$out/suite.log" 2>&1
fi
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
