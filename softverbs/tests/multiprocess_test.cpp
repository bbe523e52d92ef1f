// Two processes on one host (or, with SOFTVERBS_TRANSPORT=tcp, as if on two
// hosts): every opcode's data, the notify-after-data rule, and errors across
// the process boundary. ctest runs this binary once per transport.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <poll.h>
#include <sys/uio.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "srq_uc_fixture.h"
#include "two_process.h"
#include "ud_fixture.h"
#include "verbs_fixture.h"

using namespace svt;

namespace {

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            throw std::runtime_error(std::string(__FILE__ ":") + std::to_string(__LINE__) + ": check failed: " #cond); \
    } while (0)

uint8_t pattern(size_t i, int round) { return static_cast<uint8_t>(i * 131 + round * 7 + 3); }

// memfd: the mapped fast path; malloc: process_vm_writev (auto/cma) or TCP.
void all_opcodes(bool memfd)
{
    constexpr size_t kSize = 4 << 20;
    std::string err = run_two(
        [&](Link link) { // requester
            Device dev;
            Buffer buf(kSize, memfd);
            Mr mr(dev.pd, buf.p, kSize, kAllAccess);
            Qp qp(dev);
            Endpoint peer = link.get<Endpoint>();
            link.put(qp.endpoint(&*mr.mr));
            qp.connect(peer);
            CHECK(link.get<int>() == 1); // peer RECVs posted
            for (int round = 0; round < 3; ++round) {
                size_t len = round == 0 ? 1 : round == 1 ? 65536 : kSize / 2;
                for (size_t i = 0; i < len; ++i)
                    buf.p[i] = pattern(i, round);
                CHECK(qp.post(IBV_WR_RDMA_WRITE, 1, mr.mr, 0, static_cast<uint32_t>(len), peer.addr, peer.rkey, 0, 0) ==
                      0);
                CHECK(qp.post(IBV_WR_RDMA_WRITE_WITH_IMM, 2, nullptr, 0, 0, peer.addr, peer.rkey, 100 + round) == 0);
                ibv_wc wc{};
                CHECK(wait_wc(qp.scq, &wc));
                CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 2);
                CHECK(link.get<int>() == 10 + round); // the peer checked this round before we overwrite it
            }
            // SEND with data
            for (int i = 0; i < 300; ++i)
                buf.p[i] = static_cast<uint8_t>(i ^ 0x5a);
            CHECK(qp.post(IBV_WR_SEND_WITH_IMM, 3, mr.mr, 0, 300, 0, 0, 7) == 0);
            ibv_wc wc{};
            CHECK(wait_wc(qp.scq, &wc) && wc.status == IBV_WC_SUCCESS);
            CHECK(link.get<int>() == 2); // peer wrote a pattern for us to read
            CHECK(qp.post(IBV_WR_RDMA_READ, 4, mr.mr, 1 << 20, 100000, peer.addr + 4096, peer.rkey) == 0);
            CHECK(wait_wc(qp.scq, &wc) && wc.status == IBV_WC_SUCCESS && wc.byte_len == 100000);
            for (size_t i = 0; i < 100000; ++i)
                CHECK(buf.p[(1 << 20) + i] == static_cast<uint8_t>(i * 3));
            // 100 fetch-adds on one word
            for (int i = 0; i < 100; ++i) {
                ibv_sge s{reinterpret_cast<uintptr_t>(buf.p) + 8 * i, 8, mr.mr->lkey};
                ibv_send_wr wr = atomic_wr(10, IBV_WR_ATOMIC_FETCH_AND_ADD, &s, peer.addr, peer.rkey, 1);
                ibv_send_wr *bad = nullptr;
                CHECK(ibv_post_send(qp.qp, &wr, &bad) == 0);
                CHECK(wait_wc(qp.scq, &wc) && wc.status == IBV_WC_SUCCESS);
                uint64_t old;
                std::memcpy(&old, buf.p + 8 * i, 8);
                CHECK(old == 1000u + i);
            }
            // A forged rkey fails and changes nothing at the peer (the peer checks).
            CHECK(qp.post(IBV_WR_RDMA_WRITE, 11, mr.mr, 0, 64, peer.addr + 8192, peer.rkey ^ 0x300) == 0);
            CHECK(wait_wc(qp.scq, &wc) && wc.status == IBV_WC_REM_ACCESS_ERR);
            link.put(3);
            CHECK(link.get<int>() == 4);
        },
        [&](Link link) { // responder
            Device dev;
            Buffer buf(kSize, memfd);
            std::memset(buf.p, 0, kSize);
            Mr mr(dev.pd, buf.p, kSize, kAllAccess);
            Qp qp(dev);
            link.put(qp.endpoint(&*mr.mr));
            Endpoint peer = link.get<Endpoint>();
            qp.connect(peer);
            for (int i = 0; i < 3; ++i)
                CHECK(qp.recv(50 + i) == 0);
            CHECK(qp.recv(60, mr.mr, kSize - 1024, 1024) == 0);
            link.put(1);
            for (int round = 0; round < 3; ++round) {
                ibv_wc wc{};
                CHECK(wait_wc(qp.rcq, &wc));
                CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM);
                CHECK(ntohl(wc.imm_data) == 100u + round);
                size_t len = round == 0 ? 1 : round == 1 ? 65536 : kSize / 2;
                // The notify guarantees the earlier WRITE's data is all there.
                for (size_t i = 0; i < len; ++i)
                    CHECK(buf.p[i] == pattern(i, round));
                link.put(10 + round);
            }
            ibv_wc wc{};
            CHECK(wait_wc(qp.rcq, &wc));
            CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV && wc.byte_len == 300 && wc.wr_id == 60);
            CHECK(ntohl(wc.imm_data) == 7u);
            for (int i = 0; i < 300; ++i)
                CHECK(buf.p[kSize - 1024 + i] == static_cast<uint8_t>(i ^ 0x5a));
            for (size_t i = 0; i < 100000; ++i)
                buf.p[4096 + i] = static_cast<uint8_t>(i * 3);
            uint64_t counter = 1000;
            std::memcpy(buf.p, &counter, 8);
            std::vector<uint8_t> guard(buf.p + 8192, buf.p + 8192 + 4096);
            link.put(2);
            CHECK(link.get<int>() == 3);
            std::memcpy(&counter, buf.p, 8);
            CHECK(counter == 1100u);
            CHECK(std::memcmp(guard.data(), buf.p + 8192, 4096) == 0);
            link.put(4);
        });
    EXPECT_EQ(err, "");
}

