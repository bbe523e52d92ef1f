// The adversary's own checks. In adversarial mode softverbs delays, splits and shuffles
// whatever an RC QP leaves open, and must still keep every ordering rule an RC QP promises
// (/work/shared/design/verbs-semantics.md §5.2, and the bounds its §7 sets on deferring a
// WRITE's placement):
//  * every byte of the WRITEs posted before a WRITE_WITH_IMM or SEND on the same QP (and the
//    notify's own data) is in the responder's memory when it polls that receive completion
//    (rule 1, §7 (a));
//  * receive completions come in message order and consume the RECVs in posting order;
//    send completions come in posting order (in one process and, TwoProcessWritesBeforeNotify,
//    between two: the route of the reference's ranks);
//  * a READ after WRITEs on the QP returns their data, and an ATOMIC after them updates memory
//    only once they are placed (§7 (b); IBTA's "a later ATOMIC has updated memory");
//  * IBV_SEND_FENCE after a READ: the fenced operation does not overtake the READ (rule 5);
//  * a requester completion of a WQE means every WRITE up to it has been placed (§7 (c):
//    softverbs' own bound, not a promise of RC itself; the design's pessimistic L2 mode,
//    not built, would lift it).
// The adversary must also be seen biting (AdversaryBites): a WRITE still unplaced when
// ibv_post_send returned, a WRITE's pieces placed out of order, an unfenced WRITE that
// overtook an earlier READ. Without that, the checks above would pass against a disabled
// adversary (the control: HCTS_SV_ORDER_SANE=1 runs them on the sane device, where only
// AdversaryBites must fail).
//
// Each seed (softverbs_reseed before the QPs are made) is an adversary schedule; the seeds
// are random unless HCTS_SV_ORDER_SEED (first seed) and HCTS_SV_ORDER_SEEDS (how many, default
// 4) are given; the run prints them with a one-line reproducer.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <arpa/inet.h>
#include <cinttypes>
#include <cstdlib>
#include <random>
#include <sstream>
#include <vector>

#include "adversary_seed.h"
#include "two_process.h"
#include "verbs_fixture.h"

using namespace svt;
using namespace std::chrono_literals;

namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr size_t kBuf = 4u << 20;           // src and dst, each
constexpr size_t kSlot = 64u << 10;         // one RECV's buffer
constexpr size_t kSlots = 16;               // RECV buffers, at the start of aux
constexpr size_t kReadOff = kSlots * kSlot; // READ / atomic results, in aux
constexpr size_t kAux = kReadOff + (1u << 20) + 64;
constexpr int kDepth = 256;
constexpr auto kDeadline = 10s; // per batch or trial: a lost completion fails, never hangs

// ---- seeds and reproducer ----

struct Seeds {
    uint64_t first = 0;
    int count = 4;
    bool sane = false; // control run: the same checks on the sane device
};

const Seeds &seeds()
{
    static const Seeds s = [] {
        Seeds r;
        r.first = env_u64("HCTS_SV_ORDER_SEED", random_seed());
        r.count = static_cast<int>(env_u64("HCTS_SV_ORDER_SEEDS", 4));
        r.sane = env_u64("HCTS_SV_ORDER_SANE", 0) != 0;
        if (r.first == 0 || r.count < 1)
            fail("HCTS_SV_ORDER_SEED must be non-zero and HCTS_SV_ORDER_SEEDS at least 1");
        return r;
    }();
    return s;
}

// The command that runs `test` again on `count` seeds from `first` (the whole run by default).
std::string reproducer(const char *test, uint64_t first = 0, int count = 0)
{
    std::ostringstream o;
    o << "reproduce: ";
    for (const char *e : {"SOFTVERBS_TRANSPORT", "HCTS_MUTANT", "HCTS_SV_ORDER_SANE"})
        if (const char *v = std::getenv(e); v && *v)
            o << e << '=' << v << ' ';
    o << "HCTS_SV_ORDER_SEED=0x" << std::hex << (first ? first : seeds().first) << std::dec
      << " HCTS_SV_ORDER_SEEDS=" << (count ? count : seeds().count)
      << " build/bin/softverbs-run build/bin/softverbs_adversary_order_test --gtest_filter=AdversaryOrder." << test;
    return o.str();
}

void announce(const char *test)
{
    std::printf("adversary order %s: seeds 0x%" PRIx64 " .. 0x%" PRIx64 "%s\n%s\n", test, seeds().first,
                seeds().first + static_cast<uint64_t>(seeds().count) - 1, seeds().sane ? " (sane control run)" : "",
                reproducer(test).c_str());
    std::fflush(stdout);
}

// ---- the device under test: two RC QPs of one process, a -> b ----

// softverbs' threads do not survive fork: TwoProcessWritesBeforeNotify forks, so it runs
// first, before any test of this process has used verbs.
bool g_verbs_used = false;

struct Rig {
    Device dev;
    Buffer src, dst, aux; // a's source, b's memory, a's READ results + b's RECV buffers
    Mr smr, dmr, amr;
    Qp a, b;
    Rig()
        : src(kBuf, true), dst(kBuf, true), aux(kAux, true), smr(dev.pd, src.p, src.n, kAllAccess),
          dmr(dev.pd, dst.p, dst.n, kAllAccess), amr(dev.pd, aux.p, aux.n, kAllAccess), a(dev, kDepth), b(dev, kDepth)
    {
        g_verbs_used = true;
        a.connect(b.endpoint());
        b.connect(a.endpoint());
    }
    uint64_t daddr(uint64_t off) const { return reinterpret_cast<uintptr_t>(dst.p) + off; }
};

