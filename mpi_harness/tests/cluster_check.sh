#!/usr/bin/env bash
# 4 ranks on 2 simulated nodes; then checks that nothing of the run is left.
# usage: cluster_check.sh CLUSTER_SCRIPT PROGRAM
set -uo pipefail
cluster=$1 program=$2
if ((EUID != 0)); then
  echo "SKIPPED: the simulated cluster needs root for network namespaces (uid $EUID)"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/hcts-cluster-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HCTS_MPI_LOG_DIR=$work/logs HCTS_EXPECT_NODES=2
"$cluster" --nodes 2 --np 4 -- "$program" --gtest_color=no
rc=$?
left=$(ip netns list | awk '{print $1}' | grep -E '^hcts-[0-9]+-' | while read -r ns; do
  owner=${ns#hcts-}; owner=${owner%%-*}; kill -0 "$owner" 2>/dev/null || echo "$ns"; done)
if ((rc != 0)); then
  for f in "$work"/logs/*; do echo "--- ${f##*/}:"; cat "$f"; done
  echo "cluster run failed with status $rc"
  exit 1
fi
if [[ -n $left ]]; then
  echo "namespaces left behind: $left"
  exit 1
fi
echo "cluster: 4 ranks on 2 nodes passed, nothing left behind"
