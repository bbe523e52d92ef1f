// Shared receive queues (basic type): creation, srq_limit arming, resize, query,
// posting, destruction; and the one place where a responder decides which RECV
// an incoming message consumes (its QP's RQ or its SRQ).
#include "sv.h"

#include <hcts/mutant.h>

#include <algorithm>
#include <cerrno>

namespace sv {

Srq *to_srq(ibv_srq *srq) { return reinterpret_cast<Srq *>(srq); }

RecvWqe *next_recv_locked(Qp *qp, Clock::time_point now, Clock::time_point *later)
{
    std::deque<RecvWqe> &q = qp->srq ? qp->srq->rq : qp->rq;
    *later = Clock::time_point::max();
    if (q.empty())
        return nullptr;
    // RECVs are consumed in posting order; under the adversary the head may not be
    // visible to the "HCA" yet, and then nothing behind it is taken either.
    if (q.front().visible > now) {
        if (hcts::mutant("sv_adversary_late_recv_skipped")) {
            // Mutant: a RECV the adversary keeps invisible is passed over; a later visible one
            // is taken first (moved to the head, where consume_recv_locked takes it).
            auto vis = std::find_if(q.begin(), q.end(), [&](const RecvWqe &r) { return r.visible <= now; });
            if (vis != q.end()) {
                std::rotate(q.begin(), vis, vis + 1);
                return &q.front();
            }
        }
        *later = q.front().visible;
        return nullptr;
    }
    return &q.front();
}

RecvWqe consume_recv_locked(Qp *qp)
{
    std::deque<RecvWqe> &q = qp->srq ? qp->srq->rq : qp->rq;
    RecvWqe rw = std::move(q.front());
    q.pop_front();
    qp_publish_recvs_locked(qp); // before the reply: a requester never counts this RECV again
    if (Srq *s = qp->srq; s && s->limit && s->rq.size() < s->limit) {
        // IBTA: the armed limit fires once, when the count of posted RECVs drops below
        // it; the SRQ is disarmed until ibv_modify_srq(IBV_SRQ_LIMIT) arms it again.
        s->limit = 0;
        ibv_async_event e{};
        e.element.srq = &s->srq;
        e.event_type = IBV_EVENT_SRQ_LIMIT_REACHED;
        post_async_locked(to_ctx(s->srq.context), e);
    }
    return rw;
}

void srq_detach_locked(Qp *qp)
{
    if (!qp->srq)
        return;
    std::erase(qp->srq->qps, qp);
    qp->srq = nullptr;
}

void srq_qp_error_locked(Qp *qp)
{
    if (!qp->srq)
        return;
    // Nothing of the SRQ is flushed: its RECVs belong to the other QPs too. The QP's
    // last WQE has completed as soon as it is in ERR (every completion is generated
    // synchronously), so the consumer may now detach it safely.
    ibv_async_event e{};
    e.element.qp = &qp->qpx.qp_base;
    e.event_type = IBV_EVENT_QP_LAST_WQE_REACHED;
    post_async_locked(qp->ctx, e);
}

namespace {

constexpr uint32_t kMaxSrqWr = kMaxQpWr;

ibv_srq *create_srq_common(ibv_pd *pd, ibv_srq_attr *attr, void *srq_context)
{
    if (!pd || !attr) {
        errno = EINVAL;
        return nullptr;
    }
    if (attr->max_wr == 0 || attr->max_wr > kMaxSrqWr || attr->max_sge > kMaxSge) {
        log(1, "create_srq: max_wr %u (allowed 1..%u), max_sge %u (allowed 0..%d)", attr->max_wr, kMaxSrqWr,
            attr->max_sge, kMaxSge);
        errno = EINVAL;
        return nullptr;
    }
    auto s = std::make_unique<Srq>();
    s->max_wr = attr->max_wr;
    s->max_sge = std::max(attr->max_sge, 1u);
    attr->max_sge = s->max_sge; // what we grant; srq_limit is irrelevant at creation (ibv_create_srq(3))
    ibv_srq &b = s->srq;
    b.context = pd->context;
    b.srq_context = srq_context;
    b.pd = pd;
    pthread_mutex_init(&b.mutex, nullptr);
    pthread_cond_init(&b.cond, nullptr);
    std::lock_guard lk(G().mu);
    static uint32_t next_handle = 0; // under G().mu
    b.handle = ++next_handle;
    s->adv = current_seed() != 0;
    s->rng.seed(current_seed() ^ (0xc2b2ae3d27d4eb4fULL * b.handle));
    return &s.release()->srq;
}

int post_srq_recv(ibv_srq *ibsrq, ibv_recv_wr *wr, ibv_recv_wr **bad)
{
    return guard_rc("post_srq_recv", [&]() -> int {
        if (fork_inherited(ibsrq->context)) {
            if (bad)
                *bad = wr;
            return EPERM;
        }
        ibv_recv_wr *dummy = nullptr;
        if (!bad)
            bad = &dummy;
        if (!ibsrq) {
            *bad = wr;
            return EINVAL;
        }
        Srq *s = to_srq(ibsrq);
        std::lock_guard lk(G().mu);
        for (; wr; wr = wr->next) {
            if (wr->num_sge < 0 || static_cast<uint32_t>(wr->num_sge) > s->max_sge || (wr->num_sge && !wr->sg_list)) {
                log(1, "post_srq_recv: num_sge %d (allowed 0..%u)", wr->num_sge, s->max_sge);
                *bad = wr;
                return EINVAL;
            }
            if (s->rq.size() >= s->max_wr) {
                *bad = wr;
                return ENOMEM;
            }
            RecvWqe r;
            r.wr_id = wr->wr_id;
            r.sge.assign(wr->sg_list, wr->sg_list + wr->num_sge);
            if (s->adv && s->rng() % 2) // as on a QP: half of them reach the "HCA" up to 300 us late
                r.visible = Clock::now() + std::chrono::microseconds(s->rng() % 301);
            s->rq.push_back(std::move(r));
        }
        // Every QP of the SRQ may have a responder waiting for a RECV; the first to run takes it.
        std::vector<Qp *> qps = s->qps; // a responder running may not detach, but stay safe
        for (Qp *qp : qps)
            rq_changed_locked(qp);
        return 0;
    });
}

} // namespace

ibv_srq *create_srq_ex(ibv_context *ctx, ibv_srq_init_attr_ex *a)
{
    return guard_null("create_srq_ex", [&]() -> ibv_srq * {
        if (!ctx || !a) {
            errno = EINVAL;
            return nullptr;
        }
        // Only the basic type: XRC and tag-matching SRQs need XRC domains and tag lists
        // softverbs does not have.
        constexpr uint32_t kKnown = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ;
        if ((a->comp_mask & ~kKnown) || ((a->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) && a->srq_type != IBV_SRQT_BASIC)) {
            log(1, "create_srq_ex: comp_mask 0x%x / srq_type %d not supported (basic SRQs only)", a->comp_mask,
                a->srq_type);
            errno = EOPNOTSUPP;
            return nullptr;
        }
        if (!(a->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !a->pd || a->pd->context != ctx) {
            errno = EINVAL;
            return nullptr;
        }
        return create_srq_common(a->pd, &a->attr, a->srq_context);
    });
}

void fill_srq_ops(ibv_context_ops *ops) { ops->post_srq_recv = post_srq_recv; }

} // namespace sv

using namespace sv;

extern "C" {

ibv_srq *ibv_create_srq(ibv_pd *pd, ibv_srq_init_attr *a)
{
    return guard_null("ibv_create_srq", [&]() -> ibv_srq * {
        if (!pd || !a) {
            errno = EINVAL;
            return nullptr;
        }
        return create_srq_common(pd, &a->attr, a->srq_context);
    });
}

int ibv_modify_srq(ibv_srq *ibsrq, ibv_srq_attr *attr, int mask)
{
    return guard_rc("ibv_modify_srq", [&]() -> int {
        if (!ibsrq || !attr)
            return EINVAL;
        Srq *s = to_srq(ibsrq);
        std::lock_guard lk(G().mu);
        if (mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT)) {
            log(1, "modify_srq: mask 0x%x has unknown bits (allowed IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT)", mask);
            return EINVAL;
        }
        uint32_t max_wr = s->max_wr;
        if (mask & IBV_SRQ_MAX_WR) {
            // Resizing is supported (IBV_DEVICE_SRQ_RESIZE): the new size must hold what is posted.
            if (attr->max_wr == 0 || attr->max_wr > kMaxSrqWr || attr->max_wr < s->rq.size()) {
                log(1, "modify_srq: max_wr %u (allowed %zu..%u)", attr->max_wr, std::max<size_t>(s->rq.size(), 1),
                    kMaxSrqWr);
                return EINVAL;
            }
            max_wr = attr->max_wr;
        }
        if ((mask & IBV_SRQ_LIMIT) && attr->srq_limit > max_wr) {
            log(1, "modify_srq: srq_limit %u exceeds max_wr %u", attr->srq_limit, max_wr);
            return EINVAL;
        }
        s->max_wr = max_wr;
        if (mask & IBV_SRQ_LIMIT)
            s->limit = attr->srq_limit; // 0 disarms
        return 0;
    });
}

int ibv_query_srq(ibv_srq *ibsrq, ibv_srq_attr *attr)
{
    if (!ibsrq || !attr)
        return EINVAL;
    Srq *s = to_srq(ibsrq);
    std::lock_guard lk(G().mu);
    attr->max_wr = s->max_wr;
    attr->max_sge = s->max_sge;
    attr->srq_limit = s->limit;
    return 0;
}

int ibv_destroy_srq(ibv_srq *ibsrq)
{
    return guard_rc("ibv_destroy_srq", [&]() -> int {
        if (ibsrq && fork_inherited(ibsrq->context))
            return EPERM;
        if (!ibsrq)
            return EINVAL;
        Srq *s = to_srq(ibsrq);
        {
            std::lock_guard lk(G().mu);
            if (!s->qps.empty()) {
                log(1, "destroy_srq: %zu QPs still use it", s->qps.size());
                return EBUSY;
            }
        }
        // RECVs still posted are dropped without completions, as on hardware.
        pthread_mutex_destroy(&ibsrq->mutex);
        pthread_cond_destroy(&ibsrq->cond);
        std::unique_ptr<Srq> owned(s);
        return 0;
    });
}

} // extern "C"
