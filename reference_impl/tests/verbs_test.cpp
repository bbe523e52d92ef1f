// The verbs data path on softverbs: write with notify and its relatives, data
// verified with stamped payloads and guard zones, rejections without side
// effects, 2..8 ranks, segmentation. SOFTVERBS_SEED (adversarial placement) and
// SOFTVERBS_TRANSPORT select how softverbs moves the bytes; HCOMM_REF_MAX_WRITE
// makes the segmentation boundary small.
#include <cstdlib>
#include <random>

#include "verbs_job.h"

using namespace hcts_test;

namespace {

uint32_t run_id()
{
    const char *seed = std::getenv("SOFTVERBS_SEED");
    return seed != nullptr ? static_cast<uint32_t>(std::strtoul(seed, nullptr, 10)) : 0;
}

void report_environment()
{
    const char *seed = std::getenv("SOFTVERBS_SEED");
    const char *transport = std::getenv("SOFTVERBS_TRANSPORT");
    const char *cap = std::getenv("HCOMM_REF_MAX_WRITE");
    std::printf("reproduce: SOFTVERBS_SEED=%s SOFTVERBS_TRANSPORT=%s HCOMM_REF_MAX_WRITE=%s HCCL_BUFFSIZE=8 "
                "LD_LIBRARY_PATH=<build>/lib/softverbs %s\n",
                seed ? seed : "", transport ? transport : "auto", cap ? cap : "", "reference_verbs");
}

class Pair : public ::testing::Test {
  protected:
    static void SetUpTestSuite() { report_environment(); }
    void SetUp() override
    {
        ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
        ASSERT_EQ(build_mesh(job, mesh), HCCL_SUCCESS);
        for (int r = 0; r < 2; ++r)
            buf[r] = buffer_of(job[r]);
    }
    Job job{2};
    Mesh mesh;
    Buffer buf[2];
};

// Rank `from` writes [src_off, +len) of its buffer to [dst_off, +len) of rank
// `to` with notify `idx`; rank `to` waits, then snapshots the destination into
// `snap_off` on its thread, so the snapshot shows what the wait guaranteed.
struct Transfer {
    uint64_t src_off, dst_off, snap_off, len;
    uint32_t idx;
};

std::vector<HcommRefLaunchResult> write_wait_snapshot(const Job &job, const Mesh &mesh, const Buffer *buf, int from,
                                                      int to, const Transfer &t)
{
    std::vector<Program> programs(job.size(), [] { return 0U; });
    programs[from] = [&] {
        return static_cast<uint32_t>(HcommWriteWithNotifyOnThread(mesh.thread[from], mesh.channel[from][to],
                                                                  buf[to].base + t.dst_off, buf[from].base + t.src_off,
                                                                  t.len, t.idx));
    };
    programs[to] = [&] {
        int32_t rc = HcommChannelNotifyWaitOnThread(mesh.thread[to], mesh.channel[to][from], t.idx, 20);
        rc |= HcommLocalCopyOnThread(mesh.thread[to], buf[to].base + t.snap_off, buf[to].base + t.dst_off, t.len);
        return static_cast<uint32_t>(rc);
    };
    return launch_all(job, programs);
}

} // namespace

TEST_F(Pair, ChannelSeesThePeersMemory)
{
    void *remote = nullptr;
    uint64_t size = 0;
    ASSERT_EQ(HcclChannelGetHcclBuffer(job[0], mesh.channel[0][1], &remote, &size), HCCL_SUCCESS);
    EXPECT_EQ(remote, buf[1].base);
    EXPECT_EQ(size, buf[1].size);
    uint32_t num = 0;
    CommMem *mems = nullptr;
    char **tags = nullptr;
    ASSERT_EQ(HcclChannelGetRemoteMems(job[1], mesh.channel[1][0], &num, &mems, &tags), HCCL_SUCCESS);
    ASSERT_EQ(num, 1U);
    EXPECT_EQ(mems[0].addr, buf[0].base);
    EXPECT_EQ(mems[0].size, buf[0].size);
    EXPECT_STREQ(tags[0], "HcclBuffer");
    // Acquiring the same (engine, remoteRank, protocol) again reuses the channel.
    HcclChannelDesc d;
    HcclChannelDescInit(&d, 1);
    d.remoteRank = 1;
    d.channelProtocol = default_protocol();
    d.notifyNum = 4;
    ChannelHandle again = 0;
    ASSERT_EQ(HcclChannelAcquire(job[0], COMM_ENGINE_AICPU_TS, &d, 1, &again), HCCL_SUCCESS);
    EXPECT_EQ(again, mesh.channel[0][1]);
    d.notifyNum = 5;
    EXPECT_EQ(HcclChannelAcquire(job[0], COMM_ENGINE_AICPU_TS, &d, 1, &again), HCCL_E_PARA);
}

