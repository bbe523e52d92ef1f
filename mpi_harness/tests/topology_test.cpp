// Invariants of every topology for 2..9 ranks, and the exact shape of each.
#include "hcts/topology.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <utility>

namespace {

using namespace hcts::mpi;

class EveryTopology : public testing::TestWithParam<std::tuple<Topology, int>> {};

TEST_P(EveryTopology, InvariantsHold)
{
    const auto [t, n] = GetParam();
    const auto all = transfers(t, n);
    ASSERT_FALSE(all.empty());
    std::set<std::pair<int, int>> pairs;
    std::set<std::pair<int, uint32_t>> notifies;
    for (const auto &x : all) {
        EXPECT_NE(x.sender, x.receiver);
        EXPECT_TRUE(x.sender >= 0 && x.sender < n && x.receiver >= 0 && x.receiver < n);
        EXPECT_TRUE(pairs.emplace(x.sender, x.receiver).second) << "duplicate " << x.sender << "->" << x.receiver;
        EXPECT_TRUE(notifies.emplace(x.receiver, x.notify).second)
            << "notify " << x.notify << " used twice into rank " << x.receiver;
        const auto ps = peers(all, x.sender), pr = peers(all, x.receiver);
        ASSERT_LT(x.sender_channel, ps.size());
        ASSERT_LT(x.receiver_channel, pr.size());
        EXPECT_EQ(ps[x.sender_channel], x.receiver);
        EXPECT_EQ(pr[x.receiver_channel], x.sender);
        EXPECT_LT(x.notify, notifies_needed(all, x.receiver));
    }
    size_t in_total = 0, out_total = 0;
    for (int r = 0; r < n; ++r) {
        in_total += incoming(all, r).size();
        out_total += outgoing(all, r).size();
        EXPECT_EQ(notifies_needed(all, r), incoming(all, r).size()) << "notify indices into " << r << " are dense";
    }
    EXPECT_EQ(in_total, all.size());
    EXPECT_EQ(out_total, all.size());
}

INSTANTIATE_TEST_SUITE_P(Ranks2To9, EveryTopology,
                         testing::Combine(testing::ValuesIn(kAllTopologies), testing::Range(2, 10)), [](const auto &p) {
                             return std::string(to_string(std::get<0>(p.param))) + "_" +
                                    std::to_string(std::get<1>(p.param));
                         });

TEST(Topology, Shapes)
{
    EXPECT_EQ(transfers(Topology::AllPairs, 4).size(), 12u);
    EXPECT_EQ(transfers(Topology::Ring, 2).size(), 2u);
    const auto ring = transfers(Topology::Ring, 5);
    ASSERT_EQ(ring.size(), 5u);
    for (const auto &x : ring)
        EXPECT_EQ(x.receiver, (x.sender + 1) % 5);
    const auto incast = transfers(Topology::Incast, 6, 2);
    ASSERT_EQ(incast.size(), 5u);
    std::vector<uint32_t> idx;
    for (const auto &x : incast) {
        EXPECT_EQ(x.receiver, 2);
        idx.push_back(x.notify);
    }
    EXPECT_EQ(idx, (std::vector<uint32_t>{0, 1, 2, 3, 4}));
    const auto bidi = transfers(Topology::Bidirectional, 5);
    ASSERT_EQ(bidi.size(), 4u);
    EXPECT_TRUE(incoming(bidi, 4).empty() && outgoing(bidi, 4).empty()) << "odd rank out idles";
    // All pairs into rank 0 from 1..3 use notify 0..2 and rank 0's slots 0..2.
    for (const auto &x : incoming(transfers(Topology::AllPairs, 4), 0)) {
        EXPECT_EQ(x.notify, static_cast<uint32_t>(x.sender - 1));
        EXPECT_EQ(x.receiver_channel, static_cast<uint32_t>(x.sender - 1));
    }
}

TEST(Topology, RejectsBadArguments)
{
    EXPECT_THROW(transfers(Topology::Ring, 1), std::invalid_argument);
    EXPECT_THROW(transfers(Topology::Incast, 4, 4), std::invalid_argument);
    EXPECT_THROW(parse_topology("Star"), std::invalid_argument);
    for (Topology t : kAllTopologies)
        EXPECT_EQ(parse_topology(to_string(t)), t);
}

} // namespace
