// spawn_and_wait: exit codes, the environment on top of the runner's, a failed
// exec, and a deadline that leaves no process behind, including one that moved to
// a process group of its own as MPI ranks do.
#include "spawn.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

using hcts::selftest::Command;
using hcts::selftest::spawn_and_wait;
using hcts::selftest::SpawnResult;
namespace fs = std::filesystem;

namespace {

// The logs of this process's tests, removed when it exits.
struct LogDir {
    fs::path path = fs::temp_directory_path() / ("hcts-spawn-test-" + std::to_string(::getpid()));
    ~LogDir()
    {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
};

std::string log_path(const std::string &name)
{
    static const LogDir dir;
    fs::create_directories(dir.path);
    return (dir.path / name).string();
}

std::string read(const std::string &p)
{
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Gone, or a zombie nobody reaped yet (in a container, pid 1 may never reap it).
bool alive(pid_t pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat;
    if (!std::getline(in, stat))
        return false;
    const auto paren = stat.rfind(')');
    return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

} // namespace

TEST(Spawn, ReportsTheExitCodeAndWritesTheLog)
{
    const std::string log = log_path("exit.log");
    const SpawnResult r =
        spawn_and_wait({{}, {"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}}, log, std::chrono::seconds(30));
    EXPECT_EQ(r.end, SpawnResult::End::Exited);
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(read(log), "out\nerr\n");
}

TEST(Spawn, TheCommandsEnvironmentOverridesTheRunners)
{
    ::setenv("HCTS_SPAWN_TEST_A", "runner", 1);
    ::setenv("HCTS_SPAWN_TEST_B", "kept", 1);
    const std::string log = log_path("env.log");
    const SpawnResult r = spawn_and_wait(
        {{{"HCTS_SPAWN_TEST_A", "command's"}}, {"/bin/sh", "-c", "echo \"$HCTS_SPAWN_TEST_A $HCTS_SPAWN_TEST_B\""}},
        log, std::chrono::seconds(30));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(read(log), "command's kept\n");
}

TEST(Spawn, AProgramThatCannotRunExits127AndSaysWhich)
{
    const std::string log = log_path("missing.log");
    const SpawnResult r = spawn_and_wait({{}, {"/nonexistent/program"}}, log, std::chrono::seconds(30));
    EXPECT_EQ(r.end, SpawnResult::End::Exited);
    EXPECT_EQ(r.exit_code, 127);
    EXPECT_NE(read(log).find("/nonexistent/program"), std::string::npos);
    EXPECT_EQ(spawn_and_wait({}, log, std::chrono::seconds(1)).end, SpawnResult::End::NotStarted);
}

TEST(Spawn, TheDeadlineKillsTheWholeTreeEvenAProcessInItsOwnGroup)
{
    const std::string log = log_path("deadline.log"), pidfile = log_path("grandchild.pid");
    // The grandchild leaves the group (setsid) and ignores SIGTERM, as a stuck rank might.
    const std::string script = "setsid sh -c 'trap \"\" TERM; echo $$ > " + pidfile + "; sleep 300' & sleep 300";
    const auto t0 = std::chrono::steady_clock::now();
    const SpawnResult r = spawn_and_wait({{}, {"/bin/sh", "-c", script}}, log, std::chrono::seconds(1));
    const auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_EQ(r.end, SpawnResult::End::TimedOut);
    EXPECT_NE(r.note.find("deadline 1 s"), std::string::npos) << r.note;
    EXPECT_LT(took, std::chrono::seconds(60));
    const std::string pid_text = read(pidfile);
    ASSERT_FALSE(pid_text.empty()) << "the grandchild never started";
    const pid_t grandchild = static_cast<pid_t>(std::stol(pid_text));
    // SIGKILL is delivered at once, but the zombie's reaping by init can lag a little.
    for (int i = 0; i < 100 && alive(grandchild); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(alive(grandchild)) << "pid " << grandchild << " outlived the deadline";
}
