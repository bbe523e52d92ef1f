// Threads as in-order task queues, the emulated device context, thread notifies,
// local copies and reductions, asynchronous failures (no verbs needed).
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string>

#include "job.h"

using namespace hcts_test;
using namespace std::chrono_literals;

namespace {

class OneRank : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_EQ(job.init_result(), HCCL_SUCCESS); }
    Job job{1};
    HcclComm comm() const { return job[0]; }
};

} // namespace

TEST_F(OneRank, ThreadAcquireGivesDistinctLiveHandles)
{
    ThreadHandle threads[3] = {};
    ASSERT_EQ(HcclThreadAcquire(comm(), COMM_ENGINE_AICPU_TS, 3, 2, threads), HCCL_SUCCESS);
    std::set<ThreadHandle> unique(threads, threads + 3);
    EXPECT_EQ(unique.size(), 3U);
    EXPECT_EQ(unique.count(0), 0U);
    for (ThreadHandle t : threads)
        EXPECT_EQ(HcommThreadJoin(t, 5), HCCL_SUCCESS);
}

TEST_F(OneRank, ThreadAcquireRejections)
{
    ThreadHandle threads[2] = {0x5151, 0x5151};
    const auto untouched = [&] { return threads[0] == 0x5151 && threads[1] == 0x5151; };
    EXPECT_EQ(HcclThreadAcquire(nullptr, COMM_ENGINE_AICPU_TS, 1, 1, threads), HCCL_E_PTR);
    EXPECT_EQ(HcclThreadAcquire(comm(), COMM_ENGINE_AICPU_TS, 1, 1, nullptr), HCCL_E_PTR);
    EXPECT_EQ(HcclThreadAcquire(comm(), COMM_ENGINE_CPU, 1, 1, threads), HCCL_E_NOT_SUPPORT)
        << "Atlas 350 has no CPU engine";
    EXPECT_EQ(HcclThreadAcquire(comm(), COMM_ENGINE_AIV, 1, 1, threads), HCCL_E_PARA);
    EXPECT_EQ(HcclThreadAcquire(comm(), COMM_ENGINE_CCU, 1, 1, threads), HCCL_E_PARA);
    EXPECT_EQ(HcclThreadAcquire(comm(), static_cast<CommEngine>(42), 1, 1, threads), HCCL_E_PARA);
    EXPECT_EQ(HcclThreadAcquire(comm(), COMM_ENGINE_AICPU_TS, 0, 1, threads), HCCL_E_PARA);
    EXPECT_EQ(HcclThreadAcquire(comm(), COMM_ENGINE_AICPU_TS, 1, 65536, threads), HCCL_E_PARA);
    EXPECT_EQ(HcclThreadAcquire(reinterpret_cast<HcclComm>(threads), COMM_ENGINE_AICPU_TS, 1, 1, threads), HCCL_E_PARA);
    EXPECT_EQ(HcclThreadAcquire(comm(), COMM_ENGINE_AICPU_TS, 300, 1, threads), HCCL_E_UNAVAIL);
    EXPECT_TRUE(untouched());
    EXPECT_EQ(HcclThreadAcquire(comm(), COMM_ENGINE_AICPU_TS, 1, 65535, threads), HCCL_SUCCESS);
    const HcommRefStats s = stats(comm());
    EXPECT_EQ(s.rejectedCalls, 7U) << "refusals with a resolvable comm are counted";
}

