#!/bin/bash
# Debian's unmodified ucx_perftest, server and client on loopback (pair.sh), UCX
# restricted to rc_verbs (and ud_verbs for wireup) on softverbs0:1: tag-matching latency, 8 B x 1000.
# UCX sees softverbs only through the mounted tree, so it needs root and a private
# mount namespace (skipped with 77 otherwise).
# usage: ucx_perftest.sh SOFTVERBS_RUN [TEST]   (TEST: a ucx_perftest -t name, default tag_lat)
set -uo pipefail
run=$1 test=${2:-tag_lat}
if ((EUID != 0)) || ! unshare -m --propagation private true 2>/dev/null; then
  echo "SKIP: UCX sees softverbs only with SOFTVERBS_SYSFS=mount: root and a private mount namespace (unshare -m)"
  exit 77
fi
# rc_v: rc_verbs for data plus ud_verbs as its auxiliary wireup transport (UCX's alias):
# an RC endpoint cannot be reached before it exists, so UCX sends its wireup messages over UD.
# UCX_TLS given (ctest softverbs_ucx_perftest_ud: ud_v,self) replaces it.
export SOFTVERBS_SYSFS=mount UCX_TLS=${UCX_TLS:-rc_v,self} UCX_NET_DEVICES=softverbs0:1
export PAIR_DEADLINE=${PAIR_DEADLINE:-30}
# The client prints the summary row "Final:" once every iteration completed.
exec "$(dirname "$0")/pair.sh" "$run" ucx-utils "Final:" -- ucx_perftest -p "{port}" \
  -- ucx_perftest 127.0.0.1 -p "{port}" -t "$test" -n 1000 -s 8
