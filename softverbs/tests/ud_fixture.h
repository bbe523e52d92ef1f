// Helpers for softverbs' UD tests: a UD QP with its CQs, an address handle to a
// GID, and the private counters and seed hooks found with dlsym.
#pragma once

#include <dlfcn.h>

#include <cstdlib>

#include "verbs_fixture.h"

namespace svt {

inline constexpr uint32_t kGrhBytes = 40;
inline constexpr uint32_t kQkey = 0x11111111;

template <typename Fn>
Fn private_symbol(const char *name)
{
    auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name));
    if (!fn)
        fail(std::string(name) + " not found: is the test running on softverbs?");
    return fn;
}

// Datagrams qp dropped for a wrong Q_Key and for want of a RECV.
inline std::pair<uint64_t, uint64_t> ud_drops(ibv_qp *qp)
{
    using Fn = int (*)(ibv_qp *, uint64_t *, uint64_t *);
    static Fn fn = private_symbol<Fn>("softverbs_ud_drops");
    uint64_t q = 0, r = 0;
    if (fn(qp, &q, &r) != 0)
        fail("softverbs_ud_drops refused the QP");
    return {q, r};
}

inline void reseed(uint64_t seed)
{
    using Fn = void (*)(uint64_t);
    static Fn fn = private_symbol<Fn>("softverbs_reseed");
    fn(seed);
}

// The seed this process was started with (numeric SOFTVERBS_SEED only, as ctest sets it).
inline uint64_t env_seed()
{
    const char *s = std::getenv("SOFTVERBS_SEED");
    return s && *s ? std::strtoull(s, nullptr, 0) : 0;
}

// QPs created while this lives are sane (no adversary): cases that check exact delivery
// of single datagrams use it under the adversarial ctests; the seed is restored after.
struct SaneQps {
    SaneQps() { reseed(0); }
    ~SaneQps() { reseed(env_seed()); }
};

struct UdQp {
    Device &dev;
    ibv_cq *scq = nullptr, *rcq = nullptr;
    ibv_qp *qp = nullptr;
    // With `srq`, the QP takes its RECVs from that shared receive queue.
    explicit UdQp(Device &d, int depth = 64, uint32_t max_inline = 64, ibv_srq *srq = nullptr) : dev(d)
    {
        scq = ibv_create_cq(d.ctx, depth * 2, nullptr, nullptr, 0);
        rcq = ibv_create_cq(d.ctx, depth * 2, nullptr, nullptr, 0);
        ibv_qp_init_attr a{};
        a.send_cq = scq;
        a.recv_cq = rcq;
        a.qp_type = IBV_QPT_UD;
        a.srq = srq;
        a.cap.max_send_wr = static_cast<uint32_t>(depth);
        a.cap.max_recv_wr = static_cast<uint32_t>(depth);
        a.cap.max_send_sge = 2;
        a.cap.max_recv_sge = 2;
        a.cap.max_inline_data = max_inline;
        qp = ibv_create_qp(d.pd, &a);
        if (!qp)
            fail("ibv_create_qp(UD): " + std::string(strerror(errno)));
    }
    ~UdQp()
    {
        ibv_destroy_qp(qp);
        ibv_destroy_cq(scq);
        ibv_destroy_cq(rcq);
    }
    UdQp(const UdQp &) = delete;
    UdQp &operator=(const UdQp &) = delete;
    // What a peer needs to address this QP: the port's GID and the QPN.
    std::pair<ibv_gid, uint32_t> endpoint_gid_qpn() const
    {
        ibv_gid g{};
        if (ibv_query_gid(dev.ctx, 1, 0, &g))
            fail("ibv_query_gid");
        return {g, qp->qp_num};
    }
    // RESET -> INIT -> RTR -> RTS with the masks IBTA gives UD.
    void ready(uint32_t qkey = kQkey)
    {
        ibv_qp_attr a{};
        a.qp_state = IBV_QPS_INIT;
        a.port_num = 1;
        a.qkey = qkey;
        if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
            fail("UD to INIT");
        a.qp_state = IBV_QPS_RTR;
        if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
            fail("UD to RTR");
        a.qp_state = IBV_QPS_RTS;
        a.sq_psn = 0;
        if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
            fail("UD to RTS");
    }
    int send(ibv_ah *ah, uint32_t remote_qpn, uint32_t qkey, const ibv_mr *mr, uint64_t off, uint32_t len,
             uint64_t wr_id = 1, const uint32_t *imm = nullptr, unsigned flags = IBV_SEND_SIGNALED)
    {
        ibv_sge s{reinterpret_cast<uintptr_t>(mr->addr) + off, len, mr->lkey};
        ibv_send_wr wr = one_sge_wr(wr_id, imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND, &s, flags);
        if (imm)
            wr.imm_data = htonl(*imm);
        wr.wr.ud.ah = ah;
        wr.wr.ud.remote_qpn = remote_qpn;
        wr.wr.ud.remote_qkey = qkey;
        ibv_send_wr *bad = nullptr;
        return ibv_post_send(qp, &wr, &bad);
    }
    int recv(uint64_t wr_id, const ibv_mr *mr, uint64_t off, uint32_t len)
    {
        ibv_sge s{reinterpret_cast<uintptr_t>(mr->addr) + off, len, mr->lkey};
        ibv_recv_wr wr = one_sge_recv_wr(wr_id, &s);
        ibv_recv_wr *bad = nullptr;
        return ibv_post_recv(qp, &wr, &bad);
    }
};

// An address handle for a GID (port 1, GID index 0, hop limit 64).
struct Ah {
    ibv_ah *ah = nullptr;
    Ah(ibv_pd *pd, const ibv_gid &gid)
    {
        ibv_ah_attr a{};
        a.is_global = 1;
        a.grh.dgid = gid;
        a.grh.hop_limit = 64;
        a.port_num = 1;
        ah = ibv_create_ah(pd, &a);
        if (!ah)
            fail("ibv_create_ah: " + std::string(strerror(errno)));
    }
    ~Ah() { ibv_destroy_ah(ah); }
    Ah(const Ah &) = delete;
    Ah &operator=(const Ah &) = delete;
};

} // namespace svt