// One side of a pair for the RNR and credit tests: an 8 KiB buffer filled with `fill`, its
// MR and an RC QP connected to the other side's (the requester reads the responder's
// endpoint first, and connects with rnr_retry 7: it waits for a RECV for ever).
struct RnrSide {
    Device dev;
    Buffer buf;
    Mr mr;
    Qp qp;
    Endpoint peer{};
    RnrSide(Link link, bool memfd, bool requester, uint8_t fill)
        : buf(8192, memfd), mr(dev.pd, buf.p, buf.n, kAllAccess), qp(dev)
    {
        std::memset(buf.p, fill, buf.n);
        if (requester) {
            peer = link.get<Endpoint>();
            link.put(qp.endpoint(&*mr.mr));
        } else {
            link.put(qp.endpoint(&*mr.mr));
            peer = link.get<Endpoint>();
        }
        qp.connect(peer, 7);
    }
};

// A WRITE behind a SEND or WRITE_WITH_IMM that meets no RECV (RNR) must not land before
// it: on the direct routes (mapped memory, CMA) too, where the requester places WRITE data
// itself.
void write_behind_rnr(ibv_wr_opcode op, bool memfd)
{
    std::string err = run_two(
        [&](Link link) { // requester
            RnrSide side(link, memfd, true, 0x5A);
            auto &[dev, buf, mr, qp, peer] = side;
            CHECK(link.get<int>() == 1);
            CHECK(qp.post(op, 1, mr.mr, 0, 32, peer.addr, peer.rkey) == 0);
            CHECK(qp.post(IBV_WR_RDMA_WRITE, 2, mr.mr, 1024, 256, peer.addr + 4096, peer.rkey) == 0);
            link.put(2);
            ibv_wc wc{};
            for (uint64_t id = 1; id <= 2; ++id) {
                CHECK(wait_wc(qp.scq, &wc, std::chrono::milliseconds(10000)));
                CHECK(wc.wr_id == id && wc.status == IBV_WC_SUCCESS);
            }
            link.put(3);
            CHECK(link.get<int>() == 4);
        },
        [&](Link link) { // responder: no RECV until it has seen the WRITE's bytes stay away
            RnrSide side(link, memfd, false, 0);
            auto &[dev, buf, mr, qp, peer] = side;
            link.put(1);
            CHECK(link.get<int>() == 2);
            std::this_thread::sleep_for(std::chrono::milliseconds(150));
            for (size_t i = 0; i < 256; ++i)
                CHECK(buf.p[4096 + i] == 0); // the WRITE overtook the held SEND
            CHECK(qp.recv(9, mr.mr, 0, 64) == 0);
            ibv_wc wc{};
            CHECK(wait_wc(qp.rcq, &wc));
            CHECK(wc.status == IBV_WC_SUCCESS && wc.byte_len == 32);
            CHECK(wc.opcode == (op == IBV_WR_SEND ? IBV_WC_RECV : IBV_WC_RECV_RDMA_WITH_IMM));
            CHECK(link.get<int>() == 3);
            for (size_t i = 0; i < 256; ++i)
                CHECK(buf.p[4096 + i] == 0x5A);
            link.put(4);
        });
    EXPECT_EQ(err, "");
}