uint8_t peek(const uint8_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

// "" when got == want over len bytes, else what differs (count, first offset, values). got
// may still be changing (data landing late): every byte is read once, and reported as read.
std::string diff(const uint8_t *got, const uint8_t *want, size_t len)
{
    if (std::memcmp(got, want, len) == 0)
        return "";
    size_t first = len, n = 0;
    uint8_t first_got = 0;
    for (size_t i = 0; i < len; ++i)
        if (uint8_t g = peek(got + i); g != want[i]) {
            if (first == len) {
                first = i;
                first_got = g;
            }
            ++n;
        }
    if (n == 0)
        return "the bytes differed at the first look and were all there at the second";
    char b[160];
    std::snprintf(b, sizeof b, "%zu of %zu bytes differ, the first at +%zu (0x%02x, expected 0x%02x)", n, len, first,
                  first_got, want[first]);
    return b;
}

// Lengths across the adversary's chunking (64 B .. 64 KiB chunks, 4..16 per WRITE, grid
// sometimes shifted by 4 bytes) and around the powers of two a segmenting copy would use.
uint32_t pick_len(std::mt19937_64 &rng, uint32_t max)
{
    static constexpr uint32_t kEdges[] = {1,      3,      4,      7,      8,      63,      64,      65,
                                          127,    128,    255,    256,    257,    1023,    1024,    4095,
                                          4096,   4097,   16383,  16384,  16385,  65535,   65536,   65537,
                                          131073, 262143, 262144, 262149, 524288, 1048575, 1048576, 1048583};
    uint32_t v;
    switch (rng() % 8) {
    case 0: v = static_cast<uint32_t>(1 + rng() % 300000); break;
    case 1: v = static_cast<uint32_t>(1 + rng() % 2048); break;
    default: v = kEdges[rng() % std::size(kEdges)];
    }
    return std::max<uint32_t>(1, std::min(v, max));
}

void fill_random(uint8_t *p, size_t n, std::mt19937_64 &rng)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v = rng();
        std::memcpy(p + i, &v, 8);
    }
    for (; i < n; ++i)
        p[i] = static_cast<uint8_t>(rng());
}

// Every byte of dst[off, off+len) made different from what src holds there.
void poison(uint8_t *dst, const uint8_t *src, size_t len)
{
    for (size_t i = 0; i < len; ++i)
        dst[i] = static_cast<uint8_t>(~src[i]);
}

int post_list_raw(ibv_qp *qp, std::vector<ibv_send_wr> &wrs)
{
    for (size_t i = 0; i + 1 < wrs.size(); ++i)
        wrs[i].next = &wrs[i + 1];
    if (wrs.empty())
        return 0;
    wrs.back().next = nullptr;
    ibv_send_wr *bad = nullptr;
    return ibv_post_send(qp, &wrs[0], &bad);
}

// Polls until one completion arrives; fails the test on the deadline.
bool one_wc(ibv_cq *cq, ibv_wc *wc, const char *what)
{
    if (wait_wc(cq, wc, std::chrono::duration_cast<std::chrono::milliseconds>(kDeadline)))
        return true;
    ADD_FAILURE() << "no completion for " << what << " within " << kDeadline.count() << " s";
    return false;
}

// ---- 1. notifies: data before them, completions in order ----

struct Write {
    uint64_t off = 0; // in src and in dst (mirrored)
    uint32_t len = 0;
    uint64_t wr_id = 0;
    bool signaled = false;
    bool placed_checked = false;
};
struct Notify {
    ibv_wr_opcode op = IBV_WR_RDMA_WRITE_WITH_IMM;
    uint64_t off = 0; // its data: src (and dst for WRITE_WITH_IMM)
    uint32_t len = 0;
    uint32_t tag = 0;
    uint64_t wr_id = 0;
    bool signaled = false;
    uint64_t recv_wr_id = 0;
    size_t slot = 0;
    std::vector<size_t> writes; // indexes into the batch's writes, posted before it
};

// One batch: 1-4 groups of 0-24 WRITEs, each closed by a WRITE_WITH_IMM, SEND or
// SEND_WITH_IMM, all in flight at once; or a burst of 8-16 notifies with few WRITEs, which
// meets RECVs the adversary still hides. RECVs posted before the WQEs or after them (the
// notifies then wait for them); half of the time the receiver polls only once the sender has
// all its completions, so the receive completions wait in the CQ together.
struct Batch {
    std::vector<Write> writes;
    std::vector<Notify> notes;
    std::vector<uint64_t> signaled; // the signaled wr_ids, in posting order
    bool poll_after = false, recvs_late = false, chain = false;
};

