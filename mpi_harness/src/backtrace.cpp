// Each thread is asked, one at a time, to write its own stack from a signal
// handler: glibc's backtrace() can only walk the calling thread. The handler
// uses only write(2) and backtrace_symbols_fd(), which do not allocate.
#include "backtrace.h"

#include <dirent.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace hcts::mpi::detail {
namespace {

std::atomic<int> g_fd{-1};
std::atomic<long> g_answered{0};

int dump_signal() { return SIGRTMIN + 5; }

void write_str(int fd, const char *s)
{
    for (size_t n = std::strlen(s); n > 0;) {
        ssize_t w = ::write(fd, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= static_cast<size_t>(w);
    }
}

void write_own_stack(int fd)
{
    void *frames[64];
    int n = ::backtrace(frames, 64);
    ::backtrace_symbols_fd(frames, n, fd);
}

void on_dump_signal(int)
{
    int saved = errno;
    int fd = g_fd.load();
    if (fd >= 0)
        write_own_stack(fd);
    g_answered.store(static_cast<long>(::syscall(SYS_gettid)));
    errno = saved;
}

std::string thread_name(long tid)
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/self/task/%ld/comm", tid);
    std::FILE *f = std::fopen(path, "r");
    if (!f)
        return "?";
    char buf[64] = {};
    if (!std::fgets(buf, sizeof buf, f))
        buf[0] = '\0';
    std::fclose(f);
    buf[std::strcspn(buf, "\n")] = '\0';
    return buf;
}

std::vector<long> thread_ids()
{
    std::vector<long> ids;
    DIR *d = ::opendir("/proc/self/task");
    if (!d)
        return ids;
    while (dirent *e = ::readdir(d)) {
        if (e->d_name[0] != '.')
            ids.push_back(std::strtol(e->d_name, nullptr, 10));
    }
    ::closedir(d);
    return ids;
}

} // namespace

void dump_own_backtrace(int fd) { write_own_stack(fd); }

void install_backtrace_handler()
{
    // The first backtrace() loads libgcc's unwinder; doing it now keeps the
    // handler free of that allocation later.
    void *warmup[1];
    (void)::backtrace(warmup, 1);
    struct sigaction sa {};
    sa.sa_handler = on_dump_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    ::sigaction(dump_signal(), &sa, nullptr);
}

void dump_all_backtraces(int fd)
{
    const long self = static_cast<long>(::syscall(SYS_gettid));
    const pid_t pid = ::getpid();
    g_fd.store(fd);
    for (long tid : thread_ids()) {
        char head[160];
        std::snprintf(head, sizeof head, "--- thread %ld (%s)%s ---\n", tid, thread_name(tid).c_str(),
                      tid == self ? " [watchdog]" : "");
        write_str(fd, head);
        if (tid == self) {
            write_own_stack(fd);
            continue;
        }
        g_answered.store(0);
        if (::syscall(SYS_tgkill, pid, tid, dump_signal()) != 0) {
            write_str(fd, "(thread could not be signalled)\n");
            continue;
        }
        // A thread that blocks the signal never answers; do not wait long for it.
        auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
        while (g_answered.load() != tid && std::chrono::steady_clock::now() < until) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        if (g_answered.load() != tid)
            write_str(fd, "(no answer within 300 ms: signal blocked?)\n");
    }
    g_fd.store(-1);
}

} // namespace hcts::mpi::detail
