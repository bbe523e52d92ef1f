// In-process behaviour of softverbs: device queries, MRs, the QP state machine,
// every opcode's data, completion statuses, capacities and completion channels.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <numeric>
#include <poll.h>
#include <vector>

#include "srq_uc_fixture.h"
#include "ud_fixture.h"
#include "verbs_fixture.h"

using namespace svt;
using namespace std::chrono_literals;

namespace {

struct Pair : ::testing::Test {
    Device dev;
    Buffer abuf{1 << 20, true}, bbuf{1 << 20, true};
    Mr amr{dev.pd, abuf.p, abuf.n, kAllAccess}, bmr{dev.pd, bbuf.p, bbuf.n, kAllAccess};
    Qp a{dev}, b{dev};
    void SetUp() override
    {
        a.connect(b.endpoint());
        b.connect(a.endpoint());
        for (size_t i = 0; i < abuf.n; ++i)
            abuf.p[i] = static_cast<uint8_t>(i * 7 + 1);
        std::memset(bbuf.p, 0, bbuf.n);
    }
    ibv_wc expect_ok(ibv_cq *cq)
    {
        ibv_wc wc{};
        EXPECT_TRUE(wait_wc(cq, &wc)) << "no completion within the deadline";
        EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
        return wc;
    }
    ibv_wc expect_status(ibv_cq *cq, ibv_wc_status st)
    {
        ibv_wc wc{};
        EXPECT_TRUE(wait_wc(cq, &wc)) << "no completion within the deadline";
        EXPECT_EQ(wc.status, st) << "got " << ibv_wc_status_str(wc.status) << ", expected " << ibv_wc_status_str(st);
        return wc;
    }
    uint64_t braddr(size_t off = 0) const { return reinterpret_cast<uintptr_t>(bbuf.p) + off; }
};

} // namespace

TEST(Device, ListOpenQuery)
{
    int n = -1;
    ibv_device **list = ibv_get_device_list(&n);
    ASSERT_NE(list, nullptr);
    ASSERT_EQ(n, 1);
    EXPECT_STREQ(ibv_get_device_name(list[0]), "softverbs0");
    ibv_context *ctx = ibv_open_device(list[0]);
    ASSERT_NE(ctx, nullptr);
    ibv_device_attr da{};
    ASSERT_EQ(ibv_query_device(ctx, &da), 0);
    EXPECT_EQ(da.atomic_cap, IBV_ATOMIC_HCA);
    EXPECT_EQ(da.phys_port_cnt, 1);
    ibv_device_attr_ex dx{};
    ASSERT_EQ(ibv_query_device_ex(ctx, nullptr, &dx), 0);
    EXPECT_EQ(dx.orig_attr.max_qp_wr, da.max_qp_wr);
    ibv_port_attr pa{};
    ASSERT_EQ(ibv_query_port(ctx, 1, &pa), 0);
    EXPECT_EQ(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
    EXPECT_EQ(pa.state, IBV_PORT_ACTIVE);
    EXPECT_NE(ibv_query_port(ctx, 2, &pa), 0);
    ibv_gid gid{};
    ASSERT_EQ(ibv_query_gid(ctx, 1, 0, &gid), 0);
    EXPECT_EQ(gid.raw[0], 0xfe);
    EXPECT_NE(gid.global.interface_id, 0u);
    ibv_gid_entry ge{};
    ASSERT_EQ(ibv_query_gid_ex(ctx, 1, 0, &ge, 0), 0);
    EXPECT_EQ(ge.gid_type, IBV_GID_TYPE_ROCE_V2);
    EXPECT_EQ(std::memcmp(&ge.gid, &gid, sizeof gid), 0);
    EXPECT_EQ(ibv_close_device(ctx), 0);
    ibv_free_device_list(list);
}

TEST(Mr, BothRegFormsAndAccessRules)
{
    Device dev;
    Buffer buf(4096, false);
    ibv_mr *m1 = ibv_reg_mr(dev.pd, buf.p, buf.n, IBV_ACCESS_LOCAL_WRITE); // constant: ibv_reg_mr@1.1
    ASSERT_NE(m1, nullptr);
    volatile int flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ; // variable: ibv_reg_mr_iova2@1.8
    ibv_mr *m2 = ibv_reg_mr(dev.pd, buf.p, buf.n, flags);
    ASSERT_NE(m2, nullptr);
    EXPECT_NE(m1->rkey, m2->rkey);
    EXPECT_EQ(m2->addr, buf.p);
    EXPECT_EQ(m2->length, buf.n);
    // REMOTE_WRITE without LOCAL_WRITE is invalid, as on hardware.
    EXPECT_EQ(ibv_reg_mr(dev.pd, buf.p, buf.n, IBV_ACCESS_REMOTE_WRITE), nullptr);
    EXPECT_EQ(ibv_dereg_mr(m1), 0);
    EXPECT_EQ(ibv_dereg_mr(m2), 0);
}

TEST(Mr, SparseRegistrationDoesNotTouchPages)
{
    Device dev;
    constexpr size_t kSize = 400ull << 20;
    Buffer big(kSize, true);
    rusage before{}, after{};
    getrusage(RUSAGE_SELF, &before);
    Mr mr(dev.pd, big.p, kSize, kAllAccess);
    getrusage(RUSAGE_SELF, &after);
    std::vector<unsigned char> vec(kSize / 4096);
    ASSERT_EQ(mincore(big.p, kSize, vec.data()), 0);
    size_t resident =
        std::accumulate(vec.begin(), vec.end(), size_t{0}, [](size_t s, unsigned char c) { return s + (c & 1); });
    EXPECT_EQ(resident, 0u) << "registration faulted in " << resident << " pages";
    EXPECT_LT(after.ru_minflt - before.ru_minflt, 1000) << "registration caused page faults";
}

TEST(QpState, TransitionsAndMaskValidation)
{
    Device dev;
    Qp q(dev), peer(dev);
    EXPECT_EQ(q.qp->state, IBV_QPS_RESET);
    // Posting before RTS is refused.
    Buffer buf(64, false);
    Mr mr(dev.pd, buf.p, 64, kAllAccess);
    EXPECT_EQ(q.post(IBV_WR_SEND, 1, mr.mr, 0, 8), EINVAL);
    // RESET->RTR skips INIT: refused.
    EXPECT_EQ(q.to_rtr(peer.endpoint()), EINVAL);
    // RESET->INIT without the port attribute: refused.
    ibv_qp_attr at{};
    at.qp_state = IBV_QPS_INIT;
    at.port_num = 1;
    EXPECT_EQ(ibv_modify_qp(q.qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS), EINVAL);
    // An attribute not allowed in this transition: refused.
    at.timeout = 3;
    EXPECT_EQ(
        ibv_modify_qp(q.qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS | IBV_QP_TIMEOUT),
        EINVAL);
    ASSERT_EQ(q.to_init(), 0);
    EXPECT_EQ(q.qp->state, IBV_QPS_INIT);
    EXPECT_EQ(q.to_rts(), EINVAL); // INIT->RTS skips RTR
    ASSERT_EQ(q.to_rtr(peer.endpoint()), 0);
    EXPECT_EQ(q.qp->state, IBV_QPS_RTR);
    ASSERT_EQ(q.to_rts(), 0);
    EXPECT_EQ(q.qp->state, IBV_QPS_RTS);
    ibv_qp_attr qa{};
    ibv_qp_init_attr qi{};
    ASSERT_EQ(ibv_query_qp(q.qp, &qa, IBV_QP_STATE, &qi), 0);
    EXPECT_EQ(qa.qp_state, IBV_QPS_RTS);
    EXPECT_EQ(qa.dest_qp_num, peer.qp->qp_num);
    // ERR flushes posted RECVs; RESET returns to the start.
    ASSERT_EQ(q.recv(42, mr.mr, 0, 64), 0);
    at = {};
    at.qp_state = IBV_QPS_ERR;
    ASSERT_EQ(ibv_modify_qp(q.qp, &at, IBV_QP_STATE), 0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(q.rcq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_WR_FLUSH_ERR);
    EXPECT_EQ(wc.wr_id, 42u);
    at.qp_state = IBV_QPS_RESET;
    ASSERT_EQ(ibv_modify_qp(q.qp, &at, IBV_QP_STATE), 0);
    EXPECT_EQ(q.qp->state, IBV_QPS_RESET);
}

TEST_F(Pair, RdmaWriteData)
{
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, 7, amr.mr, 100, 5000, braddr(200), bmr.mr->rkey), 0);
    ibv_wc wc = expect_ok(a.scq);
    EXPECT_EQ(wc.wr_id, 7u);
    EXPECT_EQ(wc.opcode, IBV_WC_RDMA_WRITE);
    EXPECT_EQ(std::memcmp(bbuf.p + 200, abuf.p + 100, 5000), 0);
    EXPECT_EQ(bbuf.p[199], 0);
    EXPECT_EQ(bbuf.p[5200], 0);
}

TEST_F(Pair, WriteWithImmDeliversDataThenNotify)
{
    ASSERT_EQ(b.recv(9), 0);
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, 1, amr.mr, 0, 4096, braddr(0), bmr.mr->rkey, 0, 0), 0);
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE_WITH_IMM, 2, amr.mr, 0, 0, braddr(8192), bmr.mr->rkey, 0xabcdef01), 0);
    ibv_wc wc = expect_ok(b.rcq);
    EXPECT_EQ(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
    EXPECT_EQ(wc.wr_id, 9u);
    EXPECT_TRUE(wc.wc_flags & IBV_WC_WITH_IMM);
    EXPECT_EQ(ntohl(wc.imm_data), 0xabcdef01u);
    EXPECT_EQ(wc.src_qp, a.qp->qp_num);
    EXPECT_EQ(std::memcmp(bbuf.p, abuf.p, 4096), 0);
    wc = expect_ok(a.scq);
    EXPECT_EQ(wc.wr_id, 2u); // the unsignaled WRITE has no completion
    EXPECT_NE(ibv_poll_cq(a.scq, 1, &wc), 1);
}