TEST_F(OneRank, ThreadAcquireWithConfigAndStream)
{
    ThreadConfig config[1];
    ASSERT_EQ(ThreadConfigInit(config, 1), 0);
    config[0].notifyNumPerThread = 3;
    ThreadHandle t = 0;
    EXPECT_EQ(HcclThreadAcquireWithConfig(comm(), COMM_ENGINE_AICPU_TS, 1, THREAD_TYPE_TS, nullptr, &t), HCCL_E_PTR);
    ThreadConfig bad = config[0];
    bad.header.magicWord ^= 1;
    EXPECT_EQ(HcclThreadAcquireWithConfig(comm(), COMM_ENGINE_AICPU_TS, 1, THREAD_TYPE_TS, &bad, &t), HCCL_E_PARA);
    EXPECT_EQ(HcclThreadAcquireWithConfig(comm(), COMM_ENGINE_AICPU_TS, 1, THREAD_TYPE_INVALID, config, &t),
              HCCL_E_PARA);
    EXPECT_EQ(HcclThreadAcquireWithConfig(comm(), COMM_ENGINE_AIV, 1, THREAD_TYPE_TS, config, &t), HCCL_E_PARA);
    EXPECT_EQ(t, 0U);
    ASSERT_EQ(HcclThreadAcquireWithConfig(comm(), COMM_ENGINE_AICPU_TS, 1, THREAD_TYPE_TS, config, &t), HCCL_SUCCESS);
    // notifyNumPerThread 3: index 2 exists, 3 does not.
    EXPECT_EQ(HcommThreadNotifyRecordOnThread(acquire_thread(comm(), COMM_ENGINE_CPU_TS), t, 2), HCCL_SUCCESS);
    EXPECT_EQ(HcommThreadNotifyRecordOnThread(acquire_thread(comm(), COMM_ENGINE_CPU_TS), t, 3), HCCL_E_PARA);

    int stream_cookie = 0;
    ThreadHandle s = 0;
    EXPECT_EQ(HcclThreadAcquireWithStream(comm(), COMM_ENGINE_CPU_TS, nullptr, 1, &s), HCCL_E_PTR);
    EXPECT_EQ(HcclThreadAcquireWithStream(comm(), COMM_ENGINE_AICPU_TS, &stream_cookie, 1, &s), HCCL_E_PARA);
    ASSERT_EQ(HcclThreadAcquireWithStream(comm(), COMM_ENGINE_CPU_TS, &stream_cookie, 1, &s), HCCL_SUCCESS);
    EXPECT_NE(s, 0U);
    void *info = nullptr;
    EXPECT_EQ(HcclThreadResGetInfo(comm(), s, THREAD_RES_TYPE_STREAM, 8, &info), HCCL_SUCCESS);
    EXPECT_NE(info, nullptr);
    EXPECT_EQ(HcclThreadResGetInfo(comm(), s, THREAD_RES_TYPE_INVALID, 8, &info), HCCL_E_PARA);
    EXPECT_EQ(HcclThreadResGetInfo(comm(), 0, THREAD_RES_TYPE_STREAM, 8, &info), HCCL_E_PTR);
}

TEST_F(OneRank, EngineContexts)
{
    void *ctx = nullptr;
    uint64_t size = 0;
    EXPECT_EQ(HcclEngineCtxCreate(comm(), nullptr, COMM_ENGINE_AICPU_TS, 64, &ctx), HCCL_E_PTR);
    EXPECT_EQ(HcclEngineCtxCreate(comm(), "ctx", COMM_ENGINE_AICPU_TS, 0, &ctx), HCCL_E_PARA);
    EXPECT_EQ(HcclEngineCtxGet(comm(), "ctx", COMM_ENGINE_AICPU_TS, &ctx, &size), HCCL_E_NOT_FOUND);
    ASSERT_EQ(HcclEngineCtxCreate(comm(), "ctx", COMM_ENGINE_AICPU_TS, 64, &ctx), HCCL_SUCCESS);
    static_cast<uint8_t *>(ctx)[63] = 9;
    EXPECT_EQ(HcclEngineCtxCreate(comm(), "ctx", COMM_ENGINE_AICPU_TS, 64, &ctx), HCCL_E_PARA);
    void *again = nullptr;
    ASSERT_EQ(HcclEngineCtxGet(comm(), "ctx", COMM_ENGINE_AICPU_TS, &again, &size), HCCL_SUCCESS);
    EXPECT_EQ(again, ctx);
    EXPECT_EQ(size, 64U);
    EXPECT_EQ(static_cast<uint8_t *>(again)[63], 9);
}

