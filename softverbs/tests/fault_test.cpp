// SOFTVERBS_FAIL=qp:<n> (set by ctest, one case per value): the n-th WQE of every QP
// fails, later ones flush, QP_FATAL is raised, and the failed notify is never delivered.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <poll.h>

#include <cstring>

#include "verbs_fixture.h"

using namespace svt;
using namespace std::chrono_literals;

namespace {

// ctest runs each case under its own SOFTVERBS_FAIL value.
::testing::AssertionResult fail_env_is(const char *want)
{
    const char *f = std::getenv("SOFTVERBS_FAIL");
    if (f == nullptr)
        return ::testing::AssertionFailure() << "run with SOFTVERBS_FAIL=" << want << " (ctest sets it)";
    if (std::strcmp(f, want) != 0) {
        return ::testing::AssertionFailure() << "SOFTVERBS_FAIL is " << f << ", not " << want
                                             << ": ctest runs each case with its own SOFTVERBS_FAIL (--gtest_filter)";
    }
    return ::testing::AssertionSuccess();
}

} // namespace

TEST(FaultInjection, ThirdWqeFailsLaterOnesFlushNotifyNeverArrives)
{
    ASSERT_TRUE(fail_env_is("qp:3"));
    Loopback lb(8192);
    auto &[dev, buf, mr, a, b] = lb;
    ASSERT_EQ(b.recv(1), 0);
    ASSERT_EQ(b.recv(2), 0);
    uint64_t raddr = reinterpret_cast<uintptr_t>(buf.p) + 4096;
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, 1, mr.mr, 0, 64, raddr, mr.mr->rkey), 0);
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE_WITH_IMM, 2, nullptr, 0, 0, raddr, mr.mr->rkey, 1), 0);
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE_WITH_IMM, 3, nullptr, 0, 0, raddr, mr.mr->rkey, 2), 0); // the 3rd: fails
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, 4, mr.mr, 0, 64, raddr, mr.mr->rkey), 0);
    ibv_wc wc{};
    ibv_wc_status expect[] = {IBV_WC_SUCCESS, IBV_WC_SUCCESS, IBV_WC_LOC_QP_OP_ERR, IBV_WC_WR_FLUSH_ERR};
    for (uint64_t id = 1; id <= 4; ++id) {
        ASSERT_TRUE(wait_wc(a.scq, &wc)) << "no completion for wr_id " << id;
        EXPECT_EQ(wc.wr_id, id);
        EXPECT_EQ(wc.status, expect[id - 1]) << "wr_id " << id << ": " << ibv_wc_status_str(wc.status);
    }
    EXPECT_EQ(a.qp->state, IBV_QPS_ERR);
    // Exactly one notify arrived (imm 1); the failed one never does.
    ASSERT_TRUE(wait_wc(b.rcq, &wc));
    EXPECT_EQ(ntohl(wc.imm_data), 1u);
    EXPECT_FALSE(wait_wc(b.rcq, &wc, 200ms)) << "the failed WQE's notify was delivered";
    pollfd pfd{dev.ctx->async_fd, POLLIN, 0};
    ASSERT_EQ(poll(&pfd, 1, 2000), 1) << "no async event";
    ibv_async_event ev{};
    ASSERT_EQ(ibv_get_async_event(dev.ctx, &ev), 0);
    EXPECT_EQ(ev.event_type, IBV_EVENT_QP_FATAL);
    EXPECT_EQ(ev.element.qp, a.qp);
    ibv_ack_async_event(&ev);
}