// The batch's shape, from `plan` alone: the two processes of TwoProcess draw the same one.
struct Planner {
    std::mt19937_64 plan;
    uint64_t next_wr = 1, next_recv = 1;
    uint32_t next_tag = 1;
    explicit Planner(uint64_t seed) : plan(seed * 0x9e3779b97f4a7c15ull) {}
    Batch next()
    {
        auto &rng = plan;
        Batch b;
        size_t cursor = rng() % 64;
        const bool burst = rng() % 3 == 0;
        const int groups = burst ? 8 + static_cast<int>(rng() % 9) : 1 + static_cast<int>(rng() % 4);
        b.poll_after = rng() % 2;
        b.recvs_late = rng() % 3 == 0;
        b.chain = rng() % 2;
        for (int g = 0; g < groups; ++g) {
            Notify n;
            int nw = burst            ? static_cast<int>(rng() % 4 == 0)
                     : rng() % 4 == 0 ? static_cast<int>(rng() % 25)
                                      : static_cast<int>(rng() % 6);
            for (int i = 0; i < nw; ++i) {
                size_t room = kBuf - cursor;
                if (room < 2 * 65536)
                    break;
                Write w;
                w.off = cursor;
                // At most half the room left, so the group's notify always fits after it.
                w.len = pick_len(rng, static_cast<uint32_t>(std::min<size_t>((room - 65536) / 2, (1u << 20) + 4096)));
                cursor += w.len + rng() % 9; // unaligned starts too
                w.wr_id = next_wr++;
                w.signaled = rng() % 4 == 0;
                if (w.signaled)
                    b.signaled.push_back(w.wr_id);
                n.writes.push_back(b.writes.size());
                b.writes.push_back(w);
            }
            switch (rng() % 3) {
            case 0: n.op = IBV_WR_RDMA_WRITE_WITH_IMM; break;
            case 1: n.op = IBV_WR_SEND; break;
            default: n.op = IBV_WR_SEND_WITH_IMM; break;
            }
            // Its own data, if the rest of the buffer has room for a full slot's worth.
            n.len = rng() % 3 == 0 || kBuf - cursor < kSlot + 16 ? 0 : pick_len(rng, kSlot);
            n.off = cursor;
            cursor += n.len + rng() % 9;
            n.tag = next_tag++;
            n.slot = static_cast<size_t>(g);
            n.recv_wr_id = next_recv++;
            n.wr_id = next_wr++;
            n.signaled = g + 1 == groups || rng() % 2; // the last one tells the sender all is done
            if (n.signaled)
                b.signaled.push_back(n.wr_id);
            b.notes.push_back(n);
        }
        return b;
    }
};

// The memory both sides look at (in TwoProcess, mapped shared by both processes).
struct Mem {
    uint8_t *src, *dst, *aux;
};

// Requester side, before posting: fresh data, every target byte different from it.
void fill_batch(const Mem &m, const Batch &b, std::mt19937_64 &data)
{
    for (const Write &w : b.writes) {
        fill_random(m.src + w.off, w.len, data);
        poison(m.dst + w.off, m.src + w.off, w.len);
    }
    for (const Notify &n : b.notes) {
        fill_random(m.src + n.off, n.len, data);
        poison(n.op == IBV_WR_RDMA_WRITE_WITH_IMM ? m.dst + n.off : m.aux + n.slot * kSlot, m.src + n.off, n.len);
    }
}

// Posts the batch in posting order (each group's WRITEs, then its notify), as one chain or
// one WR at a time. "" or what failed.
std::string post_batch(ibv_qp *qp, const Batch &b, const Mem &m, uint32_t lkey, uint64_t dst_addr, uint32_t rkey)
{
    std::vector<ibv_send_wr> wrs;
    std::vector<ibv_sge> sges;
    wrs.reserve(b.writes.size() + b.notes.size());
    sges.reserve(b.writes.size() + b.notes.size()); // &sges.back() stays valid
    auto add = [&](uint64_t wr_id, ibv_wr_opcode op, uint64_t off, uint32_t len, bool remote, bool sig, uint32_t imm) {
        sges.push_back(ibv_sge{reinterpret_cast<uintptr_t>(m.src) + off, len, lkey});
        ibv_send_wr wr =
            rdma_wr(wr_id, op, &sges.back(), remote ? dst_addr + off : 0, rkey, sig ? IBV_SEND_SIGNALED : 0);
        wr.num_sge = len ? 1 : 0;
        wr.imm_data = htonl(imm);
        wrs.push_back(wr);
        if (!b.chain) {
            int rc = post_list_raw(qp, wrs);
            wrs.clear();
            return rc;
        }
        return 0;
    };
    for (const Notify &n : b.notes) {
        for (size_t i : n.writes) {
            const Write &w = b.writes[i];
            if (int rc = add(w.wr_id, IBV_WR_RDMA_WRITE, w.off, w.len, true, w.signaled, 0))
                return "ibv_post_send failed: " + std::string(strerror(rc));
        }
        if (int rc = add(n.wr_id, n.op, n.off, n.len, n.op == IBV_WR_RDMA_WRITE_WITH_IMM, n.signaled, n.tag))
            return "ibv_post_send failed: " + std::string(strerror(rc));
    }
    if (int rc = b.chain ? post_list_raw(qp, wrs) : 0)
        return "ibv_post_send of the chain failed: " + std::string(strerror(rc));
    return "";
}

std::string post_recvs(Qp &q, const ibv_mr *aux_mr, const Batch &b)
{
    for (const Notify &n : b.notes)
        if (int rc = q.recv(n.recv_wr_id, aux_mr, n.slot * kSlot, kSlot))
            return "ibv_post_recv failed: " + std::string(strerror(rc));
    return "";
}

// The WRITEs of the batch posted up to wr_id `upto` are placed (§7 (c)); "" or what is not.
std::string check_placed_upto(const Mem &m, Batch &b, uint64_t upto)
{
    for (Write &w : b.writes) {
        if (w.placed_checked || w.wr_id > upto)
            continue;
        if (std::string d = diff(m.dst + w.off, m.src + w.off, w.len); !d.empty()) {
            std::ostringstream o;
            o << "WRITE wr_id " << w.wr_id << " (" << w.len << " B at +" << w.off << ") not placed although WQE "
              << upto << " has completed: " << d;
            return o.str();
        }
        w.placed_checked = true;
    }
    return "";
}

