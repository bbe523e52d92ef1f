#!/bin/bash
# softverbs between two network namespaces joined by a veth pair: the TCP
# transport with SOFTVERBS_LISTEN=<interface>, and the job secret. Uses only
# namespaces it creates and always removes them. Runs unmodified ibv_rc_pingpong.
# usage: netns_tcp.sh SOFTVERBS_RUN
set -euo pipefail
run=$1
if [[ $EUID -ne 0 ]] || ! ip netns list >/dev/null 2>&1; then
  echo "needs root and iproute2 to create network namespaces"; exit 77
fi
tag=$$
a=sv-a-$tag; b=sv-b-$tag
out=$(mktemp -d)
cleanup() { ip netns del "$a" 2>/dev/null || true; ip netns del "$b" 2>/dev/null || true; rm -rf "$out"; }
trap cleanup EXIT
ip netns add "$a"; ip netns add "$b"
ip link add sva$tag type veth peer name svb$tag
ip link set sva$tag netns "$a"; ip link set svb$tag netns "$b"
ip -n "$a" addr add 10.231.0.1/24 dev sva$tag; ip -n "$b" addr add 10.231.0.2/24 dev svb$tag
for n in "$a" "$b"; do ip -n "$n" link set lo up; done
ip -n "$a" link set sva$tag up; ip -n "$b" link set svb$tag up

pingpong() {  # $1 server secret, $2 client secret
  local port=18515
  ip netns exec "$a" env SOFTVERBS_LISTEN=sva$tag SOFTVERBS_SECRET="$1" SOFTVERBS_LOG=1 \
    timeout 20 "$run" ibv_rc_pingpong -g 0 -p $port -n 100 >"$out/server" 2>&1 &
  local srv=$!
  for _ in $(seq 100); do
    ip netns exec "$a" ss -ltn "sport = :$port" | grep -q LISTEN && break
    sleep 0.05
  done
  local rc=0
  ip netns exec "$b" env SOFTVERBS_LISTEN=svb$tag SOFTVERBS_SECRET="$2" SOFTVERBS_LOG=1 \
    timeout 20 "$run" ibv_rc_pingpong -g 0 -p $port -n 100 10.231.0.1 >"$out/client" 2>&1 || rc=1
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
grep -q "wrong secret" "$out/server" || { echo "FAIL: refusal not reported"; cat "$out"/*; exit 1; }
echo "ok: wrong secret refused"
