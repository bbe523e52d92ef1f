// Raw verbs on the same device the library under test uses: RDMA
// WRITE_WITH_IMM on an RC QP, the immediate consuming a posted receive on the
// peer as a notify does. The verbs objects are softverbs' test fixtures
// (softverbs/tests/verbs_fixture.h); endpoints travel over MPI. Every side
// keeps kRecvs receives posted and reposts one for each it consumes. Like the
// hcomm method's outbox and inbox, each side sends from the first half of its
// buffer and is written into the second: sending from the bytes the peer has just
// written made every copy pull cache lines from the other core (a 1 MiB ping-pong
// took 150-250 us one way instead of ~40).
#include <arpa/inet.h> // verbs_fixture.h uses htonl
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "method.h"
#include "verbs_fixture.h"

namespace hcts::bench {

namespace {

constexpr int kRecvs = 64;
constexpr auto kDeadline = std::chrono::seconds(60);

class VerbsMethod final : public Method {
  public:
    explicit VerbsMethod(uint64_t max)
        : max_(max), buf_(2 * max, true), mr_(dev_.pd, buf_.p, 2 * max, svt::kAllAccess), qp_(dev_, 2 * kRecvs)
    {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
        MPI_Comm_rank(comm_, &rank_);
        const svt::Endpoint mine = qp_.endpoint(mr_.mr);
        MPI_Sendrecv(&mine, sizeof mine, MPI_BYTE, 1 - rank_, 0, &peer_, sizeof peer_, MPI_BYTE, 1 - rank_, 0, comm_,
                     MPI_STATUS_IGNORE);
        qp_.connect(peer_);
        for (int i = 0; i < kRecvs; ++i)
            check(qp_.recv(0), "ibv_post_recv");
        MPI_Barrier(comm_); // both sides' receives are posted before any send
    }
    ~VerbsMethod() override { MPI_Comm_free(&comm_); }
    std::string_view name() const override { return "verbs"; }
    std::string describe() const override
    {
        return "ibv_post_send RDMA_WRITE_WITH_IMM on an RC QP (libibverbs directly, memfd memory), completions "
               "busy-polled";
    }
    uint64_t max_size() const override { return max_; }

    double ping_pong(uint64_t size, uint32_t n) override
    {
        const auto t0 = Clock::now();
        for (uint32_t i = 0; i < n; ++i) {
            if (rank_ == 0) {
                send(size, true);
                receive();
            } else {
                receive();
                send(size, true);
            }
        }
        return std::chrono::duration<double>(Clock::now() - t0).count();
    }

    double stream(uint64_t size, uint32_t n, uint32_t window) override
    {
        window = std::clamp<uint32_t>(window, 1, kRecvs / 2);
        const auto t0 = Clock::now();
        for (uint32_t done = 0; done < n;) {
            const uint32_t w = std::min(window, n - done);
            if (rank_ == 0) {
                // Only the window's last WR is signaled: its completion retires them all.
                for (uint32_t j = 0; j < w; ++j)
                    send(size, j + 1 == w, false);
                complete();
                receive(); // the acknowledgement
            } else {
                for (uint32_t j = 0; j < w; ++j)
                    receive();
                send(0, true);
            }
            done += w;
        }
        return std::chrono::duration<double>(Clock::now() - t0).count();
    }

  private:
    using Clock = std::chrono::steady_clock;
    static void check(int rc, const char *what)
    {
        if (rc != 0)
            svt::fail(std::string("verbs: ") + what + " failed with " + std::to_string(rc));
    }
    void send(uint64_t size, bool signaled, bool wait = true)
    {
        check(qp_.post(IBV_WR_RDMA_WRITE_WITH_IMM, 1, mr_.mr, 0, static_cast<uint32_t>(size), peer_.addr + max_,
                       peer_.rkey, 0, signaled ? IBV_SEND_SIGNALED : 0),
              "ibv_post_send");
        if (signaled && wait)
            complete();
    }
    // Busy polling, as a latency-minded verbs application does (the fixture's
    // wait_wc sleeps when idle, which would time its sleeps, not the transfer);
    // the deadline is looked at every 4096 empty polls.
    static bool poll(ibv_cq *cq, ibv_wc *wc)
    {
        const auto end = Clock::now() + kDeadline;
        for (uint32_t idle = 0;; ++idle) {
            const int n = ibv_poll_cq(cq, 1, wc);
            if (n != 0)
                return n == 1;
            if (idle % 4096 == 4095 && Clock::now() > end)
                return false;
        }
    }
    void complete()
    {
        ibv_wc wc{};
        if (!poll(qp_.scq, &wc) || wc.status != IBV_WC_SUCCESS)
            svt::fail("verbs: no successful send completion within 60 s (status " + std::to_string(wc.status) + ")");
    }
    void receive()
    {
        ibv_wc wc{};
        if (!poll(qp_.rcq, &wc) || wc.status != IBV_WC_SUCCESS)
            svt::fail("verbs: no successful receive completion within 60 s (status " + std::to_string(wc.status) + ")");
        check(qp_.recv(0), "ibv_post_recv");
    }
    uint64_t max_; // the outbox is buf_[0, max_), the inbox buf_[max_, 2 max_)
    svt::Device dev_;
    svt::Buffer buf_;
    svt::Mr mr_;
    svt::Qp qp_;
    svt::Endpoint peer_{};
    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0;
};

} // namespace

std::unique_ptr<Method> make_verbs(uint64_t max_size) { return std::make_unique<VerbsMethod>(max_size); }

} // namespace hcts::bench