// The receive completion `wc`, which must be message `k` of the batch; "" or what is wrong.
std::string check_notify(const Mem &m, const Batch &b, size_t k, const ibv_wc &wc)
{
    std::ostringstream o;
    if (k >= b.notes.size()) {
        o << "an extra receive completion (wr_id " << wc.wr_id << ") after all " << b.notes.size()
          << " messages of the batch";
        return o.str();
    }
    const Notify &n = b.notes[k];
    if (wc.status != IBV_WC_SUCCESS) {
        o << "receive completion of message " << n.tag << " has status " << ibv_wc_status_str(wc.status);
        return o.str();
    }
    if (wc.wr_id != n.recv_wr_id) {
        o << "receive completion consumed RECV wr_id " << wc.wr_id << ", expected " << n.recv_wr_id
          << ": RECVs are consumed in posting order";
        return o.str();
    }
    bool imm = n.op != IBV_WR_SEND;
    ibv_wc_opcode want_op = n.op == IBV_WR_RDMA_WRITE_WITH_IMM ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
    if (wc.opcode != want_op || !!(wc.wc_flags & IBV_WC_WITH_IMM) != imm || (imm && ntohl(wc.imm_data) != n.tag) ||
        (n.op != IBV_WR_RDMA_WRITE_WITH_IMM && wc.byte_len != n.len)) {
        o << "receive completion (opcode " << wc.opcode << ", imm " << (imm ? ntohl(wc.imm_data) : 0) << ", "
          << wc.byte_len << " B) is not the next message in order (opcode " << want_op << ", tag " << n.tag << ", "
          << n.len << " B): receive completions must come in message order";
        return o.str();
    }
    for (size_t i : n.writes) {
        const Write &w = b.writes[i];
        if (std::string d = diff(m.dst + w.off, m.src + w.off, w.len); !d.empty()) {
            o << "at the receive completion of message " << n.tag << " (opcode " << want_op
              << "), the earlier WRITE wr_id " << w.wr_id << " (" << w.len << " B at +" << w.off
              << ") is not all placed: " << d;
            return o.str();
        }
    }
    const uint8_t *got = n.op == IBV_WR_RDMA_WRITE_WITH_IMM ? m.dst + n.off : m.aux + n.slot * kSlot;
    if (std::string d = diff(got, m.src + n.off, n.len); !d.empty()) {
        o << "the data of message " << n.tag << " itself is not there at its receive completion: " << d;
        return o.str();
    }
    return "";
}

// The send completion `wc`, which must be signaled WQE `k` of the batch; "" or what is wrong.
std::string check_send(const Mem &m, Batch &b, size_t k, const ibv_wc &wc)
{
    std::ostringstream o;
    if (wc.status != IBV_WC_SUCCESS) {
        o << "send completion wr_id " << wc.wr_id << " has status " << ibv_wc_status_str(wc.status);
        return o.str();
    }
    if (k >= b.signaled.size() || wc.wr_id != b.signaled[k]) {
        o << "send completion wr_id " << wc.wr_id << " arrived where wr_id "
          << (k < b.signaled.size() ? b.signaled[k] : 0) << " was due: send completions must come in posting order";
        return o.str();
    }
    return check_placed_upto(m, b, wc.wr_id);
}

// Drains the receive CQ (rcq) and/or the send CQ (scq) until the batch is complete, checking
// each completion as it is polled; then nothing more may come. "" or what was wrong.
std::string drain(const Mem &m, Batch &b, ibv_cq *rcq, ibv_cq *scq)
{
    size_t got_recv = rcq ? 0 : b.notes.size(), got_send = scq ? 0 : b.signaled.size();
    auto end = SteadyClock::now() + kDeadline;
    while (got_recv < b.notes.size() || got_send < b.signaled.size()) {
        if (SteadyClock::now() > end) {
            std::ostringstream o;
            o << "batch not done within " << kDeadline.count() << " s: " << got_recv << " of " << b.notes.size()
              << " receive and " << got_send << " of " << b.signaled.size() << " send completions";
            return o.str();
        }
        ibv_wc wc[16];
        // poll_after (one process): the receiver looks only once the sender has all its completions.
        int n = !rcq || (scq && b.poll_after && got_send < b.signaled.size()) ? 0 : ibv_poll_cq(rcq, 16, wc);
        for (int i = 0; i < n; ++i)
            if (std::string e = check_notify(m, b, got_recv++, wc[i]); !e.empty())
                return e;
        int s = scq ? ibv_poll_cq(scq, 16, wc) : 0;
        for (int i = 0; i < s; ++i)
            if (std::string e = check_send(m, b, got_send++, wc[i]); !e.empty())
                return e;
        if (n == 0 && s == 0)
            std::this_thread::yield();
    }
    ibv_wc extra{};
    if ((rcq && ibv_poll_cq(rcq, 1, &extra) != 0) || (scq && ibv_poll_cq(scq, 1, &extra) != 0))
        return "a stray completion (wr_id " + std::to_string(extra.wr_id) + ") after the batch was complete";
    return "";
}

