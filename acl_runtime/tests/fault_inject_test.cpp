// No exception crosses the ACL runtime's C ABI: each entry point runs with its
// n-th allocation failing (std::bad_alloc), for n = 1, 2, ... until the call no longer
// reaches the n-th, each run in a child process under a deadline. The call must return
// ACL_SUCCESS or an ACL error code, never let an exception out, abort or hang; the child
// then cleans up and leaves through exit() (under asan, LeakSanitizer checks for leaks).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "acl_ref/acl_ref.h"
#include "hccl/hccl_comm.h"
#include "hcts/testing/fault_inject.h"

namespace {

constexpr int kNotReached = 10; // the call finished before its n-th allocation
constexpr int kEscaped = 11;    // an exception came out of the call
constexpr int kBadCode = 12;    // neither ACL_SUCCESS nor an ACL error code

struct Scenario {
    const char *name;
    std::function<void()> setup;
    std::function<aclError()> call;
    std::function<void()> cleanup;
};

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

int run_child(const Scenario &s, uint64_t n)
{
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        s.setup();
        hcts::fault::fail_nth_allocation(n);
        aclError rc = ACL_SUCCESS;
        try {
            rc = s.call();
        } catch (...) {
            hcts::fault::disarm();
            std::fprintf(stderr, "%s: an exception crossed the C ABI\n", s.name);
            std::_Exit(kEscaped);
        }
        const bool fired = hcts::fault::disarm();
        s.cleanup();
        if (rc != ACL_SUCCESS && rc < 100000) {
            std::fprintf(stderr, "%s returned %d, not an ACL error code\n", s.name, static_cast<int>(rc));
            std::exit(kBadCode);
        }
        std::exit(fired ? 0 : kNotReached);
    }
    if (pid < 0)
        return -2000;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) != pid) {
        if (std::chrono::steady_clock::now() > until) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1000;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
}

TEST(AclFaultInject, AllocationFailuresBecomeErrorCodes)
{
    for (const Scenario &s : scenarios()) {
        uint64_t injected = 0;
        for (uint64_t n = 1; n <= 2000; ++n) {
            const int outcome = run_child(s, n);
            if (outcome == kNotReached)
                break;
            ++injected;
            EXPECT_EQ(outcome, 0) << s.name << " with its allocation number " << n << " failing: "
                                  << (outcome == -1000      ? "hung (no end within 30 s)"
                                      : outcome < 0         ? std::string("died of signal ") + strsignal(-outcome)
                                      : outcome == kEscaped ? "an exception crossed the C ABI"
                                                            : "exited with " + std::to_string(outcome));
            if (outcome != 0)
                break;
        }
        std::printf("%s: %llu allocation failures injected\n", s.name, static_cast<unsigned long long>(injected));
    }
}

} // namespace
