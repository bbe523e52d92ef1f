// The requester side of an RC QP: post_send/post_recv validation, executing a
// WQE over the best route (same process, same-host mapping or CMA, or the wire),
// replies, and in-order send completions with selective signalling.
#include "dma.h"
#include "sv.h"
#include "ud.h"

#include <hcts/mutant.h>

#include <cerrno>
#include <cstring>

namespace sv {

namespace {

constexpr unsigned kKnownSendFlags = IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE;

bool writes_remote(ibv_wr_opcode op)
{
    return op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM || op == IBV_WR_SEND ||
           op == IBV_WR_SEND_WITH_IMM;
}
bool is_atomic(ibv_wr_opcode op) { return op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD; }

ibv_wc_opcode wc_opcode(ibv_wr_opcode op)
{
    switch (op) {
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM: return IBV_WC_RDMA_WRITE;
    case IBV_WR_RDMA_READ: return IBV_WC_RDMA_READ;
    case IBV_WR_ATOMIC_CMP_AND_SWP: return IBV_WC_COMP_SWAP;
    case IBV_WR_ATOMIC_FETCH_AND_ADD: return IBV_WC_FETCH_ADD;
    default: return IBV_WC_SEND;
    }
}

} // namespace

void finish(Wqe &w, ibv_wc_status st)
{
    w.done = true;
    if (w.status == IBV_WC_SUCCESS)
        w.status = st;
}

Wqe *find_wqe(Qp *qp, uint64_t seq)
{
    for (Wqe &w : qp->sq)
        if (w.seq == seq)
            return &w;
    return nullptr;
}

bool start_execution(Wqe &w)
{
    w.executed = true;
    if (w.inject_fail)
        finish(w, IBV_WC_LOC_QP_OP_ERR);
    else if (w.length > kMaxMsg)
        finish(w, IBV_WC_LOC_LEN_ERR);
    else
        return true;
    return false;
}

// Copies [off, off+len) of the WQE's message out of its source (inline copy or
// local SGEs, checked against the local MR table). 0 or an ibv_wc_status.
int gather(const Wqe &w, uint64_t off, uint64_t len, uint8_t *dst)
{
    if (w.is_inline) {
        if (len != 0) // an empty message's inline copy has no storage
            std::memcpy(dst, w.inline_data.data() + off, len);
        return 0;
    }
    uint64_t pos = 0;
    for (const ibv_sge &s : w.sge) {
        uint64_t a = std::max(pos, off), b = std::min<uint64_t>(pos + s.length, off + len);
        if (a < b) {
            MrView v;
            if (!mr_lookup(local_mr_table(), s.lkey, &v) || mr_check(v, s.addr, s.length, 0))
                return IBV_WC_LOC_PROT_ERR;
            dma_copy(dst + (a - off), reinterpret_cast<const uint8_t *>(s.addr) + (a - pos), b - a);
        }
        pos += s.length;
    }
    return 0;
}

// Scatters a reply into the WQE's local SGEs, which need LOCAL_WRITE.
int scatter(const std::vector<ibv_sge> &sges, const uint8_t *src, uint64_t len)
{
    uint64_t pos = 0;
    for (const ibv_sge &s : sges) {
        if (pos >= len)
            break;
        uint64_t n = std::min<uint64_t>(s.length, len - pos);
        MrView v;
        if (!mr_lookup(local_mr_table(), s.lkey, &v) || mr_check(v, s.addr, s.length, IBV_ACCESS_LOCAL_WRITE))
            return IBV_WC_LOC_PROT_ERR;
        dma_copy(reinterpret_cast<uint8_t *>(s.addr), src + pos, n);
        pos += n;
    }
    return pos < len ? IBV_WC_LOC_LEN_ERR : 0;
}

int check_local_sges(const std::vector<ibv_sge> &sges, uint32_t need)
{
    for (const ibv_sge &s : sges) {
        MrView v;
        if (!mr_lookup(local_mr_table(), s.lkey, &v) || mr_check(v, s.addr, s.length, need))
            return IBV_WC_LOC_PROT_ERR;
    }
    return 0;
}

// Where the target memory can be reached without the responder's help: `local`
// moves the bytes when it is in this process, `peer` when it is mapped from a
// same-host peer; `access` is what the target must allow. 0, an ibv_wc_status,
// or -1 when only the wire can do it.
template <typename Local, typename Peer>
int direct_locked(Qp *qp, uint32_t rkey, uint64_t raddr, size_t len, uint32_t access, Local local, Peer peer)
{
    MrView v;
    // The checks the responder would make: the target QP is connected to this very QP,
    // allows the access, and the MR is of its PD and allows it too. A check that fails
    // here is left to the responder, which refuses the stream or NAKs and moves its QP to ERR.
    uint32_t me = qp->qpx.qp_base.qp_num;
    if (Qp *t = qp->local_peer) {
        ibv_qp_state st = t->qpx.qp_base.state;
        if ((st != IBV_QPS_RTR && st != IBV_QPS_RTS) || t->attr.dest_qp_num != me)
            return -1;
        if (!(t->attr.qp_access_flags & access))
            return -1;
        if (!mr_lookup(local_mr_table(), rkey, &v) || v.pd != pd_handle(t->qpx.qp_base.pd) ||
            mr_check(v, raddr, len, access))
            return -1;
        if (len)
            local(reinterpret_cast<void *>(raddr));
        return 0;
    }
    if (qp->peer) {
        if (!qp->conn || qp->conn->closed)
            return IBV_WC_RETRY_EXC_ERR; // the peer is gone
        if (config().transport == Transport::Ring)
            return -1; // every payload through the rings
        if (!qp->peer_slot)
            return -1;
        const QpEntry &t = qp->peer->table->q[qp->peer_slot];
        const Identity &id = identity();
        if (t.qpn.load(std::memory_order_acquire) != qp->attr.dest_qp_num ||
            t.peer_qpn.load(std::memory_order_relaxed) != me)
            return -1;
        uint32_t ps = t.peer_portsalt.load(std::memory_order_relaxed);
        if (ps >> 16 != id.port || ((ps & 0xffff) != 0 && (ps & 0xffff) != id.salt))
            return -1;
        if (!(t.access.load(std::memory_order_relaxed) & access))
            return -1;
        if (!mr_lookup(qp->peer->table, rkey, &v) || v.pd != t.pd.load(std::memory_order_relaxed) ||
            mr_check(v, raddr, len, access))
            return -1;
        // Fence against the owner's ibv_dereg_mr (Dekker-style, both sides seq_cst): either
        // we see the key cleared, or it sees us in flight and waits until we are done.
        const uint32_t idx = rkey & (kMaxMr - 1);
        auto &inflight = const_cast<MrTable *>(qp->peer->table)->inflight[idx].n;
        inflight.fetch_add(1);
        if (qp->peer->table->e[idx].key.load() != rkey) {
            inflight.fetch_sub(1);
            return -1;
        }
        int rc = peer(v);
        inflight.fetch_sub(1);
        return rc;
    }
    return -1;
}

int direct_write_locked(Qp *qp, uint32_t rkey, uint64_t raddr, const uint8_t *src, size_t len)
{
    return direct_locked(
        qp, rkey, raddr, len, IBV_ACCESS_REMOTE_WRITE, [&](void *target) { dma_copy(target, src, len); },
        [&](const MrView &v) { return peer_write_locked(qp->peer.get(), v, raddr, src, len); });
}

int direct_read_locked(Qp *qp, uint32_t rkey, uint64_t raddr, uint8_t *dst, size_t len)
{
    return direct_locked(
        qp, rkey, raddr, len, IBV_ACCESS_REMOTE_READ, [&](void *target) { dma_copy(dst, target, len); },
        [&](const MrView &v) { return peer_read_locked(qp->peer.get(), v, raddr, dst, len); });
}

// Hands a request to the responder; false when the QP has no route to it.
bool send_request_locked(Qp *qp, const Frame &f, const uint8_t *payload, size_t len)
{
    if (qp->local_resp) {
        responder_push_locked(qp->local_resp, f, std::vector<uint8_t>(payload, payload + len));
        return true;
    }
    if (qp->conn && !qp->conn->closed) {
        conn_send_locked(qp->conn, f, payload, len);
        return true;
    }
    return false;
}

Frame make_frame(const Wqe &w, uint8_t op)
{
    Frame f{};
    f.op = op;
    f.seq = w.seq;
    f.raddr = w.raddr;
    f.rkey = w.rkey;
    f.imm = w.imm;
    f.a = w.compare_add;
    f.b = w.swap;
    f.len = w.length;
    return f;
}

// Places [off, off+len) of a WRITE-type WQE at the target; the WQE then expects
// one more reply if the wire carried it. 0 or an ibv_wc_status.
int place_locked(Qp *qp, Wqe &w, uint32_t off, uint32_t len)
{
    if (len == 0)
        return 0; // a zero-length WRITE checks no rkey and moves nothing
    std::vector<uint8_t> tmp;
    const uint8_t *src = nullptr;
    if (!w.is_inline && w.sge.size() == 1) {
        MrView v;
        const ibv_sge &s = w.sge[0];
        if (!mr_lookup(local_mr_table(), s.lkey, &v) || mr_check(v, s.addr, s.length, 0))
            return IBV_WC_LOC_PROT_ERR;
        src = reinterpret_cast<const uint8_t *>(s.addr) + off;
    } else {
        tmp.resize(len);
        if (int st = gather(w, off, len, tmp.data()))
            return st;
        src = tmp.data();
    }
    uint64_t target = w.raddr + off;
    if (hcts::mutant("sv_unaligned_dst_shift")) {
        // Mutant: a target that is not 8-byte aligned is rounded the wrong way (one byte late).
        if (target & 7)
            ++target;
    }
    int rc = direct_write_locked(qp, w.rkey, target, src, len);
    if (rc >= 0)
        return rc;
    Frame f = make_frame(w, kWrite);
    f.raddr = w.raddr + off;
    f.len = len;
    ++w.parts;
    if (!send_request_locked(qp, f, src, len)) {
        --w.parts;
        return IBV_WC_RETRY_EXC_ERR;
    }
    return 0; // w may be gone now if an in-process responder answered at once
}

// Runs the part of a WQE that comes after its data placement: the notify of a
// WRITE_WITH_IMM, a SEND, a READ or an ATOMIC. Must not touch w after sending.
void issue_tail_locked(Qp *qp, Wqe &w)
{
    switch (w.op) {
    case IBV_WR_RDMA_WRITE:
        if (w.parts == 0)
            finish(w, IBV_WC_SUCCESS);
        return;
    case IBV_WR_RDMA_WRITE_WITH_IMM: {
        Frame f = make_frame(w, kWriteImm);
        f.flags = kPlaced;
        ++w.parts;
        if (!send_request_locked(qp, f, nullptr, 0)) {
            --w.parts;
            finish(w, IBV_WC_RETRY_EXC_ERR);
        }
        return;
    }
    case IBV_WR_SEND:
    case IBV_WR_SEND_WITH_IMM: {
        std::vector<uint8_t> data(w.length);
        if (int st = gather(w, 0, w.length, data.data()))
            return finish(w, static_cast<ibv_wc_status>(st));
        ++w.parts;
        if (!send_request_locked(qp, make_frame(w, w.op == IBV_WR_SEND ? kSend : kSendImm), data.data(), data.size())) {
            --w.parts;
            finish(w, IBV_WC_RETRY_EXC_ERR);
        }
        return;
    }
    case IBV_WR_RDMA_READ: {
        if (int st = check_local_sges(w.sge, IBV_ACCESS_LOCAL_WRITE))
            return finish(w, static_cast<ibv_wc_status>(st));
        std::vector<uint8_t> data(w.length);
        int rc = direct_read_locked(qp, w.rkey, w.raddr, data.data(), w.length);
        if (rc > 0)
            return finish(w, static_cast<ibv_wc_status>(rc));
        if (rc == 0) {
            int st = scatter(w.sge, data.data(), w.length);
            return finish(w, static_cast<ibv_wc_status>(st));
        }
        ++w.parts;
        if (!send_request_locked(qp, make_frame(w, kRead), nullptr, 0)) {
            --w.parts;
            finish(w, IBV_WC_RETRY_EXC_ERR);
        }
        return;
    }
    case IBV_WR_ATOMIC_CMP_AND_SWP:
    case IBV_WR_ATOMIC_FETCH_AND_ADD: {
        if (int st = check_local_sges(w.sge, IBV_ACCESS_LOCAL_WRITE))
            return finish(w, static_cast<ibv_wc_status>(st));
        ++w.parts;
        Frame f = make_frame(w, w.op == IBV_WR_ATOMIC_CMP_AND_SWP ? kCmpSwp : kFetchAdd);
        f.len = 8;
        if (!send_request_locked(qp, f, nullptr, 0)) {
            --w.parts;
            finish(w, IBV_WC_RETRY_EXC_ERR);
        }
        return;
    }
    default: finish(w, IBV_WC_LOC_QP_OP_ERR);
    }
}

// Sane mode: the whole WQE now.
void execute_locked(Qp *qp, Wqe &w)
{
    if (!start_execution(w))
        return;
    uint64_t seq = w.seq;
    if (w.op == IBV_WR_RDMA_WRITE || w.op == IBV_WR_RDMA_WRITE_WITH_IMM) {
        if (int st = place_locked(qp, w, 0, w.length))
            return finish(w, static_cast<ibv_wc_status>(st));
    }
    // An in-process responder may already have answered (and the WQE completed): look it up again.
    Wqe *x = find_wqe(qp, seq);
    if (x && !x->done)
        issue_tail_locked(qp, *x);
}

void note_failure_locked(Qp *qp, uint64_t seq)
{
    // The WQE is usually still at the back; if it already completed, a failure moved the QP to ERR.
    for (auto it = qp->sq.rbegin(); it != qp->sq.rend(); ++it)
        if (it->seq == seq) {
            if (it->done && it->status != IBV_WC_SUCCESS && it->status != IBV_WC_WR_FLUSH_ERR)
                qp->sq_failed = true;
            return;
        }
}

bool sq_flushing_locked(const Qp *qp) { return qp->sq_failed || qp->qpx.qp_base.state == IBV_QPS_ERR; }

// The WQE with this seq if still queued (the SQ holds consecutive seqs).
Wqe *wqe_at(Qp *qp, uint64_t seq)
{
    if (qp->sq.empty() || seq < qp->sq.front().seq || seq - qp->sq.front().seq >= qp->sq.size())
        return nullptr;
    return &qp->sq[seq - qp->sq.front().seq];
}

bool sq_held_locked(Qp *qp)
{
    if (!qp->hold_seq)
        return false;
    if (Wqe *h = wqe_at(qp, qp->hold_seq); h && !h->done)
        return true;
    qp->hold_seq = 0;
    return false;
}

namespace {

bool consumes_recv(ibv_wr_opcode op)
{
    return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

// Whether the responder is sure to have a RECV for every request of ours that consumes one
// and has not been answered yet (seq's included): then none of them can meet RNR. The
// responder's count only falls when one of those requests consumes a RECV (or the QP leaves
// RTR/RTS, when they fail anyway), and a consumed RECV stays counted here until its reply
// comes: so the count read now suffices for all of them.
bool responder_has_recvs_locked(Qp *qp)
{
    uint32_t credits = 0;
    if (Qp *t = qp->local_peer)
        credits = qp_recv_credits_locked(t);
    else if (qp->peer && qp->peer_slot)
        credits = qp->peer->table->q[qp->peer_slot].recvs.load(std::memory_order_acquire);
    if (credits == 0)
        return false;
    if (hcts::mutant("sv_credits_ignore_unanswered"))
        return true; // Mutant: one RECV posted is taken as one for every unanswered request.
    uint32_t unanswered = 0;
    for (const Wqe &w : qp->sq)
        if (w.executed && !w.done && consumes_recv(w.op) && ++unanswered > credits)
            return false;
    return true;
}

} // namespace

void sq_note_hold_locked(Qp *qp, uint64_t seq, ibv_wr_opcode op)
{
    if (hcts::mutant("sv_rnr_hold_ignored")) {
        return; // Mutant: a SEND/WRITE_WITH_IMM waiting for a RECV no longer holds later WQEs back.
    }
    if (!consumes_recv(op))
        return;
    // Over the wire alone the responder's in-order stream already keeps later requests behind it.
    if (!qp->local_peer && !qp->peer)
        return;
    // A WRITE_WITH_IMM that is sure of its RECV cannot be refused (its data was placed and its
    // rkey checked already): later WQEs go on at once, as on RC hardware with end-to-end
    // credits. A SEND can still fail at the responder (a RECV too small), so it always holds.
    // The adversary's QPs keep the hold, so its schedules stay what they were.
    if (op == IBV_WR_RDMA_WRITE_WITH_IMM && !qp->adv && responder_has_recvs_locked(qp))
        return;
    if (Wqe *w = wqe_at(qp, seq); w && !w->done)
        qp->hold_seq = seq;
}

// READs and atomics issued and not yet answered: at most max_rd_atomic may be (IBTA),
// which also bounds the READ responses a responder queues for us.
bool rd_atomic_full_locked(const Qp *qp)
{
    uint32_t limit = std::max<uint32_t>(1, qp->attr.max_rd_atomic), n = 0;
    for (const Wqe &w : qp->sq)
        if (w.executed && !w.done && (w.op == IBV_WR_RDMA_READ || is_atomic(w.op)) && ++n >= limit)
            return true;
    return false;
}

// Sane mode: executes posted WQEs in order, unless an earlier one is held (RNR) or failed.
void sq_pump_locked(Qp *qp)
{
    if (qp->adv || qp->pumping)
        return;
    qp->pumping = true;
    bool ran = false;
    while (qp->exec_seq < qp->next_seq && !sq_held_locked(qp)) {
        Wqe *w = wqe_at(qp, qp->exec_seq);
        if (w && !w->done && !w->executed && (w->op == IBV_WR_RDMA_READ || is_atomic(w->op)) &&
            !sq_flushing_locked(qp) && rd_atomic_full_locked(qp))
            break; // runs when an answer arrives (requester_reply_locked pumps again)
        uint64_t seq = qp->exec_seq++;
        if (!w || w->done || w->executed)
            continue; // flushed, or completed already
        if (sq_flushing_locked(qp)) {
            finish(*w, IBV_WC_WR_FLUSH_ERR);
            continue;
        }
        ibv_wr_opcode op = w->op;
        execute_locked(qp, *w); // may re-enter through an in-process reply: guarded by pumping
        note_failure_locked(qp, seq);
        sq_note_hold_locked(qp, seq, op);
        ran = true;
    }
    qp->pumping = false;
    if (ran)
        sq_advance_locked(qp); // completions of what ran (post_send's own call may be long past)
}

namespace {

// How long an RC requester retries a peer that stopped answering before it reports
// IBV_WC_RETRY_EXC_ERR: the local ACK timeout (4.096 us << timeout) once per try,
// retry_cnt retries after the first. A program that exits right after its last
// exchange must not see its peer's surplus WQEs fail at once: on a NIC they fail
// ~0.5 s later (14 and 7), usually after the peer is done polling. Departures from
// IBTA: timeout 0 (wait for ever) reports at once, as nothing can answer a lost
// connection; and the wait is capped so that a large timeout cannot hang a program.
Clock::duration retry_time(const ibv_qp_attr &a)
{
    constexpr auto kCap = std::chrono::seconds(2);
    if (a.timeout == 0)
        return Clock::duration::zero();
    const auto once = std::chrono::nanoseconds(4096ll << std::min<int>(a.timeout, 31)); // 8 tries fit in int64
    return std::min<Clock::duration>(once * (a.retry_cnt + 1), kCap);
}

// The SQ's head failed because the peer stopped answering (it may have to wait its retry time).
bool head_retry_exceeded(const Qp *qp)
{
    return !qp->sq.empty() && qp->sq.front().done && qp->sq.front().status == IBV_WC_RETRY_EXC_ERR;
}

// True while the head WQE's RETRY_EXC_ERR must wait for its retry time.
bool retry_pending_locked(Qp *qp)
{
    const Clock::time_point now = Clock::now();
    if (!qp->retry_expiry) {
        qp->retry_expiry = now + retry_time(qp->attr);
        if (now < *qp->retry_expiry)
            transport_kick(); // the progress thread completes it (retry_timers_locked)
    }
    return now < *qp->retry_expiry;
}

} // namespace

void retry_give_up_locked(Qp *qp) { qp->retry_expiry = Clock::now(); }

Clock::time_point retry_timers_locked()
{
    Clock::time_point next = Clock::time_point::max();
    for (auto &[n, qp] : G().qps) {
        if (!qp->retry_expiry || !head_retry_exceeded(qp))
            continue;
        sq_advance_locked(qp);
        if (head_retry_exceeded(qp))
            next = std::min(next, *qp->retry_expiry);
    }
    return next;
}

void sq_advance_locked(Qp *qp)
{
    while (!qp->sq.empty() && qp->sq.front().done) {
        if (head_retry_exceeded(qp) && retry_pending_locked(qp))
            break;
        Wqe w = std::move(qp->sq.front());
        qp->sq.pop_front();
        ++qp->unsignaled_run;
        bool sig = qp->sq_sig_all || (w.flags & IBV_SEND_SIGNALED) || w.status != IBV_WC_SUCCESS;
        if (sig) {
            Cqe e;
            e.qp = qp;
            e.sq_free = qp->unsignaled_run;
            qp->unsignaled_run = 0;
            e.wc.wr_id = w.wr_id;
            e.wc.status = w.status;
            e.wc.opcode = wc_opcode(w.op);
            e.wc.qp_num = qp->qpx.qp_base.qp_num;
            e.wc.byte_len = (w.op == IBV_WR_RDMA_READ || is_atomic(w.op)) ? w.length : 0;
            cq_push_locked(qp->scq, e);
        }
        if (w.status != IBV_WC_SUCCESS && w.status != IBV_WC_WR_FLUSH_ERR) {
            log(1, "QP 0x%x: WQE wr_id %llu failed with %s; QP to ERR", qp->qpx.qp_base.qp_num,
                static_cast<unsigned long long>(w.wr_id), ibv_wc_status_str(w.status));
            qp_to_error_locked(qp, IBV_EVENT_QP_FATAL);
        }
    }
    // A completion may have released a held SEND/WRITE_WITH_IMM: run what waited behind it.
    if (qp->hold_seq && !qp->pumping && !sq_held_locked(qp)) {
        if (qp->adv)
            adversary_schedule_locked(qp);
        else
            sq_pump_locked(qp);
    }
}

bool requester_reply_locked(Qp *qp, const Frame &f, const uint8_t *payload)
{
    if (!qp || qp->dead)
        return true;
    Wqe *w = find_wqe(qp, f.seq);
    if (!w || w->done)
        return true; // late reply to a WQE that already completed (flushed, failed)
    // A reply must answer what the WQE asked: a READ response of exactly its length, an
    // atomic response to an atomic, and a NAK with an error status.
    bool read = w->op == IBV_WR_RDMA_READ, atomic = is_atomic(w->op);
    if (!w->executed || (f.op == kReadResp && (!read || f.len != w->length)) || (f.op == kAtomicResp && !atomic) ||
        (f.op == kAck && (read || atomic)) ||
        (f.op == kNak && (f.status == IBV_WC_SUCCESS || f.status > IBV_WC_TM_RNDV_INCOMPLETE)))
        return false;
    if (w->parts > 0)
        --w->parts;
    switch (f.op) {
    case kNak:
        finish(*w, static_cast<ibv_wc_status>(f.status));
        qp->sq_failed = true; // WQEs posted from now on flush (those already sent are dropped by the responder)
        break;
    case kReadResp:
        if (int st = scatter(w->sge, payload, f.len))
            finish(*w, static_cast<ibv_wc_status>(st));
        break;
    case kAtomicResp:
        if (int st = scatter(w->sge, reinterpret_cast<const uint8_t *>(&f.a), 8))
            finish(*w, static_cast<ibv_wc_status>(st));
        break;
    default: break;
    }
    // A WRITE still being placed chunk by chunk (adversary) holds one extra part.
    if (w->parts == 0 && w->executed)
        finish(*w, IBV_WC_SUCCESS);
    sq_advance_locked(qp);
    if (f.op == kReadResp || f.op == kAtomicResp || f.op == kNak) { // a READ/atomic slot may have freed up
        if (qp->adv)
            adversary_schedule_locked(qp);
        else
            sq_pump_locked(qp);
    }
    return true;
}

// Validates one work request as the hardware would at post time; 0 or errno.
int validate_wr(const Qp *qp, const ibv_send_wr *wr)
{
    switch (wr->opcode) {
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM:
    case IBV_WR_SEND:
    case IBV_WR_SEND_WITH_IMM: break;
    case IBV_WR_RDMA_READ:
    case IBV_WR_ATOMIC_CMP_AND_SWP:
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
        if (qp->qpx.qp_base.qp_type == IBV_QPT_UC) {
            log(1, "post_send: opcode %d on a UC QP (allowed: SEND, SEND_WITH_IMM, RDMA_WRITE, WRITE_WITH_IMM)",
                wr->opcode);
            return EINVAL; // UC has no responses to carry READ data or atomic results
        }
        break;
    default: return EINVAL;
    }
    if (wr->num_sge < 0 || static_cast<uint32_t>(wr->num_sge) > qp->cap.max_send_sge)
        return EINVAL;
    if (wr->num_sge && !wr->sg_list)
        return EINVAL;
    if (wr->send_flags & ~kKnownSendFlags)
        return EINVAL;
    if (wr->send_flags & IBV_SEND_INLINE) {
        if (!writes_remote(wr->opcode))
            return EINVAL;
        uint64_t total = 0;
        for (int i = 0; i < wr->num_sge; ++i)
            total += wr->sg_list[i].length;
        if (total > qp->cap.max_inline_data)
            return EINVAL;
    }
    if (is_atomic(wr->opcode)) {
        if (wr->num_sge != 1 || wr->sg_list[0].length != 8 || (wr->wr.atomic.remote_addr & 7))
            return EINVAL;
    }
    return 0;
}

Wqe wqe_from_wr_locked(Qp *qp, const ibv_send_wr *wr, uint64_t *total)
{
    Wqe w;
    w.wr_id = wr->wr_id;
    w.seq = qp->next_seq++;
    w.op = wr->opcode;
    w.flags = wr->send_flags;
    w.imm = wr->imm_data;
    w.sge.assign(wr->sg_list, wr->sg_list + wr->num_sge);
    *total = 0;
    for (const ibv_sge &s : w.sge)
        *total += s.length;
    if (wr->send_flags & IBV_SEND_INLINE) {
        w.is_inline = true;
        w.inline_data.resize(*total);
        uint64_t pos = 0;
        for (const ibv_sge &s : w.sge) {
            if (s.length == 0)
                continue; // UCX posts empty inline SGEs with addr 0: nothing to read there
            std::memcpy(w.inline_data.data() + pos, reinterpret_cast<const void *>(s.addr), s.length);
            pos += s.length;
        }
    }
    return w;
}

int post_send_locked(Qp *qp, ibv_send_wr *wr, ibv_send_wr **bad)
{
    if (hcts::mutant("sv_imm_overtakes_data") && wr && wr->next) {
        // Mutant: a chain ending in a WRITE_WITH_IMM posts its notify before the data WRITEs.
        ibv_send_wr *prev = wr;
        while (prev->next->next)
            prev = prev->next;
        if (ibv_send_wr *last = prev->next; last->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
            prev->next = nullptr;
            int rc = post_send_locked(qp, last, bad);
            if (rc == 0)
                rc = post_send_locked(qp, wr, bad);
            prev->next = last;
            return rc;
        }
    }
    const int rc = post_chain_locked(qp, wr, bad, validate_wr, [qp](Wqe w, const ibv_send_wr *one, uint64_t total) {
        if (hcts::mutant("sv_length_truncated_32")) {
            w.length = static_cast<uint32_t>(total); // Mutant: the 64-bit total is cut to 32 bits.
        } else {
            w.length = total > kMaxMsg ? kMaxMsg + 1 : static_cast<uint32_t>(total);
        }
        if (one->opcode == IBV_WR_RDMA_WRITE || one->opcode == IBV_WR_RDMA_WRITE_WITH_IMM ||
            one->opcode == IBV_WR_RDMA_READ) {
            w.raddr = one->wr.rdma.remote_addr;
            w.rkey = one->wr.rdma.rkey;
        } else if (is_atomic(one->opcode)) {
            w.raddr = one->wr.atomic.remote_addr;
            w.rkey = one->wr.atomic.rkey;
            w.compare_add = one->wr.atomic.compare_add;
            w.swap = one->wr.atomic.swap;
        }
        qp->sq.push_back(std::move(w));
        // Re-read for every WQE: an earlier one of this very chain may have failed.
        if (sq_flushing_locked(qp)) {
            finish(qp->sq.back(), IBV_WC_WR_FLUSH_ERR);
        } else {
            sq_pump_locked(qp); // executes it now unless something earlier is held
        }
    });
    if (rc != 0)
        return rc;
    if (qp->adv)
        adversary_schedule_locked(qp);
    sq_advance_locked(qp);
    return 0;
}

namespace {

int post_send(ibv_qp *ibqp, ibv_send_wr *wr, ibv_send_wr **bad)
{
    return guard_rc("post_send", [&]() -> int {
        if (fork_inherited(ibqp->context)) {
            if (bad)
                *bad = wr;
            return EPERM;
        }
        ibv_send_wr *dummy = nullptr;
        if (!bad)
            bad = &dummy;
        poller_posted();
        std::lock_guard lk(G().mu);
        if (ibqp->qp_type == IBV_QPT_UD)
            return ud_post_send_locked(to_qp(ibqp), wr, bad);
        return post_send_locked(to_qp(ibqp), wr, bad);
    });
}

int post_recv(ibv_qp *ibqp, ibv_recv_wr *wr, ibv_recv_wr **bad)
{
    return guard_rc("post_recv", [&]() -> int {
        if (fork_inherited(ibqp->context)) {
            if (bad)
                *bad = wr;
            return EPERM;
        }
        ibv_recv_wr *dummy = nullptr;
        if (!bad)
            bad = &dummy;
        Qp *qp = to_qp(ibqp);
        std::lock_guard lk(G().mu);
        if (ibqp->state == IBV_QPS_RESET || qp->srq) {
            if (qp->srq)
                log(1, "post_recv: QP 0x%x takes its RECVs from an SRQ (use ibv_post_srq_recv)", ibqp->qp_num);
            *bad = wr;
            return EINVAL;
        }
        for (; wr; wr = wr->next) {
            if (wr->num_sge < 0 || static_cast<uint32_t>(wr->num_sge) > qp->cap.max_recv_sge ||
                (wr->num_sge && !wr->sg_list)) {
                *bad = wr;
                return EINVAL;
            }
            if (qp->rq.size() >= qp->cap.max_recv_wr) {
                *bad = wr;
                return ENOMEM;
            }
            RecvWqe r;
            r.wr_id = wr->wr_id;
            r.sge.assign(wr->sg_list, wr->sg_list + wr->num_sge);
            if (qp->adv)
                r.visible = adversary_recv_delay_locked(qp);
            qp->rq.push_back(std::move(r));
        }
        if (ibqp->state == IBV_QPS_ERR)
            flush_recvs_locked(qp); // RECVs posted in ERR complete at once
        rq_changed_locked(qp);
        return 0;
    });
}

} // namespace

void fill_qp_ops(ibv_context_ops *ops)
{
    ops->post_send = post_send;
    ops->post_recv = post_recv;
}

} // namespace sv