std::string run_batch(Rig &r, Planner &p, std::mt19937_64 &data)
{
    Batch b = p.next();
    Mem m{r.src.p, r.dst.p, r.aux.p};
    fill_batch(m, b, data);
    std::string e;
    if (!b.recvs_late)
        e = post_recvs(r.b, r.amr.mr, b);
    if (e.empty())
        e = post_batch(r.a.qp, b, m, r.smr.mr->lkey, r.daddr(0), r.dmr.mr->rkey);
    if (e.empty() && b.recvs_late)
        e = post_recvs(r.b, r.amr.mr, b);
    return e.empty() ? drain(m, b, r.b.rcq, r.a.scq) : e;
}

// The same batches between two processes (the reference's case: same host, memory mapped
// from the peer, or TCP with SOFTVERBS_TRANSPORT=tcp). The memory is mapped shared by both
// (made before the fork), so the requester fills and poisons it and checks §7 (c), the
// responder checks its receive completions. Per batch: the requester announces it, the
// responder posts its RECVs (or, for a late batch, acknowledges first and posts them a
// moment later), the requester posts, each drains its CQ (for a poll_after batch the
// responder only once the requester has all its completions), the responder reports done.
std::string two_process_seed(uint64_t seed, int batches)
{
    Buffer src(kBuf, true), dst(kBuf, true), aux(kAux, true);
    Mem m{src.p, dst.p, aux.p};
    auto requester = [&](Link l) {
        reseed(seed);
        Device dev;
        Mr smr(dev.pd, src.p, src.n, kAllAccess);
        Qp a(dev, kDepth);
        l.put(a.endpoint());
        Endpoint peer = l.get<Endpoint>();
        a.connect(peer);
        Planner p(seed);
        std::mt19937_64 data(~seed);
        for (int batch = 0; batch < batches; ++batch) {
            Batch b = p.next();
            fill_batch(m, b, data);
            l.put(batch);
            if (l.get<int>() != batch)
                fail("the responder lost step");
            std::string e = post_batch(a.qp, b, m, smr.mr->lkey, peer.addr, peer.rkey);
            if (e.empty())
                e = drain(m, b, nullptr, a.scq);
            if (!e.empty())
                fail("requester, batch " + std::to_string(batch) + ": " + e);
            if (b.poll_after)
                l.put(batch); // all our completions are in: the responder may look now
            if (l.get<int>() != batch)
                fail("the responder lost step");
        }
    };
    auto responder = [&](Link l) {
        reseed(seed);
        Device dev;
        Mr dmr(dev.pd, dst.p, dst.n, kAllAccess), amr(dev.pd, aux.p, aux.n, kAllAccess);
        Qp b(dev, kDepth);
        Endpoint peer = l.get<Endpoint>();
        l.put(b.endpoint(dmr.mr));
        b.connect(peer);
        Planner p(seed);
        for (int batch = 0; batch < batches; ++batch) {
            Batch bt = p.next();
            if (l.get<int>() != batch)
                fail("the requester lost step");
            std::string e = bt.recvs_late ? "" : post_recvs(b, amr.mr, bt);
            l.put(batch);
            if (e.empty() && bt.recvs_late) {
                std::this_thread::sleep_for(200us); // the notifies meet no RECV for a while
                e = post_recvs(b, amr.mr, bt);
            }
            if (e.empty() && bt.poll_after && l.get<int>() != batch)
                fail("the requester lost step");
            if (e.empty())
                e = drain(m, bt, b.rcq, nullptr);
            if (!e.empty())
                fail("responder, batch " + std::to_string(batch) + ": " + e);
            l.put(batch);
        }
    };
    return run_two(requester, responder, std::chrono::seconds(60));
}

TEST(AdversaryOrder, TwoProcessWritesBeforeNotify)
{
    announce("TwoProcessWritesBeforeNotify");
    ASSERT_FALSE(g_verbs_used) << "this process has used verbs already, and softverbs' threads would not survive "
                                  "the fork: run this test first or alone (--gtest_filter=AdversaryOrder."
                                  "TwoProcessWritesBeforeNotify)";
    for (int k = 0; k < seeds().count && !HasFailure(); ++k) {
        uint64_t seed = seeds().first + static_cast<uint64_t>(k);
        if (std::string e = two_process_seed(seed, 8); !e.empty())
            ADD_FAILURE() << "seed 0x" << std::hex << seed << std::dec << ": " << e << " "
                          << reproducer("TwoProcessWritesBeforeNotify", seed, 1);
    }
}

TEST(AdversaryOrder, WritesBeforeNotifyAndCompletionOrder)
{
    announce("WritesBeforeNotifyAndCompletionOrder");
    for (int k = 0; k < seeds().count && !HasFailure(); ++k) {
        uint64_t seed = seeds().first + static_cast<uint64_t>(k);
        SCOPED_TRACE(testing::Message() << "seed 0x" << std::hex << seed);
        SeedScope scope(seed);
        Rig r;
        Planner p(seed);
        std::mt19937_64 data(~seed);
        for (int batch = 0; batch < 12; ++batch)
            if (std::string e = run_batch(r, p, data); !e.empty()) {
                ADD_FAILURE() << e << "; in batch " << batch << "; "
                              << reproducer("WritesBeforeNotifyAndCompletionOrder", seed, 1);
                break;
            }
    }
}

// ---- 2. READ and ATOMIC after WRITEs; FENCE after a READ ----

struct Region {
    uint64_t off;
    uint32_t len;
};