// Whether `n` bytes at `addr` of process `pid` all equal `v` (read with process_vm_readv,
// so a stopped process can be looked at).
bool peer_bytes_are(pid_t pid, uint64_t addr, size_t n, uint8_t v)
{
    std::vector<uint8_t> got(n);
    iovec l{got.data(), n}, r{reinterpret_cast<void *>(addr), n};
    if (process_vm_readv(pid, &l, 1, &r, 1, 0) != static_cast<ssize_t>(n))
        throw std::runtime_error("process_vm_readv of the stopped responder failed");
    return std::all_of(got.begin(), got.end(), [v](uint8_t b) { return b == v; });
}

void wait_until_stopped(pid_t pid)
{
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (;;) {
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string line;
        std::getline(stat, line);
        const size_t paren = line.rfind(')');
        if (paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'T')
            return;
        if (std::chrono::steady_clock::now() > end)
            throw std::runtime_error("the responder did not stop within 10 s");
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

// Credits: a WRITE_WITH_IMM whose responder has a RECV posted for it cannot meet RNR, so on
// a direct route the WRITE behind it lands at once, while the responder's program (and its
// shm waiter) is stopped; a second WRITE_WITH_IMM finds no RECV left for it (the first one's
// is not answered yet) and holds the WRITE behind it until the responder posts another.
// Over TCP, and under the adversary, which keep every hold, nothing lands while it is stopped.
void write_imm_credits(bool memfd)
{
    const char *transport = std::getenv("SOFTVERBS_TRANSPORT");
    const bool direct = !(transport && std::string(transport) == "tcp") && env_seed() == 0;
    std::string err = run_two(
        [&](Link link) { // requester
            RnrSide side(link, memfd, true, 0x5A);
            auto &[dev, buf, mr, qp, peer] = side;
            link.put(1);                        // connected: the responder's listener has answered our handshake
            const auto pid = link.get<pid_t>(); // the responder posted one RECV and stops itself
            wait_until_stopped(pid);
            CHECK(qp.post(IBV_WR_RDMA_WRITE_WITH_IMM, 1, mr.mr, 0, 32, peer.addr, peer.rkey, 1, 0) == 0);
            CHECK(qp.post(IBV_WR_RDMA_WRITE, 2, mr.mr, 1024, 256, peer.addr + 2048, peer.rkey, 0, 0) == 0);
            CHECK(qp.post(IBV_WR_RDMA_WRITE_WITH_IMM, 3, mr.mr, 0, 32, peer.addr, peer.rkey, 3, 0) == 0);
            CHECK(qp.post(IBV_WR_RDMA_WRITE, 4, mr.mr, 1024, 256, peer.addr + 4096, peer.rkey) == 0);
            // Whatever may land has landed by now: direct placement happens within ibv_post_send.
            const bool second_landed = peer_bytes_are(pid, peer.addr + 2048, 256, 0x5A);
            const bool fourth_landed = !peer_bytes_are(pid, peer.addr + 4096, 256, 0);
            kill(pid, SIGCONT);
            CHECK(second_landed == direct); // false on a direct route: held although a RECV waited
            CHECK(!fourth_landed);          // true: a WRITE_WITH_IMM without a RECV left held nothing back
            ibv_wc wc{};
            CHECK(wait_wc(qp.scq, &wc, std::chrono::milliseconds(10000)));
            CHECK(wc.wr_id == 4 && wc.status == IBV_WC_SUCCESS);
            link.put(1);
        },
        [&](Link link) { // responder
            RnrSide side(link, memfd, false, 0);
            auto &[dev, buf, mr, qp, peer] = side;
            CHECK(link.get<int>() == 1); // stopping earlier would leave the requester's handshake unanswered
            CHECK(qp.recv(11) == 0);
            link.put(getpid());
            raise(SIGSTOP); // the requester continues us once it has looked at our memory
            ibv_wc wc{};
            CHECK(wait_wc(qp.rcq, &wc));
            CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 11 && ntohl(wc.imm_data) == 1);
            CHECK(qp.recv(12) == 0);
            CHECK(wait_wc(qp.rcq, &wc));
            CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 12 && ntohl(wc.imm_data) == 3);
            CHECK(link.get<int>() == 1);
            for (size_t i = 0; i < 256; ++i)
                CHECK(buf.p[2048 + i] == 0x5A && buf.p[4096 + i] == 0x5A);
        });
    EXPECT_EQ(err, "");
}