TEST_F(Pair, WriteWithNotifyDeliversEveryByteBeforeTheNotify)
{
    const uint64_t len = 256 * 1024 + 13;
    fill_stamped(buf[0].base + 8, len, run_id(), 1, 0);
    const auto r = write_wait_snapshot(job, mesh, buf, 0, 1, {8, 1 << 20, 2 << 20, len, 3});
    EXPECT_EQ(r[0].programReturn, 0U);
    EXPECT_EQ(r[0].taskError, 0);
    EXPECT_EQ(r[1].programReturn, 0U);
    EXPECT_EQ(r[1].taskError, 0);
    EXPECT_EQ(first_bad_stamp(buf[1].base + (2 << 20), len, run_id(), 1, 0), len);
    const HcommRefStats s0 = stats(job[0]);
    const HcommRefStats s1 = stats(job[1]);
    EXPECT_EQ(s0.bytesWritten, len);
    EXPECT_EQ(s0.notifiesRaised, 1U);
    EXPECT_EQ(s1.notifiesConsumed, 1U);
    EXPECT_EQ(s1.notifyOverruns, 0U);
    int32_t set = -1;
    EXPECT_EQ(HcommRefPeekNotify(job[1], mesh.channel[1][0], 3, &set), HCCL_SUCCESS);
    EXPECT_EQ(set, 0) << "the wait consumed the notify";
}

TEST_F(Pair, RejectedWritesChangeNothingAndRaiseNothing)
{
    uint8_t *peer = buf[1].base;
    std::memset(peer, 0xEE, 1 << 16);
    std::memset(peer + buf[1].size - 4096, 0xEE, 4096);
    fill_stamped(buf[0].base, 1 << 16, 5, 5, 0);
    uint8_t stack_src[64] = {};
    const ThreadHandle t = mesh.thread[0];
    const ChannelHandle c = mesh.channel[0][1];
    std::vector<int32_t> codes;
    const auto r = launch(job[0], [&] {
        codes.push_back(HcommWriteWithNotifyOnThread(t, c, peer, buf[0].base, 0, 0));  // len 0
        codes.push_back(HcommWriteWithNotifyOnThread(t, c, peer, buf[0].base, 64, 4)); // idx == notifyNum
        codes.push_back(HcommWriteWithNotifyOnThread(t, c, peer, buf[0].base, 64, UINT32_MAX));
        codes.push_back(HcommWriteWithNotifyOnThread(t, c, peer, stack_src, 64, 0)); // src not comm memory
        codes.push_back(HcommWriteWithNotifyOnThread(t, c, peer, buf[0].base + buf[0].size - 8, 16, 0));
        codes.push_back(HcommWriteWithNotifyOnThread(t, c, peer + buf[1].size - 8, buf[0].base, 16, 0));
        codes.push_back(HcommWriteWithNotifyOnThread(t, c, buf[0].base, buf[0].base + 64, 16, 0)); // dst is local
        codes.push_back(
            HcommWriteWithNotifyOnThread(t, c, reinterpret_cast<void *>(UINT64_MAX - 7), buf[0].base, 16, 0));
        codes.push_back(HcommWriteWithNotifyOnThread(t, c, peer, buf[0].base, UINT64_MAX, 0));          // overflow
        codes.push_back(HcommWriteWithNotifyOnThread(t, mesh.channel[1][0], peer, buf[0].base, 64, 0)); // foreign
        codes.push_back(HcommWriteWithNotifyOnThread(mesh.thread[1], c, peer, buf[0].base, 64, 0));     // foreign
        return 0U;
    });
    EXPECT_EQ(r.taskError, 0);
    EXPECT_EQ(codes, std::vector<int32_t>(11, HCCL_E_PARA));
    // From the host: not supported, also nothing moves.
    EXPECT_EQ(HcommWriteWithNotifyOnThread(t, c, peer, buf[0].base, 64, 0), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcommThreadJoin(t, 10), HCCL_SUCCESS);
    for (uint64_t i = 0; i < (1 << 16); ++i)
        ASSERT_EQ(peer[i], 0xEE) << "byte " << i << " changed";
    for (uint64_t i = buf[1].size - 4096; i < buf[1].size; ++i)
        ASSERT_EQ(peer[i], 0xEE) << "byte " << i;
    for (uint32_t idx = 0; idx < 4; ++idx) {
        int32_t set = -1;
        ASSERT_EQ(HcommRefPeekNotify(job[1], mesh.channel[1][0], idx, &set), HCCL_SUCCESS);
        EXPECT_EQ(set, 0) << "notify " << idx << " was raised by a refused call";
    }
    const HcommRefStats s0 = stats(job[0]);
    EXPECT_EQ(s0.notifiesRaised, 0U);
    EXPECT_EQ(s0.bytesWritten, 0U);
    EXPECT_EQ(s0.rejectedCalls, 12U);
}

