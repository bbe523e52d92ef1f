// The RC ordering rules the adversary (SOFTVERBS_SEED) must keep however it delays, splits
// and shuffles WRITE placement (/work/shared/design/verbs-semantics.md §5.2 and §7,
// softverbs/README.md "Ordering" and "RC behaviour"), with real verbs calls over a loopback
// RC QP pair, each seed an adversary schedule:
//  * NotifyAfterPendingWrites: 2-16 WRITEs (disjoint, partially overlapping, containing and
//    contained, sizes the adversary splits into 4-16 chunks) still being placed when a
//    WRITE_WITH_IMM follows them: when the responder polls the notify's receive completion,
//    every byte of every earlier WRITE is there, and where they overlap the last posted one's
//    (kills sv_adversary_flush_latest_only);
//  * OverlapLastWriterWins: WRITEs with different starts over the same bytes, no notify (the
//    adversary places them on their own timers): once the last one has completed, every byte is
//    the last posted writer's, for good (kills sv_adversary_waw_same_start_only). Disjoint
//    WRITEs stay free to land in any order (softverbs_calibration_test relies on that);
//  * Rnr: rnr_retry 7 is "retry for ever" (IBTA; ibv_modify_qp(3)): a SEND or WRITE_WITH_IMM
//    whose RECV is posted 20 ms late (2000 periods of min_rnr_timer 1 = 10 us) completes with
//    success; rnr_retry 0..6 gives IBV_WC_RNR_RETRY_EXC_ERR, as softverbs models it
//    (min_rnr_timer x (rnr_retry+1)) (kills sv_rnr_retry_7_finite).
// The adversary must be seen biting (a WRITE chain not yet placed right after ibv_post_send),
// else the run fails: the checks above would pass on a sane device.
//
// Seeds are random unless HCTS_SV_RULES_SEED (first) and HCTS_SV_RULES_SEEDS (how many,
// default 4) are given; the run prints them with a reproducer. Every wait has a deadline.
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
#include "verbs_fixture.h"

using namespace svt;
using namespace std::chrono_literals;

namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr size_t kSrcSlot = 256u << 10;        // one WRITE's source
constexpr int kMaxWrites = 16;                 // per trial
constexpr size_t kSrc = kSrcSlot * kMaxWrites; // a's memory
constexpr size_t kWindow = 256u << 10;         // the dst bytes one trial writes
constexpr size_t kDst = kWindow + 4096;        // b's memory (the notify's own data after the window)
constexpr size_t kRecvOff = kWindow;           // b's RECV buffer
constexpr std::chrono::milliseconds kDeadline = 5000ms;

struct Seeds {
    uint64_t first = 0;
    int count = 4;
};

const Seeds &seeds()
{
    static const Seeds s = [] {
        Seeds r;
        r.first = env_u64("HCTS_SV_RULES_SEED", random_seed());
        r.count = static_cast<int>(env_u64("HCTS_SV_RULES_SEEDS", 4));
        if (r.first == 0 || r.count < 1)
            fail("HCTS_SV_RULES_SEED must be non-zero and HCTS_SV_RULES_SEEDS at least 1");
        return r;
    }();
    return s;
}

std::string reproducer(const char *test, uint64_t seed)
{
    std::ostringstream o;
    o << "reproduce: ";
    for (const char *e : {"SOFTVERBS_TRANSPORT", "HCTS_MUTANT"})
        if (const char *v = std::getenv(e); v && *v)
            o << e << '=' << v << ' ';
    o << "HCTS_SV_RULES_SEED=0x" << std::hex << seed << std::dec
      << " HCTS_SV_RULES_SEEDS=1 build/bin/softverbs-run build/bin/softverbs_adversary_rules_test"
         " --gtest_filter=AdversaryRules."
      << test;
    return o.str();
}

void announce(const char *test)
{
    std::printf("adversary rules %s: seeds 0x%" PRIx64 " .. 0x%" PRIx64 "\n", test, seeds().first,
                seeds().first + static_cast<uint64_t>(seeds().count) - 1);
    std::fflush(stdout);
}

struct Rig {
    Device dev;
    Buffer src, dst;
    Mr smr, dmr;
    Qp a, b;
    explicit Rig(uint8_t rnr_retry = 7)
        : src(kSrc, true), dst(kDst, true), smr(dev.pd, src.p, src.n, kAllAccess),
          dmr(dev.pd, dst.p, dst.n, kAllAccess), a(dev, 64), b(dev, 64)
    {
        a.connect(b.endpoint(), rnr_retry); // b's min_rnr_timer: 1 (10 us), the smallest
        b.connect(a.endpoint());
    }
    uint64_t daddr(uint64_t off) const { return reinterpret_cast<uintptr_t>(dst.p) + off; }
};

