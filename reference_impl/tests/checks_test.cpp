// Input checks that come before any verbs resource exists: the order
// HCCL_E_PTR -> HCCL_E_NOT_SUPPORT -> HCCL_E_PARA, the product profile, and
// channel descriptors. Runs with whatever HCOMM_REF_PRODUCT the ctest case sets.
#include <string>

#include "job.h"

using namespace hcts_test;

namespace {

// A handle that was never given out: handles are looked up, never dereferenced.
constexpr ChannelHandle kMadeUpChannel = 0x4348000000abcdefULL;

bool atlas350() { return std::string(HcommRefProductName()) == "atlas350"; }
bool ascend950() { return std::string(HcommRefProductName()) == "ascend950"; }

class Checks : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_EQ(job.init_result(), HCCL_SUCCESS); }
    Job job{2};
};

} // namespace

TEST_F(Checks, WriteWithNotifyOrderOfChecks)
{
    Buffer b = buffer_of(job[0]);
    const bool device_thread_ok = atlas350() || ascend950() || std::string(HcommRefProductName()) == "a3";
    const ThreadHandle t = device_thread_ok ? acquire_thread(job[0], COMM_ENGINE_AICPU_TS) : 0;
    std::vector<int32_t> codes;
    auto calls = [&](ThreadHandle thread) {
        codes.push_back(HcommWriteWithNotifyOnThread(thread, kMadeUpChannel, nullptr, b.base, 8, 0));
        codes.push_back(HcommWriteWithNotifyOnThread(thread, kMadeUpChannel, b.base, nullptr, 8, 0));
        codes.push_back(HcommWriteWithNotifyOnThread(thread, 0, b.base, b.base, 8, 0));
        codes.push_back(HcommWriteWithNotifyOnThread(0, kMadeUpChannel, b.base, b.base, 8, 0));
        // Support before parameters: a made-up channel and len 0 still yield NOT_SUPPORT
        // where the call is unsupported, PARA where it is.
        codes.push_back(HcommWriteWithNotifyOnThread(thread == 0 ? 77 : thread, kMadeUpChannel, b.base, b.base, 0, 99));
    };
    calls(t); // from the host: never supported
    EXPECT_EQ(codes, (std::vector<int32_t>{HCCL_E_PTR, HCCL_E_PTR, HCCL_E_PTR, HCCL_E_PTR, HCCL_E_NOT_SUPPORT}));
    codes.clear();
    if (t != 0) {
        launch(job[0], [&] {
            calls(t);
            return 0U;
        });
        const int32_t last = (atlas350() || ascend950()) ? HCCL_E_PARA : HCCL_E_NOT_SUPPORT;
        EXPECT_EQ(codes, (std::vector<int32_t>{HCCL_E_PTR, HCCL_E_PTR, HCCL_E_PTR, HCCL_E_PTR, last}))
            << "device side, AICPU_TS thread, product " << HcommRefProductName();
    }
    // A host-side engine's thread on the device: not supported (WWN needs AICPU_TS).
    const ThreadHandle host_thread = acquire_thread(job[0], COMM_ENGINE_CPU_TS);
    codes.clear();
    launch(job[0], [&] {
        codes.push_back(HcommWriteWithNotifyOnThread(host_thread, kMadeUpChannel, b.base, b.base, 8, 0));
        codes.push_back(HcommWriteReduceWithNotifyOnThread(host_thread, kMadeUpChannel, b.base, b.base, 1,
                                                           HCOMM_DATA_TYPE_INT8, HCOMM_REDUCE_SUM, 0));
        return 0U;
    });
    EXPECT_EQ(codes, (std::vector<int32_t>{HCCL_E_NOT_SUPPORT, HCCL_E_NOT_SUPPORT}));
}