TEST_F(Pair, SendAndSendImmScatter)
{
    ASSERT_EQ(b.recv(1, bmr.mr, 0, 100), 0);
    ASSERT_EQ(b.recv(2, bmr.mr, 1000, 100), 0);
    ASSERT_EQ(a.post(IBV_WR_SEND, 10, amr.mr, 0, 64), 0);
    ASSERT_EQ(a.post(IBV_WR_SEND_WITH_IMM, 11, amr.mr, 64, 32, 0, 0, 77), 0);
    ibv_wc wc = expect_ok(b.rcq);
    EXPECT_EQ(wc.opcode, IBV_WC_RECV);
    EXPECT_EQ(wc.byte_len, 64u);
    EXPECT_FALSE(wc.wc_flags & IBV_WC_WITH_IMM);
    wc = expect_ok(b.rcq);
    EXPECT_EQ(wc.byte_len, 32u);
    EXPECT_EQ(ntohl(wc.imm_data), 77u);
    EXPECT_EQ(std::memcmp(bbuf.p, abuf.p, 64), 0);
    EXPECT_EQ(std::memcmp(bbuf.p + 1000, abuf.p + 64, 32), 0);
    expect_ok(a.scq);
    expect_ok(a.scq);
}

TEST_F(Pair, RdmaRead)
{
    for (int i = 0; i < 256; ++i)
        bbuf.p[i] = static_cast<uint8_t>(255 - i);
    ASSERT_EQ(a.post(IBV_WR_RDMA_READ, 5, amr.mr, 4096, 256, braddr(0), bmr.mr->rkey), 0);
    ibv_wc wc = expect_ok(a.scq);
    EXPECT_EQ(wc.opcode, IBV_WC_RDMA_READ);
    EXPECT_EQ(wc.byte_len, 256u);
    EXPECT_EQ(std::memcmp(abuf.p + 4096, bbuf.p, 256), 0);
}

TEST_F(Pair, Atomics)
{
    uint64_t init = 40;
    std::memcpy(bbuf.p + 64, &init, 8);
    ibv_sge s{reinterpret_cast<uintptr_t>(abuf.p), 8, amr.mr->lkey};
    ibv_send_wr wr = atomic_wr(0, IBV_WR_ATOMIC_FETCH_AND_ADD, &s, braddr(64), bmr.mr->rkey, 2);
    ibv_send_wr *bad = nullptr;
    ASSERT_EQ(ibv_post_send(a.qp, &wr, &bad), 0);
    ibv_wc wc = expect_ok(a.scq);
    EXPECT_EQ(wc.opcode, IBV_WC_FETCH_ADD);
    uint64_t old = 0, now = 0;
    std::memcpy(&old, abuf.p, 8);
    std::memcpy(&now, bbuf.p + 64, 8);
    EXPECT_EQ(old, 40u);
    EXPECT_EQ(now, 42u);
    wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
    wr.wr.atomic.compare_add = 42;
    wr.wr.atomic.swap = 1000;
    ASSERT_EQ(ibv_post_send(a.qp, &wr, &bad), 0);
    wc = expect_ok(a.scq);
    EXPECT_EQ(wc.opcode, IBV_WC_COMP_SWAP);
    std::memcpy(&now, bbuf.p + 64, 8);
    EXPECT_EQ(now, 1000u);
    wr.wr.atomic.compare_add = 1; // mismatch: unchanged, old value returned
    wr.wr.atomic.swap = 5;
    ASSERT_EQ(ibv_post_send(a.qp, &wr, &bad), 0);
    expect_ok(a.scq);
    std::memcpy(&now, bbuf.p + 64, 8);
    std::memcpy(&old, abuf.p, 8);
    EXPECT_EQ(now, 1000u);
    EXPECT_EQ(old, 1000u);
}

TEST_F(Pair, ForgedRkeyChangesNoByte)
{
    std::vector<uint8_t> snapshot(bbuf.p, bbuf.p + bbuf.n);
    uint32_t forged = bmr.mr->rkey ^ 0x100; // another index
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, 1, amr.mr, 0, 64, braddr(0), forged), 0);
    ibv_wc wc = expect_status(a.scq, IBV_WC_REM_ACCESS_ERR);
    EXPECT_EQ(wc.wr_id, 1u);
    EXPECT_EQ(std::memcmp(snapshot.data(), bbuf.p, bbuf.n), 0);
    EXPECT_EQ(a.qp->state, IBV_QPS_ERR);
}

TEST_F(Pair, StaleRkeyAfterDeregistration)
{
    Buffer extra(4096, true);
    std::memset(extra.p, 0x5a, 4096);
    ibv_mr *m = ibv_reg_mr(dev.pd, extra.p, 4096, kAllAccess);
    ASSERT_NE(m, nullptr);
    uint32_t stale = m->rkey;
    ASSERT_EQ(ibv_dereg_mr(m), 0);
    ibv_mr *again = ibv_reg_mr(dev.pd, extra.p, 4096, kAllAccess); // same slot, new generation
    ASSERT_NE(again, nullptr);
    EXPECT_NE(again->rkey, stale);
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, 1, amr.mr, 0, 64, reinterpret_cast<uintptr_t>(extra.p), stale), 0);
    expect_status(a.scq, IBV_WC_REM_ACCESS_ERR);
    for (int i = 0; i < 4096; ++i)
        ASSERT_EQ(extra.p[i], 0x5a) << "byte " << i << " changed";
    ibv_dereg_mr(again);
}

TEST_F(Pair, OutOfBoundsAndMissingAccess)
{
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, 1, amr.mr, 0, 64, braddr(bbuf.n - 32), bmr.mr->rkey), 0);
    expect_status(a.scq, IBV_WC_REM_ACCESS_ERR);
    for (size_t i = bbuf.n - 32; i < bbuf.n; ++i)
        ASSERT_EQ(bbuf.p[i], 0);
    // A read-only MR refuses remote writes even with a good rkey.
    Device d2;
    Buffer ro(4096, true);
    std::memset(ro.p, 0x11, 4096);
    Mr romr(dev.pd, ro.p, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
    Qp c(dev), e(dev);
    c.connect(e.endpoint());
    e.connect(c.endpoint());
    ASSERT_EQ(c.post(IBV_WR_RDMA_WRITE, 2, amr.mr, 0, 16, reinterpret_cast<uintptr_t>(ro.p), romr.mr->rkey), 0);
    expect_status(c.scq, IBV_WC_REM_ACCESS_ERR);
    EXPECT_EQ(ro.p[0], 0x11);
}

// The bounds check is exact at the MR's end: a range ending on its last byte
// passes, one ending a byte later is a remote access error and moves nothing.
TEST_F(Pair, RangeOneBytePastTheMrEndIsRefused)
{
    constexpr size_t kPart = 8192; // an MR over the start of bbuf, so the byte past its end is mapped
    Mr part(dev.pd, bbuf.p, kPart, kAllAccess);
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, 1, amr.mr, 0, 64, braddr(kPart - 64), part.mr->rkey), 0);
    expect_ok(a.scq);
    EXPECT_EQ(std::memcmp(bbuf.p + kPart - 64, abuf.p, 64), 0);
    std::memset(bbuf.p, 0, kPart + 64);
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, 2, amr.mr, 0, 64, braddr(kPart - 63), part.mr->rkey), 0);
    expect_status(a.scq, IBV_WC_REM_ACCESS_ERR);
    for (size_t i = kPart - 64; i < kPart + 64; ++i)
        ASSERT_EQ(bbuf.p[i], 0) << "byte " << i << " changed";
}

// A message longer than max_msg_sz fails with a local length error; its length is
// the 64-bit sum of its SGEs (here just past 4 GiB, from a sparse mapping never touched).
TEST(Length, MessageBeyondMaxMsgIsLengthError)
{
    Device dev;
    constexpr size_t kSize = (4ull << 30) + 4096;
    Buffer big(kSize, true);
    Mr mr(dev.pd, big.p, kSize, kAllAccess);
    Buffer dst(4096, true);
    Mr dmr(dev.pd, dst.p, dst.n, kAllAccess);
    Qp a(dev), b(dev);
    a.connect(b.endpoint());
    b.connect(a.endpoint());
    ibv_sge sges[2] = {{reinterpret_cast<uintptr_t>(big.p), 0xffffffffu, mr.mr->lkey},
                       {reinterpret_cast<uintptr_t>(big.p), 65, mr.mr->lkey}};
    ibv_send_wr wr = rdma_wr(1, IBV_WR_RDMA_WRITE, sges, reinterpret_cast<uintptr_t>(dst.p), dmr.mr->rkey);
    wr.num_sge = 2;
    ibv_send_wr *bad = nullptr;
    ASSERT_EQ(ibv_post_send(a.qp, &wr, &bad), 0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(a.scq, &wc)) << "no completion within the deadline";
    EXPECT_EQ(wc.status, IBV_WC_LOC_LEN_ERR) << ibv_wc_status_str(wc.status);
    for (size_t i = 0; i < dst.n; ++i)
        ASSERT_EQ(dst.p[i], 0) << "byte " << i << " changed";
}

TEST_F(Pair, BadLkeyIsLocalProtectionError)
{
    ibv_sge s{reinterpret_cast<uintptr_t>(abuf.p), 64, amr.mr->lkey + 0x100};
    ibv_send_wr wr = rdma_wr(3, IBV_WR_RDMA_WRITE, &s, braddr(0), bmr.mr->rkey);
    ibv_send_wr *bad = nullptr;
    ASSERT_EQ(ibv_post_send(a.qp, &wr, &bad), 0);
    expect_status(a.scq, IBV_WC_LOC_PROT_ERR);
    // Later WQEs flush.
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, 4, amr.mr, 0, 8, braddr(0), bmr.mr->rkey), 0);
    expect_status(a.scq, IBV_WC_WR_FLUSH_ERR);
}

TEST_F(Pair, RecvTooSmallIsLengthError)
{
    ASSERT_EQ(b.recv(1, bmr.mr, 0, 16), 0);
    ASSERT_EQ(a.post(IBV_WR_SEND, 2, amr.mr, 0, 64), 0);
    expect_status(b.rcq, IBV_WC_LOC_LEN_ERR);
    expect_status(a.scq, IBV_WC_REM_INV_REQ_ERR);
}

