// RC and UC queue pairs: creation with capacity checks, the state machine with
// attribute-mask validation, query and destruction.
#include "sv.h"
#include "ud.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace sv {

void fill_qp_ex_ops(Qp *qp);

Qp *to_qp(ibv_qp *qp) { return reinterpret_cast<Qp *>(qp); }

Qp *find_qp_locked(uint32_t qpn)
{
    auto it = G().qps.find(qpn);
    return it == G().qps.end() ? nullptr : it->second;
}

namespace {

struct Transition {
    ibv_qp_state from, to;
    int required, optional;
};

constexpr int kInitOpt = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
constexpr Transition kRcTable[] = {
    {IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0},
    {IBV_QPS_INIT, IBV_QPS_INIT, IBV_QP_STATE, kInitOpt},
    {IBV_QPS_INIT, IBV_QPS_RTR,
     IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
         IBV_QP_MIN_RNR_TIMER,
     IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX},
    {IBV_QPS_RTR, IBV_QPS_RTS,
     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
     IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE},
    {IBV_QPS_RTS, IBV_QPS_RTS, IBV_QP_STATE,
     IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE},
};
// UC (the IBTA modify-QP tables): as RC without what only acknowledgements need: no
// read/atomic depths, no timeout, retry or RNR fields.
constexpr Transition kUcTable[] = {
    {IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0},
    {IBV_QPS_INIT, IBV_QPS_INIT, IBV_QP_STATE, kInitOpt},
    {IBV_QPS_INIT, IBV_QPS_RTR, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
     IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX},
    {IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_STATE | IBV_QP_SQ_PSN,
     IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE},
    {IBV_QPS_RTS, IBV_QPS_RTS, IBV_QP_STATE,
     IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE},
};

int check_transition(ibv_qp_type type, ibv_qp_state from, ibv_qp_state to, int mask)
{
    if (to == IBV_QPS_RESET || to == IBV_QPS_ERR)
        return (mask & ~(IBV_QP_STATE | IBV_QP_CUR_STATE)) ? EINVAL : 0;
    const std::span<const Transition> table = type == IBV_QPT_UC ? std::span(kUcTable) : std::span(kRcTable);
    for (const Transition &t : table)
        if (t.from == from && t.to == to) {
            if ((mask & t.required) != t.required) {
                log(1, "modify_qp %d->%d: mask 0x%x lacks required 0x%x", from, to, mask, t.required & ~mask);
                return EINVAL;
            }
            if (mask & ~(t.required | t.optional)) {
                log(1, "modify_qp %d->%d: mask 0x%x has bits 0x%x not allowed", from, to, mask,
                    mask & ~(t.required | t.optional));
                return EINVAL;
            }
            return 0;
        }
    log(1, "modify_qp: transition %d->%d is not allowed", from, to);
    return EINVAL;
}

void flush_locked(Qp *qp)
{
    // Every outstanding send WQE completes with a flush error, then every RECV.
    for (Wqe &w : qp->sq)
        if (!w.done) {
            w.done = true;
            w.status = IBV_WC_WR_FLUSH_ERR;
        }
    // qp->pend is left alone: the adversary may be iterating it; its entries find their WQEs done.
    retry_give_up_locked(qp);
    sq_advance_locked(qp);
    flush_recvs_locked(qp);
}

void set_state_locked(Qp *qp, ibv_qp_state s)
{
    qp->qpx.qp_base.state = s;
    qp->attr.qp_state = s;
    qp->attr.cur_qp_state = s;
}

} // namespace

void qp_publish_locked(Qp *qp)
{
    if (!qp->slot)
        return;
    QpEntry &q = local_mr_table()->q[qp->slot];
    ibv_qp_state st = qp->qpx.qp_base.state;
    bool connected = st == IBV_QPS_RTR || st == IBV_QPS_RTS;
    q.pd.store(pd_handle(qp->qpx.qp_base.pd), std::memory_order_relaxed);
    q.access.store(st == IBV_QPS_RESET || st == IBV_QPS_ERR ? 0u : qp->attr.qp_access_flags, std::memory_order_relaxed);
    q.peer_qpn.store(connected ? qp->attr.dest_qp_num : 0u, std::memory_order_relaxed);
    q.peer_portsalt.store(connected ? uint32_t{qp->dest_port} << 16 | qp->dest_salt : 0u, std::memory_order_relaxed);
    q.recvs.store(qp_recv_credits_locked(qp), std::memory_order_relaxed);
    q.qpn.store(qp->qpx.qp_base.qp_num, std::memory_order_release);
}

