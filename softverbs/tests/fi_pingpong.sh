#!/bin/bash
# libfabric's unmodified fi_pingpong over its verbs provider (FI_EP_MSG, which
# connects through rdma_cm: softverbs' librdmacm.so.1) on softverbs. The verbs
# provider skips the "lo" interface when it looks for addresses of RDMA devices,
# so both ends run in one network namespace of our own whose veth end carries
# softverbs0's address (SOFTVERBS_LISTEN); the namespaces are always removed.
# usage: fi_pingpong.sh SOFTVERBS_RUN
# Exit 77 (skipped) without fi_pingpong (libfabric-bin) or without root.
set -euo pipefail
run=$1
if ! command -v fi_pingpong >/dev/null; then
  echo "SKIP: fi_pingpong not found (Debian package libfabric-bin, installed by scripts/install-deps.sh)"
  exit 77
fi
. "$(dirname "$0")/netns_pair.sh"
netns_pair svfi 10.231.9
out=$(mktemp -d)
trap 'netns_pair_cleanup; rm -rf "$out"' EXIT
export SOFTVERBS_SECRET=$(od -An -N16 -tx1 /dev/urandom | tr -d " \n")
port=18516 # our own namespace: no one else's ports
args=(fi_pingpong -p verbs -e msg -I 100 -S 64)
ip netns exec "$ns_a" env SOFTVERBS_LISTEN="$if_a" timeout 30 "$run" "${args[@]}" -B $port >"$out/server" 2>&1 &
srv=$!
for _ in $(seq 200); do # bounded: 10 s for the server's control port
  ip netns exec "$ns_a" ss -ltn "sport = :$port" | grep -q LISTEN && break
  sleep 0.05
done
rc=0
ip netns exec "$ns_a" env SOFTVERBS_LISTEN="$if_a" timeout 30 "$run" "${args[@]}" -P $port 10.231.9.1 \
  >"$out/client" 2>&1 || rc=$?
wait $srv || rc=$((rc ? rc : $?))
cat "$out/client"
# The result line: size, sent, =acked, total, time, ...
if ((rc == 0)) && grep -Eq '^64 +100 +=100 ' "$out/client"; then
  echo "PASS: fi_pingpong -p verbs, 100 × 64 B"
  exit 0
fi
echo "FAIL: client/server exit $rc, or no result line for 100 × 64 B"
echo "--- server"; cat "$out/server"
exit 1