// WRITEs covering `reg` in 1-4 pieces (unsignaled), poisoned target first.
void post_cover(Rig &r, std::mt19937_64 &rng, Region reg, uint64_t wr_base)
{
    fill_random(r.src.p + reg.off, reg.len, rng);
    poison(r.dst.p + reg.off, r.src.p + reg.off, reg.len);
    int pieces = 1 + static_cast<int>(rng() % 4);
    uint64_t at = reg.off, end = reg.off + reg.len;
    for (int i = 0; i < pieces && at < end; ++i) {
        uint64_t n = i + 1 == pieces ? end - at : std::max<uint64_t>(1, rng() % (end - at + 1));
        ASSERT_EQ(r.a.post(IBV_WR_RDMA_WRITE, wr_base + static_cast<uint64_t>(i), r.smr.mr, at,
                           static_cast<uint32_t>(n), r.daddr(at), r.dmr.mr->rkey, 0, 0),
                  0);
        at += n;
    }
}

Region pick_region(std::mt19937_64 &rng, uint32_t max = 1u << 20)
{
    Region g;
    g.len = pick_len(rng, max);
    g.off = rng() % (kBuf - 4096 - g.len);
    return g;
}

bool wait_send(Rig &r, uint64_t wr_id, const char *what)
{
    ibv_wc wc{};
    if (!one_wc(r.a.scq, &wc, what))
        return false;
    if (wc.status != IBV_WC_SUCCESS || wc.wr_id != wr_id) {
        ADD_FAILURE() << what << ": completion wr_id " << wc.wr_id << " status " << ibv_wc_status_str(wc.status)
                      << ", expected wr_id " << wr_id << " with success";
        return false;
    }
    return true;
}

// READ after WRITEs (the same bytes): the READ returns what the WRITEs wrote.
bool read_after_write(Rig &r, std::mt19937_64 &rng)
{
    Region g = pick_region(rng);
    post_cover(r, rng, g, 100);
    uint8_t *rd = r.aux.p + kReadOff;
    std::memset(rd, 0, g.len);
    EXPECT_EQ(r.a.post(IBV_WR_RDMA_READ, 200, r.amr.mr, kReadOff, g.len, r.daddr(g.off), r.dmr.mr->rkey), 0);
    if (!wait_send(r, 200, "a READ after WRITEs"))
        return false;
    if (std::string d = diff(rd, r.src.p + g.off, g.len); !d.empty()) {
        ADD_FAILURE() << "a READ of " << g.len
                      << " B after WRITEs of the same bytes on the QP returned other data: " << d;
        return false;
    }
    return true;
}

// FETCH_AND_ADD after WRITEs: once the counter shows the add, the WRITEs are placed.
bool atomic_after_write(Rig &r, std::mt19937_64 &rng)
{
    Region g = pick_region(rng);
    const uint64_t coff = kBuf - 64; // outside every region
    auto *counter = reinterpret_cast<uint64_t *>(r.dst.p + coff);
    uint64_t before = __atomic_load_n(counter, __ATOMIC_ACQUIRE);
    post_cover(r, rng, g, 300);
    ibv_sge s{reinterpret_cast<uintptr_t>(r.aux.p) + kReadOff, 8, r.amr.mr->lkey};
    ibv_send_wr faa = atomic_wr(400, IBV_WR_ATOMIC_FETCH_AND_ADD, &s, r.daddr(coff), r.dmr.mr->rkey, 1);
    ibv_send_wr *bad = nullptr;
    EXPECT_EQ(ibv_post_send(r.a.qp, &faa, &bad), 0);
    // The responder's view: it watches the counter, as a program using the ATOMIC as notify.
    auto end = SteadyClock::now() + kDeadline;
    while (__atomic_load_n(counter, __ATOMIC_ACQUIRE) == before) {
        if (SteadyClock::now() > end) {
            ADD_FAILURE() << "the FETCH_AND_ADD never updated the counter within " << kDeadline.count() << " s";
            return false;
        }
        std::this_thread::yield();
    }
    if (std::string d = diff(r.dst.p + g.off, r.src.p + g.off, g.len); !d.empty()) {
        ADD_FAILURE() << "the FETCH_AND_ADD had updated memory while the earlier WRITEs (" << g.len
                      << " B) were not all placed: " << d;
        return false;
    }
    if (!wait_send(r, 400, "the FETCH_AND_ADD"))
        return false;
    uint64_t old_value = 0;
    std::memcpy(&old_value, r.aux.p + kReadOff, 8);
    if (old_value != before) {
        ADD_FAILURE() << "the FETCH_AND_ADD returned " << old_value << ", the counter held " << before;
        return false;
    }
    return true;
}

// READ, then a FENCEd WRITE of new data over the bytes read: the READ returns the old ones.
bool fenced_write_after_read(Rig &r, std::mt19937_64 &rng)
{
    Region g = pick_region(rng);
    fill_random(r.dst.p + g.off, g.len, rng);
    poison(r.src.p + g.off, r.dst.p + g.off, g.len);
    std::vector<uint8_t> old(r.dst.p + g.off, r.dst.p + g.off + g.len);
    uint8_t *rd = r.aux.p + kReadOff;
    EXPECT_EQ(r.a.post(IBV_WR_RDMA_READ, 500, r.amr.mr, kReadOff, g.len, r.daddr(g.off), r.dmr.mr->rkey, 0, 0), 0);
    EXPECT_EQ(r.a.post(IBV_WR_RDMA_WRITE, 501, r.smr.mr, g.off, g.len, r.daddr(g.off), r.dmr.mr->rkey, 0,
                       IBV_SEND_SIGNALED | IBV_SEND_FENCE),
              0);
    if (!wait_send(r, 501, "a fenced WRITE after a READ"))
        return false;
    if (std::string d = diff(rd, old.data(), g.len); !d.empty()) {
        ADD_FAILURE() << "a WRITE with IBV_SEND_FENCE overtook the READ before it (" << g.len
                      << " B): the READ returned: " << d;
        return false;
    }
    return true;
}

