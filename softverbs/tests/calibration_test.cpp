// Calibration of the adversary (verbs-semantics.md §9): five deliberately wrong
// "write, then notify" protocols must each be caught within a bounded number of
// seeds, and the correct one (WRITEs, then WRITE_WITH_IMM on the same QP) must
// survive thousands. Prints the table recorded in softverbs/README.md.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <atomic>
#include <cinttypes>

#include "adversary_seed.h"
#include "verbs_fixture.h"

using namespace svt;
using namespace std::chrono_literals;

namespace {

enum class Proto { LastByte, FlagWrite, SecondQp, ReadUnfenced, SrcReuse, Correct };
const char *name(Proto p)
{
    switch (p) {
    case Proto::LastByte: return "last-byte polling";
    case Proto::FlagWrite: return "flag set by a later plain WRITE";
    case Proto::SecondQp: return "notify on a second QP";
    case Proto::ReadUnfenced: return "READ then unfenced notify";
    case Proto::SrcReuse: return "source reused before completion";
    case Proto::Correct: return "WRITEs + WRITE_WITH_IMM, same QP";
    }
    return "?";
}

constexpr size_t kLen = 16384;

uint8_t stamp(size_t i, int round) { return static_cast<uint8_t>((i * 7 + static_cast<size_t>(round) * 13) | 1); }

template <class Pred>
bool wait_for(Pred p, std::chrono::milliseconds d = 2000ms)
{
    auto end = std::chrono::steady_clock::now() + d;
    while (!p()) {
        if (std::chrono::steady_clock::now() > end)
            return false;
        std::this_thread::yield();
    }
    return true;
}

// One run of a protocol under one seed; true when the receiver saw wrong data.
bool violated(Proto proto, uint64_t seed)
{
    reseed(seed);
    Device dev;
    Buffer src(kLen * 2, true), dst(kLen * 2, true);
    Mr smr(dev.pd, src.p, src.n, kAllAccess), dmr(dev.pd, dst.p, dst.n, kAllAccess);
    Qp a(dev), b(dev), a2(dev), b2(dev);
    a.connect(b.endpoint());
    b.connect(a.endpoint());
    a2.connect(b2.endpoint());
    b2.connect(a2.endpoint());
    std::memset(dst.p, 0, dst.n);
    const uint64_t raddr = reinterpret_cast<uintptr_t>(dst.p);
    const uint32_t rkey = dmr.mr->rkey;
    volatile uint8_t *vdst = dst.p;
    bool bad = false;
    constexpr int kRounds = 2;
    for (int r = 1; r <= kRounds && !bad; ++r) {
        for (size_t i = 0; i < kLen; ++i)
            src.p[i] = stamp(i, r);
        auto data_ok = [&] {
            for (size_t i = 0; i < kLen; ++i)
                if (vdst[i] != stamp(i, r))
                    return false;
            return true;
        };
        ibv_wc wc{};
        switch (proto) {
        case Proto::LastByte: {
            a.post(IBV_WR_RDMA_WRITE, 1, smr.mr, 0, kLen, raddr, rkey);
            bool seen = wait_for([&] { return vdst[kLen - 1] == stamp(kLen - 1, r); });
            bad = !seen || !data_ok();
            wait_wc(a.scq, &wc);
            break;
        }
        case Proto::FlagWrite: {
            src.p[kLen] = static_cast<uint8_t>(r);
            a.post(IBV_WR_RDMA_WRITE, 1, smr.mr, 0, kLen, raddr, rkey, 0, 0);
            a.post(IBV_WR_RDMA_WRITE, 2, smr.mr, kLen, 1, raddr + kLen, rkey);
            bool seen = wait_for([&] { return vdst[kLen] == r; });
            bad = !seen || !data_ok();
            wait_wc(a.scq, &wc);
            break;
        }
        case Proto::SecondQp: {
            b2.recv(1);
            a.post(IBV_WR_RDMA_WRITE, 1, smr.mr, 0, kLen, raddr, rkey, 0, 0);
            a2.post(IBV_WR_RDMA_WRITE_WITH_IMM, 2, nullptr, 0, 0, raddr, rkey, static_cast<uint32_t>(r));
            bad = !wait_wc(b2.rcq, &wc) || !data_ok();
            wait_wc(a2.scq, &wc);
            a.post(IBV_WR_RDMA_WRITE, 3, smr.mr, 0, 0, raddr, rkey); // drain QP a
            wait_wc(a.scq, &wc);
            break;
        }
        case Proto::ReadUnfenced: {
            // The sender reads the receiver's region, then notifies without a fence;
            // on the notify the receiver reuses the region.
            for (size_t i = 0; i < kLen; ++i)
                dst.p[i] = stamp(i, r);
            b.recv(1);
            a.post(IBV_WR_RDMA_READ, 1, smr.mr, kLen, kLen, raddr, rkey, 0, 0);
            a.post(IBV_WR_RDMA_WRITE_WITH_IMM, 2, nullptr, 0, 0, raddr, rkey, static_cast<uint32_t>(r));
            if (wait_wc(b.rcq, &wc))
                std::memset(dst.p, 0xee, kLen);
            wait_wc(a.scq, &wc);
            for (size_t i = 0; i < kLen && !bad; ++i)
                bad = src.p[kLen + i] != stamp(i, r);
            break;
        }
        case Proto::SrcReuse: {
            b.recv(1);
            a.post(IBV_WR_RDMA_WRITE_WITH_IMM, 1, smr.mr, 0, kLen, raddr, rkey, static_cast<uint32_t>(r));
            std::memset(src.p, 0xcc, kLen); // reused before the completion: wrong
            bad = !wait_wc(b.rcq, &wc) || !data_ok();
            wait_wc(a.scq, &wc);
            break;
        }
        case Proto::Correct: {
            b.recv(1);
            a.post(IBV_WR_RDMA_WRITE, 1, smr.mr, 0, kLen / 2, raddr, rkey, 0, 0);
            a.post(IBV_WR_RDMA_WRITE, 2, smr.mr, kLen / 2, kLen / 2, raddr + kLen / 2, rkey, 0, 0);
            a.post(IBV_WR_RDMA_WRITE_WITH_IMM, 3, nullptr, 0, 0, raddr, rkey, static_cast<uint32_t>(r));
            bad = !wait_wc(b.rcq, &wc) || wc.status != IBV_WC_SUCCESS || !data_ok();
            wait_wc(a.scq, &wc);
            break;
        }
        }
    }
    reseed(0);
    return bad;
}

struct Row {
    Proto proto;
    int caught_at; // 0: survived
    int seeds_run;
};

} // namespace

