// Communicator life cycle under misuse: stale handles, and a destroy that races
// other calls on the comm's handles. Every wait has a deadline: a
// hang is reported as a failure, never waited out.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>

#include "job.h"

using namespace hcts_test;
using namespace std::chrono_literals;

namespace {

HcclComm one_rank_comm()
{
    HcclRootInfo root{};
    HcclComm comm = nullptr;
    if (HcclGetRootInfo(&root) != HCCL_SUCCESS || HcclCommInitRootInfo(1, &root, 0, &comm) != HCCL_SUCCESS)
        return nullptr;
    return comm;
}

// Fails the test and ends the process when `f` is not ready by `deadline`
// (a hung call cannot be joined; the exit keeps ctest from waiting it out).
template <typename T>
T within(std::future<T> &f, std::chrono::seconds deadline, const char *what)
{
    if (f.wait_for(deadline) != std::future_status::ready) {
        std::fprintf(stderr, "HANG: %s did not return within %lld s\n", what, static_cast<long long>(deadline.count()));
        std::fflush(stderr);
        std::_Exit(3);
    }
    return f.get();
}

} // namespace

// Before the fix a comm's handle was its address: the allocator put the next
// comm at the same address, a stale handle named it, and a second destroy
// returned HCCL_SUCCESS and destroyed the unrelated new comm (200 of 200).
TEST(CommHandles, StaleHandleNeverNamesANewerComm)
{
    for (int i = 0; i < 200; ++i) {
        HcclComm old_comm = one_rank_comm();
        ASSERT_NE(old_comm, nullptr) << "cycle " << i;
        ASSERT_EQ(HcclCommDestroy(old_comm), HCCL_SUCCESS) << "cycle " << i;
        HcclComm newer = one_rank_comm();
        ASSERT_NE(newer, nullptr) << "cycle " << i;
        EXPECT_NE(newer, old_comm) << "cycle " << i << ": a handle was given out twice";
        uint32_t rank = 99;
        EXPECT_EQ(HcclGetRankId(old_comm, &rank), HCCL_E_PARA) << "cycle " << i << ": a stale handle is refused";
        ASSERT_EQ(HcclCommDestroy(old_comm), HCCL_E_PARA) << "cycle " << i << ": the second destroy";
        EXPECT_EQ(HcclGetRankId(newer, &rank), HCCL_SUCCESS) << "cycle " << i << ": the newer comm must still live";
        EXPECT_EQ(rank, 0U);
        ASSERT_EQ(HcclCommDestroy(newer), HCCL_SUCCESS) << "cycle " << i;
    }
}

// Before the fix HcommThreadJoin(t, 0) read the thread's queue through a
// reference that HcclCommDestroy reset to null: a crash (or a use after free).
// Now the join returns an error code (the pending wait failed, or the thread is
// no longer live) and the thread handle is refused afterwards.
TEST(DestroyRace, JoinForeverConcurrentWithDestroy)
{
    for (int i = 0; i < 30; ++i) {
        HcclComm comm = one_rank_comm();
        ASSERT_NE(comm, nullptr);
        ThreadHandle t = 0;
        ASSERT_EQ(HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, 1, 1, &t), HCCL_SUCCESS);
        HcclResult launch_rc = HCCL_SUCCESS;
        // A wait nobody records, without a deadline: the thread stays busy.
        launch(
            comm, [&] { return static_cast<uint32_t>(HcommThreadNotifyWaitOnThread(t, 0, 0)); }, 50, &launch_rc);
        ASSERT_EQ(launch_rc, HCCL_E_TIMEOUT) << "the wait is pending";
        std::atomic<bool> joining{false};
        auto joined = std::async(std::launch::async, [&] {
            joining = true;
            return HcommThreadJoin(t, 0);
        });
        while (!joining)
            std::this_thread::yield();
        std::this_thread::sleep_for(std::chrono::milliseconds(i % 3)); // the join blocked or about to
        auto destroyed = std::async(std::launch::async, [&] { return HcclCommDestroy(comm); });
        EXPECT_EQ(within(destroyed, 20s, "HcclCommDestroy with a join pending"), HCCL_SUCCESS);
        const HcclResult join_rc = within(joined, 20s, "HcommThreadJoin(t, 0) across HcclCommDestroy");
        EXPECT_NE(join_rc, HCCL_SUCCESS) << "the pending wait never completed";
        EXPECT_EQ(HcommThreadJoin(t, 0), HCCL_E_PARA) << "the destroyed comm's thread is refused";
        EXPECT_EQ(HcommThreadNotifyRecordOnThread(t, t, 0), HCCL_E_PARA);
    }
}

// Work submitted while the comm is destroyed: every call either is refused
// (HCCL_E_PARA, the handle is gone) or queued and then run or failed; no task
// runs after the destroy returned. Before the fix a task queued behind the
// destroy's reset of the queue ran on the freed comm.
TEST(DestroyRace, LocalCopiesSubmittedDuringDestroy)
{
    for (int i = 0; i < 20; ++i) {
        HcclComm comm = one_rank_comm();
        ASSERT_NE(comm, nullptr);
        ThreadHandle t = 0;
        ASSERT_EQ(HcclThreadAcquire(comm, COMM_ENGINE_CPU_TS, 1, 1, &t), HCCL_SUCCESS);
        Buffer b = buffer_of(comm);
        std::atomic<bool> started{false};
        auto writer = std::async(std::launch::async, [&] {
            int32_t rc = HCCL_SUCCESS;
            uint64_t calls = 0;
            while (rc == HCCL_SUCCESS && calls < 1000000) {
                rc = HcommLocalCopyOnThread(t, b.base + 65536, b.base, 4096);
                ++calls;
                started = true;
            }
            return rc;
        });
        while (!started)
            std::this_thread::yield();
        auto destroyed = std::async(std::launch::async, [&] { return HcclCommDestroy(comm); });
        EXPECT_EQ(within(destroyed, 20s, "HcclCommDestroy with copies in flight"), HCCL_SUCCESS);
        EXPECT_EQ(within(writer, 20s, "the submitting thread"), HCCL_E_PARA)
            << "later calls with the destroyed comm's thread are refused";
    }
}
