// softverbs_bench: RDMA WRITE latency and bandwidth, 8 B to 16 MiB, for each
// softverbs transport, beside memcpy measured in the same run.
//   build/bin/softverbs-run build/bin/softverbs_bench [--quick]
// Latency: WRITE_WITH_IMM ping-pong, half the round trip. Bandwidth: a window
// of 16 WRITEs in flight, the last of each window signaled, one process to another.
#include <arpa/inet.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "two_process.h"
#include "verbs_fixture.h"

using namespace svt;
using Clock = std::chrono::steady_clock;

namespace {

const size_t kSizes[] = {8, 64, 512, 4096, 65536, 1 << 20, 16 << 20};
constexpr size_t kBuf = 16 << 20;
bool g_quick = false;
std::string g_only; // --only inproc|shm|cma|tcp

double secs(Clock::time_point a) { return std::chrono::duration<double>(Clock::now() - a).count(); }

struct Result {
    double lat_us[std::size(kSizes)];
    double gbps[std::size(kSizes)];
};

int iters_for(size_t s, bool bw)
{
    size_t budget = g_quick ? (64u << 20) : (512u << 20);
    size_t n = budget / s;
    return static_cast<int>(std::clamp<size_t>(n, bw ? 16 : 8, bw ? 20000 : (g_quick ? 500 : 3000)));
}

uint8_t *filled(Buffer &buf, int byte)
{
    std::memset(buf.p, byte, buf.n);
    return buf.p;
}

// One end of a measured link: its buffer (each end fills its own byte), registered,
// and an RC QP.
struct End {
    Buffer buf;
    Mr mr;
    Qp qp;
    End(Device &dev, bool memfd, int byte)
        : buf(kBuf, memfd), mr(dev.pd, filled(buf, byte), kBuf, kAllAccess), qp(dev, 64)
    {
    }
    Endpoint endpoint() const { return qp.endpoint(mr.mr); }
};

// The side that measures: writes to the peer (bandwidth) and ping-pongs (latency).
void active(Qp &qp, Mr &mr, const Endpoint &peer, Link link, Result *out)
{
    ibv_wc wc{};
    for (size_t k = 0; k < std::size(kSizes); ++k) {
        size_t s = kSizes[k];
        // Latency
        int n = iters_for(s, false);
        link.put(n);
        auto t0 = Clock::now();
        for (int i = 0; i < n; ++i) {
            if (qp.recv(0))
                fail("recv");
            if (qp.post(IBV_WR_RDMA_WRITE_WITH_IMM, 1, mr.mr, 0, static_cast<uint32_t>(s), peer.addr, peer.rkey, i))
                fail("post");
            if (!wait_wc(qp.rcq, &wc) || wc.status)
                fail("pong");
            if (!wait_wc(qp.scq, &wc) || wc.status)
                fail("ping completion");
        }
        out->lat_us[k] = secs(t0) / n / 2 * 1e6;
        // Bandwidth
        n = iters_for(s, true);
        constexpr int kWindow = 16;
        t0 = Clock::now();
        for (int i = 0; i < n; i += kWindow) {
            int m = std::min(kWindow, n - i);
            for (int j = 0; j < m; ++j)
                if (qp.post(IBV_WR_RDMA_WRITE, 2, mr.mr, 0, static_cast<uint32_t>(s), peer.addr, peer.rkey, 0,
                            j == m - 1 ? IBV_SEND_SIGNALED : 0))
                    fail("post bw");
            if (!wait_wc(qp.scq, &wc) || wc.status)
                fail("bw completion");
        }
        out->gbps[k] = static_cast<double>(s) * n / secs(t0) / 1e9;
    }
}

void passive(Qp &qp, Mr &mr, const Endpoint &peer, Link link)
{
    ibv_wc wc{};
    for (size_t k = 0; k < std::size(kSizes); ++k) {
        int n = link.get<int>();
        for (int i = 0; i < n; ++i) {
            if (qp.recv(0))
                fail("recv");
            if (!wait_wc(qp.rcq, &wc) || wc.status)
                fail("ping");
            if (qp.post(IBV_WR_RDMA_WRITE_WITH_IMM, 1, mr.mr, 0, static_cast<uint32_t>(kSizes[k]), peer.addr, peer.rkey,
                        i))
                fail("post");
            if (!wait_wc(qp.scq, &wc) || wc.status)
                fail("pong completion");
        }
    }
}

void two_processes(const char *transport, bool memfd, Result *res)
{
    setenv("SOFTVERBS_TRANSPORT", transport, 1);
    int pipefd[2];
    if (pipe(pipefd))
        fail("pipe");
    std::string err = run_two(
        [&](Link link) {
            Device dev;
            End end(dev, memfd, 1);
            Endpoint peer = link.get<Endpoint>();
            link.put(end.endpoint());
            end.qp.connect(peer);
            link.get<int>();
            Result r{};
            active(end.qp, end.mr, peer, link, &r);
            if (write(pipefd[1], &r, sizeof r) != sizeof r)
                fail("result pipe");
            link.put(0);
        },
        [&](Link link) {
            Device dev;
            End end(dev, memfd, 2);
            link.put(end.endpoint());
            Endpoint peer = link.get<Endpoint>();
            end.qp.connect(peer);
            link.put(1);
            passive(end.qp, end.mr, peer, link);
            link.get<int>();
        },
        std::chrono::seconds(300));
    if (!err.empty())
        fail(std::string(transport) + ": " + err);
    if (read(pipefd[0], res, sizeof *res) != sizeof *res)
        fail("no result");
    close(pipefd[0]);
    close(pipefd[1]);
}

// Two QPs in one process (the direct path); runs in a forked child, result to fd.
void in_process(int fd)
{
    Device dev;
    End a(dev, true, 1), b(dev, true, 2);
    Endpoint ea = a.endpoint(), eb = b.endpoint();
    a.qp.connect(eb);
    b.qp.connect(ea);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
        fail("socketpair");
    Result r{};
    std::thread t([&] { passive(b.qp, b.mr, ea, Link{sv[1]}); });
    active(a.qp, a.mr, eb, Link{sv[0]}, &r);
    t.join();
    if (write(fd, &r, sizeof r) != sizeof r)
        fail("result pipe");
}

Result memcpy_run()
{
    Result r{};
    std::vector<uint8_t> a(kBuf, 1), b(kBuf, 2);
    std::memcpy(b.data(), a.data(), kBuf); // warm both buffers
    for (size_t k = 0; k < std::size(kSizes); ++k) {
        size_t s = kSizes[k];
        int n = iters_for(s, true) * 4;
        auto t0 = Clock::now();
        for (int i = 0; i < n; ++i) {
            std::memcpy(b.data(), a.data(), s);
            asm volatile("" ::"r"(b.data()) : "memory");
        }
        r.gbps[k] = static_cast<double>(s) * n / secs(t0) / 1e9;
        r.lat_us[k] = secs(t0) / n * 1e6;
    }
    return r;
}

} // namespace

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--quick")
            g_quick = true;
        else if (a == "--only" && i + 1 < argc)
            g_only = argv[++i];
        else {
            std::fprintf(stderr, "usage: softverbs_bench [--quick] [--only inproc|shm|cma|tcp]\n");
            return 2;
        }
    }
    auto want = [](const char *t) { return g_only.empty() || g_only == t; };
    if (!std::getenv("LD_LIBRARY_PATH") || !std::strstr(std::getenv("LD_LIBRARY_PATH"), "softverbs"))
        std::fprintf(stderr, "note: run through softverbs-run to measure softverbs\n");
    try {
        Result mem = memcpy_run();
        // In-process: a forked child writes its Result to a pipe (the parent never touches verbs).
        Result inproc{};
        if (want("inproc")) {
            int pfd[2];
            if (pipe(pfd))
                fail("pipe");
            setenv("SOFTVERBS_TRANSPORT", "auto", 1);
            pid_t p = fork();
            if (p == 0) {
                try {
                    in_process(pfd[1]);
                } catch (const std::exception &e) {
                    std::fprintf(stderr, "in-process: %s\n", e.what());
                    _exit(1);
                }
                _exit(0);
            }
            close(pfd[1]);
            size_t got = 0;
            while (got < sizeof inproc) {
                ssize_t k = read(pfd[0], reinterpret_cast<char *>(&inproc) + got, sizeof inproc - got);
                if (k <= 0)
                    fail("in-process run failed");
                got += static_cast<size_t>(k);
            }
            close(pfd[0]);
            waitpid(p, nullptr, 0);
        }
        Result shm{}, cma{}, tcp{};
        if (want("shm"))
            two_processes("auto", true, &shm);
        if (want("cma"))
            two_processes("cma", false, &cma);
        if (want("tcp"))
            two_processes("tcp", true, &tcp);
        std::printf("%-8s | %-31s | %-47s\n", "size", "latency us (inproc shm cma tcp)",
                    "bandwidth GB/s (memcpy inproc shm cma tcp)");
        for (size_t k = 0; k < std::size(kSizes); ++k) {
            size_t s = kSizes[k];
            char label[32];
            if (s >= (1 << 20))
                std::snprintf(label, sizeof label, "%zu MiB", s >> 20);
            else if (s >= 1024)
                std::snprintf(label, sizeof label, "%zu KiB", s >> 10);
            else
                std::snprintf(label, sizeof label, "%zu B", s);
            std::printf("%-8s | %7.1f %7.1f %7.1f %7.1f | %8.2f %8.2f %8.2f %8.2f %8.2f\n", label, inproc.lat_us[k],
                        shm.lat_us[k], cma.lat_us[k], tcp.lat_us[k], mem.gbps[k], inproc.gbps[k], shm.gbps[k],
                        cma.gbps[k], tcp.gbps[k]);
        }
        size_t k1m = 5;
        std::printf("shm/memcpy at 1 MiB: %.2f (target >= 0.5)\n", shm.gbps[k1m] / mem.gbps[k1m]);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "softverbs_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