TEST_F(Pair, LengthSweepAcrossTheSegmentationBoundary)
{
    // With HCOMM_REF_MAX_WRITE=4096 every length here crosses, meets or misses a
    // segment boundary; odd offsets check alignment.
    const uint64_t lengths[] = {1, 7, 8, 9, 4095, 4096, 4097, 8191, 8192, 8193, 3 * 4096 + 5, 65536 + 3, 200000};
    const uint64_t offsets[] = {0, 1, 3, 4093};
    uint32_t iteration = 0;
    for (uint64_t len : lengths) {
        for (uint64_t off : offsets) {
            ++iteration;
            const uint64_t dst = (1 << 20) + off * 3;
            const uint64_t snap = 3 << 20;
            std::memset(buf[1].base + dst - 64, 0xEE, len + 128); // guard zones around the destination
            fill_stamped(buf[0].base + off, len, run_id(), iteration, 0, dst);
            const auto r = write_wait_snapshot(job, mesh, buf, 0, 1, {off, dst, snap, len, iteration % 4});
            ASSERT_EQ(r[0].taskError, 0) << "len " << len << " off " << off;
            ASSERT_EQ(r[1].taskError, 0) << "len " << len << " off " << off;
            ASSERT_EQ(first_bad_stamp(buf[1].base + snap, len, run_id(), iteration, 0, dst), len)
                << "stale or torn byte after the wait: len " << len << " off " << off;
            for (int g = 1; g <= 64; ++g) {
                ASSERT_EQ(buf[1].base[dst - g], 0xEE) << "guard before dst, len " << len;
                ASSERT_EQ(buf[1].base[dst + len - 1 + g], 0xEE) << "guard after dst, len " << len;
            }
        }
    }
}

