// HcclChannelDescInit, field by field: the header's inline initialiser must
// prepare descriptors exactly as the vendor's does (hcomm-api.md §4.4).
#include "hccl/hccl_channel.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace {

bool all_bytes(const void *p, std::size_t n, uint8_t value)
{
    const auto *bytes = static_cast<const uint8_t *>(p);
    for (std::size_t i = 0; i < n; ++i) {
        if (bytes[i] != value) {
            return false;
        }
    }
    return true;
}

void expect_endpoint_reset(const EndpointDesc &ep)
{
    EXPECT_EQ(ep.protocol, COMM_PROTOCOL_RESERVED);
    EXPECT_EQ(ep.commAddr.type, COMM_ADDR_TYPE_RESERVED);
    EXPECT_TRUE(all_bytes(ep.commAddr.raws, sizeof(ep.commAddr.raws), 0xFF));
    EXPECT_EQ(ep.loc.locType, ENDPOINT_LOC_TYPE_RESERVED);
    EXPECT_TRUE(all_bytes(ep.loc.raws, sizeof(ep.loc.raws), 0xFF));
    EXPECT_TRUE(all_bytes(ep.raws, sizeof(ep.raws), 0xFF));
}

void expect_initialised(const HcclChannelDesc &d)
{
    EXPECT_EQ(d.header.version, 1U);
    EXPECT_EQ(d.header.magicWord, 0x0f0f0f0fU);
    EXPECT_EQ(d.header.size, 496U);
    EXPECT_EQ(d.header.reserved, 0U);
    EXPECT_EQ(d.remoteRank, ~0U);
    EXPECT_EQ(d.channelProtocol, COMM_PROTOCOL_RESERVED);
    expect_endpoint_reset(d.localEndpoint);
    expect_endpoint_reset(d.remoteEndpoint);
    EXPECT_EQ(d.notifyNum, 0U);
    EXPECT_EQ(d.memHandles, nullptr);
    EXPECT_EQ(d.memHandleNum, 0U);
    EXPECT_TRUE(all_bytes(d.raws, sizeof(d.raws), 0xFF));
    // Padding after notifyNum keeps the 0xFF fill, as the vendor's memset leaves it.
    EXPECT_TRUE(all_bytes(reinterpret_cast<const uint8_t *>(&d) + 348, 4, 0xFF));
    EXPECT_TRUE(all_bytes(reinterpret_cast<const uint8_t *>(&d) + 492, 4, 0xFF));
}

TEST(HcclChannelDescInit, OneDescriptorFieldByField)
{
    HcclChannelDesc desc{};
    ASSERT_EQ(HcclChannelDescInit(&desc, 1), HCCL_SUCCESS);
    expect_initialised(desc);
}

TEST(HcclChannelDescInit, SeveralDescriptorsEachInitialised)
{
    std::vector<HcclChannelDesc> descs(5);
    for (auto &d : descs) {
        std::memset(&d, 0x5A, sizeof(d));
    }
    ASSERT_EQ(HcclChannelDescInit(descs.data(), 5), HCCL_SUCCESS);
    for (std::size_t i = 0; i < descs.size(); ++i) {
        SCOPED_TRACE("descriptor " + std::to_string(i));
        expect_initialised(descs[i]);
    }
}

TEST(HcclChannelDescInit, TouchesOnlyTheDescriptorsAskedFor)
{
    std::vector<HcclChannelDesc> descs(3);
    std::memset(descs.data(), 0x5A, sizeof(HcclChannelDesc) * descs.size());
    ASSERT_EQ(HcclChannelDescInit(descs.data(), 2), HCCL_SUCCESS);
    expect_initialised(descs[1]);
    EXPECT_TRUE(all_bytes(&descs[2], sizeof(HcclChannelDesc), 0x5A));
}

TEST(HcclChannelDescInit, NullIsRejectedWithPtrError)
{
    EXPECT_EQ(HcclChannelDescInit(nullptr, 1), HCCL_E_PTR);
    EXPECT_EQ(HcclChannelDescInit(nullptr, 0), HCCL_E_PTR);
}

TEST(HcclChannelDescInit, ZeroCountSucceedsAndWritesNothing)
{
    HcclChannelDesc desc;
    std::memset(&desc, 0x5A, sizeof(desc));
    EXPECT_EQ(HcclChannelDescInit(&desc, 0), HCCL_SUCCESS);
    EXPECT_TRUE(all_bytes(&desc, sizeof(desc), 0x5A));
}

// The vendor's signature and loop: `num` endpoints, each reset; NULL with a count is
// HCCL_E_PTR (2), a zero count touches nothing and succeeds.
TEST(EndpointDescInit, ResetsEveryEndpointOfTheList)
{
    EndpointDesc eps[3];
    std::memset(eps, 0x5A, sizeof(eps));
    const HcommResult rc = EndpointDescInit(eps, 3);
    ASSERT_EQ(rc, 0);
    for (const auto &ep : eps)
        expect_endpoint_reset(ep);
}

TEST(EndpointDescInit, NullAndZeroCount)
{
    EXPECT_EQ(EndpointDescInit(nullptr, 1), 2);
    EXPECT_EQ(EndpointDescInit(nullptr, 0), 0);
    EndpointDesc ep;
    std::memset(&ep, 0x5A, sizeof(ep));
    EXPECT_EQ(EndpointDescInit(&ep, 0), 0);
    EXPECT_TRUE(all_bytes(&ep, sizeof(ep), 0x5A));
}

TEST(ThreadConfigInit, StampsEveryConfiguration)
{
    ThreadConfig configs[3];
    std::memset(configs, 0x5A, sizeof(configs));
    ASSERT_EQ(ThreadConfigInit(configs, 3), 0);
    for (const auto &c : configs) {
        EXPECT_EQ(c.header.version, 1U);
        EXPECT_EQ(c.header.magicWord, 0x0f0f0f2fU);
        EXPECT_EQ(c.header.size, 32U);
        EXPECT_EQ(c.notifyNumPerThread, 0U);
    }
    EXPECT_EQ(ThreadConfigInit(nullptr, 1), 2);
}

} // namespace
