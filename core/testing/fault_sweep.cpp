// See hcts/testing/fault_sweep.h.
#include "hcts/testing/fault_sweep.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <thread>

#include "hcts/testing/fault_inject.h"

namespace hcts::fault {
namespace {

// The child's exit codes.
constexpr int kNotReached = 10; // the call finished before its n-th event
constexpr int kEscaped = 11;    // an exception came out of the call
constexpr int kBadCode = 12;    // neither success nor an error code of the API
constexpr int kSetupFailed = 13;
constexpr int kHung = -1000, kNoFork = -2000;

// Runs `s` in a child with the n-th `fault` armed around its call: the child's exit code,
// -signal, kHung (killed at the deadline) or kNoFork.
int run_child(const Scenario &s, Fault fault, uint64_t n, const std::function<bool(long)> &is_code,
              std::chrono::seconds deadline)
{
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        try {
            s.setup();
        } catch (const std::exception &e) {
            std::fprintf(stderr, "%s: setup failed: %s\n", s.name.c_str(), e.what());
            std::_Exit(kSetupFailed);
        }
        if (fault == Fault::allocation)
            fail_nth_allocation(n);
        else
            fail_nth_thread(n);
        long rc = 0;
        try {
            rc = s.call();
        } catch (const std::exception &e) {
            disarm();
            std::fprintf(stderr, "%s: an exception crossed the C ABI: %s\n", s.name.c_str(), e.what());
            std::_Exit(kEscaped);
        } catch (...) {
            disarm();
            std::fprintf(stderr, "%s: an exception of unknown type crossed the C ABI\n", s.name.c_str());
            std::_Exit(kEscaped);
        }
        const bool fired = disarm();
        s.cleanup();
        if (!is_code(rc)) {
            std::fprintf(stderr, "%s returned %ld, not a code of its API\n", s.name.c_str(), rc);
            std::exit(kBadCode);
        }
        std::exit(fired ? 0 : kNotReached);
    }
    if (pid < 0)
        return kNoFork;
    const auto until = std::chrono::steady_clock::now() + deadline;
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) != pid) {
        if (std::chrono::steady_clock::now() > until) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return kHung;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
}

std::string describe(int outcome, std::chrono::seconds deadline)
{
    if (outcome == kHung)
        return "hung (no end within " + std::to_string(deadline.count()) + " s)";
    if (outcome == kNoFork)
        return "could not be run (fork failed)";
    if (outcome < 0)
        return std::string("died of signal ") + strsignal(-outcome) + " (std::terminate aborts)";
    if (outcome == kEscaped)
        return "let an exception cross the C ABI";
    if (outcome == kBadCode)
        return "returned a value that is no code of its API";
    if (outcome == kSetupFailed)
        return "could not be set up (no fault armed yet)";
    return "exited with " + std::to_string(outcome) + " (under asan 23: a leak)";
}

} // namespace

SweepResult sweep(const Scenario &s, Fault fault, uint64_t limit, const std::function<bool(long)> &is_code,
                  std::chrono::seconds deadline)
{
    SweepResult r;
    for (uint64_t n = 1; n <= limit; ++n) {
        const int outcome = run_child(s, fault, n, is_code, deadline);
        if (outcome == kNotReached)
            break;
        if (outcome != 0) {
            r.failure = s.name + " with its " + (fault == Fault::allocation ? "allocation" : "thread creation") +
                        " number " + std::to_string(n) + " failing " + describe(outcome, deadline);
            break; // one report per scenario
        }
        ++r.injected;
    }
    return r;
}

std::vector<SweepResult> sweep_each(const std::vector<Scenario> &scenarios, Fault fault, uint64_t limit,
                                    const std::function<bool(long)> &is_code)
{
    std::vector<SweepResult> out;
    for (const Scenario &s : scenarios) {
        out.push_back(sweep(s, fault, limit, is_code));
        std::printf("%s: %llu %s failures injected\n", s.name.c_str(),
                    static_cast<unsigned long long>(out.back().injected),
                    fault == Fault::allocation ? "allocation" : "thread creation");
    }
    std::fflush(stdout);
    return out;
}

} // namespace hcts::fault