// A responder that never polls but sleeps on its completion channel is woken for every
// notify (same host: by its shm waiter consuming the ring; over TCP: by its progress
// thread), and the requester's completions do not wait for the responder's program.
void channel_wakes(bool memfd)
{
    constexpr int kRounds = 50;
    std::string err = run_two(
        [&](Link link) { // requester
            Device dev;
            Buffer buf(4096, memfd);
            Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
            Qp qp(dev);
            Endpoint peer = link.get<Endpoint>();
            link.put(qp.endpoint(&*mr.mr));
            qp.connect(peer);
            CHECK(link.get<int>() == 1);
            for (int round = 0; round < kRounds; ++round) {
                buf.p[0] = static_cast<uint8_t>(round);
                CHECK(qp.post(IBV_WR_RDMA_WRITE, 1, mr.mr, 0, 1, peer.addr, peer.rkey) == 0);
                CHECK(qp.post(IBV_WR_RDMA_WRITE_WITH_IMM, 2, nullptr, 0, 0, peer.addr, peer.rkey, round) == 0);
                ibv_wc wc{};
                for (uint64_t id = 1; id <= 2; ++id) {
                    CHECK(wait_wc(qp.scq, &wc));
                    CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == id);
                }
                CHECK(link.get<int>() == round);
            }
        },
        [&](Link link) { // responder: sleeps in poll(2) on the channel, polls only after an event
            Device dev;
            Buffer buf(4096, memfd);
            std::memset(buf.p, 0xff, buf.n);
            Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
            Qp qp(dev, 64, true);
            CHECK(qp.ch != nullptr);
            link.put(qp.endpoint(&*mr.mr));
            Endpoint peer = link.get<Endpoint>();
            qp.connect(peer);
            for (int i = 0; i < kRounds; ++i)
                CHECK(qp.recv(100 + static_cast<uint64_t>(i)) == 0);
            CHECK(ibv_req_notify_cq(qp.rcq, 0) == 0);
            link.put(1);
            for (int round = 0; round < kRounds; ++round) {
                pollfd p{qp.ch->fd, POLLIN, 0};
                CHECK(poll(&p, 1, 10000) == 1); // deadline: 10 s per notify
                ibv_cq *cq = nullptr;
                void *ctx = nullptr;
                CHECK(ibv_get_cq_event(qp.ch, &cq, &ctx) == 0 && cq == qp.rcq);
                ibv_ack_cq_events(cq, 1);
                CHECK(ibv_req_notify_cq(qp.rcq, 0) == 0);
                ibv_wc wc{};
                CHECK(ibv_poll_cq(qp.rcq, 1, &wc) == 1);
                CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM);
                CHECK(ntohl(wc.imm_data) == static_cast<uint32_t>(round));
                CHECK(buf.p[0] == static_cast<uint8_t>(round)); // the data came before its notify
                link.put(round);
            }
        });
    EXPECT_EQ(err, "");
}

