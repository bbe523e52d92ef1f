// The responder side of an RC or UC QP: executes incoming requests strictly in order,
// checks every remote access against the local MR table (rkey, bounds, access,
// registration generation), consumes RECVs (from the QP's RQ or its SRQ), holds a
// request while no RECV is posted (RC: receiver not ready) and answers with ACK, NAK
// or data. UC has no acknowledgements: what RC would NAK (no RECV, remote access
// error, responder in ERR) is dropped silently, and the requester's WQE still
// completes successfully; the internal ACK only tells the requester that the message
// left, so its completions stay in order.
#include "dma.h"
#include "sv.h"

#include <hcts/mutant.h>

#include <cstring>
#include <unordered_map>

namespace sv {

namespace {

// IBTA encoding of min_rnr_timer, in microseconds.
constexpr uint32_t kRnrUs[32] = {655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,   320,
                                 480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240, 15360,
                                 20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520};

void clear_pending(Responder *r)
{
    r->pending.clear();
    r->pending_bytes = 0;
}

void reply_locked(Responder *r, Frame f, const uint8_t *payload, size_t len)
{
    f.len = static_cast<uint32_t>(len);
    if (r->local_requester) {
        requester_reply_locked(r->local_requester, f, payload);
    } else if (r->conn && !r->conn->closed) {
        conn_send_locked(r->conn, f, payload, len);
    }
}

void nak_locked(Responder *r, const Frame &req, ibv_wc_status st)
{
    Frame f{};
    f.op = kNak;
    f.status = static_cast<uint8_t>(st);
    f.seq = req.seq;
    reply_locked(r, f, nullptr, 0);
}

void ack_locked(Responder *r, const Frame &req)
{
    Frame f{};
    f.op = kAck;
    f.seq = req.seq;
    reply_locked(r, f, nullptr, 0);
}

bool is_uc(const Responder *r) { return r->qp && r->qp->qpx.qp_base.qp_type == IBV_QPT_UC; }

// UC: the message is dropped without a trace at the responder (IBTA: no NAK on UC,
// the QP stays as it is); the requester is only told that it was sent.
void uc_drop_locked(Responder *r, const Frame &req, const char *why)
{
    log(2, "UC QP 0x%x: message (op %u) from QP 0x%x dropped: %s", r->qp ? r->qp->qpx.qp_base.qp_num : 0u, req.op,
        r->src_qpn, why);
    ack_locked(r, req);
}

// A remote access error: NAK the requester and move this QP to ERR, as an RC
// responder does; the stream is dead from here on. UC drops the message instead.
void access_error_locked(Responder *r, const Frame &req, ibv_wc_status st)
{
    if (is_uc(r))
        return uc_drop_locked(r, req, "remote access error");
    nak_locked(r, req, st);
    r->broken = true;
    clear_pending(r);
    if (r->qp)
        qp_to_error_locked(r->qp, IBV_EVENT_QP_ACCESS_ERR);
}

bool check_remote(Qp *qp, uint32_t rkey, uint64_t addr, uint64_t len, uint32_t need, MrView *v)
{
    if (!(qp->attr.qp_access_flags & need))
        return false;
    // IBTA: an R_Key of another protection domain is a remote access error like a bad one.
    return mr_lookup(local_mr_table(), rkey, v) && v->pd == pd_handle(qp->qpx.qp_base.pd) &&
           mr_check(*v, addr, len, need) == 0;
}

// Executes one request (the head of r->pending, or one arriving while nothing is
// pending); false when it must wait for a RECV. On true the caller pops it unless the
// stream broke (then pending was cleared).
bool run_one_locked(Responder *r, const Frame &f, const uint8_t *payload)
{
    Qp *qp = r->qp;
    MrView v;
    switch (f.op) {
    case kWrite:
        if (!check_remote(qp, f.rkey, f.raddr, f.len, IBV_ACCESS_REMOTE_WRITE, &v)) {
            access_error_locked(r, f, IBV_WC_REM_ACCESS_ERR);
            return true;
        }
        if (!(f.flags & kPlaced) && f.len)
            dma_copy(reinterpret_cast<void *>(f.raddr), payload, f.len);
        ack_locked(r, f);
        break;
    case kWriteImm:
    case kSend:
    case kSendImm: {
        auto now = Clock::now();
        Clock::time_point later;
        RecvWqe *next = next_recv_locked(qp, now, &later);
        // UC: a posted RECV the adversary keeps invisible for a while was posted before the
        // message arrived, so the message waits for it rather than being dropped.
        if (!next && later == Clock::time_point::max() && is_uc(r)) {
            uc_drop_locked(r, f, "no RECV posted");
            return true;
        }
        // WRITE_WITH_IMM into a bad rkey: the RECV is not consumed (checked once it is there).
        if (next && f.op == kWriteImm && f.len &&
            !check_remote(qp, f.rkey, f.raddr, f.len, IBV_ACCESS_REMOTE_WRITE, &v)) {
            r->rnr_waiting = false;
            r->recheck = Clock::time_point::max();
            access_error_locked(r, f, IBV_WC_REM_ACCESS_ERR);
            return true;
        }
        if (!next) {
            if (later != Clock::time_point::max()) {
                r->recheck = later;
                transport_kick();
            }
            if (!r->rnr_waiting) {
                r->rnr_waiting = true;
                auto per_try = std::chrono::microseconds(kRnrUs[qp->attr.min_rnr_timer & 31]);
                // rnr_retry 7 means "retry for ever" (IBTA). Mutant: 7 finite retries.
                const bool infinite = r->rnr_retry >= 7 && !hcts::mutant("sv_rnr_retry_7_finite");
                r->rnr_deadline = infinite ? Clock::time_point::max() : now + per_try * (r->rnr_retry + 1);
                if (!infinite)
                    transport_kick(); // the progress thread owns the deadline
            }
            if (now < r->rnr_deadline)
                return false;
            if (is_uc(r)) { // UC knows no RNR NAK: a RECV still invisible by now is missed
                r->rnr_waiting = false;
                r->recheck = Clock::time_point::max();
                uc_drop_locked(r, f, "RECV not visible in time");
                return true;
            }
            log(1, "QP 0x%x: receiver not ready past rnr_retry %u", qp->qpx.qp_base.qp_num, r->rnr_retry);
            nak_locked(r, f, IBV_WC_RNR_RETRY_EXC_ERR);
            r->broken = true;
            clear_pending(r);
            return true;
        }
        r->rnr_waiting = false;
        r->recheck = Clock::time_point::max();
        RecvWqe rw = consume_recv_locked(qp);
        Cqe e;
        e.qp = qp;
        e.wc.wr_id = rw.wr_id;
        e.wc.qp_num = qp->qpx.qp_base.qp_num;
        e.wc.src_qp = r->src_qpn;
        if (hcts::mutant("sv_imm_src_qp_wrong")) {
            e.wc.src_qp = qp->qpx.qp_base.qp_num; // Mutant: the receiving QP reported as the source.
        }
        e.wc.byte_len = f.len;
        if (f.op == kWriteImm) {
            if (!(f.flags & kPlaced) && f.len)
                dma_copy(reinterpret_cast<void *>(f.raddr), payload, f.len);
            e.wc.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
        } else {
            uint64_t room = 0;
            for (const ibv_sge &s : rw.sge)
                room += s.length;
            ibv_wc_status st = IBV_WC_SUCCESS;
            if (room < f.len) {
                st = IBV_WC_LOC_LEN_ERR;
            } else {
                uint64_t pos = 0;
                for (const ibv_sge &s : rw.sge) {
                    if (pos >= f.len)
                        break;
                    uint64_t n = std::min<uint64_t>(s.length, f.len - pos);
                    if (!mr_lookup(local_mr_table(), s.lkey, &v) || mr_check(v, s.addr, n, IBV_ACCESS_LOCAL_WRITE)) {
                        st = IBV_WC_LOC_PROT_ERR;
                        break;
                    }
                    dma_copy(reinterpret_cast<void *>(s.addr), payload + pos, n);
                    pos += n;
                }
            }
            e.wc.opcode = IBV_WC_RECV;
            if (st != IBV_WC_SUCCESS) {
                e.wc.status = st;
                cq_push_locked(qp->rcq, e);
                if (is_uc(r)) {
                    // UC: the RECV completes in error and the QP enters ERR (a local error),
                    // but the requester is not told.
                    ack_locked(r, f);
                    qp_to_error_locked(qp, IBV_EVENT_QP_FATAL);
                    return true;
                }
                access_error_locked(r, f, IBV_WC_REM_INV_REQ_ERR);
                return true;
            }
        }
        if (f.op != kSend) {
            e.wc.wc_flags = IBV_WC_WITH_IMM;
            e.wc.imm_data = f.imm;
        }
        if (f.op == kWriteImm && hcts::mutant("sv_imm_replayed")) {
            // Mutant: the previous WRITE_WITH_IMM's completion of this QP is delivered again
            // along with this one (a stale entry left in a reused CQ slot).
            static std::unordered_map<uint32_t, Cqe> previous; // by QP number; under G().mu
            auto it = previous.find(e.wc.qp_num);
            if (it != previous.end())
                cq_push_locked(qp->rcq, it->second);
            previous[e.wc.qp_num] = e;
        }
        static uint64_t imm_count = 0; // under G().mu
        // Mutant (selftest/catalogue/survivors.yaml): past a QP's 2000th WRITE_WITH_IMM, every
        // 50th consumes its RECV and is acked, but its completion is lost.
        static std::unordered_map<uint32_t, uint64_t> imm_per_qp; // by QP number; under G().mu
        const bool lost_late = f.op == kWriteImm && hcts::mutant("sv_recv_cqe_lost_past_2000") &&
                               ++imm_per_qp[e.wc.qp_num] > 2000 && imm_per_qp[e.wc.qp_num] % 50 == 0;
        if (lost_late) {
            // The completion is not pushed (see above).
        } else if (f.op == kWriteImm && hcts::mutant("sv_recv_cqe_lost") && ++imm_count % 61 == 0) {
            // Mutant: every 61st WRITE_WITH_IMM consumes its RECV and is acked, but its completion is lost.
        } else {
            cq_push_locked(qp->rcq, e);
            std::deque<Cqe> &q = qp->rcq->q;
            if (qp->adv && hcts::mutant("sv_adversary_recv_cqe_reordered") && q.size() >= 2 &&
                q[q.size() - 2].qp == qp && (q[q.size() - 2].wc.opcode & IBV_WC_RECV) && qp->rng() % 2) {
                // Mutant: the adversary's delays reach the receive CQ: a completion may be
                // delivered ahead of its QP's previous one that is still waiting to be polled.
                std::swap(q[q.size() - 2], q.back());
            }
        }
        ack_locked(r, f);
        break;
    }
    case kRead: {
        if (!check_remote(qp, f.rkey, f.raddr, f.len, IBV_ACCESS_REMOTE_READ, &v)) {
            access_error_locked(r, f, IBV_WC_REM_ACCESS_ERR);
            return true;
        }
        Frame rf{};
        rf.op = kReadResp;
        rf.seq = f.seq;
        reply_locked(r, rf, reinterpret_cast<const uint8_t *>(f.raddr), f.len);
        break;
    }
    case kCmpSwp:
    case kFetchAdd: {
        if ((f.raddr & 7) || !check_remote(qp, f.rkey, f.raddr, 8, IBV_ACCESS_REMOTE_ATOMIC, &v)) {
            access_error_locked(r, f, IBV_WC_REM_ACCESS_ERR);
            return true;
        }
        auto *p = reinterpret_cast<uint64_t *>(f.raddr);
        uint64_t old;
        if (f.op == kFetchAdd) {
            old = dma_fetch_add(p, f.a);
        } else {
            old = dma_cmp_swap(p, f.a, f.b);
        }
        Frame rf{};
        rf.op = kAtomicResp;
        rf.seq = f.seq;
        rf.a = old;
        reply_locked(r, rf, nullptr, 0);
        break;
    }
    default: access_error_locked(r, f, IBV_WC_REM_INV_REQ_ERR); return true;
    }
    return true;
}

// Refuses a stream whose requester is not the peer this QP is connected to: nothing of
// it executes, the requester sees its peer unreachable, this QP is left as it was.
void refuse_stream_locked(Responder *r, const Frame &head)
{
    log(1, "QP 0x%x: refusing requests from QP 0x%x, which is not its connected peer", r->qp->qpx.qp_base.qp_num,
        r->src_qpn);
    if (r->local_requester)
        nak_locked(r, head, IBV_WC_RETRY_EXC_ERR);
    r->broken = true;
    clear_pending(r);
    if (r->conn) {
        r->conn->responder = nullptr;
        r->conn->closed = true;
        r->conn.reset();
        transport_kick(); // the progress thread drops the connection
    }
}

// Whether requests may execute now; NAKs and breaks the stream in ERR/RESET.
bool responder_ready_locked(Responder *r, const Frame &head)
{
    ibv_qp_state st = r->qp->qpx.qp_base.state;
    if (!r->verified && (st == IBV_QPS_RTR || st == IBV_QPS_RTS)) {
        if (!responder_peer_ok_locked(r->qp, r)) {
            refuse_stream_locked(r, head);
            return false;
        }
        r->verified = true;
    }
    if (st == IBV_QPS_ERR || st == IBV_QPS_RESET) {
        if (is_uc(r)) { // UC: silently dropped; the stream stays usable after a reset
            // (head, when not queued, is queued by responder_deliver_locked and dropped then)
            for (auto &q : r->pending)
                uc_drop_locked(r, q.f, "QP in ERR or RESET");
            clear_pending(r);
            return false;
        }
        // A responder in error drops requests; the requester retries until it gives up.
        nak_locked(r, head, IBV_WC_RETRY_EXC_ERR);
        r->broken = true;
        clear_pending(r);
        return false;
    }
    return st != IBV_QPS_INIT; // in INIT packets wait (as retries would) until RTR
}

} // namespace

void responder_run_locked(Responder *r)
{
    while (!r->broken && r->qp && !r->pending.empty()) {
        if (!responder_ready_locked(r, r->pending.front().f))
            return;
        Responder::Req &q = r->pending.front();
        if (!run_one_locked(r, q.f, q.payload.data()))
            return;
        if (!r->broken) {
            r->pending_bytes -= r->pending.front().payload.size();
            r->pending.pop_front(); // a broken stream has already dropped everything
            if (r->conn && r->conn->paused)
                transport_kick(); // the progress thread may read this peer again
        }
    }
}

void responder_push_locked(Responder *r, Frame f, std::vector<uint8_t> payload)
{
    if (r->broken)
        return;
    r->pending_bytes += payload.size();
    r->pending.push_back({f, std::move(payload)});
    if (r->pending.size() == 1)
        responder_run_locked(r);
}

void responder_deliver_locked(Responder *r, const Frame &f, const uint8_t *payload, size_t len)
{
    if (r->broken)
        return;
    // Nothing queued ahead: run it straight from the receive buffer, without a copy.
    if (r->pending.empty() && r->qp && responder_ready_locked(r, f) && run_one_locked(r, f, payload))
        return;
    if (r->broken)
        return;
    r->pending_bytes += len;
    r->pending.push_back({f, std::vector<uint8_t>(payload, payload + len)});
    if (r->pending.size() == 1)
        responder_run_locked(r);
}

void rq_changed_locked(Qp *qp)
{
    qp_publish_recvs_locked(qp);
    for (auto &r : qp->responders)
        responder_run_locked(r.get());
}

// Re-examines responders waiting for a RECV; returns the nearest RNR deadline.
Clock::time_point responder_timers_locked()
{
    Clock::time_point next = Clock::time_point::max();
    for (auto &[n, qp] : G().qps)
        for (auto &r : qp->responders)
            if (r->rnr_waiting && !r->broken) {
                responder_run_locked(r.get());
                if (r->rnr_waiting && !r->broken)
                    next = std::min({next, r->rnr_deadline, r->recheck});
            }
    return next;
}

} // namespace sv
