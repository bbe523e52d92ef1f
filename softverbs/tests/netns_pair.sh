# Sourced by the tests that run across network namespaces (softverbs' and the
# reference's): two namespaces of their own joined by a veth pair, removed
# again when the sourcing script exits. Exits 77 (skipped) without root.
# usage: netns_pair PREFIX SUBNET, e.g. netns_pair sv 10.231.0
# sets:  ns_a ns_b (the namespaces), if_a if_b (their veth ends, SUBNET.1 and .2)
netns_pair() {
  if [[ $EUID -ne 0 ]] || ! ip netns list >/dev/null 2>&1; then
    echo "needs root and iproute2 to create network namespaces"; exit 77
  fi
  local tag=$$
  ns_a=$1-a-$tag; ns_b=$1-b-$tag; if_a=${1}a$tag; if_b=${1}b$tag
  trap netns_pair_cleanup EXIT
  ip netns add "$ns_a"; ip netns add "$ns_b"
  ip link add "$if_a" type veth peer name "$if_b"
  ip link set "$if_a" netns "$ns_a"; ip link set "$if_b" netns "$ns_b"
  ip -n "$ns_a" addr add "$2.1/24" dev "$if_a"; ip -n "$ns_b" addr add "$2.2/24" dev "$if_b"
  for n in "$ns_a" "$ns_b"; do ip -n "$n" link set lo up; done
  ip -n "$ns_a" link set "$if_a" up; ip -n "$ns_b" link set "$if_b" up
}

netns_pair_cleanup() { ip netns del "$ns_a" 2>/dev/null || true; ip netns del "$ns_b" 2>/dev/null || true; }
