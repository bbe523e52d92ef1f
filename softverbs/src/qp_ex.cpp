// The ibv_qp_ex work-request builder (ibv_wr_start ... ibv_wr_complete): each
// wr_* call builds one ibv_send_wr; wr_complete posts the batch atomically.
#include "sv.h"

#include <cerrno>

namespace sv {

int post_send_locked(Qp *qp, ibv_send_wr *wr, ibv_send_wr **bad);

namespace {

struct Built {
    ibv_send_wr wr{};
    std::vector<ibv_sge> sge;
    std::vector<uint8_t> inl;
};

// Batches live beside the QP; one per QP, guarded by the caller as verbs requires.
thread_local std::unordered_map<Qp *, std::vector<Built>> t_batches;

Qp *of(ibv_qp_ex *x) { return reinterpret_cast<Qp *>(x); }

Built &start_wr(ibv_qp_ex *x, ibv_wr_opcode op)
{
    auto &b = t_batches[of(x)];
    b.emplace_back();
    Built &w = b.back();
    w.wr.wr_id = x->wr_id;
    w.wr.send_flags = x->wr_flags;
    w.wr.opcode = op;
    return w;
}

Built *last(ibv_qp_ex *x)
{
    auto &b = t_batches[of(x)];
    if (b.empty()) {
        of(x)->batch_err = EINVAL;
        return nullptr;
    }
    return &b.back();
}

// A work-request builder that cannot allocate fails the batch (wr_complete returns the code)
// instead of letting the exception out.
template <typename Body>
void batch_guard(ibv_qp_ex *x, const char *api, Body &&body) noexcept
{
    try {
        body();
    } catch (...) {
        of(x)->batch_err = exception_errno(api);
    }
}

void wr_start(ibv_qp_ex *x)
{
    batch_guard(x, "wr_start", [&] { t_batches[of(x)].clear(); });
    of(x)->batch_err = 0;
}

int wr_complete(ibv_qp_ex *x)
{
    return guard_rc("wr_complete", [&]() -> int {
        Qp *qp = of(x);
        auto batch = std::move(t_batches[qp]);
        t_batches.erase(qp);
        if (qp->batch_err)
            return qp->batch_err;
        if (qp->qpx.qp_base.qp_type == IBV_QPT_UD)
            return EOPNOTSUPP; // UD is not offered as qp_ex (no wr_set_ud_addr): ibv_post_send only
        if (batch.empty())
            return 0;
        std::vector<ibv_sge> inl_sge(batch.size());
        for (size_t i = 0; i < batch.size(); ++i) {
            Built &b = batch[i];
            if (!b.inl.empty() || (b.wr.send_flags & IBV_SEND_INLINE)) {
                inl_sge[i] = {reinterpret_cast<uintptr_t>(b.inl.data()), static_cast<uint32_t>(b.inl.size()), 0};
                b.wr.sg_list = &inl_sge[i];
                b.wr.num_sge = b.inl.empty() ? 0 : 1;
                b.wr.send_flags |= IBV_SEND_INLINE;
            } else {
                b.wr.sg_list = b.sge.data();
                b.wr.num_sge = static_cast<int>(b.sge.size());
            }
            b.wr.next = i + 1 < batch.size() ? &batch[i + 1].wr : nullptr;
        }
        ibv_send_wr *bad = nullptr;
        poller_posted();
        std::lock_guard lk(G().mu);
        return post_send_locked(qp, &batch[0].wr, &bad);
    });
}

void wr_abort(ibv_qp_ex *x) { t_batches.erase(of(x)); }

void wr_rdma_write(ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
    batch_guard(x, "wr_rdma_write", [&] {
        Built &w = start_wr(x, IBV_WR_RDMA_WRITE);
        w.wr.wr.rdma = {addr, rkey};
    });
}
void wr_rdma_write_imm(ibv_qp_ex *x, uint32_t rkey, uint64_t addr, __be32 imm)
{
    batch_guard(x, "wr_rdma_write_imm", [&] {
        Built &w = start_wr(x, IBV_WR_RDMA_WRITE_WITH_IMM);
        w.wr.wr.rdma = {addr, rkey};
        w.wr.imm_data = imm;
    });
}
void wr_rdma_read(ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
    batch_guard(x, "wr_rdma_read", [&] {
        Built &w = start_wr(x, IBV_WR_RDMA_READ);
        w.wr.wr.rdma = {addr, rkey};
    });
}
void wr_send(ibv_qp_ex *x)
{
    batch_guard(x, "wr_send", [&] { start_wr(x, IBV_WR_SEND); });
}
void wr_send_imm(ibv_qp_ex *x, __be32 imm)
{
    batch_guard(x, "wr_send_imm", [&] { start_wr(x, IBV_WR_SEND_WITH_IMM).wr.imm_data = imm; });
}
void wr_atomic_fetch_add(ibv_qp_ex *x, uint32_t rkey, uint64_t addr, uint64_t add)
{
    batch_guard(x, "wr_atomic_fetch_add", [&] {
        Built &w = start_wr(x, IBV_WR_ATOMIC_FETCH_AND_ADD);
        w.wr.wr.atomic = {addr, add, 0, rkey};
    });
}
void wr_atomic_cmp_swp(ibv_qp_ex *x, uint32_t rkey, uint64_t addr, uint64_t compare, uint64_t swap)
{
    batch_guard(x, "wr_atomic_cmp_swp", [&] {
        Built &w = start_wr(x, IBV_WR_ATOMIC_CMP_AND_SWP);
        w.wr.wr.atomic = {addr, compare, swap, rkey};
    });
}
void wr_set_sge(ibv_qp_ex *x, uint32_t lkey, uint64_t addr, uint32_t len)
{
    batch_guard(x, "wr_set_sge", [&] {
        if (Built *w = last(x))
            w->sge.assign(1, ibv_sge{addr, len, lkey});
    });
}
void wr_set_sge_list(ibv_qp_ex *x, size_t n, const ibv_sge *list)
{
    batch_guard(x, "wr_set_sge_list", [&] {
        if (Built *w = last(x))
            w->sge.assign(list, list + n);
    });
}
void wr_set_inline_data(ibv_qp_ex *x, void *addr, size_t len)
{
    batch_guard(x, "wr_set_inline_data", [&] {
        if (Built *w = last(x)) {
            auto *p = static_cast<uint8_t *>(addr);
            w->inl.assign(p, p + len);
            w->wr.send_flags |= IBV_SEND_INLINE;
        }
    });
}
void wr_set_inline_data_list(ibv_qp_ex *x, size_t n, const ibv_data_buf *list)
{
    batch_guard(x, "wr_set_inline_data_list", [&] {
        if (Built *w = last(x)) {
            w->inl.clear();
            for (size_t i = 0; i < n; ++i) {
                auto *p = static_cast<uint8_t *>(list[i].addr);
                w->inl.insert(w->inl.end(), p, p + list[i].length);
            }
            w->wr.send_flags |= IBV_SEND_INLINE;
        }
    });
}
void wr_unsupported(ibv_qp_ex *x) { of(x)->batch_err = EOPNOTSUPP; }

} // namespace

void fill_qp_ex_ops(Qp *qp)
{
    ibv_qp_ex &x = qp->qpx;
    x.wr_start = wr_start;
    x.wr_complete = wr_complete;
    x.wr_abort = wr_abort;
    x.wr_rdma_write = wr_rdma_write;
    x.wr_rdma_write_imm = wr_rdma_write_imm;
    x.wr_rdma_read = wr_rdma_read;
    x.wr_send = wr_send;
    x.wr_send_imm = wr_send_imm;
    x.wr_atomic_fetch_add = wr_atomic_fetch_add;
    x.wr_atomic_cmp_swp = wr_atomic_cmp_swp;
    x.wr_set_sge = wr_set_sge;
    x.wr_set_sge_list = wr_set_sge_list;
    x.wr_set_inline_data = wr_set_inline_data;
    x.wr_set_inline_data_list = wr_set_inline_data_list;
    x.wr_send_inv = [](ibv_qp_ex *q, uint32_t) { wr_unsupported(q); };
    x.wr_local_inv = [](ibv_qp_ex *q, uint32_t) { wr_unsupported(q); };
    x.wr_bind_mw = [](ibv_qp_ex *q, ibv_mw *, uint32_t, const ibv_mw_bind_info *) { wr_unsupported(q); };
    x.wr_send_tso = [](ibv_qp_ex *q, void *, uint16_t, uint16_t) { wr_unsupported(q); };
    x.wr_set_ud_addr = [](ibv_qp_ex *q, ibv_ah *, uint32_t, uint32_t) { wr_unsupported(q); };
    x.wr_set_xrc_srqn = [](ibv_qp_ex *q, uint32_t) { wr_unsupported(q); };
    x.wr_atomic_write = [](ibv_qp_ex *q, uint32_t, uint64_t, const void *) { wr_unsupported(q); };
}

} // namespace sv
