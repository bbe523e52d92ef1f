#include "spawn.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>

#include "hcts/core/command.h"

extern char **environ;

namespace hcts::selftest {

std::string Command::text() const
{
    std::string s;
    for (const auto &[k, v] : env)
        s += k + "=" + hcts::shell_quote(v) + " ";
    for (const auto &a : argv)
        s += hcts::shell_quote(a) + " ";
    if (!s.empty())
        s.pop_back();
    return s;
}

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Waits for `pid` until `deadline` without polling: a pidfd becomes readable
// when the process exits. Returns true when it exited (status in *status).
bool wait_until(pid_t pid, Clock::time_point deadline, int *status)
{
    const int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    for (;;) {
        if (waitpid(pid, status, WNOHANG) == pid)
            break;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {
            if (fd >= 0)
                close(fd);
            return false;
        }
        if (fd >= 0) {
            pollfd p{fd, POLLIN, 0};
            poll(&p, 1, static_cast<int>(std::min<long long>(left, 60000)));
        } else {
            // No pidfd (kernel before 5.3): check again after a short sleep.
            usleep(static_cast<useconds_t>(std::min<long long>(left, 200) * 1000));
        }
    }
    if (fd >= 0)
        close(fd);
    return true;
}

// Every process below `root` (from /proc): MPI starts each rank in a process
// group of its own, so killing the launch's group alone could leave ranks behind.
std::vector<pid_t> descendants(pid_t root)
{
    std::map<pid_t, std::vector<pid_t>> children;
    std::error_code ec;
    for (const auto &d : fs::directory_iterator("/proc", ec)) {
        const auto name = d.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        std::ifstream in(d.path() / "stat");
        std::string stat;
        std::getline(in, stat);
        const auto close_paren = stat.rfind(')');
        if (close_paren == std::string::npos)
            continue;
        std::istringstream rest(stat.substr(close_paren + 1));
        std::string state;
        long ppid = 0;
        if (rest >> state >> ppid)
            children[static_cast<pid_t>(ppid)].push_back(static_cast<pid_t>(std::stol(name)));
    }
    std::vector<pid_t> out;
    std::vector<pid_t> todo{root};
    while (!todo.empty()) {
        const pid_t p = todo.back();
        todo.pop_back();
        for (const pid_t c : children[p]) {
            out.push_back(c);
            todo.push_back(c);
        }
    }
    return out;
}

} // namespace

SpawnResult spawn_and_wait(const Command &c, const std::string &log, std::chrono::seconds deadline)
{
    SpawnResult r;
    if (c.argv.empty()) {
        r.note = "no command";
        return r;
    }
    // Entries run on several threads (--jobs): between fork and exec the child may
    // only make async-signal-safe calls, so argv, the environment and the message
    // for a failed exec are built here, before the fork.
    std::vector<std::string> env_store;
    for (char **e = environ; *e != nullptr; ++e) {
        const std::string_view kv(*e);
        const auto name = kv.substr(0, kv.find('='));
        if (std::none_of(c.env.begin(), c.env.end(), [&](const auto &p) { return p.first == name; }))
            env_store.emplace_back(kv);
    }
    for (const auto &[k, v] : c.env)
        env_store.push_back(k + "=" + v);
    std::vector<char *> envp, argv;
    for (auto &kv : env_store)
        envp.push_back(kv.data());
    envp.push_back(nullptr);
    for (const auto &a : c.argv)
        argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    const std::string exec_failed = "hcts-selftest: cannot run " + c.argv[0] + "\n";
    const pid_t pid = fork();
    if (pid < 0) {
        r.note = std::string("fork: ") + std::strerror(errno);
        return r;
    }
    if (pid == 0) {
        setpgid(0, 0);
        const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execve(argv[0], argv.data(), envp.data());
        const ssize_t ignored = write(2, exec_failed.data(), exec_failed.size());
        (void)ignored;
        _exit(127);
    }
    setpgid(pid, pid);
    int status = 0;
    if (!wait_until(pid, Clock::now() + deadline, &status)) {
        // SIGTERM first: mpirun then stops its ranks itself; what is left after a grace period is killed.
        const auto below = descendants(pid);
        kill(-pid, SIGTERM);
        if (!wait_until(pid, Clock::now() + std::chrono::seconds(10), &status)) {
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
        }
        kill(-pid, SIGKILL); // whatever of the group is left
        for (const pid_t p : below)
            kill(p, SIGKILL); // ranks in groups of their own (already gone: ESRCH, harmless)
        r.end = SpawnResult::End::TimedOut;
        r.note = "deadline " + std::to_string(deadline.count()) + " s";
        return r;
    }
    r.end = SpawnResult::End::Exited;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

} // namespace hcts::selftest