uint32_t qp_recv_credits_locked(const Qp *qp)
{
    ibv_qp_state st = qp->qpx.qp_base.state;
    // An SRQ's RECVs are shared with other QPs, and the adversary delays a RECV's visibility:
    // neither can promise one to a requester.
    if (qp->srq || qp->adv || (st != IBV_QPS_RTR && st != IBV_QPS_RTS))
        return 0;
    return static_cast<uint32_t>(std::min<size_t>(qp->rq.size(), UINT32_MAX));
}

void qp_publish_recvs_locked(Qp *qp)
{
    if (qp->slot)
        local_mr_table()->q[qp->slot].recvs.store(qp_recv_credits_locked(qp), std::memory_order_release);
}

bool responder_peer_ok_locked(const Qp *qp, const Responder *r)
{
    ibv_qp_state st = qp->qpx.qp_base.state;
    if (st != IBV_QPS_RTR && st != IBV_QPS_RTS)
        return false;
    return qp->attr.dest_qp_num == r->src_qpn && qp->dest_ip == r->src_ip && qp->dest_port == r->src_port &&
           (qp->dest_salt == 0 || qp->dest_salt == r->src_salt);
}

void flush_recvs_locked(Qp *qp)
{
    while (!qp->rq.empty()) {
        Cqe e;
        e.qp = qp;
        e.wc.wr_id = qp->rq.front().wr_id;
        e.wc.status = IBV_WC_WR_FLUSH_ERR;
        e.wc.opcode = IBV_WC_RECV;
        e.wc.qp_num = qp->qpx.qp_base.qp_num;
        qp->rq.pop_front();
        cq_push_locked(qp->rcq, e);
    }
    qp_publish_recvs_locked(qp);
}

void qp_to_error_locked(Qp *qp, ibv_event_type ev)
{
    if (qp->qpx.qp_base.state == IBV_QPS_ERR)
        return;
    set_state_locked(qp, IBV_QPS_ERR);
    qp_publish_locked(qp);
    flush_locked(qp);
    ibv_async_event e{};
    e.element.qp = &qp->qpx.qp_base;
    e.event_type = ev;
    post_async_locked(qp->ctx, e);
    srq_qp_error_locked(qp);
}