// SRQ and UC across processes: an RC and a UC QP of the responder take
// their RECVs from one SRQ; UC's forged-rkey WRITE is dropped silently on every route
// (the requester's direct placement refuses it, the responder drops it).
void srq_and_uc(bool memfd)
{
    std::string err = run_two(
        [&](Link link) { // requester: rc -> responder's b1, uc -> b2
            Device dev;
            Buffer buf(1 << 16, memfd);
            Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
            Qp rc(dev), uc(dev);
            remake_qp(dev, uc, IBV_QPT_UC, nullptr);
            Endpoint b1 = link.get<Endpoint>(), b2 = link.get<Endpoint>();
            link.put(rc.endpoint(&*mr.mr));
            link.put(uc.endpoint(&*mr.mr));
            rc.connect(b1);
            CHECK(uc_connect(uc, b2) == 0);
            CHECK(link.get<int>() == 1); // SRQ RECVs posted
            for (size_t i = 0; i < 4096; ++i)
                buf.p[i] = static_cast<uint8_t>(i * 5 + 1);
            CHECK(rc.post(IBV_WR_SEND, 1, mr.mr, 0, 100) == 0);
            CHECK(uc.post(IBV_WR_SEND, 2, mr.mr, 100, 100) == 0);
            CHECK(uc.post(IBV_WR_RDMA_WRITE, 3, mr.mr, 0, 512, b2.addr + 8192, b2.rkey ^ 0x700) == 0);
            CHECK(uc.post(IBV_WR_RDMA_WRITE_WITH_IMM, 4, mr.mr, 1024, 512, b2.addr + 16384, b2.rkey, 44) == 0);
            ibv_wc wc{};
            CHECK(wait_wc(rc.scq, &wc) && wc.status == IBV_WC_SUCCESS && wc.wr_id == 1);
            for (uint64_t id = 2; id <= 4; ++id)
                CHECK(wait_wc(uc.scq, &wc) && wc.status == IBV_WC_SUCCESS && wc.wr_id == id);
            CHECK(link.get<int>() == 2);
        },
        [&](Link link) { // responder
            Device dev;
            Buffer buf(1 << 16, memfd);
            std::memset(buf.p, 0, buf.n);
            Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
            Srq s(dev.pd, 8);
            Qp b1(dev), b2(dev);
            remake_qp(dev, b1, IBV_QPT_RC, s.srq);
            remake_qp(dev, b2, IBV_QPT_UC, s.srq);
            link.put(b1.endpoint(&*mr.mr));
            link.put(b2.endpoint(&*mr.mr));
            Endpoint rc = link.get<Endpoint>(), uc = link.get<Endpoint>();
            b1.connect(rc);
            CHECK(uc_connect(b2, uc) == 0);
            for (uint64_t i = 0; i < 4; ++i)
                CHECK(srq_recv(s.srq, 70 + i, mr.mr, 32768 + i * 1024, 1024) == 0);
            link.put(1);
            ibv_wc w1{}, w2{}, w3{};
            CHECK(wait_wc(b1.rcq, &w1) && w1.status == IBV_WC_SUCCESS && w1.byte_len == 100);
            CHECK(wait_wc(b2.rcq, &w2) && w2.status == IBV_WC_SUCCESS && w2.byte_len == 100);
            CHECK(wait_wc(b2.rcq, &w3) && w3.status == IBV_WC_SUCCESS && w3.opcode == IBV_WC_RECV_RDMA_WITH_IMM);
            CHECK(ntohl(w3.imm_data) == 44u && w3.qp_num == b2.qp->qp_num);
            // Three distinct SRQ RECVs, the first three posted.
            CHECK(w1.wr_id != w2.wr_id && w1.wr_id + w2.wr_id + w3.wr_id == 70 + 71 + 72);
            auto at = [&](uint64_t wr_id) { return buf.p + 32768 + (wr_id - 70) * 1024; };
            for (size_t i = 0; i < 100; ++i) {
                CHECK(at(w1.wr_id)[i] == static_cast<uint8_t>(i * 5 + 1));
                CHECK(at(w2.wr_id)[i] == static_cast<uint8_t>((i + 100) * 5 + 1));
            }
            for (size_t i = 0; i < 512; ++i) {
                CHECK(buf.p[8192 + i] == 0); // the forged WRITE left nothing
                CHECK(buf.p[16384 + i] == static_cast<uint8_t>((i + 1024) * 5 + 1));
            }
            CHECK(b2.qp->state == IBV_QPS_RTS);
            link.put(2);
        });
    EXPECT_EQ(err, "");
}