TEST_F(OneRank, DeviceContextIsVisible)
{
    EXPECT_EQ(HcommRefIsDeviceSide(), 0);
    HcclResult rc = HCCL_E_RESERVED;
    const auto r = launch(
        comm(), [] { return static_cast<uint32_t>(HcommRefIsDeviceSide() + 41); }, 5000, &rc);
    EXPECT_EQ(rc, HCCL_SUCCESS);
    EXPECT_EQ(r.programReturn, 42U);
    EXPECT_EQ(r.version, HCOMM_REF_ABI_VERSION);
    EXPECT_EQ(r.size, sizeof(HcommRefLaunchResult));
    EXPECT_EQ(r.taskError, 0);
    EXPECT_EQ(HcommRefIsDeviceSide(), 0);
    HcommRefLaunchResult out{};
    EXPECT_EQ(HcommRefDeviceLaunch(comm(), nullptr, nullptr, 0, &out), HCCL_E_PTR);
    EXPECT_EQ(HcommRefDeviceLaunch(nullptr, run_program, nullptr, 0, &out), HCCL_E_PTR);
    EXPECT_STREQ(HcommRefProductName(), "atlas350");
}

TEST_F(OneRank, LocalCopyRunsOnTheMatchingSideOnly)
{
    Buffer b = buffer_of(comm());
    const ThreadHandle device_thread = acquire_thread(comm(), COMM_ENGINE_AICPU_TS);
    const ThreadHandle host_thread = acquire_thread(comm(), COMM_ENGINE_CPU_TS);
    fill_stamped(b.base, 1000, 1, 1, 0);
    std::memset(b.base + 4096, 0, 1000);
    // An AICPU_TS thread from the host: refused, nothing copied.
    EXPECT_EQ(HcommLocalCopyOnThread(device_thread, b.base + 4096, b.base, 1000), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcommThreadJoin(device_thread, 5), HCCL_SUCCESS);
    EXPECT_EQ(b.base[4096], 0);
    // On the device it runs.
    const auto r = launch(comm(), [&] {
        return static_cast<uint32_t>(HcommLocalCopyOnThread(device_thread, b.base + 4096, b.base + 0, 1000));
    });
    EXPECT_EQ(r.programReturn, 0U);
    EXPECT_EQ(r.taskError, 0);
    EXPECT_EQ(first_bad_stamp(b.base + 4096, 1000, 1, 1, 0), 1000U);
    // A CPU_TS thread from the host runs; the same thread from the device is refused.
    std::memset(b.base + 8192, 0, 1000);
    EXPECT_EQ(HcommLocalCopyOnThread(host_thread, b.base + 8192, b.base, 1000), HCCL_SUCCESS);
    EXPECT_EQ(HcommThreadJoin(host_thread, 5), HCCL_SUCCESS);
    EXPECT_EQ(first_bad_stamp(b.base + 8192, 1000, 1, 1, 0), 1000U);
    const auto refused = launch(comm(), [&] {
        return static_cast<uint32_t>(HcommLocalCopyOnThread(host_thread, b.base + 8192, b.base, 1000));
    });
    EXPECT_EQ(refused.programReturn, static_cast<uint32_t>(HCCL_E_NOT_SUPPORT));
}

TEST_F(OneRank, LocalCopyRejections)
{
    Buffer b = buffer_of(comm());
    const ThreadHandle t = acquire_thread(comm());
    std::memset(b.base, 7, 64);
    std::vector<int32_t> codes;
    launch(comm(), [&] {
        codes.push_back(HcommLocalCopyOnThread(t, nullptr, b.base, 8));
        codes.push_back(HcommLocalCopyOnThread(t, b.base, nullptr, 8));
        codes.push_back(HcommLocalCopyOnThread(0, b.base + 64, b.base, 8));
        codes.push_back(HcommLocalCopyOnThread(t, b.base + 64, b.base, 0));
        codes.push_back(HcommLocalCopyOnThread(t, b.base + 4, b.base, 8));                      // overlap
        codes.push_back(HcommLocalCopyOnThread(0x5448000000999999ULL, b.base + 64, b.base, 8)); // made-up handle
        return 0U;
    });
    const std::vector<int32_t> expected{HCCL_E_PTR, HCCL_E_PTR, HCCL_E_PTR, HCCL_E_PARA, HCCL_E_PARA, HCCL_E_PARA};
    EXPECT_EQ(codes, expected);
    for (int i = 0; i < 128; ++i)
        ASSERT_EQ(b.base[i], i < 64 ? 7 : 0) << "byte " << i;
}

