#include "hcts/topology.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace hcts::mpi {

std::string_view to_string(Topology t)
{
    switch (t) {
    case Topology::AllPairs: return "AllPairs";
    case Topology::Ring: return "Ring";
    case Topology::Incast: return "Incast";
    case Topology::Bidirectional: return "Bidirectional";
    }
    return "?";
}

Topology parse_topology(std::string_view name)
{
    for (Topology t : kAllTopologies) {
        if (to_string(t) == name)
            return t;
    }
    throw std::invalid_argument("unknown topology '" + std::string(name) +
                                "'; allowed: AllPairs, Ring, Incast, Bidirectional");
}

namespace {

std::vector<std::pair<int, int>> edges(Topology t, int n, int root)
{
    std::vector<std::pair<int, int>> e;
    switch (t) {
    case Topology::AllPairs:
        for (int s = 0; s < n; ++s)
            for (int r = 0; r < n; ++r)
                if (s != r)
                    e.emplace_back(s, r);
        break;
    case Topology::Ring:
        for (int s = 0; s < n; ++s)
            e.emplace_back(s, (s + 1) % n);
        break;
    case Topology::Incast:
        for (int s = 0; s < n; ++s)
            if (s != root)
                e.emplace_back(s, root);
        break;
    case Topology::Bidirectional:
        for (int a = 0; a + 1 < n; a += 2) {
            e.emplace_back(a, a + 1);
            e.emplace_back(a + 1, a);
        }
        break;
    }
    std::sort(e.begin(), e.end());
    e.erase(std::unique(e.begin(), e.end()), e.end()); // a ring of 2 is one pair each way
    return e;
}

uint32_t slot_of(const std::vector<int> &slots, int peer)
{
    return static_cast<uint32_t>(std::lower_bound(slots.begin(), slots.end(), peer) - slots.begin());
}

} // namespace

std::vector<Transfer> transfers(Topology t, int nranks, int root)
{
    if (nranks < 2) {
        throw std::invalid_argument("a topology needs at least 2 ranks, got " + std::to_string(nranks));
    }
    if (root < 0 || root >= nranks) {
        throw std::invalid_argument("root rank " + std::to_string(root) + " is outside [0, " + std::to_string(nranks) +
                                    ")");
    }
    std::vector<Transfer> all;
    for (auto [s, r] : edges(t, nranks, root))
        all.push_back(Transfer{s, r, 0, 0, 0});
    std::vector<uint32_t> next_notify(static_cast<size_t>(nranks), 0);
    for (auto &x : all) { // sorted by sender, so notify indices ascend with the sender's rank
        x.sender_channel = slot_of(peers(all, x.sender), x.receiver);
        x.receiver_channel = slot_of(peers(all, x.receiver), x.sender);
        x.notify = next_notify[static_cast<size_t>(x.receiver)]++;
    }
    return all;
}

std::vector<int> peers(const std::vector<Transfer> &all, int rank)
{
    std::vector<int> p;
    for (const auto &x : all) {
        if (x.sender == rank)
            p.push_back(x.receiver);
        if (x.receiver == rank)
            p.push_back(x.sender);
    }
    std::sort(p.begin(), p.end());
    p.erase(std::unique(p.begin(), p.end()), p.end());
    return p;
}

std::vector<Transfer> outgoing(const std::vector<Transfer> &all, int rank)
{
    std::vector<Transfer> out;
    std::copy_if(all.begin(), all.end(), std::back_inserter(out),
                 [rank](const Transfer &x) { return x.sender == rank; });
    return out;
}

std::vector<Transfer> incoming(const std::vector<Transfer> &all, int rank)
{
    std::vector<Transfer> in;
    std::copy_if(all.begin(), all.end(), std::back_inserter(in),
                 [rank](const Transfer &x) { return x.receiver == rank; });
    return in;
}

uint32_t notifies_needed(const std::vector<Transfer> &all, int rank)
{
    uint32_t n = 0;
    for (const auto &x : all)
        if (x.receiver == rank)
            n = std::max(n, x.notify + 1);
    return n;
}

} // namespace hcts::mpi
