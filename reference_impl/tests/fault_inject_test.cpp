// No exception crosses the C ABI: each entry point runs with its n-th
// allocation failing (std::bad_alloc) and, separately, its n-th thread creation failing
// (std::system_error from std::thread), for n = 1, 2, ... until the call no longer
// reaches the n-th. Each run is a child process under a deadline: the call must return
// HCCL_SUCCESS or an error code, never let an exception out, end the process
// (std::terminate) or hang; the child then cleans up and leaves through exit(), so under
// the asan preset LeakSanitizer also checks that a failed call leaked nothing.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "hccl/hccl_comm.h"
#include "hccl/hccl_res.h"
#include "hcomm/hcomm_res_defs.h"
#include "hcts/testing/fault_sweep.h"

namespace {

using hcts::fault::Fault;
using hcts::fault::Scenario;

HcclRootInfo g_root;
HcclComm g_comm = nullptr;
ThreadHandle g_thread = 0;

void init_comm()
{
    if (HcclGetRootInfo(&g_root) != HCCL_SUCCESS || HcclCommInitRootInfo(1, &g_root, 0, &g_comm) != HCCL_SUCCESS) {
        std::fprintf(stderr, "setup: a one-rank comm could not be made\n");
        std::_Exit(2);
    }
}

void destroy_comm()
{
    if (g_comm != nullptr)
        HcclCommDestroy(g_comm); // the call's own failure left it live: it must still destroy
    g_comm = nullptr;
}

std::vector<Scenario> scenarios()
{
    return {
        {"HcclGetRootInfo", [] {}, [] { return HcclGetRootInfo(&g_root); }, [] {}},
        {"HcclCommInitRootInfo", [] { HcclGetRootInfo(&g_root); },
         [] { return HcclCommInitRootInfo(1, &g_root, 0, &g_comm); }, destroy_comm},
        // Two ranks on two threads: a rank whose thread cannot start, or whose comm cannot be
        // made, must not leave the other waiting past the bootstrap deadline (1 s here: a rank
        // that already joined waits for it) nor the call hang (30 s deadline per child).
        {"HcclCommInitAll", [] { ::setenv("HCOMM_REF_BOOTSTRAP_TIMEOUT_S", "1", 1); },
         [] {
             int32_t devices[2] = {0, 1};
             HcclComm comms[2] = {nullptr, nullptr};
             const HcclResult rc = HcclCommInitAll(2, devices, comms);
             for (HcclComm c : comms)
                 if (rc == HCCL_SUCCESS && c != nullptr)
                     HcclCommDestroy(c);
             return rc;
         },
         [] {}},
        {"HcclThreadAcquire", init_comm,
         [] { return HcclThreadAcquire(g_comm, COMM_ENGINE_AICPU_TS, 1, 2, &g_thread); }, destroy_comm},
        {"HcclCommDestroy",
         [] {
             init_comm();
             HcclThreadAcquire(g_comm, COMM_ENGINE_AICPU_TS, 1, 2, &g_thread);
         },
         [] {
             const HcclResult rc = HcclCommDestroy(g_comm);
             if (rc == HCCL_SUCCESS)
                 g_comm = nullptr;
             return rc;
         },
         destroy_comm},
    };
}

bool is_hccl_code(long rc) { return rc == HCCL_SUCCESS || (rc >= HCCL_E_PARA && rc <= HCCL_E_OOM); }

// Faults the 1st, 2nd, ... event of `fault` in every scenario until the call completes
// before reaching it; every run must end in a code. `limit` bounds the runs per scenario.
void sweep(Fault fault, uint64_t limit)
{
    const auto all = scenarios();
    const auto results = hcts::fault::sweep_each(all, fault, limit, is_hccl_code);
    for (size_t i = 0; i < all.size(); ++i) {
        EXPECT_EQ(results[i].failure, "");
        if (fault == Fault::thread && all[i].name == "HcclGetRootInfo") {
            EXPECT_GT(results[i].injected, 0u) << "HcclGetRootInfo starts its rendezvous thread: a creation to fail";
        }
    }
}

TEST(FaultInject, AllocationFailuresBecomeErrorCodes) { sweep(Fault::allocation, 3000); }

TEST(FaultInject, ThreadCreationFailuresBecomeErrorCodes) { sweep(Fault::thread, 50); }

} // namespace