// READ, then a FENCEd notify (0-byte WRITE_WITH_IMM or SEND); on the notify the responder
// reuses the bytes read: the READ must have its data already.
bool fenced_notify_after_read(Rig &r, std::mt19937_64 &rng)
{
    Region g = pick_region(rng);
    fill_random(r.dst.p + g.off, g.len, rng);
    std::vector<uint8_t> old(r.dst.p + g.off, r.dst.p + g.off + g.len);
    uint8_t *rd = r.aux.p + kReadOff;
    EXPECT_EQ(r.b.recv(600, r.amr.mr, 0, kSlot), 0);
    EXPECT_EQ(r.a.post(IBV_WR_RDMA_READ, 601, r.amr.mr, kReadOff, g.len, r.daddr(g.off), r.dmr.mr->rkey, 0, 0), 0);
    ibv_wr_opcode op = rng() % 2 ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_SEND;
    EXPECT_EQ(r.a.post(op, 602, nullptr, 0, 0, r.daddr(g.off), r.dmr.mr->rkey, 7, IBV_SEND_SIGNALED | IBV_SEND_FENCE),
              0);
    ibv_wc wc{};
    if (!one_wc(r.b.rcq, &wc, "a fenced notify after a READ"))
        return false;
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    poison(r.dst.p + g.off, old.data(), g.len); // the responder reuses the region
    if (!wait_send(r, 602, "a fenced notify after a READ"))
        return false;
    if (std::string d = diff(rd, old.data(), g.len); !d.empty()) {
        ADD_FAILURE() << "a " << (op == IBV_WR_SEND ? "SEND" : "WRITE_WITH_IMM")
                      << " with IBV_SEND_FENCE reached the responder before the READ before it had read its " << g.len
                      << " B: " << d;
        return false;
    }
    return true;
}

// Two WRITEs of different data over the same bytes, the second signaled: once it
// completes the bytes hold the second's data (RC executes requests in order, so
// an adversary may delay and shuffle chunks but never let the earlier WRITE win).
bool later_write_wins(Rig &r, std::mt19937_64 &rng)
{
    Region g = pick_region(rng, 1u << 20);
    uint8_t *second = r.aux.p + kReadOff; // the second WRITE's source
    fill_random(r.src.p + g.off, g.len, rng);
    fill_random(second, g.len, rng);
    poison(r.dst.p + g.off, second, g.len);
    EXPECT_EQ(r.a.post(IBV_WR_RDMA_WRITE, 700, r.smr.mr, g.off, g.len, r.daddr(g.off), r.dmr.mr->rkey, 0, 0), 0);
    EXPECT_EQ(r.a.post(IBV_WR_RDMA_WRITE, 701, r.amr.mr, kReadOff, g.len, r.daddr(g.off), r.dmr.mr->rkey, 0,
                       IBV_SEND_SIGNALED),
              0);
    if (!wait_send(r, 701, "the second of two WRITEs to the same bytes"))
        return false;
    if (std::string d = diff(r.dst.p + g.off, second, g.len); !d.empty()) {
        ADD_FAILURE() << "of two WRITEs of " << g.len
                      << " B to the same bytes on one QP, the earlier one landed last: " << d;
        return false;
    }
    return true;
}

TEST(AdversaryOrder, ReadAtomicAndFenceAfterWrites)
{
    announce("ReadAtomicAndFenceAfterWrites");
    for (int k = 0; k < seeds().count && !HasFailure(); ++k) {
        uint64_t seed = seeds().first + static_cast<uint64_t>(k);
        SCOPED_TRACE(testing::Message() << "seed 0x" << std::hex << seed);
        SeedScope scope(seed);
        Rig r;
        std::mt19937_64 rng(seed * 0xc2b2ae3d27d4eb4full);
        for (int t = 0; t < 8; ++t) {
            if (!read_after_write(r, rng) || !atomic_after_write(r, rng) || !fenced_write_after_read(r, rng) ||
                !fenced_notify_after_read(r, rng) || !later_write_wins(r, rng)) {
                ADD_FAILURE() << "in trial " << t << "; " << reproducer("ReadAtomicAndFenceAfterWrites", seed, 1);
                break;
            }
        }
    }
}

// ---- 3. the adversary bites ----

struct Bites {
    int writes = 0, deferred = 0, out_of_order = 0;
    int reads = 0, overtaken = 0;
};

