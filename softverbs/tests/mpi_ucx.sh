#!/bin/bash
# An MPI program (mpi_pingpong) under Debian's unmodified mpirun with --mca pml ucx,
# UCX restricted to rc_verbs on softverbs0:1 (ud_verbs for wireup, and self), all
# inside one softverbs-run so mpirun's ranks share its mount namespace and job secret. Only the ranks' MPI
# traffic is the test; mpirun's own control traffic stays on TCP over loopback.
# usage: mpi_ucx.sh SOFTVERBS_RUN MPI_PINGPONG
set -uo pipefail
run=$1 prog=$2
if ! command -v mpirun >/dev/null || ! command -v ucx_info >/dev/null; then
  echo "SKIP: mpirun or ucx_info not found (Debian packages openmpi-bin, ucx-utils)"
  exit 77
fi
if ((EUID != 0)) || ! unshare -m --propagation private true 2>/dev/null; then
  echo "SKIP: UCX sees softverbs only with SOFTVERBS_SYSFS=mount: root and a private mount namespace (unshare -m)"
  exit 77
fi
root=()
((EUID == 0)) && root=(--allow-run-as-root)
# rc_v: rc_verbs for data plus ud_verbs as its auxiliary wireup transport (UCX's alias):
# an RC endpoint cannot be reached before it exists, so UCX sends its wireup messages over UD.
export SOFTVERBS_SYSFS=mount UCX_TLS=rc_v,self UCX_NET_DEVICES=softverbs0:1
export SOFTVERBS_SECRET=${SOFTVERBS_SECRET:-$(od -An -N16 -tx1 /dev/urandom | tr -d " \n")}
# pml_ucx_devices/tls: Open MPI 4.1 hands UCX only mlx* devices unless told otherwise.
# btl/osc: no second path around UCX (openib, vader, tcp between ranks; osc ucx unused).
out=$(timeout "${MPI_UCX_DEADLINE:-60}" "$run" mpirun "${root[@]}" --oversubscribe --bind-to none -np 2 \
  --mca pml ucx --mca pml_ucx_devices softverbs0 --mca pml_ucx_tls rc_verbs \
  --mca btl self --mca osc ^ucx --mca oob_tcp_if_include lo \
  -x UCX_TLS -x UCX_NET_DEVICES -x SOFTVERBS_SECRET "$prog" 2>&1)
rc=$?
echo "$out"
((rc == 0)) || { echo "FAIL: mpirun exited with $rc (124: the deadline)"; exit 1; }
grep -q "^mpi_pingpong: ok$" <<<"$out" || { echo "FAIL: no 'mpi_pingpong: ok' line"; exit 1; }
echo "PASS: mpi_pingpong over pml ucx / rc_verbs on softverbs0:1"
