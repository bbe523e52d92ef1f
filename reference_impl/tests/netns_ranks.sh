#!/bin/bash
# Ranks in two network namespaces joined by a veth pair: the bootstrap and the
# verbs traffic between namespaces go over TCP (softverbs' TCP transport), as
# between hosts. Creates only its own namespaces and always removes them.
# usage: netns_ranks.sh <reference_multiprocess binary>
set -euo pipefail
test_binary=$1
if [[ $EUID -ne 0 ]] || ! ip netns list >/dev/null 2>&1; then
  echo "needs root and iproute2 to create network namespaces"; exit 77
fi
tag=$$
a=hr-a-$tag; b=hr-b-$tag
cleanup() { ip netns del "$a" 2>/dev/null || true; ip netns del "$b" 2>/dev/null || true; }
trap cleanup EXIT
ip netns add "$a"; ip netns add "$b"
ip link add hra$tag type veth peer name hrb$tag
ip link set hra$tag netns "$a"; ip link set hrb$tag netns "$b"
ip -n "$a" addr add 10.232.0.1/24 dev hra$tag; ip -n "$b" addr add 10.232.0.2/24 dev hrb$tag
for n in "$a" "$b"; do ip -n "$n" link set lo up; done
ip -n "$a" link set hra$tag up; ip -n "$b" link set hrb$tag up

# The driver (which hosts the bootstrap root) lives in namespace a; ranks alternate.
ip netns exec "$a" env HCOMM_REF_BOOTSTRAP_IF=hra$tag SOFTVERBS_LISTEN=hra$tag \
  HCTS_RANK_NETNS="$a,$b" HCTS_RANK_IFS="hra$tag,hrb$tag" \
  "$test_binary" --gtest_color=no --gtest_filter='*Processes.*'
