// Two processes on one host (or, with SOFTVERBS_TRANSPORT=tcp, as if on two
// hosts): every opcode's data, the notify-after-data rule, and errors across
// the process boundary. ctest runs this binary once per transport.
#include <gtest/gtest.h>

#include <arpa/inet.h>

#include "two_process.h"
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

// A WRITE behind a SEND that meets no RECV (RNR) must not land before the SEND: on the
// direct routes (mapped memory, CMA) too, where the requester places WRITE data itself.
void write_behind_rnr_send(bool memfd)
{
    std::string err = run_two(
        [&](Link link) { // requester
            Device dev;
            Buffer buf(8192, memfd);
            std::memset(buf.p, 0x5A, buf.n);
            Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
            Qp qp(dev);
            Endpoint peer = link.get<Endpoint>();
            link.put(qp.endpoint(&*mr.mr));
            qp.connect(peer, 7);
            CHECK(link.get<int>() == 1);
            CHECK(qp.post(IBV_WR_SEND, 1, mr.mr, 0, 32) == 0);
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
            Device dev;
            Buffer buf(8192, memfd);
            std::memset(buf.p, 0, buf.n);
            Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
            Qp qp(dev);
            link.put(qp.endpoint(&*mr.mr));
            Endpoint peer = link.get<Endpoint>();
            qp.connect(peer);
            link.put(1);
            CHECK(link.get<int>() == 2);
            std::this_thread::sleep_for(std::chrono::milliseconds(150));
            for (size_t i = 0; i < 256; ++i)
                CHECK(buf.p[4096 + i] == 0); // the WRITE overtook the held SEND
            CHECK(qp.recv(9, mr.mr, 0, 64) == 0);
            ibv_wc wc{};
            CHECK(wait_wc(qp.rcq, &wc));
            CHECK(wc.status == IBV_WC_SUCCESS && wc.byte_len == 32);
            CHECK(link.get<int>() == 3);
            for (size_t i = 0; i < 256; ++i)
                CHECK(buf.p[4096 + i] == 0x5A);
            link.put(4);
        });
    EXPECT_EQ(err, "");
}

} // namespace

TEST(TwoProcess, WriteBehindRnrSendSharedMemory) { write_behind_rnr_send(true); }
TEST(TwoProcess, WriteBehindRnrSendPrivateMemory) { write_behind_rnr_send(false); }

TEST(TwoProcess, AllOpcodesSharedMemory) { all_opcodes(true); }
TEST(TwoProcess, AllOpcodesPrivateMemory) { all_opcodes(false); }

TEST(TwoProcess, PeerDeathFailsOutstandingWork)
{
    std::string err = run_two(
        [](Link link) {
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
            // SEND needs the responder: with the peer gone it cannot complete successfully.
            CHECK(qp.post(IBV_WR_SEND, 1, mr.mr, 0, 8) == 0);
            ibv_wc wc{};
            CHECK(wait_wc(qp.scq, &wc, std::chrono::milliseconds(10000)));
            CHECK(wc.status == IBV_WC_RETRY_EXC_ERR);
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
