#!/bin/bash
# softverbs between two network namespaces joined by a veth pair: the TCP
# transport with SOFTVERBS_LISTEN=<interface>, and the job secret. Uses only
# namespaces it creates (netns_pair.sh) and always removes them. Runs
# unmodified ibv_rc_pingpong, and ibv_ud_pingpong (UD datagrams over UDP on the veth).
# usage: netns_tcp.sh SOFTVERBS_RUN
set -euo pipefail
run=$1
. "$(dirname "$0")/netns_pair.sh"
netns_pair sv 10.231.0
out=$(mktemp -d)
trap 'netns_pair_cleanup; rm -rf "$out"' EXIT

pingpong() {  # $1 server secret, $2 client secret [, $3 program]
  local port=18515 prog=${3:-ibv_rc_pingpong}
  ip netns exec "$ns_a" env SOFTVERBS_LISTEN="$if_a" SOFTVERBS_SECRET="$1" SOFTVERBS_LOG=1 \
    timeout 20 "$run" "$prog" -g 0 -p $port -n 100 >"$out/server" 2>&1 &
  local srv=$!
  for _ in $(seq 100); do
    ip netns exec "$ns_a" ss -ltn "sport = :$port" | grep -q LISTEN && break
    sleep 0.05
  done
  local rc=0
  ip netns exec "$ns_b" env SOFTVERBS_LISTEN="$if_b" SOFTVERBS_SECRET="$2" SOFTVERBS_LOG=1 \
    timeout 20 "$run" "$prog" -g 0 -p $port -n 100 10.231.0.1 >"$out/client" 2>&1 || rc=1
  kill $srv 2>/dev/null || true
  wait $srv 2>/dev/null || rc=1
  return $rc
}

pingpong job-secret-1 job-secret-1 || { echo "FAIL: matching secrets"; cat "$out"/*; exit 1; }
grep -q "100 iters in" "$out/client" || { echo "FAIL: no result"; cat "$out"/*; exit 1; }
grep "GID" "$out/client"
echo "ok: ibv_rc_pingpong across namespaces over TCP"
if pingpong job-secret-1 wrong-secret; then
  echo "FAIL: a peer with the wrong secret was accepted"; cat "$out"/*; exit 1
fi
# Either side may notice first: the responder (a wrong proof) or the requester (the
# responder's proof does not match its secret).
grep -q "wrong secret\|does not know the secret" "$out/server" "$out/client" ||
  { echo "FAIL: refusal not reported"; cat "$out"/*; exit 1; }
echo "ok: wrong secret refused"
pingpong job-secret-1 job-secret-1 ibv_ud_pingpong || { echo "FAIL: UD"; cat "$out"/*; exit 1; }
grep -q "100 iters in" "$out/client" || { echo "FAIL: no UD result"; cat "$out"/*; exit 1; }
echo "ok: ibv_ud_pingpong across namespaces (UDP on the veth)"