TEST_F(Checks, ProductMatrix)
{
    // The calls a product lacks are refused before their handles are even looked at.
    const bool is950 = atlas350() || ascend950();
    Buffer b = buffer_of(job[0]);
    const ThreadHandle host_thread = acquire_thread(job[0], COMM_ENGINE_CPU_TS);
    EXPECT_EQ(HcommAclrtNotifyRecordOnThread(host_thread, 5), is950 ? HCCL_E_NOT_SUPPORT : HCCL_SUCCESS);
    EXPECT_EQ(HcommChannelDrainOnThread(host_thread, kMadeUpChannel), is950 ? HCCL_E_NOT_SUPPORT : HCCL_E_PARA);
    EXPECT_EQ(HcommChannelFenceOnThread(host_thread, kMadeUpChannel), is950 ? HCCL_E_PARA : HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcommWriteWithNotifyNbi(kMadeUpChannel, b.base, b.base, 8, 0),
              ascend950() ? HCCL_E_PARA : HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcommWriteNbi(kMadeUpChannel, b.base, b.base, 8), ascend950() ? HCCL_E_PARA : HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcommReadNbi(kMadeUpChannel, b.base, b.base, 8), ascend950() ? HCCL_E_PARA : HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcommChannelNotifyRecord(kMadeUpChannel, 0), HCCL_E_PARA);
    EXPECT_EQ(HcommWriteNbi(0, b.base, b.base, 8), HCCL_E_PTR);
    if (!is950) {
        EXPECT_EQ(HcommAclrtNotifyWaitOnThread(host_thread, 5, 5), HCCL_SUCCESS);
        EXPECT_EQ(HcommThreadJoin(host_thread, 10), HCCL_SUCCESS) << "record then wait on ACL notify 5";
    }
    std::vector<int32_t> codes;
    launch(job[0], [&] {
        codes.push_back(HcommChannelNotifyRecord(kMadeUpChannel, 0));
        codes.push_back(HcommChannelNotifyWait(kMadeUpChannel, 0, 1));
        codes.push_back(HcommChannelFence(kMadeUpChannel));
        codes.push_back(HcommWriteNbi(kMadeUpChannel, b.base, b.base, 8));
        return 0U;
    });
    EXPECT_EQ(codes, std::vector<int32_t>(4, HCCL_E_NOT_SUPPORT)) << "host-only calls from a device program";
}

TEST_F(Checks, ChannelAcquireRejections)
{
    const CommEngine engine = atlas350() || ascend950() || std::string(HcommRefProductName()) == "a3"
                                  ? COMM_ENGINE_AICPU_TS
                                  : COMM_ENGINE_CPU_TS;
    const CommProtocol good = atlas350() || ascend950() ? COMM_PROTOCOL_UB_CTP : COMM_PROTOCOL_ROCE;
    HcclChannelDesc desc;
    ASSERT_EQ(HcclChannelDescInit(&desc, 1), HCCL_SUCCESS);
    desc.remoteRank = 1;
    desc.channelProtocol = good;
    desc.notifyNum = 2;
    ChannelHandle ch = 0x5151;
    auto with = [&](auto change) {
        HcclChannelDesc d = desc;
        change(d);
        return HcclChannelAcquire(job[0], engine, &d, 1, &ch);
    };
    EXPECT_EQ(HcclChannelAcquire(nullptr, engine, &desc, 1, &ch), HCCL_E_PTR);
    EXPECT_EQ(HcclChannelAcquire(job[0], engine, nullptr, 1, &ch), HCCL_E_PTR);
    EXPECT_EQ(HcclChannelAcquire(job[0], engine, &desc, 1, nullptr), HCCL_E_PTR);
    EXPECT_EQ(HcclChannelAcquire(job[0], engine, &desc, 0, &ch), HCCL_E_PARA);
    EXPECT_EQ(HcclChannelAcquire(job[0], static_cast<CommEngine>(17), &desc, 1, &ch), HCCL_E_PARA);
    EXPECT_EQ(with([](HcclChannelDesc &d) { d.header.magicWord = 0; }), HCCL_E_PARA);
    EXPECT_EQ(with([](HcclChannelDesc &d) { d.header.size = 495; }), HCCL_E_PARA);
    EXPECT_EQ(with([](HcclChannelDesc &d) { d.channelProtocol = COMM_PROTOCOL_RESERVED; }), HCCL_E_PARA)
        << "the documented example leaves the protocol unset: refused";
    EXPECT_EQ(with([](HcclChannelDesc &d) { d.notifyNum = 65; }), HCCL_E_PARA);
    EXPECT_EQ(with([](HcclChannelDesc &d) { d.remoteRank = 0; }), HCCL_E_PARA) << "own rank";
    EXPECT_EQ(with([](HcclChannelDesc &d) { d.remoteRank = 2; }), HCCL_E_PARA) << "beyond the comm";
    EXPECT_EQ(with([](HcclChannelDesc &d) { d.remoteRank = ~0U; }), HCCL_E_PARA) << "Init's default";
    if (atlas350()) {
        EXPECT_EQ(with([](HcclChannelDesc &d) { d.channelProtocol = COMM_PROTOCOL_ROCE; }), HCCL_E_NOT_SUPPORT)
            << "Atlas 350 refuses RoCE on AICPU_TS";
        EXPECT_EQ(with([](HcclChannelDesc &d) { d.channelProtocol = COMM_PROTOCOL_HCCS; }), HCCL_E_NOT_SUPPORT);
        EXPECT_EQ(HcclChannelAcquire(job[0], COMM_ENGINE_CPU, &desc, 1, &ch), HCCL_E_NOT_SUPPORT);
        // NOT_SUPPORT outranks PARA: an unsupported protocol with a bad notifyNum.
        EXPECT_EQ(with([](HcclChannelDesc &d) {
                      d.channelProtocol = COMM_PROTOCOL_ROCE;
                      d.notifyNum = 99;
                  }),
                  HCCL_E_NOT_SUPPORT);
    }
    std::vector<int32_t> codes;
    launch(job[0], [&] {
        codes.push_back(HcclChannelAcquire(job[0], engine, &desc, 1, &ch));
        return 0U;
    });
    EXPECT_EQ(codes, std::vector<int32_t>{HCCL_E_NOT_SUPPORT}) << "channels are acquired on the host";
    EXPECT_EQ(ch, 0x5151U) << "no refused call wrote a handle";

    const ChannelHandle made_up[2] = {kMadeUpChannel, kMadeUpChannel};
    EXPECT_EQ(HcclChannelDestroy(nullptr, made_up, 1), HCCL_E_PTR);
    EXPECT_EQ(HcclChannelDestroy(job[0], made_up, 1), HCCL_E_NOT_FOUND);
    EXPECT_EQ(HcclChannelDestroy(job[0], made_up, 0), HCCL_E_PARA);
    EXPECT_EQ(HcclChannelDestroy(job[0], made_up, 2), HCCL_E_PARA);
    void *p = nullptr;
    uint64_t size = 0;
    EXPECT_EQ(HcclChannelGetHcclBuffer(job[0], 0, &p, &size), HCCL_E_PTR);
    EXPECT_EQ(HcclChannelGetHcclBuffer(job[0], kMadeUpChannel, &p, &size), HCCL_E_PARA);
    uint32_t num = 0;
    CommMem *mems = nullptr;
    char **tags = nullptr;
    EXPECT_EQ(HcclChannelGetRemoteMems(job[0], kMadeUpChannel, &num, &mems, nullptr), HCCL_E_PTR);
    EXPECT_EQ(HcclChannelGetRemoteMems(job[0], kMadeUpChannel, &num, &mems, &tags), HCCL_E_PARA);
}