struct Write {
    uint32_t off = 0, len = 0; // in dst; its source is a's slot k at the same offset within it
};

// "" when dst's window holds `want`, else where it differs and which WRITE should have put it.
std::string check_window(const uint8_t *dst, const std::vector<uint8_t> &want, const std::vector<int> &writer)
{
    if (std::memcmp(dst, want.data(), want.size()) == 0)
        return "";
    size_t n = 0, first = want.size();
    uint8_t first_got = 0;
    for (size_t i = 0; i < want.size(); ++i)
        if (uint8_t g = __atomic_load_n(dst + i, __ATOMIC_RELAXED); g != want[i]) {
            if (first == want.size()) {
                first = i;
                first_got = g;
            }
            ++n;
        }
    if (n == 0)
        return "";
    std::ostringstream o;
    o << n << " bytes differ, the first at +" << first << " (0x" << std::hex << int(first_got) << ", expected 0x"
      << int(want[first]) << std::dec << ", the last writer there: WRITE #" << writer[first] << ")";
    return o.str();
}

// Lengths across the adversary's chunk sizes (64 B .. 64 KiB, 4-16 chunks).
uint32_t pick_len(std::mt19937_64 &rng)
{
    static constexpr uint32_t kLens[] = {1, 7, 64, 255, 256, 257, 1000, 4095, 4096, 4097, 16384, 65536, 65537, 131072};
    return rng() % 4 == 0 ? static_cast<uint32_t>(1 + rng() % 200000) : kLens[rng() % std::size(kLens)];
}