TEST(Rnr, RetryExceededWithoutRecv)
{
    Loopback lb(4096, {.rnr_retry = 1});
    auto &[dev, buf, mr, a, b] = lb;
    ASSERT_EQ(a.post(IBV_WR_SEND, 1, mr.mr, 0, 8), 0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(a.scq, &wc, 3000ms));
    EXPECT_EQ(wc.status, IBV_WC_RNR_RETRY_EXC_ERR) << ibv_wc_status_str(wc.status);
}

TEST(Rnr, LateRecvIsWaitedFor)
{
    Loopback lb(4096, {.rnr_retry = 7});
    auto &[dev, buf, mr, a, b] = lb;
    ASSERT_EQ(a.post(IBV_WR_SEND, 1, mr.mr, 0, 8), 0);
    ibv_wc wc{};
    EXPECT_FALSE(wait_wc(a.scq, &wc, 50ms)) << "SEND completed without a RECV at the responder";
    ASSERT_EQ(b.recv(5, mr.mr, 1024, 64), 0);
    ASSERT_TRUE(wait_wc(b.rcq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    ASSERT_TRUE(wait_wc(a.scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
}

// RC: a WRITE behind a SEND that waits for a RECV (RNR) is held too; its bytes must not
// land before the SEND does, on any route (direct placement included).
TEST(Rnr, LaterWriteWaitsBehindSendWithoutRecv)
{
    Device dev;
    Buffer abuf(8192, true), bbuf(8192, true);
    Mr amr(dev.pd, abuf.p, abuf.n, kAllAccess), bmr(dev.pd, bbuf.p, bbuf.n, kAllAccess);
    std::memset(abuf.p, 0x5A, abuf.n);
    std::memset(bbuf.p, 0, bbuf.n);
    Qp a(dev), b(dev);
    a.connect(b.endpoint(), 7);
    b.connect(a.endpoint());
    uint64_t target = reinterpret_cast<uintptr_t>(bbuf.p) + 4096;
    ASSERT_EQ(a.post(IBV_WR_SEND, 1, amr.mr, 0, 32), 0);
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, 2, amr.mr, 1024, 256, target, bmr.mr->rkey), 0);
    ibv_wc wc{};
    EXPECT_FALSE(wait_wc(a.scq, &wc, 100ms)) << "wr_id " << wc.wr_id << " completed while the SEND had no RECV";
    for (size_t i = 0; i < 256; ++i)
        ASSERT_EQ(bbuf.p[4096 + i], 0) << "byte " << i << " of the later WRITE landed before the RNR-held SEND";
    ASSERT_EQ(b.recv(7, bmr.mr, 0, 64), 0);
    ASSERT_TRUE(wait_wc(b.rcq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
    EXPECT_EQ(wc.byte_len, 32u);
    for (uint64_t id = 1; id <= 2; ++id) {
        ASSERT_TRUE(wait_wc(a.scq, &wc)) << "no completion for wr_id " << id;
        EXPECT_EQ(wc.wr_id, id);
        EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
    }
    for (size_t i = 0; i < 256; ++i)
        ASSERT_EQ(bbuf.p[4096 + i], 0x5A) << "byte " << i << " of the WRITE missing";
}

TEST(Capacity, SendQueueFullAndSelectiveSignalling)
{
    Loopback lb(4096, {.depth = 4});
    auto &[dev, buf, mr, a, b] = lb;
    uint64_t raddr = reinterpret_cast<uintptr_t>(buf.p) + 2048;
    // Four unsignaled WRITEs fill the queue: their slots come back only with a signaled completion.
    for (int i = 0; i < 4; ++i)
        ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, i, mr.mr, 0, 8, raddr, mr.mr->rkey, 0, 0), 0);
    EXPECT_EQ(a.post(IBV_WR_RDMA_WRITE, 9, mr.mr, 0, 8, raddr, mr.mr->rkey), ENOMEM);
    ibv_wc wc{};
    EXPECT_EQ(ibv_poll_cq(a.scq, 1, &wc), 0);
    // Too many SGEs or too much inline data: refused at post time.
    ibv_sge s[5] = {};
    ibv_send_wr wr{};
    wr.opcode = IBV_WR_SEND;
    wr.sg_list = s;
    wr.num_sge = 5;
    ibv_send_wr *bad = nullptr;
    EXPECT_EQ(ibv_post_send(b.qp, &wr, &bad), EINVAL);
    EXPECT_EQ(bad, &wr);
    // The RQ has a capacity too.
    for (int i = 0; i < 4; ++i)
        ASSERT_EQ(b.recv(i), 0);
    EXPECT_EQ(b.recv(99), ENOMEM);
    // Capacities beyond the device limits are refused at creation.
    ibv_qp_init_attr big{};
    big.send_cq = a.scq;
    big.recv_cq = a.rcq;
    big.qp_type = IBV_QPT_RC;
    big.cap.max_send_wr = 1 << 20;
    big.cap.max_recv_wr = 1;
    big.cap.max_send_sge = 1;
    big.cap.max_recv_sge = 1;
    EXPECT_EQ(ibv_create_qp(dev.pd, &big), nullptr);
}

TEST(Capacity, SignaledCompletionReleasesEarlierSlots)
{
    Loopback lb(4096, {.depth = 4});
    auto &[dev, buf, mr, a, b] = lb;
    uint64_t raddr = reinterpret_cast<uintptr_t>(buf.p) + 2048;
    for (int round = 0; round < 10; ++round) {
        for (int i = 0; i < 3; ++i)
            ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, i, mr.mr, 0, 8, raddr, mr.mr->rkey, 0, 0), 0);
        ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, 100 + round, mr.mr, 0, 8, raddr, mr.mr->rkey), 0);
        ibv_wc wc{};
        ASSERT_TRUE(wait_wc(a.scq, &wc));
        EXPECT_EQ(wc.wr_id, 100u + round);
    }
}

// ---- the poller's lease on the sockets (SOFTVERBS_TRANSPORT=tcp: softverbs_core_tcp) ----

// A spinning poller reads the TCP sockets itself and the progress thread stops watching them;
// a poller that then stops polling, without arming its CQ, must not hold frames up for good:
// the progress thread takes the sockets back when the lease runs out.
TEST(PollerLease, FramesLandAfterTheSpinningPollerStops)
{
    Loopback lb(4096);
    auto &[dev, buf, mr, a, b] = lb;
    ibv_wc wc{};
    for (int i = 0; i < 1000; ++i) // a spinning poller: it takes the lease
        ASSERT_EQ(ibv_poll_cq(a.scq, 1, &wc), 0);
    std::memset(buf.p, 0x5a, 8);
    std::memset(buf.p + 2048, 0, 8);
    uint64_t raddr = reinterpret_cast<uintptr_t>(buf.p) + 2048;
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, 1, mr.mr, 0, 8, raddr, mr.mr->rkey), 0);
    // Nobody polls from here on: only the progress thread can place the write.
    auto *landed = reinterpret_cast<volatile uint8_t *>(buf.p + 2048 + 7);
    const auto deadline = std::chrono::steady_clock::now() + 2s;
    while (*landed != 0x5a && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(100us);
    EXPECT_EQ(*landed, 0x5a) << "the write was not placed within 2 s while no thread polled";
    ASSERT_TRUE(wait_wc(a.scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
}

// Only the thread that renewed the lease gives it up: a thread that arms its CQ and sleeps
// on the channel leaves a spinning thread's lease alone. When the spinner then stops polling
// without arming, the sleeper's event must still come, once the lease has run out.
TEST(PollerLease, ASleeperGetsItsEventAfterTheSpinnerStops)
{
    Loopback lb(4096, {.channel = true});
    auto &[dev, buf, mr, a, b] = lb;
    ibv_wc wc{};
    for (int i = 0; i < 1000; ++i) // this thread spins: it holds the lease
        ASSERT_EQ(ibv_poll_cq(a.scq, 1, &wc), 0);
    ASSERT_EQ(b.recv(1), 0);
    std::atomic<bool> armed{false}, got{false};
    std::jthread sleeper([&] {
        // This thread holds no lease, so arming gives none up (nor does ibv_get_cq_event).
        EXPECT_EQ(ibv_req_notify_cq(b.rcq, 0), 0);
        armed = true;
        pollfd pfd{b.ch->fd, POLLIN, 0};
        if (poll(&pfd, 1, 3000) != 1)
            return;
        ibv_cq *cq = nullptr;
        void *cqctx = nullptr;
        if (ibv_get_cq_event(b.ch, &cq, &cqctx) == 0) {
            ibv_ack_cq_events(cq, 1);
            got = true;
        }
    });
    while (!armed)
        std::this_thread::sleep_for(1ms);
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE_WITH_IMM, 1, nullptr, 0, 0, 0, 0, 7), 0);
    // Nobody polls from here on.
    sleeper.join();
    EXPECT_TRUE(got) << "the receive completion's event did not come within 3 s";
    ASSERT_EQ(ibv_poll_cq(b.rcq, 1, &wc), 1);
    EXPECT_EQ(ntohl(wc.imm_data), 7u);
}

// ---- shared receive queues and UC QPs ----

