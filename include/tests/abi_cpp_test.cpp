// The ABI from C++20: abi_expectations.h asserts the layout at compile time;
// these cases make the pinned facts visible in the test log and check that the
// C++-only spellings (typed constants) match the vendor's.
#include "abi_expectations.h"

#include <gtest/gtest.h>

#include <type_traits>

namespace {

TEST(HeaderAbi, ChannelDescriptorLayoutMatchesVendor)
{
    EXPECT_EQ(sizeof(HcclChannelDesc), 496U);
    EXPECT_EQ(offsetof(HcclChannelDesc, notifyNum), 344U);
    EXPECT_EQ(offsetof(HcclChannelDesc, raws), 364U);
}

TEST(HeaderAbi, ConstantsHaveTheVendorTypes)
{
    static_assert(std::is_same_v<decltype(HCCL_ROOT_INFO_BYTES), const uint32_t>);
    static_assert(std::is_same_v<decltype(HCCL_CHANNEL_MAGIC_WORD), const uint32_t>);
    static_assert(std::is_same_v<ChannelHandle, uint64_t>);
    static_assert(std::is_same_v<ThreadHandle, uint64_t>);
    static_assert(std::is_same_v<HcommResult, int32_t>);
    EXPECT_EQ(HCCL_ROOT_INFO_BYTES, 4108U);
}

TEST(HeaderAbi, DataPlaneFunctionsHaveVendorSignatures)
{
    // A mismatch in any parameter type fails to compile here.
    static_assert(std::is_same_v<decltype(&HcommWriteWithNotifyOnThread),
                                 int32_t (*)(ThreadHandle, ChannelHandle, void *, const void *, uint64_t, uint32_t)>);
    static_assert(std::is_same_v<decltype(&HcommChannelNotifyWaitOnThread),
                                 int32_t (*)(ThreadHandle, ChannelHandle, uint32_t, uint32_t)>);
    static_assert(
        std::is_same_v<decltype(&HcclChannelAcquire),
                       HcclResult (*)(HcclComm, CommEngine, const HcclChannelDesc *, uint32_t, ChannelHandle *)>);
    static_assert(std::is_same_v<decltype(&HcclThreadAcquire),
                                 HcclResult (*)(HcclComm, CommEngine, uint32_t, uint32_t, ThreadHandle *)>);
    static_assert(std::is_same_v<decltype(&HcommThreadJoin), HcclResult (*)(ThreadHandle, uint32_t)>);
    SUCCEED();
}

TEST(HeaderAbi, HostCallsOfCustomOperatorsHaveVendorSignatures)
{
    static_assert(std::is_same_v<decltype(&HcclGetCommName), HcclResult (*)(HcclComm, char *)>);
    static_assert(std::is_same_v<decltype(&HcclEngineCtxCopy),
                                 HcclResult (*)(HcclComm, CommEngine, const char *, const void *, uint64_t, uint64_t)>);
    static_assert(std::is_same_v<decltype(&HcclRankGraphGetLinks),
                                 HcclResult (*)(HcclComm, uint32_t, uint32_t, uint32_t, CommLink **, uint32_t *)>);
    static_assert(std::is_same_v<decltype(&HcclRankGraphGetLayers), HcclResult (*)(HcclComm, uint32_t **, uint32_t *)>);
    static_assert(std::is_same_v<decltype(&HcclRankGraphGetRanksByLayer),
                                 HcclResult (*)(HcclComm, uint32_t, uint32_t **, uint32_t *)>);
    static_assert(
        std::is_same_v<decltype(&HcclRankGraphGetRankSizeByLayer), HcclResult (*)(HcclComm, uint32_t, uint32_t *)>);
    static_assert(
        std::is_same_v<decltype(&HcclRankGraphGetTopoTypeByLayer), HcclResult (*)(HcclComm, uint32_t, CommTopo *)>);
    static_assert(std::is_same_v<decltype(&HcclRankGraphGetInstSizeListByLayer),
                                 HcclResult (*)(HcclComm, uint32_t, uint32_t **, uint32_t *)>);
    static_assert(std::is_same_v<decltype(&HcclGetHeterogMode), HcclResult (*)(HcclComm, HcclHeterogMode *)>);
    static_assert(std::is_same_v<decltype(&HcclDfxRegOpInfoByCommId), HcclResult (*)(char *, void *)>);
    static_assert(std::is_same_v<decltype(&HcclCommMemReg),
                                 HcclResult (*)(HcclComm, const char *, const CommMem *, HcclMemHandle *)>);
    static_assert(std::is_same_v<decltype(HCCL_RES_TAG_MAX_LEN), const uint32_t>);
    static_assert(std::is_same_v<decltype(COMM_LINK_MAGIC_WORD), const uint32_t>);
    static_assert(std::is_same_v<decltype(HCOMM_ALG_TAG_LENGTH), const uint32_t>);
    SUCCEED();
}

TEST(HeaderAbi, CommLinkInitAndDfxDefaultsMatchVendor)
{
    CommLink links[2];
    ASSERT_EQ(CommLinkInit(links, 2), HCCL_SUCCESS);
    for (const CommLink &l : links) {
        EXPECT_EQ(l.header.version, 1U);
        EXPECT_EQ(l.header.magicWord, 0x0f0e0f0fU);
        EXPECT_EQ(l.header.size, sizeof(CommLink));
        EXPECT_EQ(l.header.reserved, 0U);
        EXPECT_EQ(l.linkAttr.linkProtocol, COMM_PROTOCOL_RESERVED);
        EXPECT_EQ(l.linkAttr.hop, 1U);
        EXPECT_EQ(l.srcEndpointDesc.protocol, COMM_PROTOCOL_RESERVED);
        EXPECT_EQ(l.dstEndpointDesc.loc.locType, ENDPOINT_LOC_TYPE_RESERVED);
        EXPECT_EQ(l.linkAttr.raws[127], 0xFF);
    }
    EXPECT_EQ(CommLinkInit(nullptr, 1), HCCL_E_PTR);
    // The vendor's default member initialisers (its operators rely on them).
    HcclDfxOpInfo info; // default-initialised: the member initialisers apply
    EXPECT_EQ(info.beginTime, 0U);
    EXPECT_EQ(info.root, ~0U);
    EXPECT_EQ(info.engine, COMM_ENGINE_RESERVED);
    EXPECT_EQ(info.cpuWaitAicpuNotifyIdx, ~0U);
    EXPECT_EQ(info.cpuWaitAicpuNotifyId, ~0U);
}

} // namespace
