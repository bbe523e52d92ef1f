// The rest of the API surface on a live channel: batches of every entry type,
// default-timeout waits, exported threads, partial stats, and the host-side and
// legacy-product calls (run under HCOMM_REF_PRODUCT=ascend950 / a2 variants).
#include <string>

#include "hccl/hccl_res_expt.h"
#include "verbs_job.h"

using namespace hcts_test;

namespace {

std::string product() { return HcommRefProductName(); }

// Two ranks of a product variant, meshed over RoCE from a host engine.
class HostMesh : public ::testing::Test {
  protected:
    HostMesh(const char *want_product, CommEngine engine) : want_product_(want_product), engine_(engine) {}
    void SetUp() override
    {
        ASSERT_EQ(product(), want_product_) << "run under HCOMM_REF_PRODUCT=" << want_product_;
        ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
        ASSERT_EQ(build_mesh(job, mesh, 2, engine_, COMM_PROTOCOL_ROCE), HCCL_SUCCESS);
        b0 = buffer_of(job[0]).base;
        b1 = buffer_of(job[1]).base;
    }
    Job job{2};
    Mesh mesh;
    uint8_t *b0 = nullptr;
    uint8_t *b1 = nullptr;

  private:
    const char *want_product_;
    CommEngine engine_;
};

// HCOMM_REF_PRODUCT=ascend950: the host CPU engine over RoCE.
class Host950 : public HostMesh {
  protected:
    Host950() : HostMesh("ascend950", COMM_ENGINE_CPU) {}
};

// HCOMM_REF_PRODUCT=a2: CPU_TS on the host over RoCE; no WWN, drain yes.
class LegacyA2 : public HostMesh {
  protected:
    LegacyA2() : HostMesh("a2", COMM_ENGINE_CPU_TS) {}
};

} // namespace

TEST(Api, BatchOfEveryEntryTypeAndDefaultTimeoutWait)
{
    if (product() != "atlas350" && product() != "ascend950") {
        GTEST_FAIL() << "run this case under a 950 profile (filtered out elsewhere)";
    }
    Job job(2);
    ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
    Mesh mesh;
    ASSERT_EQ(build_mesh(job, mesh), HCCL_SUCCESS);
    uint8_t *b0 = buffer_of(job[0]).base;
    uint8_t *b1 = buffer_of(job[1]).base;
    int32_t x[64];
    int32_t y[64];
    for (int i = 0; i < 64; ++i) {
        x[i] = i;
        y[i] = 100 * i;
    }
    std::memcpy(b0, x, sizeof(x));
    std::memcpy(b1 + 4096, y, sizeof(y));
    std::memcpy(b1 + 8192, y, sizeof(y));
    std::memcpy(b0 + 12288, x, sizeof(x));
    fill_stamped(b1 + 16384, 777, 8, 8, 1);
    HcommBatchTransferDesc d[5] = {};
    d[0].transType = HCOMM_TRANSFER_TYPE_WRITE_REDUCE; // b1[4096] += b0[0]
    d[0].transferInfo.reduce = {64, b1 + 4096, b0, HCOMM_REDUCE_SUM, HCOMM_DATA_TYPE_INT32};
    d[1].transType = HCOMM_TRANSFER_TYPE_READ; // b0[20000] = b1[16384]
    d[1].transferInfo.read = {777, b0 + 20000, b1 + 16384};
    d[2].transType = HCOMM_TRANSFER_TYPE_READ_REDUCE; // b0[12288] += b1[8192]
    d[2].transferInfo.reduce = {64, b0 + 12288, b1 + 8192, HCOMM_REDUCE_SUM, HCOMM_DATA_TYPE_INT32};
    d[3].transType = HCOMM_TRANSFER_TYPE_WRITE_REDUCE_WITH_NOTIFY; // b1[8192] max= b0[0], notify 2
    d[3].transferInfo.writeReduceWithNotify = {64, b1 + 8192, b0, HCOMM_REDUCE_MAX, HCOMM_DATA_TYPE_INT32, 2};
    d[4].transType = HCOMM_TRANSFER_TYPE_NOTIFY_RECORD;
    d[4].transferInfo.notifyRecord.notifyIdx = 3;
    std::vector<Program> programs(2);
    programs[0] = [&] {
        return static_cast<uint32_t>(HcommBatchTransferOnThread(mesh.thread[0], mesh.channel[0][1], d, 5));
    };
    programs[1] = [&] {
        int32_t rc = HcommChannelNotifyWaitOnThreadWithDefaultTimeout(mesh.thread[1], mesh.channel[1][0], 2);
        rc |= HcommChannelNotifyWaitOnThread(mesh.thread[1], mesh.channel[1][0], 3, 20);
        return static_cast<uint32_t>(rc);
    };
    const auto r = launch_all(job, programs);
    ASSERT_EQ(r[0].programReturn, 0U);
    ASSERT_EQ(r[0].taskError, 0);
    ASSERT_EQ(r[1].taskError, 0);
    for (int i = 0; i < 64; ++i) {
        ASSERT_EQ(reinterpret_cast<int32_t *>(b1 + 4096)[i], x[i] + y[i]);
        ASSERT_EQ(reinterpret_cast<int32_t *>(b0 + 12288)[i], x[i] + y[i]);
        ASSERT_EQ(reinterpret_cast<int32_t *>(b1 + 8192)[i], std::max(x[i], y[i]));
    }
    EXPECT_EQ(first_bad_stamp(b0 + 20000, 777, 8, 8, 1), 777U);
    EXPECT_EQ(stats(job[1]).notifiesConsumed, 2U);
    EXPECT_EQ(stats(job[0]).notifiesRaised, 2U);
}