TEST_F(Pair, WriteReadReduceAndBatch)
{
    uint8_t *b0 = buf[0].base;
    uint8_t *b1 = buf[1].base;
    const ThreadHandle t0 = mesh.thread[0];
    const ThreadHandle t1 = mesh.thread[1];
    const ChannelHandle c01 = mesh.channel[0][1];
    const ChannelHandle c10 = mesh.channel[1][0];
    int32_t a[256];
    int32_t b[256];
    for (int i = 0; i < 256; ++i) {
        a[i] = i * 3 - 100;
        b[i] = 1000 - i;
    }
    std::memcpy(b0, a, sizeof(a));        // rank 0 source
    std::memcpy(b1 + 4096, b, sizeof(b)); // rank 1 destination, reduced into
    fill_stamped(b0 + 8192, 5000, 9, 9, 0);
    std::vector<Program> programs(2);
    programs[0] = [&] {
        int32_t rc = HcommWriteOnThread(t0, c01, b1 + 65536, b0 + 8192, 5000);
        rc |= HcommChannelFenceOnThread(t0, c01);
        rc |= HcommWriteReduceOnThread(t0, c01, b1 + 4096, b0, 256, HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM);
        rc |= HcommChannelNotifyRecordOnThread(t0, c01, 0);
        // Read back what was written, into local memory.
        rc |= HcommReadOnThread(t0, c01, b0 + 131072, b1 + 65536, 5000);
        return static_cast<uint32_t>(rc);
    };
    programs[1] = [&] {
        int32_t rc = HcommChannelNotifyWaitOnThread(t1, c10, 0, 20);
        rc |= HcommLocalCopyOnThread(t1, b1 + 200000, b1 + 65536, 5000);
        return static_cast<uint32_t>(rc);
    };
    auto r = launch_all(job, programs);
    ASSERT_EQ(r[0].programReturn, 0U);
    ASSERT_EQ(r[0].taskError, 0);
    ASSERT_EQ(r[1].taskError, 0);
    EXPECT_EQ(first_bad_stamp(b1 + 200000, 5000, 9, 9, 0), 5000U) << "write then record: data before notify";
    EXPECT_EQ(first_bad_stamp(b0 + 131072, 5000, 9, 9, 0), 5000U) << "read back";
    for (int i = 0; i < 256; ++i)
        ASSERT_EQ(reinterpret_cast<int32_t *>(b1 + 4096)[i], a[i] + b[i]) << i;

    // Write-reduce with notify (fp32 max) and read-reduce (int32 sum into local).
    float x[100];
    float y[100];
    for (int i = 0; i < 100; ++i) {
        x[i] = static_cast<float>(i % 7);
        y[i] = 3.5F;
    }
    std::memcpy(b0 + 300000, x, sizeof(x));
    std::memcpy(b1 + 300000, y, sizeof(y));
    std::memcpy(b0 + 400000, a, sizeof(a));
    programs[0] = [&] {
        int32_t rc = HcommWriteReduceWithNotifyOnThread(t0, c01, b1 + 300000, b0 + 300000, 100, HCOMM_DATA_TYPE_FP32,
                                                        HCOMM_REDUCE_MAX, 2);
        rc |= HcommReadReduceOnThread(t0, c01, b0 + 400000, b1 + 4096, 256, HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM);
        return static_cast<uint32_t>(rc);
    };
    programs[1] = [&] {
        int32_t rc = HcommChannelNotifyWaitOnThread(t1, c10, 2, 20);
        rc |= HcommLocalCopyOnThread(t1, b1 + 310000, b1 + 300000, sizeof(y));
        return static_cast<uint32_t>(rc);
    };
    r = launch_all(job, programs);
    ASSERT_EQ(r[0].programReturn, 0U);
    ASSERT_EQ(r[0].taskError, 0);
    ASSERT_EQ(r[1].taskError, 0);
    for (int i = 0; i < 100; ++i) {
        ASSERT_EQ(reinterpret_cast<float *>(b1 + 310000)[i], std::max(x[i], y[i])) << "reduced before notify, " << i;
    }
    for (int i = 0; i < 256; ++i)
        ASSERT_EQ(reinterpret_cast<int32_t *>(b0 + 400000)[i], a[i] + (a[i] + b[i])) << i;

    // A batch: write, write with notify (the notify covers both), and a bad entry
    // refusing the whole batch first.
    fill_stamped(b0 + 500000, 3000, 4, 4, 0);
    HcommBatchTransferDesc batch[3] = {};
    batch[0].transType = HCOMM_TRANSFER_TYPE_WRITE;
    batch[0].transferInfo.write = {1000, b1 + 600000, b0 + 500000};
    batch[1].transType = HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY;
    batch[1].transferInfo.writeWithNotify = {2000, b1 + 601000, b0 + 501000, 1};
    batch[2] = batch[1];
    batch[2].transferInfo.writeWithNotify.notifyIdx = 4; // out of range
    std::memset(b1 + 600000, 0, 3000);
    std::vector<int32_t> codes;
    programs[0] = [&] {
        codes.push_back(HcommBatchTransferOnThread(t0, c01, batch, 3));
        codes.push_back(HcommBatchTransferOnThread(t0, c01, batch, 2));
        return 0U;
    };
    programs[1] = [&] {
        int32_t rc = HcommChannelNotifyWaitOnThread(t1, c10, 1, 20);
        rc |= HcommLocalCopyOnThread(t1, b1 + 700000, b1 + 600000, 3000);
        return static_cast<uint32_t>(rc);
    };
    r = launch_all(job, programs);
    EXPECT_EQ(codes, (std::vector<int32_t>{HCCL_E_PARA, HCCL_SUCCESS}));
    ASSERT_EQ(r[1].taskError, 0);
    EXPECT_EQ(first_bad_stamp(b1 + 700000, 3000, 4, 4, 0), 3000U);
    EXPECT_EQ(stats(job[1]).notifiesConsumed, 3U);
}