// One WRITE_WITH_IMM far larger than a socket's buffers, and nobody polling: the requester
// waits on the link, the responder sleeps in poll(2) on its channel. Over TCP the frame
// cannot leave in one send(); only the connection asking for EPOLLOUT when the socket is
// full moves the rest (a poller's lease, or another post, would flush it by accident, so
// neither side gives one).
void long_write_to_sleeping_peer()
{
    constexpr size_t kSize = 48u << 20;
    std::string err = run_two(
        [&](Link link) { // requester
            Device dev;
            Buffer buf(kSize, false);
            for (size_t i = 0; i < kSize; ++i)
                buf.p[i] = pattern(i, 5);
            Mr mr(dev.pd, buf.p, kSize, kAllAccess);
            Qp qp(dev);
            Endpoint peer = link.get<Endpoint>();
            link.put(qp.endpoint(&*mr.mr));
            qp.connect(peer);
            CHECK(link.get<int>() == 1);
            CHECK(qp.post(IBV_WR_RDMA_WRITE_WITH_IMM, 1, mr.mr, 0, static_cast<uint32_t>(kSize), peer.addr, peer.rkey,
                          77) == 0);
            CHECK(link.get<int>() == 2); // the responder saw it all, or failed its deadline
            ibv_wc wc{};
            CHECK(wait_wc(qp.scq, &wc) && wc.status == IBV_WC_SUCCESS && wc.wr_id == 1);
        },
        [&](Link link) { // responder
            Device dev;
            Buffer buf(kSize, false);
            Mr mr(dev.pd, buf.p, kSize, kAllAccess);
            Qp qp(dev, 4, true);
            link.put(qp.endpoint(&*mr.mr));
            Endpoint peer = link.get<Endpoint>();
            qp.connect(peer);
            CHECK(qp.recv(9) == 0);
            CHECK(ibv_req_notify_cq(qp.rcq, 0) == 0);
            link.put(1);
            pollfd p{qp.ch->fd, POLLIN, 0};
            CHECK(poll(&p, 1, 20000) == 1); // deadline: 20 s for 48 MiB through loopback
            ibv_cq *cq = nullptr;
            void *ctx = nullptr;
            CHECK(ibv_get_cq_event(qp.ch, &cq, &ctx) == 0 && cq == qp.rcq);
            ibv_ack_cq_events(cq, 1);
            ibv_wc wc{};
            CHECK(ibv_poll_cq(qp.rcq, 1, &wc) == 1);
            CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && ntohl(wc.imm_data) == 77);
            for (size_t i = 0; i < kSize; ++i)
                CHECK(buf.p[i] == pattern(i, 5));
            link.put(2);
        });
    EXPECT_EQ(err, "");
}

} // namespace

