// Helpers for the SRQ and UC cases of softverbs' tests: QPs of another type or on
// an SRQ (in a fixture Qp shell), UC's connection sequence, SRQ posting, async events.
#pragma once

#include <poll.h>

#include <string>

#include "verbs_fixture.h"

namespace svt {

// Replaces shell's RC QP by one of `type`, optionally taking its RECVs from srq, on the
// shell's CQs (the shell destroys it).
inline void remake_qp(Device &dev, Qp &shell, ibv_qp_type type, ibv_srq *srq)
{
    ibv_qp_init_attr a{};
    a.send_cq = shell.scq;
    a.recv_cq = shell.rcq;
    a.qp_type = type;
    a.srq = srq;
    a.cap = {64, srq ? 0u : 64u, 4, srq ? 0u : 4u, 64};
    ibv_qp *qp = ibv_create_qp(dev.pd, &a);
    if (!qp)
        fail("ibv_create_qp type " + std::to_string(type) + ": " + strerror(errno));
    ibv_destroy_qp(shell.qp);
    shell.qp = qp;
}

// UC's transitions carry no read/atomic depths, timeout, retry or RNR fields.
inline int uc_connect(Qp &q, const Endpoint &peer, int access = kAllAccess)
{
    if (int rc = q.to_init(access))
        return rc;
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_4096;
    a.dest_qp_num = peer.qpn;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = peer.gid;
    a.ah_attr.grh.hop_limit = 1;
    a.ah_attr.port_num = 1;
    if (int rc = ibv_modify_qp(q.qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN))
        return rc;
    a = {};
    a.qp_state = IBV_QPS_RTS;
    return ibv_modify_qp(q.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

inline int srq_recv(ibv_srq *srq, uint64_t wr_id, const ibv_mr *mr, uint64_t off, uint32_t len)
{
    ibv_sge s{reinterpret_cast<uintptr_t>(mr->addr) + off, len, mr->lkey};
    ibv_recv_wr wr = one_sge_recv_wr(wr_id, &s);
    ibv_recv_wr *bad = nullptr;
    return ibv_post_srq_recv(srq, &wr, &bad);
}

// Waits (bounded) for an async event of `type`; other events are skipped.
inline bool wait_async(ibv_context *ctx, ibv_event_type type, ibv_async_event *out, int ms = 2000)
{
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < end) {
        pollfd pfd{ctx->async_fd, POLLIN, 0};
        if (poll(&pfd, 1, 50) != 1)
            continue;
        ibv_async_event ev{};
        if (ibv_get_async_event(ctx, &ev))
            return false;
        ibv_ack_async_event(&ev);
        if (ev.event_type == type) {
            *out = ev;
            return true;
        }
    }
    return false;
}

struct Srq {
    ibv_srq *srq = nullptr;
    Srq(ibv_pd *pd, uint32_t max_wr, uint32_t max_sge = 2)
    {
        ibv_srq_init_attr a{};
        a.attr.max_wr = max_wr;
        a.attr.max_sge = max_sge;
        srq = ibv_create_srq(pd, &a);
        if (!srq)
            fail("ibv_create_srq: " + std::string(strerror(errno)));
    }
    ~Srq() { ibv_destroy_srq(srq); }
};

} // namespace svt