// One ibv_post_send chain WRITE + WRITE_WITH_IMM whose WRITE fails (qp:1): on RC the
// chained notify must flush and nothing of it may reach the responder.
TEST(FaultInjection, ChainBehindFailedWriteFlushesAndNeverNotifies)
{
    ASSERT_TRUE(fail_env_is("qp:1"));
    Loopback lb(8192);
    auto &[dev, buf, mr, a, b] = lb;
    std::memset(buf.p, 0xAB, 4096);     // source
    std::memset(buf.p + 4096, 0, 4096); // target, must stay zero
    ASSERT_EQ(b.recv(1), 0);
    uint64_t raddr = reinterpret_cast<uintptr_t>(buf.p) + 4096;
    ibv_sge s1{reinterpret_cast<uintptr_t>(buf.p), 256, mr.mr->lkey};
    ibv_sge s2{reinterpret_cast<uintptr_t>(buf.p) + 256, 64, mr.mr->lkey};
    ibv_send_wr w1 = rdma_wr(1, IBV_WR_RDMA_WRITE, &s1, raddr, mr.mr->rkey, 0);
    ibv_send_wr w2 = rdma_wr(2, IBV_WR_RDMA_WRITE_WITH_IMM, &s2, raddr + 256, mr.mr->rkey);
    w1.next = &w2;
    w2.imm_data = htonl(7);
    ibv_send_wr *bad = nullptr;
    ASSERT_EQ(ibv_post_send(a.qp, &w1, &bad), 0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(a.scq, &wc)) << "no completion for the failed WRITE";
    EXPECT_EQ(wc.wr_id, 1u);
    EXPECT_EQ(wc.status, IBV_WC_LOC_QP_OP_ERR) << ibv_wc_status_str(wc.status);
    ASSERT_TRUE(wait_wc(a.scq, &wc)) << "no completion for the chained WRITE_WITH_IMM";
    EXPECT_EQ(wc.wr_id, 2u);
    EXPECT_EQ(wc.status, IBV_WC_WR_FLUSH_ERR) << ibv_wc_status_str(wc.status);
    EXPECT_EQ(a.qp->state, IBV_QPS_ERR);
    EXPECT_FALSE(wait_wc(b.rcq, &wc, std::chrono::milliseconds(300)))
        << "the notify chained behind a failed WRITE was delivered (imm " << ntohl(wc.imm_data) << ")";
    for (size_t i = 4096; i < 4096 + 512; ++i)
        ASSERT_EQ(buf.p[i], 0) << "byte " << (i - 4096) << " of the target was written by a failed or flushed WQE";
}

// softverbs' adversary thread dies as it starts (SOFTVERBS_FAIL=thread:adversary, with a
// seed so the first post starts it): the process goes on, the posted WQEs complete with
// errors instead of waiting forever for a thread that is gone, QP_FATAL is raised, and a
// new QP is refused with EIO.
TEST(FaultInjection, DeadAdversaryThreadFailsTheQpsNotTheProcess)
{
    ASSERT_TRUE(fail_env_is("thread:adversary"));
    Loopback lb(8192);
    auto &[dev, buf, mr, a, b] = lb;
    ASSERT_EQ(b.recv(1), 0);
    const uint64_t raddr = reinterpret_cast<uintptr_t>(buf.p) + 4096;
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE_WITH_IMM, 1, mr.mr, 0, 64, raddr, mr.mr->rkey, 5), 0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(a.scq, &wc)) << "the WQE never completed: its executing thread died and nothing failed it";
    EXPECT_EQ(wc.wr_id, 1u);
    EXPECT_NE(wc.status, IBV_WC_SUCCESS) << "a WQE whose executing thread died completed successfully";
    EXPECT_EQ(a.qp->state, IBV_QPS_ERR);
    pollfd pfd{dev.ctx->async_fd, POLLIN, 0};
    ASSERT_EQ(poll(&pfd, 1, 2000), 1) << "no async event";
    ibv_async_event ev{};
    ASSERT_EQ(ibv_get_async_event(dev.ctx, &ev), 0);
    EXPECT_EQ(ev.event_type, IBV_EVENT_QP_FATAL);
    ibv_ack_async_event(&ev);
    ibv_qp_init_attr attr{};
    attr.send_cq = a.scq;
    attr.recv_cq = a.rcq;
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = attr.cap.max_recv_wr = 1;
    attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
    errno = 0;
    EXPECT_EQ(ibv_create_qp(dev.pd, &attr), nullptr) << "a new QP on a device whose thread died";
    EXPECT_EQ(errno, EIO);
}