TEST(Calibration, AdversaryCatchesWrongProtocolsAndSparesTheCorrectOne)
{
    const uint64_t base = 0x5eed0000;
    constexpr int kMaxSeedsWrong = 64;
    constexpr int kSeedsCorrect = 2000;
    std::vector<Row> rows;
    for (Proto p : {Proto::LastByte, Proto::FlagWrite, Proto::SecondQp, Proto::ReadUnfenced, Proto::SrcReuse}) {
        Row row{p, 0, 0};
        for (int s = 1; s <= kMaxSeedsWrong; ++s) {
            row.seeds_run = s;
            if (violated(p, base + static_cast<uint64_t>(s))) {
                row.caught_at = s;
                break;
            }
        }
        rows.push_back(row);
    }
    Row ok{Proto::Correct, 0, 0};
    auto t0 = std::chrono::steady_clock::now();
    for (int s = 1; s <= kSeedsCorrect; ++s) {
        ok.seeds_run = s;
        if (violated(Proto::Correct, base + static_cast<uint64_t>(s))) {
            ok.caught_at = s;
            break;
        }
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rows.push_back(ok);
    std::printf("\n| protocol | verdict | seeds |\n|---|---|---|\n");
    for (const Row &r : rows)
        std::printf("| %s | %s | %d |\n", name(r.proto), r.caught_at ? "caught" : "survived",
                    r.caught_at ? r.caught_at : r.seeds_run);
    std::printf("(correct protocol: %d seeds in %.1f s; reproduce one run with SOFTVERBS_SEED=0x%" PRIx64
                "+<seeds>)\n\n",
                ok.seeds_run, secs, base);
    for (const Row &r : rows) {
        if (r.proto == Proto::Correct)
            EXPECT_EQ(r.caught_at, 0) << "the correct protocol failed at seed 0x" << std::hex << base + r.caught_at;
        else
            EXPECT_NE(r.caught_at, 0) << name(r.proto) << " survived " << kMaxSeedsWrong << " seeds";
    }
}