TEST_F(Pair, WaitTimesOutWhenNothingIsSentAndDestroyedChannelIsStale)
{
    const auto r = launch(job[1], [&] {
        int32_t rc = HcommChannelNotifyWaitOnThread(mesh.thread[1], mesh.channel[1][0], 0, 1);
        rc |= HcommLocalCopyOnThread(mesh.thread[1], buf[1].base + 64, buf[1].base, 8);
        return static_cast<uint32_t>(rc);
    });
    EXPECT_EQ(r.taskError, HCCL_E_TIMEOUT);
    EXPECT_EQ(HcommThreadJoin(mesh.thread[1], 5), HCCL_E_TIMEOUT);
    EXPECT_EQ(stats(job[1]).taskErrors, 1U);

    ASSERT_EQ(HcclChannelDestroy(job[0], &mesh.channel[0][1], 1), HCCL_SUCCESS);
    EXPECT_EQ(HcclChannelDestroy(job[0], &mesh.channel[0][1], 1), HCCL_E_NOT_FOUND);
    int32_t rc = 0;
    launch(job[0], [&] {
        rc = HcommWriteWithNotifyOnThread(mesh.thread[0], mesh.channel[0][1], buf[1].base, buf[0].base, 8, 0);
        return 0U;
    });
    EXPECT_EQ(rc, HCCL_E_PARA) << "a destroyed channel's handle is stale";
}

class Ring : public ::testing::TestWithParam<uint32_t> {};