TEST_F(OneRank, TasksRunInOrderAndThreadNotifiesOrderThreads)
{
    Buffer b = buffer_of(comm());
    ThreadHandle t[2] = {};
    ASSERT_EQ(HcclThreadAcquire(comm(), COMM_ENGINE_AICPU_TS, 2, 2, t), HCCL_SUCCESS);
    fill_stamped(b.base, 4096, 2, 7, 0);
    // Thread 1 waits for thread 0's record, then copies what thread 0 copied: in
    // order only if the notify orders them.
    const auto r = launch(comm(), [&] {
        int32_t rc = HcommThreadNotifyWaitOnThread(t[1], 0, 10);
        rc |= HcommLocalCopyOnThread(t[1], b.base + 16384, b.base + 8192, 4096);
        rc |= HcommLocalCopyOnThread(t[0], b.base + 8192, b.base, 4096);
        rc |= HcommThreadNotifyRecordOnThread(t[0], t[1], 0);
        return static_cast<uint32_t>(rc);
    });
    EXPECT_EQ(r.programReturn, 0U);
    EXPECT_EQ(r.taskError, 0);
    EXPECT_EQ(first_bad_stamp(b.base + 16384, 4096, 2, 7, 0), 4096U);
    const HcommRefStats s = stats(comm());
    EXPECT_EQ(s.notifiesRaised, 1U);
    EXPECT_EQ(s.notifiesConsumed, 1U);
    EXPECT_EQ(s.notifyOverruns, 0U);
}

TEST_F(OneRank, BinaryNotifyCountsOverruns)
{
    ThreadHandle t[2] = {};
    ASSERT_EQ(HcclThreadAcquire(comm(), COMM_ENGINE_AICPU_TS, 2, 1, t), HCCL_SUCCESS);
    const auto r = launch(comm(), [&] {
        int32_t rc = HcommThreadNotifyRecordOnThread(t[0], t[1], 0);
        rc |= HcommThreadNotifyRecordOnThread(t[0], t[1], 0);
        return static_cast<uint32_t>(rc);
    });
    ASSERT_EQ(r.taskError, 0);
    EXPECT_EQ(stats(comm()).notifyOverruns, 1U);
    // One wait consumes the (single) set notify; a second wait finds nothing and times out.
    const auto w = launch(comm(), [&] {
        int32_t rc = HcommThreadNotifyWaitOnThread(t[1], 0, 1);
        rc |= HcommThreadNotifyWaitOnThread(t[1], 0, 1);
        return static_cast<uint32_t>(rc);
    });
    EXPECT_EQ(w.programReturn, 0U);
    EXPECT_EQ(w.taskError, HCCL_E_TIMEOUT);
    EXPECT_EQ(stats(comm()).notifiesConsumed, 1U);
}

TEST_F(OneRank, WaitTimeoutFailsTheThreadAndSkipsLaterTasks)
{
    Buffer b = buffer_of(comm());
    const ThreadHandle t = acquire_thread(comm());
    std::memset(b.base, 0x11, 64);
    std::memset(b.base + 64, 0, 64);
    const auto start = std::chrono::steady_clock::now();
    const auto r = launch(comm(), [&] {
        int32_t rc = HcommThreadNotifyWaitOnThread(t, 0, 1); // nobody records: 1 s timeout
        rc |= HcommLocalCopyOnThread(t, b.base + 64, b.base, 64);
        return static_cast<uint32_t>(rc);
    });
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(r.programReturn, 0U) << "the calls themselves were accepted";
    EXPECT_EQ(r.taskError, HCCL_E_TIMEOUT);
    EXPECT_EQ(r.timedOut, 0U);
    EXPECT_GE(elapsed, 900ms);
    EXPECT_LT(elapsed, 10s);
    EXPECT_EQ(b.base[64], 0) << "the task after the failed wait must not run";
    EXPECT_EQ(HcommThreadJoin(t, 5), HCCL_E_TIMEOUT);
    EXPECT_EQ(stats(comm()).taskErrors, 1U);
    // The error stays: a later launch on the same thread reports it and runs nothing.
    const auto again =
        launch(comm(), [&] { return static_cast<uint32_t>(HcommLocalCopyOnThread(t, b.base + 64, b.base, 64)); });
    EXPECT_EQ(again.taskError, HCCL_E_TIMEOUT);
    EXPECT_EQ(b.base[64], 0);
}

