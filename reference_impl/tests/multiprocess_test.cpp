// Ranks in separate processes (one rank per process, as under MPI): the parent
// makes the root info, starts N rank processes and judges their exit statuses.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "hccl/hccl_comm.h"

extern char **environ;

namespace {

std::vector<std::string> split(const char *text)
{
    std::vector<std::string> parts;
    if (text == nullptr || *text == '\0')
        return parts;
    std::string item;
    for (const char *c = text;; ++c) {
        if (*c == ',' || *c == '\0') {
            parts.push_back(item);
            item.clear();
            if (*c == '\0')
                break;
        } else {
            item += *c;
        }
    }
    return parts;
}

std::string hex_of(const HcclRootInfo &root)
{
    static const char digits[] = "0123456789abcdef";
    std::string text;
    for (size_t i = 0; i < 64; ++i) { // the reference's root info lives in its first bytes
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
    // HCTS_RANK_NETNS / HCTS_RANK_IFS (comma lists, set by netns_ranks.sh): rank r
    // runs in namespace r % count, bootstrapping and placing verbs traffic on that
    // namespace's interface, so ranks in different namespaces talk over TCP.
    const std::vector<std::string> netns = split(std::getenv("HCTS_RANK_NETNS"));
    const std::vector<std::string> ifs = split(std::getenv("HCTS_RANK_IFS"));
    std::vector<pid_t> pids;
    for (uint32_t r = 0; r < n; ++r) {
        std::vector<std::string> args;
        if (!netns.empty()) {
            const std::string &ifname = ifs.at(r % ifs.size());
            args = {"ip",
                    "netns",
                    "exec",
                    netns[r % netns.size()],
                    "env",
                    "HCOMM_REF_BOOTSTRAP_IF=" + ifname,
                    "SOFTVERBS_LISTEN=" + ifname};
        }
        // Every rank gets its own softverbs job secret: they connect only because the
        // reference hands its bootstrap token down to each QP (softverbs_set_qp_secret).
        if (args.empty())
            args.push_back("env");
        args.push_back("SOFTVERBS_SECRET=rank" + std::to_string(r) + "-own-secret");
        for (const std::string &a : {std::string(HCTS_RANK_PROCESS), hex, std::to_string(n), std::to_string(r)}) {
            args.push_back(a);
        }
        std::vector<char *> argv;
        for (auto &a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        pid_t pid = 0;
        EXPECT_EQ(posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ), 0);
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
        std::this_thread::sleep_for(pause); // back off: children need the CPUs
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

} // namespace

class Processes : public ::testing::TestWithParam<uint32_t> {};

TEST_P(Processes, RingAcrossProcesses)
{
    const uint32_t n = GetParam();
    const auto status = run_job(n, std::chrono::seconds(90));
    for (uint32_t r = 0; r < n; ++r)
        EXPECT_EQ(status[r], 0) << "rank process " << r << " (-1: hung, killed)";
}

INSTANTIATE_TEST_SUITE_P(Ranks, Processes, ::testing::Values(2U, 4U, 8U));
