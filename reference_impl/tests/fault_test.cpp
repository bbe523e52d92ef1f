// Faults across two rank processes: one side is SIGKILLed, or destroys
// its comm while waits are in flight; the survivor waits with timeOut = 0 on the
// lost peer's channel. Each case ends inside its deadline with an error code in
// the survivor (HCCL_E_REMOTE), no hang and no crash. The rank program is fault_rank.cpp.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "hccl/hccl_comm.h"

extern char **environ;

namespace {

using Clock = std::chrono::steady_clock;

std::string hex_of(const HcclRootInfo &root)
{
    static const char digits[] = "0123456789abcdef";
    std::string text;
    for (size_t i = 0; i < 64; ++i) {
        const auto byte = static_cast<uint8_t>(root.internal[i]);
        text += digits[byte >> 4];
        text += digits[byte & 15];
    }
    return text;
}

pid_t spawn(const std::vector<std::string> &args)
{
    std::vector<char *> argv;
    for (const auto &a : args)
        argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    EXPECT_EQ(posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ), 0);
    return pid;
}

// Exit status of `pid` by `end` (128 + signal), or -1 after killing it at the deadline (a hang).
int reap(pid_t pid, Clock::time_point end)
{
    while (Clock::now() < end) {
        int ws = 0;
        if (waitpid(pid, &ws, WNOHANG) == pid)
            return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    return -1;
}

bool wait_for_file(const std::string &path, Clock::time_point end)
{
    while (Clock::now() < end) {
        if (access(path.c_str(), F_OK) == 0)
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

// Runs the two ranks; `victim` is killed (kill = true) or destroys its comm.
void run_fault(uint32_t victim, bool kill_it)
{
    HcclRootInfo root{};
    ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
    char dir_template[] = "/tmp/hcts-fault-XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    const std::string marker = std::string(dir_template) + "/rank";
    const std::string hex = hex_of(root);
    pid_t pids[2] = {};
    for (uint32_t r = 0; r < 2; ++r) {
        const std::string mode = !kill_it && r == victim ? "destroy" : "wait";
        pids[r] = spawn({HCTS_FAULT_RANK, hex, std::to_string(r), marker, mode});
    }
    const auto start = Clock::now();
    const bool ready = wait_for_file(marker + ".0", start + std::chrono::seconds(60)) &&
                       wait_for_file(marker + ".1", start + std::chrono::seconds(60));
    EXPECT_TRUE(ready) << "the ranks did not connect within 60 s";
    std::this_thread::sleep_for(std::chrono::milliseconds(300)); // both waits are in flight
    const auto fault = Clock::now();
    if (kill_it)
        kill(pids[victim], SIGKILL);
    else
        std::fclose(std::fopen((marker + ".go").c_str(), "w"));
    const uint32_t survivor = 1 - victim;
    // The survivor notices within a few peer checks (100 ms each); 20 s is generous on a loaded host.
    const int survivor_status = reap(pids[survivor], fault + std::chrono::seconds(20));
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - fault).count();
    EXPECT_EQ(survivor_status, 0) << "rank " << survivor << " (-1: hung and killed at the deadline) after " << took
                                  << " ms";
    if (kill_it) {
        EXPECT_EQ(reap(pids[victim], Clock::now() + std::chrono::seconds(5)), 128 + SIGKILL);
    } else {
        // The destroying rank sleeps after its checks: it must still be alive (no crash) here.
        int ws = 0;
        EXPECT_EQ(waitpid(pids[victim], &ws, WNOHANG), 0) << "the destroying rank ended early, status " << ws;
        kill(pids[victim], SIGKILL);
        waitpid(pids[victim], &ws, 0);
        EXPECT_TRUE(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL)
            << "the destroying rank failed its own checks before the kill, status " << ws;
    }
    std::printf("survivor rank %u ended %lld ms after the fault\n", survivor, static_cast<long long>(took));
    for (const char *suffix : {".0", ".1", ".go"})
        unlink((marker + suffix).c_str());
    rmdir(dir_template);
}

} // namespace

TEST(PeerFault, SigkillOfRank1EndsRank0sForeverWait) { run_fault(1, true); }
TEST(PeerFault, SigkillOfRank0EndsRank1sForeverWait) { run_fault(0, true); }
TEST(PeerFault, DestroyDuringAWaitEndsItAndThePeersForeverWait) { run_fault(1, false); }