TEST(Api, ExportedThreadSharesTheQueueAndNotifies)
{
    Job job(1);
    ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
    const ThreadHandle host = acquire_thread(job[0], COMM_ENGINE_CPU_TS, 1);
    const ThreadHandle device = acquire_thread(job[0], COMM_ENGINE_AICPU_TS, 1);
    ThreadHandle exported = 0x77;
    EXPECT_EQ(HcclThreadExportToCommEngine(job[0], 1, nullptr, COMM_ENGINE_AICPU_TS, &exported), HCCL_E_PTR);
    EXPECT_EQ(HcclThreadExportToCommEngine(job[0], 0, &host, COMM_ENGINE_AICPU_TS, &exported), HCCL_E_PARA);
    EXPECT_EQ(HcclThreadExportToCommEngine(job[0], 1, &host, COMM_ENGINE_AIV, &exported), HCCL_E_PARA);
    const ThreadHandle bogus = 42;
    EXPECT_EQ(HcclThreadExportToCommEngine(job[0], 1, &bogus, COMM_ENGINE_AICPU_TS, &exported), HCCL_E_PARA);
    EXPECT_EQ(exported, 0x77U);
    ASSERT_EQ(HcclThreadExportToCommEngine(job[0], 1, &host, COMM_ENGINE_AICPU_TS, &exported), HCCL_SUCCESS);
    EXPECT_NE(exported, host);
    // The host thread waits for a record the device program sends to its export.
    ASSERT_EQ(HcommThreadNotifyWaitOnThread(host, 0, 20), HCCL_SUCCESS);
    const auto r =
        launch(job[0], [&] { return static_cast<uint32_t>(HcommThreadNotifyRecordOnThread(device, exported, 0)); });
    EXPECT_EQ(r.taskError, 0);
    EXPECT_EQ(HcommThreadJoin(host, 20), HCCL_SUCCESS);
    EXPECT_EQ(stats(job[0]).notifiesConsumed, 1U);
}

TEST(Api, StatsWritesOnlyWhatTheCallerSized)
{
    Job job(1);
    ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
    HcommRefStats s;
    std::memset(&s, 0xAB, sizeof(s));
    s.size = 16; // version, size, bytesWritten
    ASSERT_EQ(HcommRefGetStats(job[0], &s), HCCL_SUCCESS);
    EXPECT_EQ(s.version, HCOMM_REF_ABI_VERSION);
    EXPECT_EQ(s.size, 16U);
    EXPECT_EQ(s.bytesWritten, 0U);
    EXPECT_EQ(s.bytesRead, 0xABABABABABABABABULL) << "beyond the caller's size: untouched";
    s.size = 4;
    EXPECT_EQ(HcommRefGetStats(job[0], &s), HCCL_E_PARA);
    EXPECT_EQ(HcommRefGetStats(job[0], nullptr), HCCL_E_PTR);
}

TEST_F(Host950, NbiOnThreadAndFences)
{
    fill_stamped(b0, 5000, 2, 2, 0);
    EXPECT_EQ(HcommWriteWithNotifyNbiOnThread(mesh.thread[0], mesh.channel[0][1], b1 + 65536, b0, 5000, 1),
              HCCL_SUCCESS);
    EXPECT_EQ(HcommFenceOnThread(mesh.thread[0]), HCCL_SUCCESS);
    EXPECT_EQ(HcommChannelFence(mesh.channel[0][1]), HCCL_SUCCESS);
    EXPECT_EQ(HcommChannelNotifyWaitOnThread(mesh.thread[1], mesh.channel[1][0], 1, 20), HCCL_SUCCESS);
    EXPECT_EQ(HcommReadNbiOnThread(mesh.thread[1], mesh.channel[1][0], b1 + 131072, b0, 5000), HCCL_SUCCESS);
    EXPECT_EQ(HcommThreadJoin(mesh.thread[0], 20), HCCL_SUCCESS);
    EXPECT_EQ(HcommThreadJoin(mesh.thread[1], 20), HCCL_SUCCESS);
    EXPECT_EQ(first_bad_stamp(b1 + 65536, 5000, 2, 2, 0), 5000U);
    EXPECT_EQ(first_bad_stamp(b1 + 131072, 5000, 2, 2, 0), 5000U);
    std::vector<int32_t> codes;
    launch(job[0], [&] {
        codes.push_back(HcommFenceOnThread(mesh.thread[0]));
        codes.push_back(HcommWriteNbiOnThread(mesh.thread[0], mesh.channel[0][1], b1, b0, 8));
        return 0U;
    });
    EXPECT_EQ(codes, std::vector<int32_t>(2, HCCL_E_NOT_SUPPORT)) << "host CPU engine calls from a device program";
}

