// Runs two functions in two forked processes joined by a socketpair, with a deadline.
// The parent never touches verbs (the library's threads do not survive fork).
#pragma once

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <thread>

namespace svt {

struct Link {
    int fd;
    template <class T>
    void put(const T &v) const
    {
        if (write(fd, &v, sizeof v) != static_cast<ssize_t>(sizeof v))
            throw std::runtime_error("link write");
    }
    template <class T>
    T get() const
    {
        T v{};
        size_t got = 0;
        while (got < sizeof v) {
            ssize_t n = read(fd, reinterpret_cast<char *>(&v) + got, sizeof v - got);
            if (n <= 0)
                throw std::runtime_error("link read: peer gone");
            got += static_cast<size_t>(n);
        }
        return v;
    }
};

// Returns "" on success, else a description of what failed.
inline std::string run_two(const std::function<void(Link)> &a, const std::function<void(Link)> &b,
                           std::chrono::seconds deadline = std::chrono::seconds(30))
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return "socketpair failed";
    std::fflush(nullptr);
    auto child = [](const std::function<void(Link)> &f, int fd, int other, const char *name) {
        pid_t p = fork();
        if (p == 0) {
            close(other);
            int rc = 0;
            try {
                f(Link{fd});
            } catch (const std::exception &e) {
                std::fprintf(stderr, "process %s: %s\n", name, e.what());
                rc = 1;
            }
            std::fflush(nullptr);
            _exit(rc);
        }
        return p;
    };
    pid_t pa = child(a, sv[0], sv[1], "A");
    pid_t pb = child(b, sv[1], sv[0], "B");
    close(sv[0]);
    close(sv[1]);
    std::string err;
    auto end = std::chrono::steady_clock::now() + deadline;
    int left = 2;
    int status[2] = {-1, -1};
    while (left > 0) {
        int st = 0;
        pid_t w = waitpid(-1, &st, WNOHANG);
        if (w == pa || w == pb) {
            status[w == pa ? 0 : 1] = st;
            --left;
            continue;
        }
        if (std::chrono::steady_clock::now() > end) {
            kill(pa, SIGKILL);
            kill(pb, SIGKILL);
            waitpid(pa, nullptr, 0);
            waitpid(pb, nullptr, 0);
            return "timed out after " + std::to_string(deadline.count()) + " s";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    for (int i = 0; i < 2; ++i)
        if (!WIFEXITED(status[i]) || WEXITSTATUS(status[i]) != 0)
            err += std::string("process ") + (i ? "B" : "A") + " failed (status " + std::to_string(status[i]) + "); ";
    return err;
}

} // namespace svt