TEST_F(OneRank, LaunchDeadlineAndDestroyWithAWaitPending)
{
    const ThreadHandle t = acquire_thread(comm());
    HcclResult rc = HCCL_SUCCESS;
    const auto r = launch(
        comm(), [&] { return static_cast<uint32_t>(HcommThreadNotifyWaitOnThread(t, 0, 0)); }, 300, &rc);
    EXPECT_EQ(rc, HCCL_E_TIMEOUT);
    EXPECT_EQ(r.timedOut, 1U);
    EXPECT_EQ(HcommThreadJoin(t, 1), HCCL_E_TIMEOUT) << "the wait (forever) is still pending";
    // Destroying the comm ends the pending wait instead of hanging (fixture teardown).
}

TEST_F(OneRank, JoinWaitsForQueuedWork)
{
    Buffer b = buffer_of(comm());
    const ThreadHandle t = acquire_thread(comm(), COMM_ENGINE_CPU_TS);
    for (int i = 0; i < 64; ++i) {
        ASSERT_EQ(HcommLocalCopyOnThread(t, b.base + 65536 + i * 1024, b.base + i * 1024, 1024), HCCL_SUCCESS);
    }
    fill_stamped(b.base, 0, 0, 0, 0);
    EXPECT_EQ(HcommThreadJoin(t, 10), HCCL_SUCCESS);
    EXPECT_EQ(HcommThreadJoin(0, 1), HCCL_E_PTR);
    EXPECT_EQ(HcommThreadJoin(12345, 1), HCCL_E_PARA);
}

TEST_F(OneRank, LocalReduceEveryTypeAndOp)
{
    Buffer b = buffer_of(comm());
    const ThreadHandle t = acquire_thread(comm(), COMM_ENGINE_CPU_TS);
    auto run = [&](auto a, auto s, HcommDataType type, HcommReduceOp op) {
        using T = decltype(a);
        std::memcpy(b.base, &a, sizeof(T));
        std::memcpy(b.base + 64, &s, sizeof(T));
        EXPECT_EQ(HcommLocalReduceOnThread(t, b.base, b.base + 64, 1, type, op), HCCL_SUCCESS);
        EXPECT_EQ(HcommThreadJoin(t, 5), HCCL_SUCCESS);
        T out;
        std::memcpy(&out, b.base, sizeof(T));
        return out;
    };
    EXPECT_EQ(run(int8_t{100}, int8_t{100}, HCOMM_DATA_TYPE_INT8, HCOMM_REDUCE_SUM), int8_t{-56}) << "wraps";
    EXPECT_EQ(run(int16_t{-3}, int16_t{7}, HCOMM_DATA_TYPE_INT16, HCOMM_REDUCE_PROD), int16_t{-21});
    EXPECT_EQ(run(int32_t{-3}, int32_t{7}, HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_MAX), 7);
    EXPECT_EQ(run(int64_t{-3}, int64_t{7}, HCOMM_DATA_TYPE_INT64, HCOMM_REDUCE_MIN), -3);
    EXPECT_EQ(run(uint8_t{200}, uint8_t{100}, HCOMM_DATA_TYPE_UINT8, HCOMM_REDUCE_SUM), uint8_t{44});
    EXPECT_EQ(run(uint16_t{300}, uint16_t{300}, HCOMM_DATA_TYPE_UINT16, HCOMM_REDUCE_PROD), uint16_t{24464});
    EXPECT_EQ(run(uint32_t{5}, uint32_t{9}, HCOMM_DATA_TYPE_UINT32, HCOMM_REDUCE_MIN), 5U);
    EXPECT_EQ(run(uint64_t{5}, uint64_t{9}, HCOMM_DATA_TYPE_UINT64, HCOMM_REDUCE_MAX), 9U);
    EXPECT_EQ(run(1.5F, 2.25F, HCOMM_DATA_TYPE_FP32, HCOMM_REDUCE_SUM), 3.75F);
    EXPECT_EQ(run(1.5, -2.0, HCOMM_DATA_TYPE_FP64, HCOMM_REDUCE_PROD), -3.0);
    // fp16 1.5 = 0x3E00, 2.25 = 0x4080, sum 3.75 = 0x4380; bf16 1.5 = 0x3FC0, 2.25 = 0x4010, sum 3.75 = 0x4070.
    EXPECT_EQ(run(uint16_t{0x3E00}, uint16_t{0x4080}, HCOMM_DATA_TYPE_FP16, HCOMM_REDUCE_SUM), 0x4380);
    EXPECT_EQ(run(uint16_t{0x3FC0}, uint16_t{0x4010}, HCOMM_DATA_TYPE_BFP16, HCOMM_REDUCE_SUM), 0x4070);
    b.base[0] = 1;
    EXPECT_EQ(HcommLocalReduceOnThread(t, b.base, b.base + 64, 1, HCOMM_DATA_TYPE_INT128, HCOMM_REDUCE_SUM),
              HCCL_E_PARA);
    EXPECT_EQ(HcommLocalReduceOnThread(t, b.base, b.base + 64, 1, HCOMM_DATA_TYPE_INT8, HCOMM_REDUCE_RESERVED),
              HCCL_E_PARA);
    EXPECT_EQ(HcommLocalReduceOnThread(t, b.base, b.base + 64, 0, HCOMM_DATA_TYPE_INT8, HCOMM_REDUCE_SUM), HCCL_E_PARA);
    EXPECT_EQ(HcommThreadJoin(t, 5), HCCL_SUCCESS);
    EXPECT_EQ(b.base[0], 1) << "refused reductions change nothing";
}

