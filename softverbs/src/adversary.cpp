// Adversarial mode (SOFTVERBS_SEED): everything a strict RC NIC may legally do
// to expose a protocol that relies on more than verbs promises.
//  * WQEs of a QP execute in order, each after a random delay; every QP has
//    its own skew, so QPs drift apart and send/recv completions interleave.
//  * A WRITE is split into chunks placed in shuffled order (often the last chunk
//    first; sometimes on a grid that tears aligned 8-byte words) at random later
//    times, reading the source lazily chunk by chunk.
//    Where two WRITEs of one QP overlap, the earlier lands first (RC executes
//    requests in order, so the later one's data wins); disjoint WRITEs land in any order.
//    Its placement may be deferred until the first of: a later WRITE_WITH_IMM /
//    SEND / ATOMIC / READ on the same QP executes (all pending data lands
//    first), or its own placement timer fires. Its completion comes after.
//  * A READ executes late (its value taken then); later unfenced operations
//    overtake it. IBV_SEND_FENCE makes an operation wait for earlier READs.
// No timer ever spins: the adversary thread sleeps on a condition variable.
#include "sv.h"

#include <hcts/mutant.h>

#include <pthread.h>

#include <algorithm>
#include <optional>
#include <thread>

namespace sv {

namespace {

std::atomic<uint64_t> g_seed{~0ull}; // ~0: not yet read from the environment
// Never destroyed: the detached adversary thread may be waiting on it at exit. A forked
// child gets its own (the parent's may count waiters that are not in the child).
struct AdvState {
    std::condition_variable cv;
    bool thread_started = false; // under G().mu
    AdvState *inherited = nullptr;
};
std::atomic<AdvState *> g_adv{new AdvState};
std::condition_variable &adv_cv() { return g_adv.load(std::memory_order_relaxed)->cv; }

using us = std::chrono::microseconds;

us delay(Qp *qp, int max_us)
{
    std::uniform_int_distribution<int> d(0, max_us);
    int v = d(qp->rng);
    if (qp->rng() % 8 == 0)
        v *= 4; // an occasional straggler
    return us(static_cast<long>(v * qp->skew));
}

void fail(Wqe &w, int st) { finish(w, static_cast<ibv_wc_status>(st)); }

void release_hold(Wqe &w)
{
    if (w.parts > 0)
        --w.parts;
    if (w.parts == 0 && !w.done)
        w.done = true;
}

// Commits the next chunk of a pending WRITE; false when it has no more.
bool commit_chunk(Qp *qp, Qp::Pending &p)
{
    Wqe *w = find_wqe(qp, p.seq);
    if (!w || w->done) {
        p.chunks.clear();
        return false;
    }
    if (p.chunks.empty())
        return false;
    auto [off, len] = p.chunks.back();
    p.chunks.pop_back();
    uint64_t seq = w->seq;
    if (int st = place_locked(qp, *w, off, len)) {
        fail(*w, st);
        p.chunks.clear();
        return false;
    }
    w = find_wqe(qp, seq); // an in-process responder may have answered already
    if (!w || w->done) {
        p.chunks.clear();
        return false;
    }
    if (p.chunks.empty())
        release_hold(*w);
    return !p.chunks.empty();
}

// All WRITEs pending before seq `before` land now (their chunks still in shuffled order).
// leave_tail (mutant only): each one's last chunk is left to its own timer.
void flush_writes(Qp *qp, uint64_t before, bool leave_tail = false)
{
    if (hcts::mutant("sv_adversary_flush_latest_only")) {
        // Mutant: only the latest pending WRITE before `before` lands; earlier ones keep their timers.
        auto latest = qp->pend.end();
        for (auto it = qp->pend.begin(); it != qp->pend.end(); ++it)
            if (!it->is_read && it->seq < before && (latest == qp->pend.end() || it->seq > latest->seq))
                latest = it;
        if (latest != qp->pend.end()) {
            while (commit_chunk(qp, *latest)) {
            }
            qp->pend.erase(latest);
        }
        return;
    }
    for (auto it = qp->pend.begin(); it != qp->pend.end();) {
        if (!it->is_read && it->seq < before) {
            while ((!leave_tail || it->chunks.size() > 1) && commit_chunk(qp, *it)) {
            }
            if (leave_tail && !it->chunks.empty()) {
                ++it;
                continue;
            }
            it = qp->pend.erase(it);
        } else {
            ++it;
        }
    }
}

// The remote bytes [raddr, raddr + length) of the pending WRITE `seq`, if it is still queued.
std::optional<std::pair<uint64_t, uint64_t>> write_range(Qp *qp, uint64_t seq)
{
    const Wqe *w = find_wqe(qp, seq);
    if (!w)
        return std::nullopt;
    return std::pair<uint64_t, uint64_t>{w->raddr, w->raddr + w->length};
}

bool ranges_meet(std::pair<uint64_t, uint64_t> a, std::pair<uint64_t, uint64_t> b)
{
    if (hcts::mutant("sv_adversary_waw_same_start_only"))
        return a.first == b.first; // Mutant: only WRITEs with the same start keep their order.
    return a.first < b.second && b.first < a.second;
}

bool earlier_write_overlaps(Qp *qp, uint64_t seq)
{
    const auto mine = write_range(qp, seq);
    if (!mine)
        return false;
    return std::any_of(qp->pend.begin(), qp->pend.end(), [&](const Qp::Pending &q) {
        if (q.is_read || q.seq >= seq)
            return false;
        const auto theirs = write_range(qp, q.seq);
        return theirs && ranges_meet(*mine, *theirs);
    });
}

// Lands, in full, every pending WRITE before `seq` that overlaps it (and, transitively,
// those overlapping them, by landing all earlier WRITEs that meet any of the set).
void flush_overlapping_writes(Qp *qp, uint64_t seq)
{
    const auto mine = write_range(qp, seq);
    for (auto it = qp->pend.begin(); it != qp->pend.end();) {
        const auto theirs = it->is_read || it->seq >= seq ? std::nullopt : write_range(qp, it->seq);
        if (mine && theirs && ranges_meet(*mine, *theirs)) {
            // An earlier WRITE overlapping this one may itself sit over a still earlier one.
            const uint64_t earlier = it->seq;
            if (earlier_write_overlaps(qp, earlier)) {
                flush_overlapping_writes(qp, earlier);
                it = qp->pend.begin();
                continue;
            }
            while (commit_chunk(qp, *it)) {
            }
            it = qp->pend.erase(it);
        } else {
            ++it;
        }
    }
}

void run_read(Qp *qp, uint64_t seq)
{
    flush_writes(qp, seq);
    if (Wqe *w = find_wqe(qp, seq); w && !w->done)
        issue_tail_locked(qp, *w);
}

void flush_reads(Qp *qp, uint64_t before)
{
    for (;;) {
        auto it = std::find_if(qp->pend.begin(), qp->pend.end(),
                               [&](const Qp::Pending &p) { return p.is_read && p.seq < before; });
        if (it == qp->pend.end())
            return;
        uint64_t seq = it->seq;
        qp->pend.erase(it);
        run_read(qp, seq);
    }
}

void execute_adversarial(Qp *qp, Wqe &w, Clock::time_point now)
{
    if (!start_execution(w))
        return;
    uint64_t seq = w.seq;
    if ((w.flags & IBV_SEND_FENCE) && !hcts::mutant("sv_adversary_fence_ignored"))
        flush_reads(qp, seq); // Mutant (skipped): a fenced operation overtakes earlier READs.
    switch (w.op) {
    case IBV_WR_RDMA_WRITE: {
        if (w.length == 0)
            return release_hold(w);
        uint32_t csize = 64u << (qp->rng() % 11);
        while (csize > 64 && w.length / csize < 4)
            csize /= 2;
        while (w.length / csize > 16)
            csize *= 2;
        Qp::Pending p;
        p.seq = seq;
        // Now and then shift the chunk grid by 4 bytes so aligned 8-byte words tear across chunks.
        uint32_t shift = (qp->rng() % 4 == 0 && csize > 4) ? 4 : 0;
        for (uint32_t off = 0; off < w.length;) {
            uint32_t n = std::min(off == 0 ? csize - shift : csize, w.length - off);
            p.chunks.emplace_back(off, n);
            off += n;
        }
        std::shuffle(p.chunks.begin(), p.chunks.end(), qp->rng);
        if (qp->rng() % 2 && p.chunks.size() > 1) { // the last chunk first: bites last-byte polling
            auto last = std::max_element(p.chunks.begin(), p.chunks.end());
            std::iter_swap(last, p.chunks.end() - 1); // chunks are consumed from the back
        }
        p.due = now + delay(qp, 100);
        ++w.parts; // held until the last chunk is placed
        qp->pend.push_back(std::move(p));
        return;
    }
    case IBV_WR_RDMA_READ: {
        Qp::Pending p;
        p.seq = seq;
        p.is_read = true;
        p.due = now + delay(qp, 400);
        qp->pend.push_back(std::move(p));
        return;
    }
    default:
        // A notify, SEND or ATOMIC: earlier WRITE data lands first, then this operation
        // (reading its own source only now).
        // Mutants: the notify overtakes data still being placed (skipped), or every earlier
        // WRITE's last chunk is left to land after it (leave_tail).
        if (!(w.op == IBV_WR_RDMA_WRITE_WITH_IMM && hcts::mutant("sv_adversary_imm_overtakes_data")))
            flush_writes(qp, seq, hcts::mutant("sv_adversary_flush_leaves_tail"));
        if (Wqe *x = find_wqe(qp, seq)) {
            if (x->op == IBV_WR_RDMA_WRITE_WITH_IMM) {
                if (int st = place_locked(qp, *x, 0, x->length))
                    return fail(*x, st);
                x = find_wqe(qp, seq);
                if (!x || x->done)
                    return;
            }
            issue_tail_locked(qp, *x);
        }
    }
}

Clock::time_point step_qp(Qp *qp, Clock::time_point now)
{
    Clock::time_point next = Clock::time_point::max();
    if (qp->qpx.qp_base.state != IBV_QPS_RTS)
        return next;
    for (size_t i = 0; i < qp->pend.size();) {
        Qp::Pending &p = qp->pend[i];
        if (p.due <= now) {
            if (p.is_read) {
                uint64_t seq = p.seq;
                qp->pend.erase(qp->pend.begin() + static_cast<long>(i));
                run_read(qp, seq);
                continue; // the read may have flushed entries: re-examine from i
            }
            // An RC responder executes requests in order, so where two WRITEs overlap the
            // later one's data wins (write-after-write to one address keeps its order):
            // an earlier pending WRITE over the same bytes lands first. Disjoint WRITEs stay
            // free to land in any order (a flag set by a later plain WRITE is no signal).
            if (earlier_write_overlaps(qp, p.seq)) {
                flush_overlapping_writes(qp, p.seq);
                i = 0;
                continue;
            }
            if (!commit_chunk(qp, p)) {
                qp->pend.erase(qp->pend.begin() + static_cast<long>(i));
                continue;
            }
            p.due = now + delay(qp, 60);
        }
        next = std::min(next, p.due);
        ++i;
    }
    auto it = std::find_if(qp->sq.begin(), qp->sq.end(), [](const Wqe &w) { return !w.executed; });
    bool blocked = false;
    if (it != qp->sq.end()) {
        if (sq_flushing_locked(qp)) {
            // An earlier WQE failed: nothing behind it executes.
            for (; it != qp->sq.end(); ++it)
                if (!it->executed) {
                    it->executed = true;
                    fail(*it, IBV_WC_WR_FLUSH_ERR);
                }
        } else if (sq_held_locked(qp)) {
            // An earlier SEND/WRITE_WITH_IMM waits for a RECV: nothing behind it runs. Its
            // completion wakes us (sq_advance_locked -> adversary_schedule_locked).
            sq_advance_locked(qp);
            return next;
        } else if (qp->next_exec <= now) {
            bool rd = it->op == IBV_WR_RDMA_READ || it->op == IBV_WR_ATOMIC_CMP_AND_SWP ||
                      it->op == IBV_WR_ATOMIC_FETCH_AND_ADD;
            if (rd && rd_atomic_full_locked(qp)) {
                blocked = true; // an answer wakes us (requester_reply_locked)
            } else {
                uint64_t seq = it->seq;
                ibv_wr_opcode op = it->op;
                execute_adversarial(qp, *it, now);
                note_failure_locked(qp, seq);
                sq_note_hold_locked(qp, seq, op);
                qp->next_exec = now + delay(qp, 150);
            }
        }
        if (!blocked && std::any_of(qp->sq.begin(), qp->sq.end(), [](const Wqe &w) { return !w.executed; }))
            next = std::min(next, qp->next_exec);
        for (const Qp::Pending &p : qp->pend)
            next = std::min(next, p.due);
    }
    sq_advance_locked(qp);
    return next;
}

void adversary_loop()
{
    pthread_setname_np(pthread_self(), "sv-adversary");
    std::unique_lock lk(G().mu);
    for (;;) {
        auto now = Clock::now();
        Clock::time_point next = Clock::time_point::max();
        // QPs may be created or destroyed while we run an operation: iterate a snapshot of numbers.
        std::vector<uint32_t> qpns;
        qpns.reserve(G().qps.size());
        for (auto &[n, qp] : G().qps)
            qpns.push_back(n);
        for (uint32_t n : qpns)
            if (Qp *qp = find_qp_locked(n))
                next = std::min(next, step_qp(qp, now));
        if (next == Clock::time_point::max())
            adv_cv().wait(lk);
        else
            adv_cv().wait_until(lk, next);
    }
}

} // namespace

void adversary_after_fork_in_child()
{
    auto *own = new AdvState;
    own->inherited = g_adv.load(); // the parent's is left as it is
    g_adv.store(own);
}

uint64_t current_seed()
{
    uint64_t s = g_seed.load(std::memory_order_relaxed);
    if (s == ~0ull) {
        s = config().seed;
        g_seed.store(s, std::memory_order_relaxed);
    }
    return s;
}

bool adversarial() { return current_seed() != 0; }

Clock::time_point adversary_recv_delay_locked(Qp *qp)
{
    // Half of the RECVs reach the HCA late: exposes notifies whose RECVs are not pre-posted.
    if (qp->rng() % 2)
        return {};
    return Clock::now() + delay(qp, 300);
}

void adversary_schedule_locked(Qp *qp)
{
    if (!g_adv.load(std::memory_order_relaxed)->thread_started) {
        // Marked started only once it is: a post that could not start it fails (its guard
        // maps the exception to an errno) and the next post tries again.
        std::thread(run_thread, "adversary", adversary_loop).detach();
        g_adv.load(std::memory_order_relaxed)->thread_started = true;
    }
    auto now = Clock::now();
    if (qp->next_exec < now)
        qp->next_exec = now + delay(qp, 150);
    adv_cv().notify_all();
}

} // namespace sv

// Test hook (not part of the libibverbs ABI; exported under SOFTVERBS_PRIVATE):
// switch the adversary's seed for QPs created from now on. 0 = sane mode.
extern "C" void softverbs_reseed(uint64_t seed) { sv::g_seed.store(seed ? seed : 0, std::memory_order_relaxed); }
