#!/bin/bash
# Ranks in two network namespaces joined by a veth pair: the bootstrap and the
# verbs traffic between namespaces go over TCP (softverbs' TCP transport), as
# between hosts. Creates only its own namespaces (netns_pair.sh) and always
# removes them.
# usage: netns_ranks.sh <reference_multiprocess binary>
set -euo pipefail
test_binary=$1
. "$(dirname "$0")/../../softverbs/tests/netns_pair.sh"
netns_pair hr 10.232.0

# The driver (which hosts the bootstrap root) lives in namespace a; ranks alternate.
ip netns exec "$ns_a" env HCOMM_REF_BOOTSTRAP_IF="$if_a" SOFTVERBS_LISTEN="$if_a" \
  HCTS_RANK_NETNS="$ns_a,$ns_b" HCTS_RANK_IFS="$if_a,$if_b" \
  "$test_binary" --gtest_color=no --gtest_filter='*Processes.*'
