// Communication topologies as case parameters: for N ranks, which rank writes
// to which, over which channel slot, raising which notify index. Pure functions,
// no MPI: the same list on every rank, so each rank picks its own part.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace hcts::mpi {

enum class Topology {
    AllPairs,      // every ordered pair (s, r), s != r: N(N-1) transfers
    Ring,          // s -> (s+1) mod N: N transfers (2 for N = 2)
    Incast,        // every other rank -> root: N-1 transfers, distinct notify indices at root
    Bidirectional, // pairs (0,1), (2,3), ... write to each other; with odd N the last rank idles
};

inline constexpr Topology kAllTopologies[] = {Topology::AllPairs, Topology::Ring, Topology::Incast,
                                              Topology::Bidirectional};

// "AllPairs", "Ring", "Incast", "Bidirectional": usable as GoogleTest parameter names.
std::string_view to_string(Topology t);
// Inverse of to_string; throws std::invalid_argument naming the allowed values.
Topology parse_topology(std::string_view name);

struct Transfer {
    int sender;
    int receiver;
    // Channels are per peer pair and used by both ends (the writer writes on its
    // channel to the receiver, the receiver waits on its channel to the writer).
    // A rank's channel slots are its peers in this topology in ascending rank
    // order (see peers()): sender_channel is the receiver's slot at the sender,
    // receiver_channel the sender's slot at the receiver.
    uint32_t sender_channel;
    uint32_t receiver_channel;
    // Notify index raised at the receiver; distinct among all transfers into the
    // same receiver (numbered 0, 1, ... in ascending sender order).
    uint32_t notify;
};

// All transfers of the topology, sorted by (sender, receiver). Throws
// std::invalid_argument if nranks < 2 or root is not in [0, nranks).
std::vector<Transfer> transfers(Topology t, int nranks, int root = 0);

// The ranks `rank` exchanges with (as sender or receiver), ascending: its channel slots.
std::vector<int> peers(const std::vector<Transfer> &all, int rank);
// The transfers `rank` sends / receives.
std::vector<Transfer> outgoing(const std::vector<Transfer> &all, int rank);
std::vector<Transfer> incoming(const std::vector<Transfer> &all, int rank);
// The number of notify indices a receiver needs: 1 + the largest index into it (0 if none).
uint32_t notifies_needed(const std::vector<Transfer> &all, int rank);

} // namespace hcts::mpi