// Channels are reused by (comm, engine, remoteRank, protocol) (api §7.7): on a product whose
// host and device engines both reach the peer over RoCE, the device engine's channel is one
// of its own, and asking on the host engine again gives the host's channel back.
TEST_F(Host950, ChannelsAreKeptPerEngine)
{
    Mesh device;
    ASSERT_EQ(build_mesh(job, device, 4, COMM_ENGINE_AICPU_TS, COMM_PROTOCOL_ROCE), HCCL_SUCCESS);
    Mesh host_again; // with the notify count the fixture's CPU channels were made with
    ASSERT_EQ(build_mesh(job, host_again, 2, COMM_ENGINE_CPU, COMM_PROTOCOL_ROCE), HCCL_SUCCESS);
    for (int r = 0; r < 2; ++r) {
        const int p = 1 - r;
        EXPECT_NE(device.channel[r][p], mesh.channel[r][p]) << "rank " << r << ": AICPU_TS got the CPU channel";
        EXPECT_EQ(host_again.channel[r][p], mesh.channel[r][p]) << "rank " << r << ": CPU's channel not reused";
    }
    // The device channel carries the device thread's write with notify.
    fill_stamped(b0, 4096, 3, 3, 0);
    std::vector<Program> programs(2);
    programs[0] = [&] {
        return static_cast<uint32_t>(
            HcommWriteWithNotifyOnThread(device.thread[0], device.channel[0][1], b1 + 262144, b0, 4096, 2));
    };
    programs[1] = [&] {
        return static_cast<uint32_t>(HcommChannelNotifyWaitOnThread(device.thread[1], device.channel[1][0], 2, 20));
    };
    const auto r = launch_all(job, programs);
    ASSERT_EQ(r[0].programReturn, 0U);
    ASSERT_EQ(r[1].programReturn, 0U);
    ASSERT_EQ(r[0].taskError, 0);
    ASSERT_EQ(r[1].taskError, 0);
    EXPECT_EQ(first_bad_stamp(b1 + 262144, 4096, 3, 3, 0), 4096U);
}

TEST_F(LegacyA2, HostTransfersDrainAndNoWriteWithNotify)
{
    fill_stamped(b0, 3000, 1, 1, 0);
    std::memset(b1, 0xEE, 3000);
    EXPECT_EQ(HcommWriteWithNotifyOnThread(mesh.thread[0], mesh.channel[0][1], b1, b0, 3000, 0), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcommWriteReduceWithNotifyOnThread(mesh.thread[0], mesh.channel[0][1], b1, b0, 8, HCOMM_DATA_TYPE_INT8,
                                                 HCOMM_REDUCE_SUM, 0),
              HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcommThreadJoin(mesh.thread[0], 20), HCCL_SUCCESS);
    EXPECT_EQ(b1[0], 0xEE) << "an unsupported call moved data";
    EXPECT_EQ(HcommWriteOnThread(mesh.thread[0], mesh.channel[0][1], b1, b0, 3000), HCCL_SUCCESS);
    EXPECT_EQ(HcommChannelDrainOnThread(mesh.thread[0], mesh.channel[0][1]), HCCL_SUCCESS);
    EXPECT_EQ(HcommChannelNotifyRecordOnThread(mesh.thread[0], mesh.channel[0][1], 1), HCCL_SUCCESS);
    EXPECT_EQ(HcommChannelNotifyWaitOnThread(mesh.thread[1], mesh.channel[1][0], 1, 20), HCCL_SUCCESS);
    EXPECT_EQ(HcommLocalCopyOnThread(mesh.thread[1], b1 + 8192, b1, 3000), HCCL_SUCCESS);
    EXPECT_EQ(HcommThreadJoin(mesh.thread[0], 20), HCCL_SUCCESS);
    EXPECT_EQ(HcommThreadJoin(mesh.thread[1], 20), HCCL_SUCCESS);
    EXPECT_EQ(first_bad_stamp(b1 + 8192, 3000, 1, 1, 0), 3000U);
    EXPECT_EQ(HcommChannelFenceOnThread(mesh.thread[0], mesh.channel[0][1]), HCCL_E_NOT_SUPPORT);
}
