// In-process behaviour of softverbs: device queries, MRs, the QP state machine,
// every opcode's data, completion statuses, capacities and completion channels.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <arpa/inet.h>
#include <numeric>
#include <vector>

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

// Issue 15 (rdma-core's own tests): what the extended verbs accept matches what
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
    ibv_srq_init_attr sa{};
    EXPECT_EQ(ibv_create_srq(dev.pd, &sa), nullptr);
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
