// Ranks in separate processes (one rank per process, as under MPI): the parent
// makes the root info, starts N rank processes and judges their exit statuses.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "hccl/hccl_comm.h"

extern char **environ;

namespace {

std::string hex_of(const HcclRootInfo &root)
{
    static const char digits[] = "0123456789abcdef";
    std::string text;
    for (size_t i = 0; i < 64; ++i) {  // the reference's root info lives in its first bytes
        const auto byte = static_cast<uint8_t>(root.internal[i]);
        text += digits[byte >> 4];
        text += digits[byte & 15];
    }
    return text;
}

// Runs `n` rank processes; returns their exit statuses (-1: killed at the deadline).
std::vector<int> run_job(uint32_t n, std::chrono::seconds deadline)
{
    HcclRootInfo root{};
    EXPECT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
    const std::string hex = hex_of(root);
    std::vector<pid_t> pids;
    for (uint32_t r = 0; r < n; ++r) {
        const std::string ranks = std::to_string(n);
        const std::string rank = std::to_string(r);
        char *argv[] = {const_cast<char *>(HCTS_RANK_PROCESS), const_cast<char *>(hex.c_str()),
                        const_cast<char *>(ranks.c_str()), const_cast<char *>(rank.c_str()), nullptr};
        pid_t pid = 0;
        EXPECT_EQ(posix_spawn(&pid, HCTS_RANK_PROCESS, nullptr, nullptr, argv, environ), 0);
        pids.push_back(pid);
    }
    std::vector<int> status(n, -1);
    const auto end = std::chrono::steady_clock::now() + deadline;
    size_t left = n;
    auto pause = std::chrono::milliseconds(5);
    while (left > 0 && std::chrono::steady_clock::now() < end) {
        for (uint32_t r = 0; r < n; ++r) {
            int ws = 0;
            if (status[r] == -1 && pids[r] > 0 && waitpid(pids[r], &ws, WNOHANG) == pids[r]) {
                status[r] = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
                --left;
            }
        }
        std::this_thread::sleep_for(pause);  // back off: children need the CPUs
        pause = std::min(pause * 2, std::chrono::milliseconds(100));
    }
    for (uint32_t r = 0; r < n; ++r) {
        if (status[r] == -1 && pids[r] > 0) {
            kill(pids[r], SIGKILL);
            waitpid(pids[r], nullptr, 0);
        }
    }
    return status;
}

}  // namespace

class Processes : public ::testing::TestWithParam<uint32_t> {};

TEST_P(Processes, RingAcrossProcesses)
{
    const uint32_t n = GetParam();
    const auto status = run_job(n, std::chrono::seconds(90));
    for (uint32_t r = 0; r < n; ++r) EXPECT_EQ(status[r], 0) << "rank process " << r << " (-1: hung, killed)";
}

INSTANTIATE_TEST_SUITE_P(Ranks, Processes, ::testing::Values(2U, 4U, 8U));