TEST(TwoProcess, WriteBehindRnrSendSharedMemory) { write_behind_rnr(IBV_WR_SEND, true); }
TEST(TwoProcess, WriteBehindRnrSendPrivateMemory) { write_behind_rnr(IBV_WR_SEND, false); }
TEST(TwoProcess, WriteBehindRnrWriteImmSharedMemory) { write_behind_rnr(IBV_WR_RDMA_WRITE_WITH_IMM, true); }
TEST(TwoProcess, WriteBehindRnrWriteImmPrivateMemory) { write_behind_rnr(IBV_WR_RDMA_WRITE_WITH_IMM, false); }
TEST(TwoProcess, WriteImmCreditsSharedMemory) { write_imm_credits(true); }
TEST(TwoProcess, WriteImmCreditsPrivateMemory) { write_imm_credits(false); }

TEST(TwoProcess, AllOpcodesSharedMemory) { all_opcodes(true); }
TEST(TwoProcess, AllOpcodesPrivateMemory) { all_opcodes(false); }

TEST(TwoProcess, ChannelWakesSleepingResponderSharedMemory) { channel_wakes(true); }
TEST(TwoProcess, ChannelWakesSleepingResponderPrivateMemory) { channel_wakes(false); }
TEST(TwoProcess, LongWriteReachesASleepingPeer) { long_write_to_sleeping_peer(); }

TEST(TwoProcess, SrqAndUcSharedMemory) { srq_and_uc(true); }
TEST(TwoProcess, SrqAndUcPrivateMemory) { srq_and_uc(false); }

namespace {

// Process B exits without cleaning up; A then posts a SEND, which cannot complete
// successfully. A NIC reports it after retrying, timeout 14 and retry_cnt 7: 8 tries of
// 67 ms. Moving the QP to ERR 50 ms after the post ends that wait at once, as a NIC
// flushes the WQE it is retrying.
void send_to_dead_peer(bool move_to_err)
{
    std::string err = run_two(
        [move_to_err](Link link) {
            Device dev;
            Buffer buf(4096, true);
            Mr mr(dev.pd, buf.p, 4096, kAllAccess);
            Qp qp(dev);
            Endpoint peer = link.get<Endpoint>();
            link.put(qp.endpoint(&*mr.mr));
            qp.connect(peer);
            link.put(1);
            CHECK(link.get<int>() == 2); // the peer is about to exit
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            const auto posted = std::chrono::steady_clock::now();
            CHECK(qp.post(IBV_WR_SEND, 1, mr.mr, 0, 8) == 0);
            if (move_to_err) {
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                ibv_qp_attr a{};
                a.qp_state = IBV_QPS_ERR;
                CHECK(ibv_modify_qp(qp.qp, &a, IBV_QP_STATE) == 0);
            }
            ibv_wc wc{};
            CHECK(wait_wc(qp.scq, &wc, std::chrono::milliseconds(10000)));
            const auto took = std::chrono::steady_clock::now() - posted;
            if (move_to_err) {
                CHECK(wc.status == IBV_WC_RETRY_EXC_ERR || wc.status == IBV_WC_WR_FLUSH_ERR);
                CHECK(took < std::chrono::milliseconds(400)); // well before the 537 ms of retries
            } else {
                CHECK(wc.status == IBV_WC_RETRY_EXC_ERR);
                CHECK(took >= std::chrono::milliseconds(530)); // not before a NIC would give up
            }
        },
        [](Link link) {
            Device dev;
            Buffer buf(4096, true);
            Mr mr(dev.pd, buf.p, 4096, kAllAccess);
            Qp qp(dev);
            link.put(qp.endpoint(&*mr.mr));
            Endpoint peer = link.get<Endpoint>();
            qp.connect(peer);
            CHECK(link.get<int>() == 1);
            link.put(2);
            _exit(0); // dies without cleaning up
        });
    EXPECT_EQ(err, "");
}

} // namespace

TEST(TwoProcess, PeerDeathFailsOutstandingWork) { send_to_dead_peer(false); }
TEST(TwoProcess, PeerDeathFailureCompletesAtOnceInErr) { send_to_dead_peer(true); }

