// The peer's list of registered memories in a channel hello (parse_peer_mems):
// hostile input, bounded in count and length, every entry checked before use.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "comm.h"

using namespace hcomm_ref;

namespace {

WireMem entry(uint64_t addr, uint64_t size, const char *tag, int32_t type = COMM_MEM_TYPE_DEVICE, uint32_t rkey = 7)
{
    WireMem m{};
    m.addr = addr;
    m.size = size;
    m.rkey = rkey;
    m.type = type;
    std::strncpy(m.tag, tag, sizeof(m.tag) - 1);
    return m;
}

std::vector<uint8_t> bytes(const std::vector<WireMem> &mems)
{
    std::vector<uint8_t> out(mems.size() * sizeof(WireMem));
    if (!mems.empty())
        std::memcpy(out.data(), mems.data(), out.size());
    return out;
}

} // namespace

TEST(PeerMems, WellFormedEntriesAreTakenInOrder)
{
    const auto payload = bytes({entry(0x1000, 4096, "in", COMM_MEM_TYPE_DEVICE, 11),
                                entry(0x9000, 1, std::string(255, 'x').c_str(), COMM_MEM_TYPE_HOST, 12)});
    std::vector<PeerUserMemory> out;
    ASSERT_EQ(parse_peer_mems(payload, 2, out), "");
    ASSERT_EQ(out.size(), 2U);
    EXPECT_EQ(out[0].addr, 0x1000U);
    EXPECT_EQ(out[0].size, 4096U);
    EXPECT_EQ(out[0].rkey, 11U);
    EXPECT_EQ(out[0].tag, "in");
    EXPECT_EQ(out[1].type, COMM_MEM_TYPE_HOST);
    EXPECT_EQ(out[1].tag.size(), 255U);
    EXPECT_EQ(parse_peer_mems({}, 0, out), "");
    EXPECT_TRUE(out.empty());
}

TEST(PeerMems, MalformedListsAreRefusedWhole)
{
    std::vector<PeerUserMemory> out;
    const WireMem good = entry(0x1000, 4096, "in");
    // The count: above the bound (with as many entries as it says), or not matching the bytes.
    std::vector<WireMem> too_many(kMaxChannelMems + 1, good);
    EXPECT_NE(parse_peer_mems(bytes(too_many), kMaxChannelMems + 1, out), "");
    EXPECT_NE(parse_peer_mems(bytes({good}), 2, out), "") << "fewer bytes than the count says";
    EXPECT_NE(parse_peer_mems(bytes({good, good}), 1, out), "") << "more bytes than the count says";
    auto truncated = bytes({good});
    truncated.pop_back();
    EXPECT_NE(parse_peer_mems(truncated, 1, out), "");
    EXPECT_NE(parse_peer_mems(bytes({good}), UINT32_MAX, out), "");
    // An entry: unterminated or empty tag, empty or wrapping memory, unknown type.
    WireMem unterminated = good;
    std::memset(unterminated.tag, 'x', sizeof(unterminated.tag));
    const struct {
        const char *what;
        WireMem bad;
    } cases[] = {
        {"unterminated tag", unterminated},      {"empty tag", entry(0x1000, 4096, "")},
        {"size 0", entry(0x1000, 0, "t")},       {"wraps", entry(UINT64_MAX - 10, 12, "t")},
        {"type 2", entry(0x1000, 4096, "t", 2)}, {"type -1", entry(0x1000, 4096, "t", -1)},
    };
    for (const auto &c : cases) {
        EXPECT_NE(parse_peer_mems(bytes({good, c.bad}), 2, out), "") << c.what;
        EXPECT_TRUE(out.empty()) << c.what << ": nothing of a malformed list is kept";
    }
}