TEST_P(Ring, EveryRankWritesToTheNext)
{
    const uint32_t n = GetParam();
    Job job(n);
    ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
    Mesh mesh;
    ASSERT_EQ(build_mesh(job, mesh), HCCL_SUCCESS);
    std::vector<Buffer> buf(n);
    for (uint32_t r = 0; r < n; ++r)
        buf[r] = buffer_of(job[r]);
    const uint64_t len = 100000 + 17;
    for (uint32_t round = 1; round <= 3; ++round) {
        std::vector<Program> programs(n);
        for (uint32_t r = 0; r < n; ++r) {
            fill_stamped(buf[r].base, len, run_id(), round, r);
            const uint32_t next = (r + 1) % n;
            const uint32_t prev = (r + n - 1) % n;
            programs[r] = [&, r, next, prev] {
                int32_t rc = HcommWriteWithNotifyOnThread(mesh.thread[r], mesh.channel[r][next],
                                                          buf[next].base + (1 << 20), buf[r].base, len, round % 4);
                rc |= HcommChannelNotifyWaitOnThread(mesh.thread[r], mesh.channel[r][prev], round % 4, 30);
                rc |= HcommLocalCopyOnThread(mesh.thread[r], buf[r].base + (2 << 20), buf[r].base + (1 << 20), len);
                return static_cast<uint32_t>(rc);
            };
        }
        const auto results = launch_all(job, programs, 60000);
        for (uint32_t r = 0; r < n; ++r) {
            ASSERT_EQ(results[r].programReturn, 0U) << "rank " << r;
            ASSERT_EQ(results[r].taskError, 0) << "rank " << r << " round " << round;
            ASSERT_EQ(first_bad_stamp(buf[r].base + (2 << 20), len, run_id(), round, (r + n - 1) % n), len)
                << "rank " << r << " round " << round << ": data from its predecessor";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Ranks, Ring, ::testing::Values(2U, 3U, 5U, 8U));

TEST(Lifecycle, RepeatedCreateConnectDestroy)
{
    for (int i = 0; i < 4; ++i) {
        Job job(2);
        ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
        Mesh mesh;
        ASSERT_EQ(build_mesh(job, mesh), HCCL_SUCCESS) << "iteration " << i;
    }
}

TEST(Nbi, HostWriteWithNotifyOnTheCpuEngine)
{
    Job job(2);
    ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
    if (std::string(HcommRefProductName()) != "ascend950") {
        ThreadHandle t = 0;
        EXPECT_EQ(HcclThreadAcquire(job[0], COMM_ENGINE_CPU, 1, 1, &t), HCCL_E_NOT_SUPPORT)
            << "only the ascend950 profile has a CPU engine for the Nbi calls";
        return;
    }
    Mesh mesh;
    ASSERT_EQ(build_mesh(job, mesh, 2, COMM_ENGINE_CPU, COMM_PROTOCOL_ROCE), HCCL_SUCCESS);
    Buffer b0 = buffer_of(job[0]);
    Buffer b1 = buffer_of(job[1]);
    fill_stamped(b0.base, 10000, 3, 3, 0);
    EXPECT_EQ(HcommWriteWithNotifyNbi(mesh.channel[0][1], b1.base + 4096, b0.base, 10000, 1), HCCL_SUCCESS);
    EXPECT_EQ(HcommChannelNotifyWait(mesh.channel[1][0], 1, 10), HCCL_SUCCESS);
    EXPECT_EQ(first_bad_stamp(b1.base + 4096, 10000, 3, 3, 0), 10000U);
    EXPECT_EQ(HcommReadNbi(mesh.channel[0][1], b0.base + 65536, b1.base + 4096, 10000), HCCL_SUCCESS);
    EXPECT_EQ(first_bad_stamp(b0.base + 65536, 10000, 3, 3, 0), 10000U);
    EXPECT_EQ(HcommChannelNotifyRecord(mesh.channel[1][0], 0), HCCL_SUCCESS);
    EXPECT_EQ(HcommChannelNotifyWait(mesh.channel[0][1], 0, 10), HCCL_SUCCESS);
    EXPECT_EQ(HcommChannelNotifyWait(mesh.channel[0][1], 0, 1), HCCL_E_TIMEOUT) << "consumed by the first wait";
    fill_stamped(b0.base + 20000, 700, 3, 4, 0);
    EXPECT_EQ(HcommWriteNbi(mesh.channel[0][1], b1.base + 30000, b0.base + 20000, 700), HCCL_SUCCESS);
    EXPECT_EQ(first_bad_stamp(b1.base + 30000, 700, 3, 4, 0), 700U) << "a thread-less Nbi write is complete on return";
    EXPECT_EQ(HcommWriteNbi(mesh.channel[0][1], b1.base + b1.size - 8, b0.base, 16), HCCL_E_PARA);
    EXPECT_EQ(HcommWriteNbiOnThread(mesh.thread[0], mesh.channel[0][1], b1.base, b0.base, 100), HCCL_SUCCESS);
    EXPECT_EQ(HcommThreadJoin(mesh.thread[0], 10), HCCL_SUCCESS);
    EXPECT_EQ(HcommWriteWithNotifyOnThread(mesh.thread[0], mesh.channel[0][1], b1.base, b0.base, 100, 0),
              HCCL_E_NOT_SUPPORT)
        << "WWN OnThread is AICPU_TS and device only";
}

// With SOFTVERBS_FAIL=qp:2 the notify WQE of the first write fails: the writer's task
// fails (reported by the launch and HcommThreadJoin), the notify never arrives,
// the reader's wait times out. Without it, the same sequence succeeds.
TEST(VerbsFault, FailedWriteIsReportedAndRaisesNoNotify)
{
    const bool inject = std::getenv("SOFTVERBS_FAIL") != nullptr;
    Job job(2);
    ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
    Mesh mesh;
    ASSERT_EQ(build_mesh(job, mesh), HCCL_SUCCESS);
    Buffer b0 = buffer_of(job[0]);
    Buffer b1 = buffer_of(job[1]);
    fill_stamped(b0.base, 4096, 6, 6, 0);
    std::vector<Program> programs(2);
    programs[0] = [&] {
        int32_t rc = HcommWriteWithNotifyOnThread(mesh.thread[0], mesh.channel[0][1], b1.base, b0.base, 4096, 0);
        rc |= HcommLocalCopyOnThread(mesh.thread[0], b0.base + 8192, b0.base, 64); // must not run after a failure
        return static_cast<uint32_t>(rc);
    };
    programs[1] = [&] {
        return static_cast<uint32_t>(HcommChannelNotifyWaitOnThread(mesh.thread[1], mesh.channel[1][0], 0, 2));
    };
    const auto r = launch_all(job, programs);
    EXPECT_EQ(r[0].programReturn, 0U);
    EXPECT_EQ(r[1].programReturn, 0U);
    if (inject) {
        EXPECT_EQ(r[0].taskError, HCCL_E_ROCE_TRANSFER);
        EXPECT_EQ(HcommThreadJoin(mesh.thread[0], 5), HCCL_E_ROCE_TRANSFER);
        EXPECT_EQ(r[1].taskError, HCCL_E_TIMEOUT) << "a failed write must not raise the notify";
        EXPECT_EQ(b0.base[8192], 0) << "the task after the failed write ran";
        EXPECT_EQ(stats(job[0]).notifiesRaised, 0U);
        EXPECT_EQ(stats(job[1]).notifiesConsumed, 0U);
    } else {
        EXPECT_EQ(r[0].taskError, 0);
        EXPECT_EQ(r[1].taskError, 0);
        EXPECT_EQ(first_bad_stamp(b1.base, 4096, 6, 6, 0), 4096U);
    }
}