// A trial's WRITEs inside the window: disjoint ones, and ones over earlier ones with a
// different start (partial overlap either side, containing, contained) or the same start.
std::vector<Write> plan(std::mt19937_64 &rng, int n, bool overlap_only)
{
    std::vector<Write> ws;
    for (int k = 0; k < n; ++k) {
        Write w;
        w.len = std::min<uint32_t>(pick_len(rng), kWindow);
        const int shape = k == 0 ? 0 : static_cast<int>(rng() % (overlap_only ? 4 : 6)) + 1;
        const Write &p = ws.empty() ? w : ws[rng() % ws.size()];
        int64_t off = 0;
        switch (shape) {
        case 1: off = int64_t(p.off) + p.len / 2 + 1; break; // starts inside, runs past its end
        case 2: off = int64_t(p.off) - w.len / 2 - 1; break; // starts before, ends inside
        case 3: // contains it (a smaller window-wide WRITE if it cannot grow)
            w.len = std::min<uint32_t>(p.len + 2 + static_cast<uint32_t>(rng() % 4096), kWindow);
            off = w.len >= p.len + 2 ? int64_t(p.off) - 1 - int64_t(rng() % (w.len - p.len - 1)) : 0;
            break;
        case 4: // contained in it, a different start
            w.len = std::max<uint32_t>(1, p.len / 2);
            off = int64_t(p.off) + 1 + int64_t(rng() % std::max<uint32_t>(1, p.len - w.len));
            break;
        case 5: off = p.off; break;                                                // the same start, another length
        default: off = static_cast<int64_t>(rng() % (kWindow - w.len + 1)); break; // anywhere
        }
        off = std::clamp<int64_t>(off, 0, int64_t(kWindow - w.len));
        w.off = static_cast<uint32_t>(off);
        ws.push_back(w);
    }
    return ws;
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

// Fresh sources, dst poisoned, the expected final window (last posted writer per byte).
void prepare(Rig &r, const std::vector<Write> &ws, std::mt19937_64 &rng, std::vector<uint8_t> &want,
             std::vector<int> &writer)
{
    fill_random(r.dst.p, kWindow, rng);
    want.assign(r.dst.p, r.dst.p + kWindow);
    writer.assign(kWindow, -1);
    for (size_t k = 0; k < ws.size(); ++k) {
        uint8_t *s = r.src.p + k * kSrcSlot + ws[k].off % kSrcSlot;
        fill_random(s, ws[k].len, rng);
        for (uint32_t i = 0; i < ws[k].len; ++i) {
            s[i] = static_cast<uint8_t>(s[i] == want[ws[k].off + i] ? s[i] + 1 : s[i]); // every byte changes
            want[ws[k].off + i] = s[i];
            writer[ws[k].off + i] = static_cast<int>(k);
        }
    }
}

// Source of WRITE k (kSrcSlot >= kWindow, so a WRITE fits its slot at the offset mod kSrcSlot).
uint64_t saddr(Rig &r, size_t k, const Write &w)
{
    return reinterpret_cast<uintptr_t>(r.src.p) + k * kSrcSlot + w.off % kSrcSlot;
}

std::string describe(const std::vector<Write> &ws)
{
    std::ostringstream o;
    for (size_t k = 0; k < ws.size(); ++k)
        o << (k ? ", " : "") << '#' << k << " [" << ws[k].off << ", +" << ws[k].len << ")";
    return o.str();
}

// Posts the WRITEs (only the last one signaled unless `notify`), then a signaled
// WRITE_WITH_IMM of 8 bytes after the window when `notify`. One chain or WR by WR.
int post(Rig &r, const std::vector<Write> &ws, bool notify, bool chain, uint32_t imm)
{
    std::vector<ibv_sge> sges(ws.size() + 1);
    std::vector<ibv_send_wr> wrs;
    for (size_t k = 0; k < ws.size(); ++k) {
        sges[k] = ibv_sge{saddr(r, k, ws[k]), ws[k].len, r.smr.mr->lkey};
        bool sig = !notify && k + 1 == ws.size();
        wrs.push_back(rdma_wr(k + 1, IBV_WR_RDMA_WRITE, &sges[k], r.daddr(ws[k].off), r.dmr.mr->rkey,
                              sig ? IBV_SEND_SIGNALED : 0));
    }
    if (notify) {
        sges.back() = ibv_sge{reinterpret_cast<uintptr_t>(r.src.p) + kSrc - 8, 8, r.smr.mr->lkey};
        ibv_send_wr wr = rdma_wr(1000, IBV_WR_RDMA_WRITE_WITH_IMM, &sges.back(), r.daddr(kWindow + 64), r.dmr.mr->rkey);
        wr.imm_data = htonl(imm);
        wrs.push_back(wr);
    }
    for (size_t i = 0; i + 1 < wrs.size(); ++i)
        wrs[i].next = chain ? &wrs[i + 1] : nullptr;
    ibv_send_wr *bad = nullptr;
    if (chain)
        return ibv_post_send(r.a.qp, &wrs[0], &bad);
    for (auto &wr : wrs)
        if (int rc = ibv_post_send(r.a.qp, &wr, &bad))
            return rc;
    return 0;
}

constexpr int kTrials = 40; // per seed

// Rule 1 (with write-after-write inside): data of every earlier WRITE on the QP is in place
// when the WRITE_WITH_IMM's receive completion is polled.
TEST(AdversaryRules, NotifyAfterPendingWrites)
{
    announce("NotifyAfterPendingWrites");
    for (int s = 0; s < seeds().count; ++s) {
        const uint64_t seed = seeds().first + static_cast<uint64_t>(s);
        SCOPED_TRACE(reproducer("NotifyAfterPendingWrites", seed));
        SeedScope scope(seed);
        Rig r;
        std::mt19937_64 rng(seed);
        std::vector<uint8_t> want;
        std::vector<int> writer;
        int bites = 0;
        for (int t = 0; t < kTrials; ++t) {
            const int n = 2 + static_cast<int>(rng() % (kMaxWrites - 1));
            auto ws = plan(rng, n, false);
            prepare(r, ws, rng, want, writer);
            ASSERT_EQ(r.b.recv(t, r.dmr.mr, kRecvOff, 0), 0);
            ASSERT_EQ(post(r, ws, true, rng() % 2, static_cast<uint32_t>(t)), 0);
            bites += !check_window(r.dst.p, want, writer).empty();
            ibv_wc wc{};
            ASSERT_TRUE(wait_wc(r.b.rcq, &wc, kDeadline)) << "no receive completion for the notify of trial " << t;
            std::string e = check_window(r.dst.p, want, writer); // at once: nothing may still be landing
            ASSERT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
            ASSERT_EQ(ntohl(wc.imm_data), static_cast<uint32_t>(t));
            ASSERT_TRUE(e.empty()) << "seed 0x" << std::hex << seed << std::dec << " trial " << t
                                   << ": at the WRITE_WITH_IMM's receive completion, the earlier WRITEs "
                                   << describe(ws) << " are not all in place (last posted writer per byte): " << e;
            ASSERT_TRUE(wait_wc(r.a.scq, &wc, kDeadline)) << "no send completion for the notify of trial " << t;
            ASSERT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
        }
        EXPECT_GT(bites, 0) << "seed 0x" << std::hex << seed
                            << ": every WRITE chain was in place right after ibv_post_send; is the adversary on?";
    }
}

// Write-after-write: WRITEs over the same bytes with different starts land in posting order,
// on the adversary's own timers (no notify to flush them).
TEST(AdversaryRules, OverlapLastWriterWins)
{
    announce("OverlapLastWriterWins");
    for (int s = 0; s < seeds().count; ++s) {
        const uint64_t seed = seeds().first + static_cast<uint64_t>(s);
        SCOPED_TRACE(reproducer("OverlapLastWriterWins", seed));
        SeedScope scope(seed);
        Rig r;
        std::mt19937_64 rng(~seed);
        std::vector<uint8_t> want;
        std::vector<int> writer;
        for (int t = 0; t < kTrials; ++t) {
            const int n = 2 + static_cast<int>(rng() % (kMaxWrites - 1));
            auto ws = plan(rng, n, true);
            prepare(r, ws, rng, want, writer);
            ASSERT_EQ(post(r, ws, false, rng() % 2, 0), 0);
            ibv_wc wc{};
            ASSERT_TRUE(wait_wc(r.a.scq, &wc, kDeadline)) << "no completion for the last WRITE of trial " << t;
            ASSERT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
            // Final bytes: wait (bounded) for anything still landing, then judge.
            std::string e = check_window(r.dst.p, want, writer);
            for (auto end = SteadyClock::now() + 200ms; !e.empty() && SteadyClock::now() < end;) {
                std::this_thread::sleep_for(1ms);
                e = check_window(r.dst.p, want, writer);
            }
            ASSERT_TRUE(e.empty()) << "seed 0x" << std::hex << seed << std::dec << " trial " << t
                                   << ": overlapping WRITEs " << describe(ws)
                                   << " did not land in posting order (an earlier one over a later one): " << e;
        }
    }
}

// rnr_retry 7 retries for ever; 0..6 give up after min_rnr_timer x (rnr_retry+1).
TEST(AdversaryRules, Rnr)
{
    announce("Rnr");
    for (int s = 0; s < seeds().count; ++s) {
        const uint64_t seed = seeds().first + static_cast<uint64_t>(s);
        SCOPED_TRACE(reproducer("Rnr", seed));
        for (uint8_t retry = 0; retry <= 7; ++retry) {
            for (ibv_wr_opcode op : {IBV_WR_SEND, IBV_WR_RDMA_WRITE_WITH_IMM}) {
                if (retry < 7 && op == IBV_WR_RDMA_WRITE_WITH_IMM && retry % 3)
                    continue; // a few finite counts suffice for the second opcode
                SeedScope scope(seed);
                Rig r(retry);
                ASSERT_EQ(r.a.post(op, 1, r.smr.mr, 0, 8, r.daddr(0), r.dmr.mr->rkey, 77), 0);
                ibv_wc wc{};
                // 20 ms = 2000 periods of min_rnr_timer 1 (10 us): far past 7 retries.
                bool early = wait_wc(r.a.scq, &wc, 20ms);
                // After an RNR failure b may be in ERR already: the RECV is then flushed.
                const int recv_rc = r.b.recv(9, r.dmr.mr, kRecvOff, 64);
                if (retry == 7) {
                    ASSERT_EQ(recv_rc, 0);
                }
                if (!early) {
                    ASSERT_TRUE(wait_wc(r.a.scq, &wc, kDeadline))
                        << "no send completion, rnr_retry " << int(retry) << ", seed 0x" << std::hex << seed;
                }
                if (retry == 7) {
                    EXPECT_FALSE(early) << "rnr_retry 7: the request completed before any RECV was posted ("
                                        << ibv_wc_status_str(wc.status) << ")";
                    EXPECT_EQ(wc.status, IBV_WC_SUCCESS)
                        << "rnr_retry 7 (retry for ever), RECV posted 20 ms late, opcode " << op << ": "
                        << ibv_wc_status_str(wc.status) << ", seed 0x" << std::hex << seed;
                    ibv_wc rw{};
                    ASSERT_TRUE(wait_wc(r.b.rcq, &rw, kDeadline)) << "no receive completion, rnr_retry 7";
                    EXPECT_EQ(rw.status, IBV_WC_SUCCESS) << ibv_wc_status_str(rw.status);
                } else {
                    EXPECT_EQ(wc.status, IBV_WC_RNR_RETRY_EXC_ERR)
                        << "rnr_retry " << int(retry) << ", no RECV for 20 ms (min_rnr_timer 10 us), opcode " << op
                        << ": " << ibv_wc_status_str(wc.status) << ", seed 0x" << std::hex << seed;
                }
            }
        }
    }
}

} // namespace