TEST(Srq, VerbsValidateAndReport)
{
    Device dev;
    ibv_device_attr da{};
    ASSERT_EQ(ibv_query_device(dev.ctx, &da), 0);
    EXPECT_GT(da.max_srq, 0);
    EXPECT_GT(da.max_srq_wr, 0);
    EXPECT_GT(da.max_srq_sge, 0);
    ibv_srq_init_attr bad{};
    bad.attr.max_wr = static_cast<uint32_t>(da.max_srq_wr) + 1;
    errno = 0;
    EXPECT_EQ(ibv_create_srq(dev.pd, &bad), nullptr);
    EXPECT_EQ(errno, EINVAL);
    ibv_srq_init_attr_ex xrc{};
    xrc.attr.max_wr = 4;
    xrc.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
    xrc.srq_type = IBV_SRQT_XRC;
    xrc.pd = dev.pd;
    errno = 0;
    EXPECT_EQ(ibv_create_srq_ex(dev.ctx, &xrc), nullptr);
    EXPECT_EQ(errno, EOPNOTSUPP);
    xrc.srq_type = IBV_SRQT_BASIC;
    xrc.comp_mask |= IBV_SRQ_INIT_ATTR_CQ;
    xrc.cq = nullptr;
    ibv_srq *basic = ibv_create_srq_ex(dev.ctx, &xrc);
    EXPECT_NE(basic, nullptr) << "a basic SRQ through ibv_create_srq_ex: errno " << errno;
    if (basic) {
        EXPECT_EQ(ibv_destroy_srq(basic), 0);
    }

    Srq s(dev.pd, 4, 2);
    Buffer buf(4096, true);
    Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
    ibv_srq_attr sa{};
    ASSERT_EQ(ibv_query_srq(s.srq, &sa), 0);
    EXPECT_EQ(sa.max_wr, 4u);
    EXPECT_EQ(sa.max_sge, 2u);
    EXPECT_EQ(sa.srq_limit, 0u);
    // Too many SGEs: refused, bad_wr names the request.
    ibv_sge sg[3] = {{reinterpret_cast<uintptr_t>(buf.p), 8, mr.mr->lkey}, {}, {}};
    ibv_recv_wr w[5]{};
    w[0].num_sge = 3;
    w[0].sg_list = sg;
    ibv_recv_wr *badwr = nullptr;
    EXPECT_EQ(ibv_post_srq_recv(s.srq, &w[0], &badwr), EINVAL);
    EXPECT_EQ(badwr, &w[0]);
    // Capacity: a chain of five into four slots stops at the fifth.
    for (int i = 0; i < 5; ++i) {
        w[i] = {};
        w[i].wr_id = static_cast<uint64_t>(i);
        w[i].sg_list = sg;
        w[i].num_sge = 1;
        w[i].next = i < 4 ? &w[i + 1] : nullptr;
    }
    badwr = nullptr;
    EXPECT_EQ(ibv_post_srq_recv(s.srq, &w[0], &badwr), ENOMEM);
    EXPECT_EQ(badwr, &w[4]);
    // modify: limit beyond max_wr, unknown bits, shrinking below what is posted: refused.
    sa = {};
    sa.srq_limit = 5;
    EXPECT_EQ(ibv_modify_srq(s.srq, &sa, IBV_SRQ_LIMIT), EINVAL);
    EXPECT_EQ(ibv_modify_srq(s.srq, &sa, 1 << 5), EINVAL);
    sa.max_wr = 3;
    EXPECT_EQ(ibv_modify_srq(s.srq, &sa, IBV_SRQ_MAX_WR), EINVAL);
    sa.max_wr = 8;
    sa.srq_limit = 2;
    EXPECT_EQ(ibv_modify_srq(s.srq, &sa, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT), 0);
    ASSERT_EQ(ibv_query_srq(s.srq, &sa), 0);
    EXPECT_EQ(sa.max_wr, 8u);
    EXPECT_EQ(sa.srq_limit, 2u);
    // A QP on the SRQ: its own post_recv is refused, the SRQ cannot go while it exists.
    Qp q(dev);
    remake_qp(dev, q, IBV_QPT_RC, s.srq);
    EXPECT_EQ(q.qp->srq, s.srq);
    EXPECT_EQ(q.recv(1, mr.mr, 0, 8), EINVAL);
    ibv_qp_attr qa{};
    ibv_qp_init_attr qi{};
    ASSERT_EQ(ibv_query_qp(q.qp, &qa, IBV_QP_CAP, &qi), 0);
    EXPECT_EQ(qi.srq, s.srq);
    EXPECT_EQ(ibv_destroy_srq(s.srq), EBUSY);
}

