// rdma_create_qp / rdma_create_qp_ex / rdma_destroy_qp: the id's QP, created on
// softverbs0 and moved to INIT (connect/accept take it to RTR and RTS). CQs missing
// from the init attributes are made here, each with its own completion channel, as
// rdma-core does.
#include <cerrno>

#include "cm.h"
#include "guard.h"

using namespace svcm;

namespace {

Id *as_id(rdma_cm_id *id) { return reinterpret_cast<Id *>(id); }

void destroy_own_cqs(Id *i)
{
    if (!i->own_cqs)
        return;
    rdma_cm_id &p = i->pub;
    if (p.recv_cq && p.recv_cq != p.send_cq)
        ibv_destroy_cq(p.recv_cq);
    if (p.send_cq)
        ibv_destroy_cq(p.send_cq);
    if (p.recv_cq_channel && p.recv_cq_channel != p.send_cq_channel)
        ibv_destroy_comp_channel(p.recv_cq_channel);
    if (p.send_cq_channel)
        ibv_destroy_comp_channel(p.send_cq_channel);
    p.send_cq = p.recv_cq = nullptr;
    p.send_cq_channel = p.recv_cq_channel = nullptr;
    i->own_cqs = false;
}

// Fills in the CQs the program left NULL; false (errno set) on failure.
bool make_cqs(Id *i, ibv_cq **send_cq, ibv_cq **recv_cq, uint32_t send_wr, uint32_t recv_wr)
{
    rdma_cm_id &p = i->pub;
    auto make = [&](ibv_comp_channel **ch, ibv_cq **cq, uint32_t n) {
        *ch = ibv_create_comp_channel(p.verbs);
        if (!*ch)
            return false;
        *cq = ibv_create_cq(p.verbs, n ? static_cast<int>(n) : 1, &p, *ch, 0);
        return *cq != nullptr;
    };
    if (!*send_cq) {
        i->own_cqs = true;
        if (!make(&p.send_cq_channel, &p.send_cq, send_wr))
            return destroy_own_cqs(i), false;
        *send_cq = p.send_cq;
    }
    if (!*recv_cq) {
        i->own_cqs = true;
        if (!make(&p.recv_cq_channel, &p.recv_cq, recv_wr))
            return destroy_own_cqs(i), false;
        *recv_cq = p.recv_cq;
    }
    return true;
}

int finish_qp(Id *i, ibv_qp *qp, ibv_pd *pd)
{
    if (!qp) {
        int e = errno;
        destroy_own_cqs(i);
        return fail(e ? e : ENOMEM);
    }
    if (qp_to_init(qp) != 0) {
        int e = errno;
        ibv_destroy_qp(qp);
        destroy_own_cqs(i);
        return fail(e);
    }
    std::lock_guard lk(cm().mu); // the CM thread moves the id's QP (connect, disconnect)
    i->pub.qp = qp;
    i->pub.pd = pd;
    return 0;
}

} // namespace

extern "C" {

int rdma_create_qp(rdma_cm_id *id, ibv_pd *pd, ibv_qp_init_attr *qp_init_attr)
{
    return guarded("rdma_create_qp", -1, [&] {
        if (!id || !qp_init_attr || !id->verbs || id->qp)
            return fail(EINVAL); // the id needs its device (bind/resolve/connect request) and no QP yet
        if (qp_init_attr->qp_type != IBV_QPT_RC)
            return fail(ENOSYS); // softverbs supports RC only
        if (!pd)
            pd = default_pd();
        if (!pd || pd->context != id->verbs)
            return fail(EINVAL);
        Id *i = as_id(id);
        ibv_qp_init_attr a = *qp_init_attr;
        if (!make_cqs(i, &a.send_cq, &a.recv_cq, a.cap.max_send_wr, a.cap.max_recv_wr))
            return -1;
        ibv_qp *qp = ibv_create_qp(pd, &a);
        if (qp)
            qp_init_attr->cap = a.cap; // the caps actually granted, as ibv_create_qp reports them
        return finish_qp(i, qp, pd);
    });
}

int rdma_create_qp_ex(rdma_cm_id *id, ibv_qp_init_attr_ex *attr)
{
    return guarded("rdma_create_qp_ex", -1, [&] {
        if (!id || !attr || !id->verbs || id->qp)
            return fail(EINVAL);
        if (attr->qp_type != IBV_QPT_RC)
            return fail(ENOSYS);
        ibv_qp_init_attr_ex a = *attr;
        if (!(a.comp_mask & IBV_QP_INIT_ATTR_PD) || !a.pd) {
            a.pd = default_pd();
            a.comp_mask |= IBV_QP_INIT_ATTR_PD;
        }
        if (!a.pd || a.pd->context != id->verbs)
            return fail(EINVAL);
        Id *i = as_id(id);
        if (!make_cqs(i, &a.send_cq, &a.recv_cq, a.cap.max_send_wr, a.cap.max_recv_wr))
            return -1;
        ibv_qp *qp = ibv_create_qp_ex(id->verbs, &a);
        if (qp)
            attr->cap = a.cap;
        return finish_qp(i, qp, a.pd);
    });
}

void rdma_destroy_qp(rdma_cm_id *id)
{
    guarded_void("rdma_destroy_qp", [&] {
        if (!id)
            return;
        ibv_qp *qp = nullptr;
        {
            std::lock_guard lk(cm().mu); // after this the CM thread no longer touches the QP
            qp = id->qp;
            id->qp = nullptr;
        }
        if (!qp)
            return;
        ibv_destroy_qp(qp);
        destroy_own_cqs(as_id(id));
    });
}

} // extern "C"