// UD between two processes (a UDP socket each): datagrams with their GRH and
// payload, and replies addressed from the GRH. Under SOFTVERBS_SEED some are
// dropped and reordered: then fewer arrive, each intact and at most once.
TEST(TwoProcess, UdDatagramsAndRepliesFromGrh)
{
    constexpr uint32_t kCount = 50, kLen = 256, kSlot = kGrhBytes + kLen;
    const bool adversarial = env_seed() != 0;
    std::string err = run_two(
        [&](Link link) { // sender
            Device dev;
            Buffer buf(1 << 16, true);
            Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
            UdQp q(dev, 128);
            q.ready();
            link.put(q.endpoint_gid_qpn());
            auto peer = link.get<std::pair<ibv_gid, uint32_t>>();
            Ah ah(dev.pd, peer.first);
            for (uint32_t i = 0; i < kCount; ++i)
                CHECK(q.recv(100 + i, mr.mr, 32768 + kSlot * i, kSlot) == 0);
            CHECK(link.get<int>() == 1); // the receiver's RECVs are posted
            for (uint32_t i = 0; i < kCount; ++i) {
                for (uint32_t j = 0; j < kLen; ++j)
                    buf.p[i * kLen + j] = pattern(j, static_cast<int>(i));
                CHECK(q.send(ah.ah, peer.second, kQkey, mr.mr, i * kLen, kLen, i, &i) == 0);
            }
            ibv_wc wc{};
            for (uint32_t i = 0; i < kCount; ++i) {
                CHECK(wait_wc(q.scq, &wc));
                CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == i);
            }
            uint32_t got = link.get<uint32_t>(), replies = 0;
            while (replies < got && wait_wc(q.rcq, &wc, std::chrono::milliseconds(2000))) {
                CHECK(wc.status == IBV_WC_SUCCESS && wc.src_qp == peer.second && (wc.wc_flags & IBV_WC_GRH));
                ++replies;
            }
            CHECK(adversarial ? replies >= 1 && replies <= got : replies == kCount);
        },
        [&](Link link) { // receiver
            Device dev;
            Buffer buf(1 << 16, true);
            Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
            UdQp q(dev, 128);
            q.ready();
            auto peer = link.get<std::pair<ibv_gid, uint32_t>>();
            link.put(q.endpoint_gid_qpn());
            for (uint32_t i = 0; i < kCount; ++i)
                CHECK(q.recv(i, mr.mr, kSlot * i, kSlot) == 0);
            link.put(1);
            std::vector<bool> seen(kCount);
            uint32_t got = 0;
            ibv_wc wc{};
            while (got < kCount && wait_wc(q.rcq, &wc, std::chrono::milliseconds(adversarial ? 500 : 5000))) {
                CHECK(wc.status == IBV_WC_SUCCESS && wc.byte_len == kSlot && wc.src_qp == peer.second);
                uint32_t i = ntohl(wc.imm_data);
                CHECK(i < kCount && !seen[i]);
                seen[i] = true;
                const uint8_t *slot = buf.p + kSlot * wc.wr_id;
                ibv_grh grh;
                std::memcpy(&grh, slot, sizeof grh);
                CHECK(std::memcmp(&grh.sgid, &peer.first, 16) == 0);
                for (uint32_t j = 0; j < kLen; ++j)
                    CHECK(slot[kGrhBytes + j] == pattern(j, static_cast<int>(i)));
                ibv_ah *back = ibv_create_ah_from_wc(dev.pd, &wc, &grh, 1);
                CHECK(back != nullptr);
                CHECK(q.send(back, wc.src_qp, kQkey, mr.mr, 0, 8, 1000 + i) == 0);
                ibv_wc sw{};
                CHECK(wait_wc(q.scq, &sw) && sw.status == IBV_WC_SUCCESS);
                CHECK(ibv_destroy_ah(back) == 0);
                ++got;
            }
            CHECK(adversarial ? got >= 1 : got == kCount);
            link.put(got);
        });
    EXPECT_EQ(err, "");
}