TEST_F(OneRank, BatchModeHoldsTasksUntilEnd)
{
    Buffer b = buffer_of(comm());
    const ThreadHandle t = acquire_thread(comm());
    std::memset(b.base, 0x42, 256);
    std::memset(b.base + 256, 0, 256);
    std::vector<int32_t> codes;
    uint8_t seen_inside = 0xff;
    const auto r = launch(comm(), [&] {
        codes.push_back(HcommBatchModeStart("tag"));
        codes.push_back(HcommBatchModeStart("tag")); // already open
        codes.push_back(HcommLocalCopyOnThread(t, b.base + 256, b.base, 256));
        // A held task never starts, however long we wait (bounded here).
        std::this_thread::sleep_for(50ms);
        seen_inside = b.base[256];
        codes.push_back(HcommBatchModeEnd("other"));
        codes.push_back(HcommBatchModeEnd("tag"));
        codes.push_back(HcommBatchModeEnd(nullptr));
        return 0U;
    });
    // NULL is the empty tag (a temporary batch): no batch is open any more.
    const std::vector<int32_t> expected{HCCL_SUCCESS, HCCL_E_PARA,  HCCL_SUCCESS,
                                        HCCL_E_PARA,  HCCL_SUCCESS, HCCL_E_PARA};
    EXPECT_EQ(codes, expected);
    EXPECT_EQ(seen_inside, 0);
    EXPECT_EQ(r.taskError, 0);
    EXPECT_EQ(b.base[256 + 255], 0x42);
    EXPECT_EQ(HcommBatchModeStart("host"), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcommBatchModeEnd("host"), HCCL_E_NOT_SUPPORT);
}

