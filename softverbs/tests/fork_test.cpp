// Fork safety: a process with open verbs resources (a device, MRs, connected
// QPs, softverbs' listener and threads) forks. The child cannot use, destroy or signal
// anything the parent opened (EPERM, nothing touched), opens its own device, connects a
// QP of its own to a new QP of the parent and RDMA-WRITEs into the parent's memory; the
// parent's own connection works before and after. The child leaves through exit().
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <sys/wait.h>

#include <csignal>

#include "verbs_fixture.h"

// LeakSanitizer in a forked child: memory the parent's other threads held only on their
// stacks (which the child does not have) looks leaked there. The child's check is off; the
// parent's, which covers the same code, stays on. (LeakSanitizer calls this; asan only.)
namespace {
bool g_in_fork_child = false;
} // namespace
extern "C" int __lsan_is_turned_off() { return g_in_fork_child ? 1 : 0; }

namespace {

using namespace svt;

bool write_all(int fd, const void *p, size_t n) { return ::write(fd, p, n) == static_cast<ssize_t>(n); }

// Reads exactly n bytes within 20 s.
bool read_all(int fd, void *p, size_t n)
{
    auto *b = static_cast<uint8_t *>(p);
    while (n != 0) {
        pollfd pfd{fd, POLLIN, 0};
        if (poll(&pfd, 1, 20000) != 1)
            return false;
        const ssize_t k = ::read(fd, b, n);
        if (k <= 0)
            return false;
        b += k;
        n -= static_cast<size_t>(k);
    }
    return true;
}

// One RDMA WRITE of len bytes from lmr to (raddr, rkey) on q, completed within the deadline.
std::string write_and_wait(Qp &q, const ibv_mr *lmr, uint32_t len, uint64_t raddr, uint32_t rkey)
{
    if (const int rc = q.post(IBV_WR_RDMA_WRITE, 1, lmr, 0, len, raddr, rkey); rc != 0)
        return "ibv_post_send: " + std::string(strerror(rc));
    ibv_wc wc{};
    if (!wait_wc(q.scq, &wc))
        return "no completion within 5 s";
    if (wc.status != IBV_WC_SUCCESS)
        return std::string("completion ") + ibv_wc_status_str(wc.status);
    return "";
}

// The child: refuses the parent's objects, then writes `stamp` bytes into the parent's
// memory through a QP of its own device. "" or what failed.
std::string child(Loopback &inherited, int to_parent, int from_parent)
{
    ibv_send_wr wr{};
    ibv_send_wr *bad = nullptr;
    if (const int rc = ibv_post_send(inherited.a.qp, &wr, &bad); rc != EPERM)
        return "ibv_post_send on the parent's QP returned " + std::to_string(rc) + ", not EPERM";
    ibv_wc wc{};
    if (const int n = ibv_poll_cq(inherited.a.scq, 1, &wc); n >= 0)
        return "ibv_poll_cq on the parent's CQ returned " + std::to_string(n) + ", not an error";
    if (const int rc = ibv_destroy_qp(inherited.b.qp); rc != EPERM)
        return "ibv_destroy_qp of the parent's QP returned " + std::to_string(rc) + ", not EPERM";
    if (const int rc = ibv_dereg_mr(inherited.mr.mr); rc != EPERM)
        return "ibv_dereg_mr of the parent's MR returned " + std::to_string(rc) + ", not EPERM";
    if (const int rc = ibv_close_device(inherited.dev.ctx); rc != EPERM)
        return "ibv_close_device of the parent's context returned " + std::to_string(rc) + ", not EPERM";

    Device dev;
    Buffer buf(4096, true);
    std::memset(buf.p, 0xC5, buf.n);
    Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
    Qp q(dev);
    const Endpoint mine = q.endpoint(mr.mr);
    Endpoint parent{};
    if (!write_all(to_parent, &mine, sizeof mine) || !read_all(from_parent, &parent, sizeof parent))
        return "the endpoint exchange with the parent failed";
    q.connect(parent);
    std::string error = write_and_wait(q, mr.mr, 4096, parent.addr, parent.rkey);
    const char done = error.empty() ? 'y' : 'n';
    write_all(to_parent, &done, 1);
    return error;
}

TEST(Fork, ChildOpensItsOwnDeviceAndLeavesTheParentsAlone)
{
#if defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "ThreadSanitizer does not support threads after a multi-threaded fork";
#endif
    Loopback lb(8192);
    std::memset(lb.buf.p, 0x11, 4096);
    ASSERT_EQ(write_and_wait(lb.a, lb.mr.mr, 4096, reinterpret_cast<uintptr_t>(lb.buf.p) + 4096, lb.mr.mr->rkey), "")
        << "the parent's loopback before the fork";

    int up[2], down[2];
    ASSERT_EQ(pipe(up), 0);
    ASSERT_EQ(pipe(down), 0);
    std::fflush(nullptr);
    // softverbs' threads settle first: under asan, GCC 12's allocator is not fork-safe (a thread
    // inside malloc at the fork leaves the child's allocator locked for good).
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        g_in_fork_child = true;
        std::string error;
        try {
            error = child(lb, up[1], down[0]);
        } catch (const std::exception &e) {
            error = e.what();
        }
        if (!error.empty())
            std::fprintf(stderr, "fork child: %s\n", error.c_str());
        std::exit(error.empty() ? 0 : 1);
    }
    // A new QP of the parent's device, connected to the child's.
    Buffer target(4096, true);
    std::memset(target.p, 0, target.n);
    Mr tmr(lb.dev.pd, target.p, target.n, kAllAccess);
    Qp q(lb.dev);
    Endpoint theirs{};
    const Endpoint mine = q.endpoint(tmr.mr);
    const bool exchanged = read_all(up[0], &theirs, sizeof theirs) && write_all(down[1], &mine, sizeof mine);
    if (exchanged)
        q.connect(theirs);
    char done = 0;
    const bool told = exchanged && read_all(up[0], &done, 1);
    int status = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (waitpid(pid, &status, WNOHANG) != pid) {
        if (std::chrono::steady_clock::now() > until) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            FAIL() << "the child still ran after 30 s (killed)";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_FALSE(WIFSIGNALED(status)) << "the child died of signal " << WTERMSIG(status);
    ASSERT_EQ(WEXITSTATUS(status), 0) << "the child failed (its message is above)";
    ASSERT_TRUE(exchanged && told && done == 'y') << "the child's write did not complete";
    for (size_t i = 0; i < target.n; ++i)
        ASSERT_EQ(target.p[i], 0xC5) << "byte " << i << " of the child's RDMA WRITE into the parent";
    // The parent's own connection after the child is gone.
    std::memset(lb.buf.p, 0x22, 4096);
    ASSERT_EQ(write_and_wait(lb.a, lb.mr.mr, 4096, reinterpret_cast<uintptr_t>(lb.buf.p) + 4096, lb.mr.mr->rkey), "")
        << "the parent's loopback after the child ended";
    EXPECT_EQ(lb.buf.p[4096 + 100], 0x22);
}

} // namespace
