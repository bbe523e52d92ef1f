// No exception crosses the ACL runtime's C ABI: each entry point runs with its
// n-th allocation failing (std::bad_alloc), for n = 1, 2, ... until the call no longer
// reaches the n-th, each run in a child process under a deadline. The call must return
// ACL_SUCCESS or an ACL error code, never let an exception out, abort or hang; the child
// then cleans up and leaves through exit() (under asan, LeakSanitizer checks for leaks).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl_ref/acl_ref.h"
#include "hccl/hccl_comm.h"
#include "hcts/testing/fault_sweep.h"

namespace {

using hcts::fault::Fault;
using hcts::fault::Scenario;

aclrtStream g_stream = nullptr;
void *g_ptr = nullptr;
HcclComm g_comm = nullptr;

uint32_t Nothing(void *) { return 0; }

// A device, a one-rank communicator it serves, and a stream of it.
void stream_with_comm()
{
    HcclRootInfo root{};
    if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || HcclGetRootInfo(&root) != HCCL_SUCCESS ||
        HcclCommInitRootInfo(1, &root, 0, &g_comm) != HCCL_SUCCESS || aclrtCreateStream(&g_stream) != ACL_SUCCESS) {
        std::fprintf(stderr, "setup: no device, communicator or stream\n");
        std::_Exit(2);
    }
}

void set_device()
{
    if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        std::fprintf(stderr, "setup: aclInit or aclrtSetDevice(0) failed\n");
        std::_Exit(2);
    }
}

std::vector<Scenario> scenarios()
{
    return {
        {"aclInit", [] {}, [] { return aclInit(nullptr); }, [] { aclFinalize(); }},
        {"aclrtSetDevice", [] { aclInit(nullptr); }, [] { return aclrtSetDevice(0); }, [] { aclrtResetDevice(0); }},
        {"aclrtCreateStream", set_device, [] { return aclrtCreateStream(&g_stream); },
         [] {
             if (g_stream != nullptr)
                 aclrtDestroyStream(g_stream);
             aclrtResetDevice(0);
         }},
        {"aclrtMalloc", set_device, [] { return aclrtMalloc(&g_ptr, 4096, ACL_MEM_MALLOC_HUGE_FIRST); },
         [] {
             if (g_ptr != nullptr)
                 aclrtFree(g_ptr);
             aclrtResetDevice(0);
         }},
        // Two launches, each synchronised: an allocation failing inside the stream's worker
        // fails the first synchronisation, and the second launch must still run (a worker
        // that died must not leave the stream taking jobs that never run).
        {"launch twice", stream_with_comm,
         [] {
             const aclError first = HctsAclRefLaunchFunction(Nothing, 1, g_stream, nullptr, 0);
             const aclError first_sync = aclrtSynchronizeStreamWithTimeout(g_stream, 10000);
             const aclError second = HctsAclRefLaunchFunction(Nothing, 1, g_stream, nullptr, 0);
             const aclError second_sync = aclrtSynchronizeStreamWithTimeout(g_stream, 10000);
             for (aclError rc : {first, first_sync, second, second_sync})
                 if (rc != ACL_SUCCESS)
                     return rc;
             return ACL_SUCCESS;
         },
         [] {
             aclrtDestroyStream(g_stream);
             HcclCommDestroy(g_comm);
             aclrtResetDevice(0);
         }},
        {"aclrtSynchronizeStream",
         [] {
             set_device();
             aclrtCreateStream(&g_stream);
         },
         [] { return aclrtSynchronizeStream(g_stream); },
         [] {
             aclrtDestroyStream(g_stream);
             aclrtResetDevice(0);
         }},
    };
}

bool is_acl_code(long rc) { return rc == ACL_SUCCESS || rc >= 100000; }

void expect_codes_only(Fault fault, uint64_t limit)
{
    for (const auto &r : hcts::fault::sweep_each(scenarios(), fault, limit, is_acl_code))
        EXPECT_EQ(r.failure, "");
}

TEST(AclFaultInject, AllocationFailuresBecomeErrorCodes) { expect_codes_only(Fault::allocation, 2000); }

// A stream's worker and a device's threads are started inside these calls: a creation
// that fails must be an error code too, not std::terminate from std::thread.
TEST(AclFaultInject, ThreadCreationFailuresBecomeErrorCodes) { expect_codes_only(Fault::thread, 50); }

} // namespace