TEST_F(OneRank, AcquireCommByName)
{
    char name[64] = {};
    ASSERT_EQ(HcommRefGetCommName(comm(), name, sizeof(name)), HCCL_SUCCESS);
    char tiny[4] = {};
    EXPECT_EQ(HcommRefGetCommName(comm(), tiny, sizeof(tiny)), HCCL_E_PARA);
    std::vector<int32_t> codes;
    launch(comm(), [&] {
        codes.push_back(HcommAcquireComm(nullptr));
        codes.push_back(HcommAcquireComm("someone_else"));
        codes.push_back(HcommAcquireComm(name));
        codes.push_back(HcommReleaseComm(name));
        codes.push_back(HcommReleaseComm(name));
        return 0U;
    });
    const std::vector<int32_t> expected{HCCL_E_PTR, HCCL_E_NOT_FOUND, HCCL_SUCCESS, HCCL_SUCCESS, HCCL_E_PARA};
    EXPECT_EQ(codes, expected);
    EXPECT_EQ(HcommAcquireComm(name), HCCL_E_NOT_SUPPORT) << "the host does not acquire comms";
}

TEST(Timeouts, SetNotifyWaitTimeOutChecksItsArgument)
{
    EXPECT_EQ(HcommSetNotifyWaitTimeOut(std::nanf("")), HCCL_E_PARA);
    EXPECT_EQ(HcommSetNotifyWaitTimeOut(-1.0F), HCCL_E_PARA);
    EXPECT_EQ(HcommSetNotifyWaitTimeOut(1e10F), HCCL_E_PARA);
    EXPECT_EQ(HcommThreadResAcquireTimeOut(-0.5F), HCCL_E_PARA);
    EXPECT_EQ(HcommThreadResAcquireTimeOut(3.0F), HCCL_SUCCESS);
    // The default timeout drives the WithDefaultTimeout waits: 1.9 -> 1 s.
    ASSERT_EQ(HcommSetNotifyWaitTimeOut(1.9F), HCCL_SUCCESS);
    Job job(1);
    ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
    const ThreadHandle t = acquire_thread(job[0]);
    const auto start = std::chrono::steady_clock::now();
    const auto r =
        launch(job[0], [&] { return static_cast<uint32_t>(HcommThreadNotifyWaitOnThreadWithDefaultTimeout(t, 0)); });
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(r.taskError, HCCL_E_TIMEOUT);
    EXPECT_GE(elapsed, 900ms);
    EXPECT_LT(elapsed, 1900ms);
    ASSERT_EQ(HcommSetNotifyWaitTimeOut(1836.0F), HCCL_SUCCESS);
}

TEST(TaskCache, RefusedAfterNullChecks)
{
    bool hit = true;
    EXPECT_EQ(HcommAicpuTsTaskCacheLookup(nullptr, &hit), HCCL_E_PTR);
    EXPECT_EQ(HcommAicpuTsTaskCacheLookup("t", &hit), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcommAicpuTsTaskCacheStart(nullptr, nullptr, nullptr, 0), HCCL_E_PTR);
    EXPECT_EQ(HcommAicpuTsTaskCacheStart("t", nullptr, nullptr, 0), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcommAicpuTsTaskCacheEnd("t"), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcommAicpuTsTaskCacheExecute("t", nullptr, nullptr, 0), HCCL_E_NOT_SUPPORT);
    EXPECT_EQ(HcommAicpuTsTaskCacheClear(nullptr), HCCL_E_PTR);
    EXPECT_EQ(HcommAicpuTsTaskCacheClear("t"), HCCL_E_NOT_SUPPORT);
}

TEST(Timeouts, UnitFollowsTheEnvironment)
{
    const char *unit = std::getenv("HCOMM_REF_TIMEOUT_UNIT");
    const bool ms = unit != nullptr && std::string(unit) == "ms";
    Job job(1);
    ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
    const ThreadHandle t = acquire_thread(job[0]);
    const auto start = std::chrono::steady_clock::now();
    const auto r = launch(
        job[0], [&] { return static_cast<uint32_t>(HcommThreadNotifyWaitOnThread(t, 0, 200)); }, ms ? 10000 : 1000);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    if (ms) {
        EXPECT_EQ(r.taskError, HCCL_E_TIMEOUT) << "timeOut 200 = 200 ms";
        EXPECT_GE(elapsed, 180ms);
        EXPECT_LT(elapsed, 2s);
    } else {
        EXPECT_EQ(r.timedOut, 1U) << "timeOut 200 = 200 s: still waiting when the 1 s launch deadline passed";
        EXPECT_EQ(r.taskError, 0);
    }
}