ibv_qp *create_qp_ex(ibv_context *ctx, ibv_qp_init_attr_ex *a)
{
    return guard_null("create_qp_ex", [&]() -> ibv_qp * {
        if (!ctx || !a || !a->pd || !a->send_cq || !a->recv_cq) {
            errno = EINVAL;
            return nullptr;
        }
        if (dead_thread() != nullptr) { // run_thread said why, once
            errno = EIO;
            return nullptr;
        }
        if (a->qp_type != IBV_QPT_RC && a->qp_type != IBV_QPT_UC && a->qp_type != IBV_QPT_UD) {
            errno = EOPNOTSUPP;
            return nullptr;
        }
        // UD (ud.cpp): ibv_post_send only; the qp_ex builder is for RC and UC.
        if (a->qp_type == IBV_QPT_UD && (a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
            errno = EOPNOTSUPP;
            return nullptr;
        }
        if (a->srq && a->srq->context != ctx) {
            errno = EINVAL;
            return nullptr;
        }
        constexpr uint32_t kMask =
            IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS | IBV_QP_INIT_ATTR_CREATE_FLAGS;
        // The qp_ex operations softverbs carries out (qp_ex.cpp); the others are refused here,
        // not accepted and then failed at wr_complete.
        constexpr uint64_t kUcSendOps = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
                                        IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
        constexpr uint64_t kRcSendOps = kUcSendOps | IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
                                        IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
        const uint64_t kSendOps = a->qp_type == IBV_QPT_UC ? kUcSendOps : kRcSendOps;
        if ((a->comp_mask & ~kMask) || ((a->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && a->create_flags) ||
            ((a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) && (a->send_ops_flags & ~kSendOps))) {
            errno = EOPNOTSUPP;
            return nullptr;
        }
        ibv_qp_cap &c = a->cap;
        if (a->srq) { // the receive queue is the SRQ's: the QP's own RQ sizes are ignored
            c.max_recv_wr = 0;
            c.max_recv_sge = 0;
        }
        if (c.max_send_wr > kMaxQpWr || c.max_recv_wr > kMaxQpWr || c.max_send_sge > kMaxSge ||
            c.max_recv_sge > kMaxSge || c.max_inline_data > kMaxInline) {
            log(1, "create_qp: caps wr %u/%u sge %u/%u inline %u exceed %d/%d/%u", c.max_send_wr, c.max_recv_wr,
                c.max_send_sge, c.max_recv_sge, c.max_inline_data, kMaxQpWr, kMaxSge, kMaxInline);
            errno = EINVAL;
            return nullptr;
        }
        auto qp = std::make_unique<Qp>();
        qp->ctx = to_ctx(ctx);
        qp->scq = to_cq(a->send_cq);
        qp->rcq = to_cq(a->recv_cq);
        // Report what we grant: at least one of each, inline up to our limit.
        c.max_send_wr = std::max(c.max_send_wr, 1u);
        c.max_send_sge = std::max(c.max_send_sge, 1u);
        if (!a->srq) {
            c.max_recv_wr = std::max(c.max_recv_wr, 1u);
            c.max_recv_sge = std::max(c.max_recv_sge, 1u);
        }
        qp->cap = c;
        qp->sq_sig_all = a->sq_sig_all;
        ibv_qp &b = qp->qpx.qp_base;
        b.context = ctx;
        b.qp_context = a->qp_context;
        b.pd = a->pd;
        b.send_cq = a->send_cq;
        b.recv_cq = a->recv_cq;
        b.srq = a->srq;
        b.qp_type = a->qp_type;
        pthread_mutex_init(&b.mutex, nullptr);
        pthread_cond_init(&b.cond, nullptr);
        fill_qp_ex_ops(qp.get());
        std::lock_guard lk(G().mu);
        if (a->qp_type == IBV_QPT_UD && !ud_start()) {
            const int err = errno; // EADDRINUSE: no datagram socket on the listener's port; EAGAIN: no thread
            log(1, "create_qp: UD unavailable: %s", std::strerror(err));
            errno = err;
            return nullptr;
        }
        Global &g = G();
        do {
            g.next_qpn = (g.next_qpn + 1) & 0xffffff;
        } while (g.next_qpn < 2 || g.qps.count(g.next_qpn));
        b.qp_num = g.next_qpn;
        b.handle = g.next_qpn;
        set_state_locked(qp.get(), IBV_QPS_RESET);
        qp->attr.cap = c;
        qp->rng.seed(current_seed() ^ (0x9e3779b97f4a7c15ULL * b.qp_num));
        qp->adv = current_seed() != 0;
        qp->ud_seed = current_seed();
        qp->skew = 0.25 + std::uniform_real_distribution<double>(0, 3.75)(qp->rng);
        qp->secret = config().secret;
        if (!g.qp_slot_free.empty()) {
            qp->slot = g.qp_slot_free.back();
            g.qp_slot_free.pop_back();
        } else if (g.qp_slot_next < kMaxQpSlots) {
            // Room for every slot to come back, made here where failing is allowed:
            // ibv_destroy_qp returns its slot and must not fail for want of memory.
            g.qp_slot_free.reserve(kMaxQpSlots);
            qp->slot = g.qp_slot_next++;
        }
        qp_publish_locked(qp.get());
        if (a->srq) {
            qp->srq = to_srq(a->srq);
            qp->srq->qps.push_back(qp.get());
        }
        g.qps[b.qp_num] = qp.get();
        return &qp.release()->qpx.qp_base;
    });
}

} // namespace sv

using namespace sv;

extern "C" {

ibv_qp *ibv_create_qp(ibv_pd *pd, ibv_qp_init_attr *a)
{
    return guard_null("ibv_create_qp", [&]() -> ibv_qp * {
        if (!pd || !a) {
            errno = EINVAL;
            return nullptr;
        }
        // ibv_qp_init_attr_ex begins with the members of ibv_qp_init_attr, laid out
        // alike; rdma-core's providers widen it by copying them, as here (the copied
        // tail padding lands in comp_mask, which is set next).
        static_assert(offsetof(ibv_qp_init_attr_ex, sq_sig_all) == offsetof(ibv_qp_init_attr, sq_sig_all) &&
                      sizeof(ibv_qp_init_attr) <= offsetof(ibv_qp_init_attr_ex, pd));
        ibv_qp_init_attr_ex x{};
        std::memcpy(&x, a, sizeof *a);
        x.comp_mask = IBV_QP_INIT_ATTR_PD;
        x.pd = pd;
        ibv_qp *qp = create_qp_ex(pd->context, &x);
        if (qp)
            a->cap = x.cap;
        return qp;
    });
}

int ibv_modify_qp(ibv_qp *ibqp, ibv_qp_attr *attr, int mask)
{
    return guard_rc("ibv_modify_qp", [&]() -> int {
        if (ibqp && fork_inherited(ibqp->context))
            return EPERM;
        if (!ibqp || !attr)
            return EINVAL;
        Qp *qp = to_qp(ibqp);
        if (ibqp->qp_type == IBV_QPT_UD) {
            std::lock_guard lk(G().mu);
            return ud_modify_qp_locked(qp, attr, mask);
        }
        bool connect = false;
        {
            std::lock_guard lk(G().mu);
            ibv_qp_state cur = ibqp->state;
            if ((mask & IBV_QP_CUR_STATE) && attr->cur_qp_state != cur)
                return EINVAL;
            ibv_qp_state to = (mask & IBV_QP_STATE) ? attr->qp_state : cur;
            if (!(mask & IBV_QP_STATE))
                return EINVAL;
            if (int rc = check_transition(ibqp->qp_type, cur, to, mask))
                return rc;
            if ((mask & IBV_QP_PORT) && attr->port_num != 1)
                return EINVAL;
            if ((mask & IBV_QP_PKEY_INDEX) && attr->pkey_index != 0)
                return EINVAL;
            if ((mask & IBV_QP_RNR_RETRY) && attr->rnr_retry > 7)
                return EINVAL;
            if ((mask & IBV_QP_RETRY_CNT) && attr->retry_cnt > 7)
                return EINVAL;
            if ((mask & IBV_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
                return EINVAL;
            if ((mask & IBV_QP_PATH_MTU) && (attr->path_mtu < IBV_MTU_256 || attr->path_mtu > IBV_MTU_4096))
                return EINVAL;
            if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > 16)
                return EINVAL;
            if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) && attr->max_dest_rd_atomic > 16)
                return EINVAL;
            if (to == IBV_QPS_RTR) {
                uint32_t ip = 0;
                uint16_t port = 0, salt = 0;
                if (attr->ah_attr.is_global) {
                    if (!decode_gid(attr->ah_attr.grh.dgid, &ip, &port, &salt)) {
                        log(1, "modify_qp RTR: dgid is not a softverbs GID");
                        return EINVAL;
                    }
                } else {
                    // No GRH: the LID carries the peer's listener port on our own address.
                    if (attr->ah_attr.dlid == 0)
                        return EINVAL;
                    ip = listen_ip();
                    port = attr->ah_attr.dlid;
                }
                qp->dest_ip = ip;
                qp->dest_port = port;
                qp->dest_salt = salt;
            }
            ibv_qp_attr &s = qp->attr;
            if (mask & IBV_QP_ACCESS_FLAGS)
                s.qp_access_flags = attr->qp_access_flags;
            if (mask & IBV_QP_PKEY_INDEX)
                s.pkey_index = attr->pkey_index;
            if (mask & IBV_QP_PORT)
                s.port_num = attr->port_num;
            if (mask & IBV_QP_AV)
                s.ah_attr = attr->ah_attr;
            if (mask & IBV_QP_PATH_MTU)
                s.path_mtu = attr->path_mtu;
            if (mask & IBV_QP_DEST_QPN)
                s.dest_qp_num = attr->dest_qp_num;
            if (mask & IBV_QP_RQ_PSN)
                s.rq_psn = attr->rq_psn;
            if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
                s.max_dest_rd_atomic = attr->max_dest_rd_atomic;
            if (mask & IBV_QP_MIN_RNR_TIMER)
                s.min_rnr_timer = attr->min_rnr_timer;
            if (mask & IBV_QP_TIMEOUT)
                s.timeout = attr->timeout;
            if (mask & IBV_QP_RETRY_CNT)
                s.retry_cnt = attr->retry_cnt;
            if (mask & IBV_QP_RNR_RETRY)
                s.rnr_retry = attr->rnr_retry;
            if (mask & IBV_QP_SQ_PSN)
                s.sq_psn = attr->sq_psn;
            if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
                s.max_rd_atomic = attr->max_rd_atomic;
            if (to == IBV_QPS_RESET) {
                qp->sq.clear();
                qp->rq.clear();
                qp->pend.clear();
                qp->sq_failed = false;
                qp->retry_expiry.reset();
                qp->hold_seq = 0;
                qp->exec_seq = qp->next_seq;
                qp->sq_used = 0;
                qp->unsignaled_run = 0;
                if (qp->conn) { // the connection outlives the QP's use of it only in the engine's table
                    qp->conn->qp = nullptr;
                    qp->conn->closed = true;
                    transport_kick(); // the progress thread closes it now (a ring brings no socket traffic to wake it)
                }
                qp->conn.reset();
                if (qp->local_peer)
                    for (auto &r : qp->local_peer->responders)
                        if (r->local_requester == qp)
                            r->broken = true;
                qp->local_peer = nullptr;
                qp->local_resp = nullptr;
                set_state_locked(qp, to);
                qp_publish_locked(qp);
            } else if (to == IBV_QPS_ERR) {
                bool was_err = cur == IBV_QPS_ERR;
                set_state_locked(qp, to);
                qp_publish_locked(qp);
                flush_locked(qp);
                if (!was_err)
                    srq_qp_error_locked(qp);
            } else {
                connect = cur == IBV_QPS_RTR && to == IBV_QPS_RTS;
                set_state_locked(qp, to);
                qp_publish_locked(qp);
                rq_changed_locked(qp);
            }
        }
        if (connect)
            qp_connect(qp, qp->dest_ip, qp->dest_port, qp->attr.dest_qp_num);
        return 0;
    });
}

int ibv_query_qp(ibv_qp *ibqp, ibv_qp_attr *attr, int, ibv_qp_init_attr *init)
{
    if (!ibqp || !attr || !init)
        return EINVAL;
    Qp *qp = to_qp(ibqp);
    std::lock_guard lk(G().mu);
    *attr = qp->attr;
    attr->cap = qp->cap;
    std::memset(init, 0, sizeof *init);
    init->qp_context = ibqp->qp_context;
    init->send_cq = ibqp->send_cq;
    init->recv_cq = ibqp->recv_cq;
    init->cap = qp->cap;
    init->srq = ibqp->srq;
    init->qp_type = ibqp->qp_type;
    init->sq_sig_all = qp->sq_sig_all;
    return 0;
}

int ibv_destroy_qp(ibv_qp *ibqp)
{
    return guard_rc("ibv_destroy_qp", [&]() -> int {
        if (ibqp && fork_inherited(ibqp->context))
            return EPERM;
        if (!ibqp)
            return EINVAL;
        Qp *qp = to_qp(ibqp);
        std::shared_ptr<Conn> conn;
        bool closed_any = false;
        {
            std::lock_guard lk(G().mu);
            Global &g = G();
            g.qps.erase(ibqp->qp_num);
            srq_detach_locked(qp);
            for (auto &[n, other] : g.qps) {
                if (other->local_peer == qp) {
                    other->local_peer = nullptr;
                    other->local_resp = nullptr;
                }
                for (auto &r : other->responders)
                    if (r->local_requester == qp)
                        r->local_requester = nullptr;
            }
            for (auto &r : qp->responders) {
                r->qp = nullptr;
                r->broken = true;
                if (r->conn) {
                    r->conn->responder = nullptr;
                    r->conn->closed = true;
                    closed_any = true;
                }
            }
            qp->dead = true;
            if (qp->slot) {
                local_mr_table()->q[qp->slot].qpn.store(0, std::memory_order_release);
                g.qp_slot_free.push_back(qp->slot);
            }
            conn = std::move(qp->conn);
            if (conn) {
                conn->qp = nullptr;
                conn->closed = true;
                closed_any = true;
            }
            // Completions still queued keep a pointer to the QP only to free SQ slots.
            for (Cq *cq : {qp->scq, qp->rcq})
                for (Cqe &e : cq->q)
                    if (e.qp == qp)
                        e.qp = nullptr;
        }
        // The progress thread closes the sockets now, so the peer learns at once that this QP is
        // gone: with same-host rings no frame on the socket would wake the thread (and a request
        // left in the ring would wait for an answer forever).
        if (closed_any)
            transport_kick();
        pthread_mutex_destroy(&ibqp->mutex);
        pthread_cond_destroy(&ibqp->cond);
        std::unique_ptr<Qp> owned(qp);
        return 0;
    });
}

ibv_qp_ex *ibv_qp_to_qp_ex(ibv_qp *qp) { return &to_qp(qp)->qpx; }

// Private (SOFTVERBS_PRIVATE_1, found with dlsym): the secret this QP presents to its
// peer and requires from it, instead of the process's job secret. A library that
// already shares a random job token among its ranks (the reference's bootstrap) hands
// it down here, so its QPs are protected without configuration. Call before RTS.
int softverbs_set_qp_secret(ibv_qp *ibqp, const void *secret, size_t len)
{
    if (!ibqp || (!secret && len) || len == 0 || len > 64)
        return EINVAL;
    std::lock_guard lk(G().mu);
    to_qp(ibqp)->secret.assign(static_cast<const char *>(secret), len);
    to_qp(ibqp)->own_secret = true;
    return 0;
}

int ibv_query_qp_data_in_order(ibv_qp *, ibv_wr_opcode, uint32_t) { return 0; }

} // extern "C"
