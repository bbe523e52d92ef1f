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

} // namespace