TEST_F(Checks, ForeignThreadInADeviceProgram)
{
    if (!atlas350() && !ascend950() && std::string(HcommRefProductName()) != "a3") {
        ThreadHandle t = 0;
        EXPECT_EQ(HcclThreadAcquire(job[0], COMM_ENGINE_AICPU_TS, 1, 1, &t), HCCL_E_NOT_SUPPORT)
            << "product " << HcommRefProductName() << " has no AICPU_TS engine";
        return;
    }
    // A thread of rank 1's comm used in rank 0's device program.
    const ThreadHandle other = acquire_thread(job[1], COMM_ENGINE_AICPU_TS);
    Buffer b = buffer_of(job[0]);
    int32_t rc = 0;
    launch(job[0], [&] {
        rc = HcommLocalCopyOnThread(other, b.base + 64, b.base, 8);
        return 0U;
    });
    EXPECT_EQ(rc, HCCL_E_PARA);
}

TEST_F(Checks, BatchWithANotifyWriteFollowsItsSupportRule)
{
    Buffer b = buffer_of(job[0]);
    const ThreadHandle t = acquire_thread(job[0], COMM_ENGINE_CPU_TS);
    HcommBatchTransferDesc d[1] = {};
    d[0].transType = HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY;
    d[0].transferInfo.writeWithNotify = {8, b.base, b.base, 0};
    // From the host on a CPU_TS thread: never supported, whatever the (made-up) channel.
    EXPECT_EQ(HcommBatchTransferOnThread(t, kMadeUpChannel, d, 1), HCCL_E_NOT_SUPPORT);
    d[0].transType = HCOMM_TRANSFER_TYPE_WRITE;
    EXPECT_EQ(HcommBatchTransferOnThread(t, kMadeUpChannel, d, 1), HCCL_E_PARA) << "plain writes are supported here";
    EXPECT_EQ(HcommBatchTransferOnThread(t, kMadeUpChannel, nullptr, 1), HCCL_E_PTR);
}
