// No exception crosses the C ABI: each entry point runs with its n-th
// allocation failing (std::bad_alloc) and, separately, its n-th thread creation failing
// (std::system_error from std::thread), for n = 1, 2, ... until the call no longer
// reaches the n-th. Each run is a child process under a deadline: the call must return
// HCCL_SUCCESS or an error code, never let an exception out, end the process
// (std::terminate) or hang; the child then cleans up and leaves through exit(), so under
// the asan preset LeakSanitizer also checks that a failed call leaked nothing.
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

#include "hccl/hccl_comm.h"
#include "hccl/hccl_res.h"
#include "hcomm/hcomm_res_defs.h"
#include "hcts/testing/fault_inject.h"

namespace {

enum class Fault { allocation, thread };

// The child's exit codes.
constexpr int kNotReached = 10; // the call finished before its n-th allocation / thread
constexpr int kEscaped = 11;    // an exception came out of the call
constexpr int kBadCode = 12;    // a code that is neither success nor an error the API has

// A scenario: setup (no fault), the call under test (faulted), cleanup (no fault).
struct Scenario {
    const char *name;
    std::function<void()> setup;
    std::function<HcclResult()> call;
    std::function<void()> cleanup;
};

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

// Runs `s` in a child with the n-th `fault` armed around its call. Returns the child's
// exit code, or -signal, or -1000 when it did not end within the deadline (killed).
int run_child(const Scenario &s, Fault fault, uint64_t n)
{
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        s.setup();
        if (fault == Fault::allocation)
            hcts::fault::fail_nth_allocation(n);
        else
            hcts::fault::fail_nth_thread(n);
        HcclResult rc = HCCL_SUCCESS;
        try {
            rc = s.call();
        } catch (const std::exception &e) {
            hcts::fault::disarm();
            std::fprintf(stderr, "%s: an exception crossed the C ABI: %s\n", s.name, e.what());
            std::_Exit(kEscaped);
        } catch (...) {
            hcts::fault::disarm();
            std::fprintf(stderr, "%s: an exception of unknown type crossed the C ABI\n", s.name);
            std::_Exit(kEscaped);
        }
        const bool fired = hcts::fault::disarm();
        s.cleanup();
        if (rc != HCCL_SUCCESS && (rc < HCCL_E_PARA || rc > HCCL_E_OOM)) {
            std::fprintf(stderr, "%s returned %d, not an HcclResult\n", s.name, static_cast<int>(rc));
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

std::string describe(int outcome)
{
    if (outcome == -1000)
        return "hung (no end within 30 s)";
    if (outcome < 0)
        return std::string("died of signal ") + strsignal(-outcome) + " (std::terminate aborts)";
    if (outcome == kEscaped)
        return "let an exception cross the C ABI";
    if (outcome == kBadCode)
        return "returned a code that is no HcclResult";
    return "exited with " + std::to_string(outcome) + " (under asan 23: a leak)";
}

// Faults the 1st, 2nd, ... event of `fault` in every scenario until the call completes
// before reaching it; every run must end in a code. `limit` bounds the runs per scenario.
void sweep(Fault fault, uint64_t limit)
{
    for (const Scenario &s : scenarios()) {
        uint64_t injected = 0;
        for (uint64_t n = 1; n <= limit; ++n) {
            const int outcome = run_child(s, fault, n);
            if (outcome == kNotReached)
                break;
            ++injected;
            EXPECT_EQ(outcome, 0) << s.name << " with its " << (fault == Fault::allocation ? "allocation" : "thread")
                                  << " number " << n << " failing " << describe(outcome);
            if (outcome != 0)
                break; // one report per scenario
        }
        std::printf("%s: %llu %s failures injected\n", s.name, static_cast<unsigned long long>(injected),
                    fault == Fault::allocation ? "allocation" : "thread creation");
        if (fault == Fault::thread && std::strcmp(s.name, "HcclGetRootInfo") == 0) {
            EXPECT_GT(injected, 0u) << "HcclGetRootInfo starts its rendezvous thread: a creation to fail";
        }
    }
}

TEST(FaultInject, AllocationFailuresBecomeErrorCodes) { sweep(Fault::allocation, 3000); }

TEST(FaultInject, ThreadCreationFailuresBecomeErrorCodes) { sweep(Fault::thread, 50); }

} // namespace