TEST(Srq, QpsShareRecvsLimitEventAndLastWqe)
{
    Device dev;
    Buffer buf(1 << 16, true);
    Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
    Srq s(dev.pd, 16);
    Qp a1(dev), a2(dev), b1(dev), b2(dev);
    remake_qp(dev, b1, IBV_QPT_RC, s.srq);
    remake_qp(dev, b2, IBV_QPT_RC, s.srq);
    a1.connect(b1.endpoint());
    b1.connect(a1.endpoint());
    a2.connect(b2.endpoint());
    b2.connect(a2.endpoint());
    for (int i = 0; i < 4; ++i)
        buf.p[i * 64] = static_cast<uint8_t>(0xa0 + i);
    // A SEND before any RECV is posted waits (RC: receiver not ready), then takes the
    // SRQ's first RECV.
    ASSERT_EQ(a1.post(IBV_WR_SEND, 1, mr.mr, 0, 64), 0);
    std::this_thread::sleep_for(20ms);
    ibv_wc wc{};
    EXPECT_EQ(ibv_poll_cq(b1.rcq, 1, &wc), 0) << "completed without a RECV";
    for (uint64_t i = 0; i < 4; ++i)
        ASSERT_EQ(srq_recv(s.srq, 100 + i, mr.mr, 4096 + i * 1024, 1024), 0);
    ibv_srq_attr sa{};
    sa.srq_limit = 3;
    ASSERT_EQ(ibv_modify_srq(s.srq, &sa, IBV_SRQ_LIMIT), 0);
    ASSERT_TRUE(wait_wc(b1.rcq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    EXPECT_EQ(wc.wr_id, 100u);
    EXPECT_EQ(wc.qp_num, b1.qp->qp_num);
    EXPECT_EQ(buf.p[4096], 0xa0);
    // Three left, not below the limit yet; the next one, through the other QP, fires it.
    ASSERT_EQ(a2.post(IBV_WR_SEND, 2, mr.mr, 64, 64), 0);
    ASSERT_TRUE(wait_wc(b2.rcq, &wc));
    EXPECT_EQ(wc.wr_id, 101u);
    EXPECT_EQ(wc.qp_num, b2.qp->qp_num);
    EXPECT_EQ(buf.p[4096 + 1024], 0xa1);
    ibv_async_event ev{};
    ASSERT_TRUE(wait_async(dev.ctx, IBV_EVENT_SRQ_LIMIT_REACHED, &ev)) << "no SRQ limit event";
    EXPECT_EQ(ev.element.srq, s.srq);
    ASSERT_EQ(ibv_query_srq(s.srq, &sa), 0);
    EXPECT_EQ(sa.srq_limit, 0u) << "the limit fires once, then is disarmed";
    // b1 to ERR: the SRQ's RECVs are not flushed; LAST_WQE_REACHED; b2 still receives.
    ibv_qp_attr at{};
    at.qp_state = IBV_QPS_ERR;
    ASSERT_EQ(ibv_modify_qp(b1.qp, &at, IBV_QP_STATE), 0);
    ASSERT_TRUE(wait_async(dev.ctx, IBV_EVENT_QP_LAST_WQE_REACHED, &ev)) << "no last-WQE-reached event";
    EXPECT_EQ(ev.element.qp, b1.qp);
    EXPECT_EQ(ibv_poll_cq(b1.rcq, 1, &wc), 0) << "an SRQ RECV was flushed by one QP's error";
    ASSERT_EQ(a2.post(IBV_WR_SEND, 3, mr.mr, 128, 64), 0);
    ASSERT_TRUE(wait_wc(b2.rcq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    EXPECT_EQ(wc.wr_id, 102u);
}

// Several requesters, each from its own thread, into QPs sharing one SRQ: every
// message consumes exactly one RECV, none is lost or taken twice.
TEST(Srq, ConcurrentConsumers)
{
    constexpr int kPairs = 4, kMsgs = 64;
    Device dev;
    Buffer buf(1 << 20, true);
    Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
    Srq s(dev.pd, kPairs * kMsgs);
    std::vector<std::unique_ptr<Qp>> as, bs;
    for (int i = 0; i < kPairs; ++i) {
        as.push_back(std::make_unique<Qp>(dev, kMsgs));
        bs.push_back(std::make_unique<Qp>(dev, kMsgs));
        remake_qp(dev, *bs.back(), IBV_QPT_RC, s.srq);
        as.back()->connect(bs.back()->endpoint());
        bs.back()->connect(as.back()->endpoint());
    }
    for (int i = 0; i < kPairs * kMsgs; ++i)
        ASSERT_EQ(srq_recv(s.srq, static_cast<uint64_t>(i), mr.mr, 65536 + i * 8, 8), 0);
    std::vector<std::thread> senders;
    for (int p = 0; p < kPairs; ++p)
        senders.emplace_back([&, p] {
            for (int m = 0; m < kMsgs; ++m) {
                while (as[p]->post(IBV_WR_SEND, static_cast<uint64_t>(m), mr.mr, 0, 8) == ENOMEM) {
                    ibv_wc wc{};
                    ibv_poll_cq(as[p]->scq, 1, &wc);
                }
            }
        });
    std::vector<int> seen(kPairs * kMsgs, 0);
    for (int p = 0; p < kPairs; ++p)
        for (int m = 0; m < kMsgs; ++m) {
            ibv_wc wc{};
            ASSERT_TRUE(wait_wc(bs[p]->rcq, &wc)) << "pair " << p << " message " << m;
            ASSERT_EQ(wc.status, IBV_WC_SUCCESS);
            ASSERT_LT(wc.wr_id, seen.size());
            ++seen[wc.wr_id];
        }
    for (auto &t : senders)
        t.join();
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), kPairs * kMsgs) << "a RECV lost or taken twice";
}

TEST(Uc, MasksOpcodesAndDelivery)
{
    Device dev;
    Buffer abuf(1 << 16, true), bbuf(1 << 16, true);
    Mr amr(dev.pd, abuf.p, abuf.n, kAllAccess), bmr(dev.pd, bbuf.p, bbuf.n, kAllAccess);
    Qp a(dev), b(dev);
    remake_qp(dev, a, IBV_QPT_UC, nullptr);
    remake_qp(dev, b, IBV_QPT_UC, nullptr);
    EXPECT_EQ(a.qp->qp_type, IBV_QPT_UC);
    // RC's RTR/RTS attributes are not UC's: refused.
    ASSERT_EQ(a.to_init(), 0);
    EXPECT_EQ(a.to_rtr(b.endpoint()), EINVAL) << "max_dest_rd_atomic / min_rnr_timer on UC";
    ibv_qp_attr at{};
    at.qp_state = IBV_QPS_RESET;
    ASSERT_EQ(ibv_modify_qp(a.qp, &at, IBV_QP_STATE), 0);
    ASSERT_EQ(uc_connect(a, b.endpoint()), 0);
    ASSERT_EQ(uc_connect(b, a.endpoint()), 0);
    at = {};
    at.qp_state = IBV_QPS_RTS;
    at.timeout = 14;
    EXPECT_EQ(ibv_modify_qp(a.qp, &at, IBV_QP_STATE | IBV_QP_TIMEOUT), EINVAL) << "timeout on UC";
    ibv_qp_attr qa{};
    ibv_qp_init_attr qi{};
    ASSERT_EQ(ibv_query_qp(a.qp, &qa, IBV_QP_STATE, &qi), 0);
    EXPECT_EQ(qi.qp_type, IBV_QPT_UC);
    uint64_t braddr = reinterpret_cast<uintptr_t>(bbuf.p);
    // READ and atomics: refused at post.
    EXPECT_EQ(a.post(IBV_WR_RDMA_READ, 1, amr.mr, 0, 8, braddr, bmr.mr->rkey), EINVAL);
    ibv_sge s8{reinterpret_cast<uintptr_t>(abuf.p), 8, amr.mr->lkey};
    ibv_send_wr fa = atomic_wr(2, IBV_WR_ATOMIC_FETCH_AND_ADD, &s8, braddr, bmr.mr->rkey, 1);
    ibv_send_wr *badwr = nullptr;
    EXPECT_EQ(ibv_post_send(a.qp, &fa, &badwr), EINVAL);
    EXPECT_EQ(badwr, &fa);
    for (size_t i = 0; i < 4096; ++i)
        abuf.p[i] = static_cast<uint8_t>(i * 3 + 1);
    ibv_wc wc{};
    // WRITE, WRITE_WITH_IMM and SEND arrive as on RC.
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, 3, amr.mr, 0, 1024, braddr, bmr.mr->rkey), 0);
    ASSERT_TRUE(wait_wc(a.scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    EXPECT_EQ(std::memcmp(bbuf.p, abuf.p, 1024), 0);
    ASSERT_EQ(b.recv(10, bmr.mr, 8192, 1024), 0);
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE_WITH_IMM, 4, amr.mr, 1024, 512, braddr + 2048, bmr.mr->rkey, 77), 0);
    ASSERT_TRUE(wait_wc(b.rcq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    EXPECT_EQ(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
    EXPECT_EQ(ntohl(wc.imm_data), 77u);
    EXPECT_EQ(std::memcmp(bbuf.p + 2048, abuf.p + 1024, 512), 0);
    ASSERT_TRUE(wait_wc(a.scq, &wc));
    // A SEND finding no RECV is dropped: the requester completes successfully, nothing
    // arrives, and the next SEND takes the next RECV.
    ASSERT_EQ(a.post(IBV_WR_SEND, 5, amr.mr, 0, 64), 0);
    ASSERT_TRUE(wait_wc(a.scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
    std::memset(bbuf.p + 8192, 0, 1024);
    ASSERT_EQ(b.recv(11, bmr.mr, 8192, 1024), 0);
    std::this_thread::sleep_for(10ms);
    EXPECT_EQ(ibv_poll_cq(b.rcq, 1, &wc), 0) << "the dropped SEND consumed a RECV posted later";
    ASSERT_EQ(a.post(IBV_WR_SEND, 6, amr.mr, 64, 64), 0);
    ASSERT_TRUE(wait_wc(b.rcq, &wc));
    EXPECT_EQ(wc.wr_id, 11u);
    EXPECT_EQ(std::memcmp(bbuf.p + 8192, abuf.p + 64, 64), 0);
    ASSERT_TRUE(wait_wc(a.scq, &wc));
    // A WRITE with a forged rkey is dropped silently: no byte changes, the requester
    // completes successfully, the responder stays in RTS and keeps receiving.
    std::memset(bbuf.p, 0, 4096);
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, 7, amr.mr, 0, 256, braddr, bmr.mr->rkey ^ 0x5a5a00), 0);
    ASSERT_TRUE(wait_wc(a.scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
    EXPECT_EQ(std::count(bbuf.p, bbuf.p + 4096, 0), 4096);
    EXPECT_EQ(b.qp->state, IBV_QPS_RTS);
    EXPECT_EQ(a.qp->state, IBV_QPS_RTS);
    ASSERT_EQ(b.recv(12, bmr.mr, 8192, 1024), 0);
    ASSERT_EQ(a.post(IBV_WR_SEND_WITH_IMM, 8, amr.mr, 0, 16, 0, 0, 5), 0);
    ASSERT_TRUE(wait_wc(b.rcq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    EXPECT_EQ(wc.wr_id, 12u);
    EXPECT_EQ(ntohl(wc.imm_data), 5u);
}

// What would fail an RC requester stays at the UC responder: a RECV too small completes
// there with LOC_LEN_ERR and moves it to ERR, and later messages to it are dropped;
// the requester's WQEs all complete successfully.
TEST(Uc, ResponderErrorsStayHidden)
{
    Device dev;
    Buffer buf(1 << 16, true);
    Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
    Qp a(dev), b(dev);
    remake_qp(dev, a, IBV_QPT_UC, nullptr);
    remake_qp(dev, b, IBV_QPT_UC, nullptr);
    ASSERT_EQ(uc_connect(a, b.endpoint()), 0);
    ASSERT_EQ(uc_connect(b, a.endpoint()), 0);
    ASSERT_EQ(b.recv(1, mr.mr, 8192, 16), 0);
    ASSERT_EQ(a.post(IBV_WR_SEND, 10, mr.mr, 0, 64), 0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(b.rcq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_LOC_LEN_ERR) << ibv_wc_status_str(wc.status);
    ASSERT_TRUE(wait_wc(a.scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
    EXPECT_EQ(b.qp->state, IBV_QPS_ERR);
    ASSERT_EQ(
        a.post(IBV_WR_RDMA_WRITE_WITH_IMM, 11, mr.mr, 0, 64, reinterpret_cast<uintptr_t>(buf.p) + 4096, mr.mr->rkey, 3),
        0);
    ASSERT_TRUE(wait_wc(a.scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << "a UC requester learns nothing of the responder's ERR";
    EXPECT_EQ(a.qp->state, IBV_QPS_RTS);
    EXPECT_EQ(ibv_poll_cq(b.rcq, 1, &wc), 0);
}

// UC QPs take their RECVs from an SRQ like RC ones.
TEST(Uc, OnSrq)
{
    Device dev;
    Buffer buf(1 << 16, true);
    Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
    Srq s(dev.pd, 8);
    Qp a(dev), b(dev);
    remake_qp(dev, a, IBV_QPT_UC, nullptr);
    remake_qp(dev, b, IBV_QPT_UC, s.srq);
    ASSERT_EQ(uc_connect(a, b.endpoint()), 0);
    ASSERT_EQ(uc_connect(b, a.endpoint()), 0);
    std::memcpy(buf.p, "shared-receive", 15);
    ASSERT_EQ(srq_recv(s.srq, 9, mr.mr, 4096, 64), 0);
    ASSERT_EQ(a.post(IBV_WR_SEND, 1, mr.mr, 0, 15), 0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(b.rcq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    EXPECT_EQ(wc.wr_id, 9u);
    EXPECT_EQ(wc.byte_len, 15u);
    EXPECT_EQ(std::memcmp(buf.p + 4096, "shared-receive", 15), 0);
}

TEST(Inline, SourceReusableAtReturn)
{
    Loopback lb(4096);
    auto &[dev, buf, mr, a, b] = lb;
    uint8_t src[32];
    std::memset(src, 0x33, sizeof src);
    ibv_sge s{reinterpret_cast<uintptr_t>(src), sizeof src, 0}; // inline needs no lkey
    ibv_send_wr wr = rdma_wr(0, IBV_WR_RDMA_WRITE, &s, reinterpret_cast<uintptr_t>(buf.p), mr.mr->rkey,
                             IBV_SEND_INLINE | IBV_SEND_SIGNALED);
    ibv_send_wr *bad = nullptr;
    ASSERT_EQ(ibv_post_send(a.qp, &wr, &bad), 0);
    std::memset(src, 0x44, sizeof src);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(a.scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    for (int i = 0; i < 32; ++i)
        ASSERT_EQ(buf.p[i], 0x33);
    s.length = 65; // above max_inline_data (64)
    EXPECT_EQ(ibv_post_send(a.qp, &wr, &bad), EINVAL);
}

TEST(Channel, PollableFdWakesOnCompletion)
{
    Loopback lb(4096, {.channel = true});
    auto &[dev, buf, mr, a, b] = lb;
    ASSERT_EQ(ibv_req_notify_cq(b.rcq, 0), 0);
    pollfd pfd{b.ch->fd, POLLIN, 0};
    EXPECT_EQ(poll(&pfd, 1, 0), 0) << "fd readable before any completion";
    ASSERT_EQ(b.recv(1), 0);
    std::jthread t([&] {
        std::this_thread::sleep_for(20ms);
        a.post(IBV_WR_RDMA_WRITE_WITH_IMM, 1, nullptr, 0, 0, 0, 0, 5);
    });
    ASSERT_EQ(poll(&pfd, 1, 5000), 1) << "channel fd did not become readable";
    ibv_cq *cq = nullptr;
    void *cqctx = nullptr;
    ASSERT_EQ(ibv_get_cq_event(b.ch, &cq, &cqctx), 0);
    EXPECT_EQ(cq, b.rcq);
    ibv_ack_cq_events(cq, 1);
    ibv_wc wc{};
    ASSERT_EQ(ibv_poll_cq(b.rcq, 1, &wc), 1);
    EXPECT_EQ(ntohl(wc.imm_data), 5u);
    t.join();
    EXPECT_EQ(poll(&pfd, 1, 0), 0) << "fd still readable after the event was consumed";
}

// rdma-core's own tests: what the extended verbs accept matches what
// the device advertises; an unsupported request is refused at creation.
TEST(QpEx, ExtendedAttributesMatchTheAdvertisedCaps)
{
    Device dev;
    ibv_device_attr_ex ax{};
    ASSERT_EQ(ibv_query_device_ex(dev.ctx, nullptr, &ax), 0);
    EXPECT_EQ(ax.phys_port_cnt_ex, 1u);
    EXPECT_GE(ax.orig_attr.max_mr_size, uint64_t{4} << 30) << "registration pins nothing: any mapping fits";
    Buffer buf(4096, true);
    errno = 0;
    EXPECT_EQ(ibv_reg_mr(dev.pd, buf.p, ax.orig_attr.max_mr_size + 1, IBV_ACCESS_LOCAL_WRITE), nullptr);
    EXPECT_EQ(errno, EINVAL) << "a length beyond max_mr_size";

    ibv_cq_init_attr_ex cqa{};
    cqa.cqe = 4;
    cqa.comp_vector = static_cast<uint32_t>(dev.ctx->num_comp_vectors);
    errno = 0;
    EXPECT_EQ(ibv_create_cq_ex(dev.ctx, &cqa), nullptr);
    EXPECT_EQ(errno, EINVAL) << "comp_vector " << cqa.comp_vector << " of " << dev.ctx->num_comp_vectors;
    cqa.comp_vector = 0;
    ibv_cq_ex *cqx = ibv_create_cq_ex(dev.ctx, &cqa);
    ASSERT_NE(cqx, nullptr);

    ibv_qp_init_attr_ex qa{};
    qa.qp_type = IBV_QPT_RC;
    qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(cqx);
    qa.cap = {4, 4, 1, 1, 0};
    qa.pd = dev.pd;
    qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
    qa.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
    ibv_qp *qp = ibv_create_qp_ex(dev.ctx, &qa);
    EXPECT_NE(qp, nullptr) << "create_flags 0 requests nothing: errno " << errno;
    if (qp)
        ibv_destroy_qp(qp);
    qa.create_flags = IBV_QP_CREATE_SCATTER_FCS;
    errno = 0;
    EXPECT_EQ(ibv_create_qp_ex(dev.ctx, &qa), nullptr);
    EXPECT_EQ(errno, EOPNOTSUPP);
    qa.create_flags = 0;
    qa.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_ATOMIC_WRITE;
    errno = 0;
    EXPECT_EQ(ibv_create_qp_ex(dev.ctx, &qa), nullptr) << "atomic write is not carried out: refuse it now";
    EXPECT_EQ(errno, EOPNOTSUPP);
    ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
}

TEST(QpEx, WrInterfaceAndCqEx)
{
    Device dev;
    Buffer buf(8192, true);
    Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
    ibv_cq_init_attr_ex cqa{};
    cqa.cqe = 16;
    cqa.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM;
    ibv_cq_ex *cqx = ibv_create_cq_ex(dev.ctx, &cqa);
    ASSERT_NE(cqx, nullptr);
    Qp b(dev);
    ibv_qp_init_attr_ex qa{};
    qa.qp_type = IBV_QPT_RC;
    qa.send_cq = ibv_cq_ex_to_cq(cqx);
    qa.recv_cq = ibv_cq_ex_to_cq(cqx);
    qa.cap = {8, 8, 2, 2, 64};
    qa.pd = dev.pd;
    qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
    qa.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
    ibv_qp *qp = ibv_create_qp_ex(dev.ctx, &qa);
    ASSERT_NE(qp, nullptr);
    Qp shell(dev); // borrow the helpers for state changes
    std::swap(shell.qp, qp);
    shell.connect(b.endpoint());
    b.connect(shell.endpoint());
    ASSERT_EQ(b.recv(3), 0);
    for (int i = 0; i < 128; ++i)
        buf.p[i] = static_cast<uint8_t>(i);
    ibv_qp_ex *x = ibv_qp_to_qp_ex(shell.qp);
    ibv_wr_start(x);
    x->wr_id = 1;
    x->wr_flags = 0;
    ibv_wr_rdma_write(x, mr.mr->rkey, reinterpret_cast<uintptr_t>(buf.p) + 4096);
    ibv_wr_set_sge(x, mr.mr->lkey, reinterpret_cast<uintptr_t>(buf.p), 128);
    x->wr_id = 2;
    x->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write_imm(x, mr.mr->rkey, reinterpret_cast<uintptr_t>(buf.p) + 4096, htonl(99));
    ibv_wr_set_sge_list(x, 0, nullptr);
    ASSERT_EQ(ibv_wr_complete(x), 0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(b.rcq, &wc));
    EXPECT_EQ(ntohl(wc.imm_data), 99u);
    EXPECT_EQ(std::memcmp(buf.p, buf.p + 4096, 128), 0);
    ibv_poll_cq_attr pa{};
    int rc = ENOENT;
    for (int i = 0; i < 1000 && rc == ENOENT; ++i) {
        rc = ibv_start_poll(cqx, &pa);
        if (rc == ENOENT)
            std::this_thread::sleep_for(1ms);
    }
    ASSERT_EQ(rc, 0);
    EXPECT_EQ(cqx->wr_id, 2u);
    EXPECT_EQ(cqx->status, IBV_WC_SUCCESS);
    EXPECT_EQ(ibv_wc_read_opcode(cqx), IBV_WC_RDMA_WRITE);
    EXPECT_EQ(ibv_wc_read_qp_num(cqx), shell.qp->qp_num);
    EXPECT_EQ(ibv_next_poll(cqx), ENOENT);
    ibv_end_poll(cqx);
    ibv_destroy_qp(shell.qp);
    shell.qp = qp; // the helper's own QP is destroyed by its destructor
    ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
}

TEST(Provider, PrivateAbiStubsFailCleanly)
{
    Device dev;
    ibv_srq_init_attr_ex sa{};
    sa.attr.max_wr = 1;
    sa.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
    sa.srq_type = IBV_SRQT_TM; // tag-matching SRQs are not emulated
    sa.pd = dev.pd;
    errno = 0;
    EXPECT_EQ(ibv_create_srq_ex(dev.ctx, &sa), nullptr);
    EXPECT_EQ(errno, EOPNOTSUPP);
    EXPECT_EQ(ibv_query_qp_data_in_order(nullptr, IBV_WR_RDMA_WRITE, 0), 0);
    EXPECT_EQ(ibv_fork_init(), 0);
}

TEST(AsyncEvents, CqOverrunAndResponderAccessError)
{
    Device dev;
    Buffer buf(4096, true);
    Mr mr(dev.pd, buf.p, buf.n, IBV_ACCESS_LOCAL_WRITE); // no remote access at all
    ibv_cq *tiny = ibv_create_cq(dev.ctx, 2, nullptr, nullptr, 0);
    ASSERT_NE(tiny, nullptr);
    Qp b(dev);
    ibv_qp_init_attr qa{};
    qa.send_cq = tiny;
    qa.recv_cq = tiny;
    qa.qp_type = IBV_QPT_RC;
    qa.cap = {8, 8, 1, 1, 0};
    ibv_qp *a = ibv_create_qp(dev.pd, &qa);
    ASSERT_NE(a, nullptr);
    Qp shell(dev);
    std::swap(shell.qp, a);
    shell.connect(b.endpoint());
    b.connect(shell.endpoint());
    uint64_t raddr = reinterpret_cast<uintptr_t>(buf.p);
    // Three signaled completions into a CQ of two: the CQ overruns.
    for (int i = 0; i < 3; ++i)
        ASSERT_EQ(shell.post(IBV_WR_RDMA_WRITE, i, nullptr, 0, 0, raddr, 0), 0);
    pollfd pfd{dev.ctx->async_fd, POLLIN, 0};
    ASSERT_EQ(poll(&pfd, 1, 2000), 1) << "no CQ error event";
    ibv_async_event ev{};
    ASSERT_EQ(ibv_get_async_event(dev.ctx, &ev), 0);
    EXPECT_EQ(ev.event_type, IBV_EVENT_CQ_ERR);
    EXPECT_EQ(ev.element.cq, tiny);
    ibv_ack_async_event(&ev);
    // A WRITE to an MR without REMOTE_WRITE: the requester gets REM_ACCESS_ERR, the
    // responder QP goes to ERR and raises an access error.
    ASSERT_EQ(b.post(IBV_WR_RDMA_WRITE, 9, mr.mr, 0, 8, raddr, mr.mr->rkey), 0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(b.scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_REM_ACCESS_ERR);
    bool saw_access_err = false;
    for (int i = 0; i < 4 && !saw_access_err; ++i) {
        if (poll(&pfd, 1, 2000) != 1)
            break;
        ASSERT_EQ(ibv_get_async_event(dev.ctx, &ev), 0);
        saw_access_err = ev.event_type == IBV_EVENT_QP_ACCESS_ERR && ev.element.qp == shell.qp;
        ibv_ack_async_event(&ev);
    }
    EXPECT_TRUE(saw_access_err) << "no QP access error event on the responder";
    EXPECT_EQ(shell.qp->state, IBV_QPS_ERR);
    ibv_destroy_qp(shell.qp);
    shell.qp = a;
    ibv_destroy_cq(tiny);
}

// The *_str helpers answer rdma-core's text, "unknown" past each table.
TEST(Strings, MatchRdmaCore)
{
    EXPECT_STREQ(ibv_wc_status_str(IBV_WC_SUCCESS), "success");
    EXPECT_STREQ(ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR), "Work Request Flushed Error");
    EXPECT_STREQ(ibv_wc_status_str(IBV_WC_TM_RNDV_INCOMPLETE), "TM rendezvous error");
    EXPECT_STREQ(ibv_wc_status_str(static_cast<ibv_wc_status>(IBV_WC_TM_RNDV_INCOMPLETE + 1)), "unknown");
    EXPECT_STREQ(ibv_port_state_str(IBV_PORT_ACTIVE), "PORT_ACTIVE");
    EXPECT_STREQ(ibv_port_state_str(static_cast<ibv_port_state>(IBV_PORT_ACTIVE_DEFER + 1)), "unknown");
    EXPECT_STREQ(ibv_event_type_str(IBV_EVENT_CQ_ERR), "CQ error");
    EXPECT_STREQ(ibv_event_type_str(IBV_EVENT_WQ_FATAL), "WQ fatal");
    EXPECT_STREQ(ibv_event_type_str(static_cast<ibv_event_type>(IBV_EVENT_WQ_FATAL + 1)), "unknown");
    EXPECT_STREQ(ibv_node_type_str(IBV_NODE_RNIC), "iWARP NIC");
}

// ---- UD QPs and address handles ----

namespace {

// Two UD QPs in one process, sane (see SaneQps), an AH to our own GID.
struct Ud : ::testing::Test {
    Device dev;
    Buffer buf{1 << 16, true};
    Mr mr{dev.pd, buf.p, buf.n, kAllAccess};
    std::unique_ptr<UdQp> a, b;
    std::unique_ptr<Ah> ah;
    ibv_gid gid{};
    void SetUp() override
    {
        {
            SaneQps sane;
            a = std::make_unique<UdQp>(dev);
            b = std::make_unique<UdQp>(dev);
        }
        a->ready();
        b->ready();
        ASSERT_EQ(ibv_query_gid(dev.ctx, 1, 0, &gid), 0);
        ah = std::make_unique<Ah>(dev.pd, gid);
        for (size_t i = 0; i < 4096; ++i)
            buf.p[i] = static_cast<uint8_t>(i * 13 + 5);
    }
    void TearDown() override
    {
        ah.reset();
        a.reset();
        b.reset();
    }
    // Nothing arrives on b within a grace period (a dropped datagram).
    void expect_nothing()
    {
        ibv_wc wc{};
        EXPECT_FALSE(wait_wc(b->rcq, &wc, std::chrono::milliseconds(200))) << "wr_id " << wc.wr_id;
    }
};

TEST_F(Ud, DatagramArrivesAfterGrhWithSourceQpAndImm)
{
    constexpr uint32_t kLen = 1000, kIn = 32768;
    ASSERT_EQ(b->recv(7, mr.mr, kIn, kGrhBytes + kLen), 0);
    uint32_t imm = 0xa1b2c3d4;
    ASSERT_EQ(a->send(ah->ah, b->qp->qp_num, kQkey, mr.mr, 0, kLen, 3, &imm), 0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(a->scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    EXPECT_EQ(wc.opcode, IBV_WC_SEND);
    EXPECT_EQ(wc.wr_id, 3u);
    ASSERT_TRUE(wait_wc(b->rcq, &wc));
    ASSERT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
    EXPECT_EQ(wc.wr_id, 7u);
    EXPECT_EQ(wc.opcode, IBV_WC_RECV);
    EXPECT_EQ(wc.byte_len, kGrhBytes + kLen);
    EXPECT_EQ(wc.wc_flags & (IBV_WC_GRH | IBV_WC_WITH_IMM), unsigned{IBV_WC_GRH | IBV_WC_WITH_IMM});
    EXPECT_EQ(ntohl(wc.imm_data), imm);
    EXPECT_EQ(wc.qp_num, b->qp->qp_num);
    EXPECT_EQ(wc.src_qp, a->qp->qp_num);
    EXPECT_EQ(wc.pkey_index, 0);
    ibv_port_attr port{};
    ASSERT_EQ(ibv_query_port(dev.ctx, 1, &port), 0);
    EXPECT_EQ(wc.slid, port.lid); // the sender's LID
    ibv_grh grh;
    std::memcpy(&grh, buf.p + kIn, sizeof grh);
    uint32_t vtf = ntohl(grh.version_tclass_flow);
    EXPECT_EQ(vtf >> 28, 6u) << "GRH IP version";
    EXPECT_EQ(grh.hop_limit, 64);
    EXPECT_EQ(std::memcmp(&grh.sgid, &gid, 16), 0) << "source GID";
    EXPECT_EQ(std::memcmp(&grh.dgid, &gid, 16), 0) << "destination GID";
    EXPECT_EQ(std::memcmp(buf.p + kIn + kGrhBytes, buf.p, kLen), 0) << "payload after the GRH";

    // The reply address from the GRH reaches a again.
    ibv_ah *back = ibv_create_ah_from_wc(dev.pd, &wc, &grh, 1);
    ASSERT_NE(back, nullptr) << strerror(errno);
    ASSERT_EQ(a->recv(8, mr.mr, kIn, kGrhBytes + 16), 0);
    ASSERT_EQ(b->send(back, wc.src_qp, kQkey, mr.mr, 0, 16, 4), 0);
    ASSERT_TRUE(wait_wc(a->rcq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    EXPECT_EQ(wc.src_qp, b->qp->qp_num);
    EXPECT_EQ(wc.wc_flags & IBV_WC_WITH_IMM, 0u);
    EXPECT_EQ(ibv_destroy_ah(back), 0);
}

TEST_F(Ud, WrongQkeyIsDroppedAndHighBitMeansOwnQkey)
{
    ASSERT_EQ(b->recv(1, mr.mr, 32768, kGrhBytes + 64), 0);
    ASSERT_EQ(a->send(ah->ah, b->qp->qp_num, kQkey + 1, mr.mr, 0, 64), 0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(a->scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << "the sender completes when the datagram leaves";
    expect_nothing();
    EXPECT_EQ(ud_drops(b->qp), std::make_pair(uint64_t{1}, uint64_t{0}));
    // 0x80000000 set: the sending QP's own Q_Key (equal to b's) is used; the RECV is still there.
    ASSERT_EQ(a->send(ah->ah, b->qp->qp_num, 0x80000000u, mr.mr, 0, 64), 0);
    ASSERT_TRUE(wait_wc(b->rcq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    EXPECT_EQ(wc.wr_id, 1u);
    // A Q_Key changed by modify_qp (RTS -> RTS) applies to the next datagram.
    ibv_qp_attr at{};
    at.qp_state = IBV_QPS_RTS;
    at.qkey = 0x2222;
    ASSERT_EQ(ibv_modify_qp(b->qp, &at, IBV_QP_STATE | IBV_QP_QKEY), 0);
    ASSERT_EQ(b->recv(2, mr.mr, 32768, kGrhBytes + 64), 0);
    ASSERT_EQ(a->send(ah->ah, b->qp->qp_num, kQkey, mr.mr, 0, 64), 0);
    expect_nothing();
    EXPECT_EQ(ud_drops(b->qp).first, 2u);
    ASSERT_EQ(a->send(ah->ah, b->qp->qp_num, 0x2222, mr.mr, 0, 64), 0);
    ASSERT_TRUE(wait_wc(b->rcq, &wc));
    EXPECT_EQ(wc.wr_id, 2u);
    ibv_qp_init_attr init{};
    ASSERT_EQ(ibv_query_qp(b->qp, &at, IBV_QP_QKEY, &init), 0);
    EXPECT_EQ(at.qkey, 0x2222u);
    EXPECT_EQ(init.qp_type, IBV_QPT_UD);
}

TEST_F(Ud, DatagramWithoutRecvIsDropped)
{
    ASSERT_EQ(a->send(ah->ah, b->qp->qp_num, kQkey, mr.mr, 0, 64), 0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(a->scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    // Wait until b has seen (and dropped) it, then a later RECV must stay empty.
    auto end = std::chrono::steady_clock::now() + 2s;
    while (ud_drops(b->qp).second == 0 && std::chrono::steady_clock::now() < end)
        std::this_thread::sleep_for(1ms);
    EXPECT_EQ(ud_drops(b->qp), std::make_pair(uint64_t{0}, uint64_t{1}));
    ASSERT_EQ(b->recv(1, mr.mr, 32768, kGrhBytes + 64), 0);
    expect_nothing();
}

TEST_F(Ud, LongerThanMtuFailsWithLocalLengthError)
{
    ASSERT_EQ(b->recv(1, mr.mr, 32768, kGrhBytes + 8192), 0);
    ASSERT_EQ(a->send(ah->ah, b->qp->qp_num, kQkey, mr.mr, 0, 4097), 0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(a->scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_LOC_LEN_ERR) << ibv_wc_status_str(wc.status);
    EXPECT_EQ(a->qp->state, IBV_QPS_ERR);
    expect_nothing();
}

TEST_F(Ud, RecvTooSmallForGrhAndMessageFails)
{
    ASSERT_EQ(b->recv(1, mr.mr, 32768, 64), 0); // room for the GRH and 24 bytes only
    ASSERT_EQ(a->send(ah->ah, b->qp->qp_num, kQkey, mr.mr, 0, 64), 0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(b->rcq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_LOC_LEN_ERR) << ibv_wc_status_str(wc.status);
}

TEST_F(Ud, PostRefusesOtherOpcodesAndMissingAh)
{
    ibv_sge s{reinterpret_cast<uintptr_t>(buf.p), 8, mr.mr->lkey};
    for (ibv_wr_opcode op : {IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
                             IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_CMP_AND_SWP}) {
        ibv_send_wr wr = one_sge_wr(1, op, &s, IBV_SEND_SIGNALED);
        wr.wr.ud.ah = ah->ah;
        wr.wr.ud.remote_qpn = b->qp->qp_num;
        ibv_send_wr *bad = nullptr;
        EXPECT_EQ(ibv_post_send(a->qp, &wr, &bad), EINVAL) << "opcode " << op;
        EXPECT_EQ(bad, &wr);
    }
    ibv_send_wr wr = one_sge_wr(1, IBV_WR_SEND, &s, IBV_SEND_SIGNALED);
    ibv_send_wr *bad = nullptr;
    EXPECT_EQ(ibv_post_send(a->qp, &wr, &bad), EINVAL) << "no AH";
    // Inline: copied at post time, so the buffer may change at once.
    ASSERT_EQ(b->recv(1, mr.mr, 32768, kGrhBytes + 8), 0);
    std::memcpy(buf.p, "inline!!", 8);
    ASSERT_EQ(a->send(ah->ah, b->qp->qp_num, kQkey, mr.mr, 0, 8, 1, nullptr, IBV_SEND_SIGNALED | IBV_SEND_INLINE), 0);
    std::memcpy(buf.p, "changed!", 8);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(b->rcq, &wc));
    EXPECT_EQ(std::memcmp(buf.p + 32768 + kGrhBytes, "inline!!", 8), 0);
    EXPECT_EQ(a->send(ah->ah, b->qp->qp_num, kQkey, mr.mr, 0, 65, 1, nullptr, IBV_SEND_INLINE), EINVAL)
        << "inline beyond max_inline_data";
    // The qp_ex builder is RC's: on a UD QP it refuses instead of posting RC requests.
    ibv_qp_ex *x = ibv_qp_to_qp_ex(a->qp);
    ibv_wr_start(x);
    x->wr_id = 9;
    ibv_wr_send(x);
    ibv_wr_set_sge(x, mr.mr->lkey, reinterpret_cast<uintptr_t>(buf.p), 8);
    EXPECT_EQ(ibv_wr_complete(x), EOPNOTSUPP);
}

TEST(UdStateMachine, AttributeMasksFollowIbta)
{
    Device dev;
    UdQp q(dev);
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qkey = 5;
    EXPECT_EQ(ibv_modify_qp(q.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT), EINVAL) << "no Q_Key";
    EXPECT_EQ(
        ibv_modify_qp(q.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY | IBV_QP_ACCESS_FLAGS),
        EINVAL)
        << "access flags are RC's";
    ASSERT_EQ(ibv_modify_qp(q.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY), 0);
    a.qp_state = IBV_QPS_RTR;
    EXPECT_EQ(ibv_modify_qp(q.qp, &a, IBV_QP_STATE | IBV_QP_AV), EINVAL) << "UD has no path at RTR";
    ASSERT_EQ(ibv_modify_qp(q.qp, &a, IBV_QP_STATE), 0);
    a.qp_state = IBV_QPS_RTS;
    EXPECT_EQ(ibv_modify_qp(q.qp, &a, IBV_QP_STATE), EINVAL) << "no SQ PSN";
    a.sq_psn = 0x123;
    ASSERT_EQ(ibv_modify_qp(q.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN), 0);
    ibv_qp_init_attr init{};
    ASSERT_EQ(ibv_query_qp(q.qp, &a, IBV_QP_STATE | IBV_QP_QKEY | IBV_QP_SQ_PSN, &init), 0);
    EXPECT_EQ(a.qp_state, IBV_QPS_RTS);
    EXPECT_EQ(a.qkey, 5u);
    EXPECT_EQ(a.sq_psn, 0x123u);
    EXPECT_EQ(init.qp_type, IBV_QPT_UD);
    // The qp_ex builder is RC's: a UD qp_ex is refused, not half-supported.
    ibv_qp_init_attr_ex x{};
    x.qp_type = IBV_QPT_UD;
    x.send_cq = q.scq;
    x.recv_cq = q.rcq;
    x.pd = dev.pd;
    x.cap.max_send_wr = x.cap.max_recv_wr = x.cap.max_send_sge = x.cap.max_recv_sge = 1;
    x.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
    x.send_ops_flags = IBV_QP_EX_WITH_SEND;
    errno = 0;
    EXPECT_EQ(ibv_create_qp_ex(dev.ctx, &x), nullptr);
    EXPECT_EQ(errno, EOPNOTSUPP);
}

TEST(AddressHandle, CreateValidatesPortGidIndexAndGrh)
{
    Device dev;
    ibv_gid gid{};
    ASSERT_EQ(ibv_query_gid(dev.ctx, 1, 0, &gid), 0);
    ibv_ah_attr a{};
    a.is_global = 1;
    a.grh.dgid = gid;
    a.port_num = 2;
    errno = 0;
    EXPECT_EQ(ibv_create_ah(dev.pd, &a), nullptr) << "port 2";
    EXPECT_EQ(errno, EINVAL);
    a.port_num = 1;
    a.grh.sgid_index = 1;
    EXPECT_EQ(ibv_create_ah(dev.pd, &a), nullptr) << "GID index 1";
    a.grh.sgid_index = 0;
    a.is_global = 0;
    EXPECT_EQ(ibv_create_ah(dev.pd, &a), nullptr) << "RoCE without GRH and LID";
    EXPECT_EQ(ibv_create_ah(nullptr, &a), nullptr) << "no PD";
    a.is_global = 1;
    ibv_ah *ah = ibv_create_ah(dev.pd, &a);
    ASSERT_NE(ah, nullptr) << strerror(errno);
    EXPECT_EQ(ah->pd, dev.pd);
    EXPECT_EQ(ibv_destroy_ah(ah), 0);
    // A reply address needs the GRH on RoCE, and a GRH addressed to this port.
    ibv_wc wc{};
    ibv_grh grh{};
    ibv_ah_attr out{};
    EXPECT_NE(ibv_init_ah_from_wc(dev.ctx, 1, &wc, &grh, &out), 0) << "no IBV_WC_GRH";
    wc.wc_flags = IBV_WC_GRH;
    grh.sgid = gid;
    EXPECT_NE(ibv_init_ah_from_wc(dev.ctx, 1, &wc, &grh, &out), 0) << "dgid not ours";
    grh.dgid = gid;
    grh.version_tclass_flow = htonl(6u << 28 | 0x12u << 20 | 0x345);
    ASSERT_EQ(ibv_init_ah_from_wc(dev.ctx, 1, &wc, &grh, &out), 0);
    EXPECT_EQ(out.is_global, 1);
    EXPECT_EQ(std::memcmp(&out.grh.dgid, &gid, 16), 0);
    EXPECT_EQ(out.grh.flow_label, 0x345u);
    EXPECT_EQ(out.grh.traffic_class, 0x12);
}

// A UD QP on an SRQ: datagrams consume the SRQ's RECVs in posting order; with none
// left the datagram is dropped (counted), never delivered or failed.
TEST(UdSrq, DatagramsConsumeTheSrqsRecvs)
{
    SaneQps sane;
    Device dev;
    Buffer buf{1 << 16, true};
    Mr mr{dev.pd, buf.p, buf.n, kAllAccess};
    ibv_gid gid{};
    ASSERT_EQ(ibv_query_gid(dev.ctx, 1, 0, &gid), 0);
    Ah ah(dev.pd, gid);
    Srq srq(dev.pd, 8);
    UdQp a(dev), b(dev, 64, 64, srq.srq);
    a.ready();
    b.ready();
    EXPECT_EQ(b.recv(9, mr.mr, 0, kGrhBytes + 8), EINVAL) << "a QP on an SRQ has no RECVs of its own";
    constexpr uint32_t kRecvLen = kGrhBytes + 8;
    for (uint32_t i = 0; i < 2; ++i)
        ASSERT_EQ(srq_recv(srq.srq, 100 + i, mr.mr, 4096 + i * kRecvLen, kRecvLen), 0);
    for (uint32_t i = 0; i < 3; ++i) {
        std::memset(buf.p + i * 8, 'a' + static_cast<int>(i), 8);
        ASSERT_EQ(a.send(ah.ah, b.qp->qp_num, kQkey, mr.mr, i * 8, 8, i), 0);
    }
    for (uint32_t i = 0; i < 2; ++i) {
        ibv_wc wc{};
        ASSERT_TRUE(wait_wc(b.rcq, &wc, std::chrono::seconds(5))) << "datagram " << i << " not received";
        EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
        EXPECT_EQ(wc.wr_id, 100u + i) << "the SRQ's RECVs are taken in posting order";
        EXPECT_EQ(wc.qp_num, b.qp->qp_num);
        EXPECT_EQ(wc.byte_len, kRecvLen);
        EXPECT_EQ(
            std::memcmp(buf.p + 4096 + i * kRecvLen + kGrhBytes, std::string(8, static_cast<char>('a' + i)).data(), 8),
            0);
    }
    ibv_wc wc{};
    EXPECT_FALSE(wait_wc(b.rcq, &wc, std::chrono::milliseconds(200))) << "a third datagram had no RECV";
    EXPECT_EQ(ud_drops(b.qp).second, 1u) << "the datagram without a RECV is dropped and counted";
}

// The adversary (SOFTVERBS_SEED) drops and reorders datagrams, the same ones for a seed.
TEST(UdAdversary, DropsAndReordersDatagramsReproducibly)
{
    Device dev;
    Buffer buf{1 << 20, true};
    Mr mr{dev.pd, buf.p, buf.n, kAllAccess};
    ibv_gid gid{};
    ASSERT_EQ(ibv_query_gid(dev.ctx, 1, 0, &gid), 0);
    Ah ah(dev.pd, gid);
    constexpr uint32_t kCount = 200;
    // Sends kCount datagrams carrying their index as imm; the indexes b got, in arrival order.
    auto run = [&](uint64_t seed) {
        reseed(seed);
        UdQp a(dev, 256), b(dev, 256);
        reseed(env_seed());
        a.ready();
        b.ready();
        for (uint32_t i = 0; i < kCount; ++i)
            if (b.recv(i, mr.mr, (kGrhBytes + 8) * i, kGrhBytes + 8))
                fail("post_recv");
        for (uint32_t i = 0; i < kCount; ++i)
            if (a.send(ah.ah, b.qp->qp_num, kQkey, mr.mr, 1 << 19, 8, i, &i, 0))
                fail("post_send");
        std::vector<uint32_t> got;
        ibv_wc wc{};
        while (got.size() < kCount && wait_wc(b.rcq, &wc, std::chrono::milliseconds(300))) {
            EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
            got.push_back(ntohl(wc.imm_data));
        }
        return got;
    };
    std::vector<uint32_t> sane = run(0);
    ASSERT_EQ(sane.size(), kCount);
    EXPECT_TRUE(std::is_sorted(sane.begin(), sane.end()));
    std::vector<uint32_t> first = run(31337), second = run(31337);
    EXPECT_LT(first.size(), kCount) << "nothing dropped";
    EXPECT_GT(first.size(), kCount / 2);
    EXPECT_FALSE(std::is_sorted(first.begin(), first.end())) << "nothing reordered";
    std::sort(first.begin(), first.end());
    std::sort(second.begin(), second.end());
    EXPECT_EQ(first, second) << "the same seed must drop the same datagrams";
    EXPECT_EQ(std::adjacent_find(first.begin(), first.end()), first.end()) << "a datagram arrived twice";
}

} // namespace