// One WRITE of 256 KiB + a 0-byte WRITE_WITH_IMM, watched while it lands: 32 probe bytes
// sampled until the notify. Deferred: not all there when ibv_post_send returned; out of
// order: some probe seen placed while an earlier one was not yet.
bool watch_write(Rig &r, std::mt19937_64 &rng, Bites &bites)
{
    constexpr uint32_t kLen = 256u << 10;
    constexpr int kProbes = 32;
    const uint64_t off = rng() % 4096;
    fill_random(r.src.p + off, kLen, rng);
    poison(r.dst.p + off, r.src.p + off, kLen);
    EXPECT_EQ(r.b.recv(700, r.amr.mr, 0, kSlot), 0);
    EXPECT_EQ(r.a.post(IBV_WR_RDMA_WRITE, 701, r.smr.mr, off, kLen, r.daddr(off), r.dmr.mr->rkey, 0, 0), 0);
    EXPECT_EQ(r.a.post(IBV_WR_RDMA_WRITE_WITH_IMM, 702, nullptr, 0, 0, r.daddr(off), r.dmr.mr->rkey, 9), 0);
    auto probe = [&](int i) { return off + static_cast<uint64_t>(i) * (kLen / kProbes) + 101; };
    auto landed = [&](int i) { return peek(r.dst.p + probe(i)) == r.src.p[probe(i)]; };
    bool all = true;
    for (int i = 0; i < kProbes; ++i)
        all = all && landed(i);
    bool deferred = !all, ooo = false;
    ibv_wc wc{};
    auto end = SteadyClock::now() + kDeadline;
    for (;;) {
        int first_missing = kProbes;
        for (int i = 0; i < kProbes; ++i)
            if (!landed(i)) {
                first_missing = std::min(first_missing, i);
            } else if (first_missing < i) {
                ooo = true;
            }
        int n = ibv_poll_cq(r.b.rcq, 1, &wc);
        if (n == 1)
            break;
        if (SteadyClock::now() > end) {
            ADD_FAILURE() << "no receive completion for the watched WRITE_WITH_IMM within " << kDeadline.count()
                          << " s";
            return false;
        }
    }
    if (wc.status != IBV_WC_SUCCESS || wc.wr_id != 700) {
        ADD_FAILURE() << "the watched notify completed with wr_id " << wc.wr_id << ", " << ibv_wc_status_str(wc.status);
        return false;
    }
    if (std::string d = diff(r.dst.p + off, r.src.p + off, kLen); !d.empty()) {
        ADD_FAILURE() << "the watched WRITE is not all placed at its notify: " << d;
        return false;
    }
    ++bites.writes;
    bites.deferred += deferred;
    bites.out_of_order += ooo;
    return wait_send(r, 702, "the watched WRITE_WITH_IMM");
}

// READ, then an unfenced WRITE over the bytes read: the READ may return old or new bytes
// (the WRITE may overtake it), never anything else.
bool unfenced_write_after_read(Rig &r, std::mt19937_64 &rng, Bites &bites)
{
    Region g = pick_region(rng, 64u << 10);
    fill_random(r.dst.p + g.off, g.len, rng);
    poison(r.src.p + g.off, r.dst.p + g.off, g.len);
    std::vector<uint8_t> old(r.dst.p + g.off, r.dst.p + g.off + g.len);
    uint8_t *rd = r.aux.p + kReadOff;
    EXPECT_EQ(r.a.post(IBV_WR_RDMA_READ, 800, r.amr.mr, kReadOff, g.len, r.daddr(g.off), r.dmr.mr->rkey, 0, 0), 0);
    EXPECT_EQ(r.a.post(IBV_WR_RDMA_WRITE, 801, r.smr.mr, g.off, g.len, r.daddr(g.off), r.dmr.mr->rkey), 0);
    if (!wait_send(r, 801, "an unfenced WRITE after a READ"))
        return false;
    size_t fresh = 0;
    for (size_t i = 0; i < g.len; ++i) {
        if (rd[i] == r.src.p[g.off + i]) {
            ++fresh;
        } else if (rd[i] != old[i]) {
            ADD_FAILURE() << "a READ returned byte +" << i << " = 0x" << std::hex << int(rd[i])
                          << ", neither the old 0x" << int(old[i]) << " nor the overtaking WRITE's 0x"
                          << int(r.src.p[g.off + i]);
            return false;
        }
    }
    ++bites.reads;
    bites.overtaken += fresh > 0;
    return true;
}

TEST(AdversaryOrder, AdversaryBites)
{
    announce("AdversaryBites");
    Bites bites;
    for (int k = 0; k < seeds().count && !HasFailure(); ++k) {
        uint64_t seed = seeds().first + static_cast<uint64_t>(k);
        SCOPED_TRACE(testing::Message() << "seed 0x" << std::hex << seed);
        SeedScope scope(seed);
        Rig r;
        std::mt19937_64 rng(seed * 0x165667b19e3779f9ull);
        for (int t = 0; t < 4; ++t)
            if (!watch_write(r, rng, bites) || !unfenced_write_after_read(r, rng, bites) ||
                !unfenced_write_after_read(r, rng, bites)) {
                ADD_FAILURE() << "in trial " << t << "; " << reproducer("AdversaryBites", seed, 1);
                break;
            }
    }
    std::printf("adversary bites: %d of %d watched WRITEs deferred past ibv_post_send, %d seen placed out of "
                "order; %d of %d READs overtaken by a later unfenced WRITE\n",
                bites.deferred, bites.writes, bites.out_of_order, bites.overtaken, bites.reads);
    if (HasFailure())
        return;
    // The checks of this file prove something only if the adversary did its part.
    EXPECT_GT(bites.deferred, 0) << "no WRITE was ever still unplaced when ibv_post_send returned: the adversary "
                                    "did not delay placement; "
                                 << reproducer("AdversaryBites");
    EXPECT_GT(bites.out_of_order, 0) << "no WRITE was ever seen placed out of order: the adversary did not split and "
                                        "shuffle; "
                                     << reproducer("AdversaryBites");
    EXPECT_GT(bites.overtaken, 0) << "no unfenced WRITE ever overtook an earlier READ: the adversary did not delay "
                                     "READs; "
                                  << reproducer("AdversaryBites");
}

} // namespace
