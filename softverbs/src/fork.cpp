// Fork safety. A forked child inherits the parent's memory but none of its threads,
// and shares its sockets, eventfds, epoll sets and MAP_SHARED memory (the MR table, the
// shm rings) with it. So the child must never use what the parent set up: it would
// steal the parent's frames, write into the parent's rings and tables, or wait for
// threads that do not exist here. At fork, the parent's G().mu is held (the state is
// consistent in the child); in the child every part starts afresh and closes only its
// own copies of the parent's descriptors, and calls on the parent's objects are refused
// with EPERM. What a child may use is in softverbs/README.md ("Fork").
#include "sv.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>

#include "caught_exception.h"

namespace sv {
namespace {

std::atomic<uint32_t> g_fork_gen{0};

void before_fork() { G().mu.lock(); }
void after_fork_in_parent() { G().mu.unlock(); }
void after_fork_in_child()
{
    g_fork_gen.fetch_add(1, std::memory_order_relaxed);
    // The parent's G().mu stays held: nothing in the child takes it again.
    transport_after_fork_in_child();
    ud_after_fork_in_child();
    mr_after_fork_in_child();
    adversary_after_fork_in_child();
    global_after_fork_in_child();
}

__attribute__((constructor)) void register_fork_handlers()
{
    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
}

} // namespace

int exception_errno(const char *api) noexcept
{
    char cause[200];
    const int err = sv_common::caught_exception(cause, sizeof cause);
    std::fprintf(stderr, "softverbs[%d]: %s failed: %s; returning %s\n", static_cast<int>(getpid()), api, cause,
                 std::strerror(err));
    return err;
}

namespace {
std::atomic<const char *> g_dead_thread{nullptr};
} // namespace

const char *dead_thread() noexcept { return g_dead_thread.load(std::memory_order_acquire); }

void run_thread(const char *name, void (*body)()) noexcept
{
    char cause[200];
    try {
        if (config().fail_thread == name)
            throw std::runtime_error("SOFTVERBS_FAIL=thread:" + config().fail_thread);
        body();
        return;
    } catch (...) {
        (void)sv_common::caught_exception(cause, sizeof cause);
    }
    const char *expected = nullptr;
    const bool first = g_dead_thread.compare_exchange_strong(expected, name, std::memory_order_acq_rel);
    try {
        std::lock_guard lk(G().mu);
        for (auto &[qpn, qp] : G().qps)
            qp_to_error_locked(qp, IBV_EVENT_QP_FATAL);
    } catch (...) { // the QPs stay as they are; the message below still goes out
    }
    if (first)
        std::fprintf(stderr,
                     "softverbs[%d]: its %s thread stopped: %s; every QP is now in the error state (its work "
                     "requests flush) and new QPs are refused (EIO): restart the program\n",
                     static_cast<int>(getpid()), name, cause);
}

uint32_t fork_generation() { return g_fork_gen.load(std::memory_order_relaxed); }

bool fork_inherited(const ibv_context *ctx)
{
    if (ctx == nullptr)
        return false;
    const Context *c = to_ctx(const_cast<ibv_context *>(ctx));
    if (c->fork_gen == fork_generation())
        return false;
    log(1, "a call on a verbs object of the process this one was forked from: refused (EPERM); a forked child "
           "opens its own device");
    errno = EPERM;
    return true;
}

} // namespace sv
