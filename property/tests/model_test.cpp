// Unit tests of the pure model: allowed sets, notify bounds, commits, checks.
#include <algorithm>

#include <gtest/gtest.h>

#include "model/model.h"

namespace hcts::prop {
namespace {

// Every violation as "clause: text" lines, "" when none.
std::string text(const Violations &v)
{
    std::string out;
    for (const auto &x : v)
        out += x.clause + ": " + x.text + "\n";
    return out;
}

Geometry geo() { return {.ranks = 2, .window = 64, .guard = 16, .notify_num = 2}; }

// An op of `kind` from rank `from` towards `to` (or within `from` for local ones).
Op make_op(OpKind kind, uint32_t from, uint32_t to, uint32_t src = 0, uint32_t dst = 0, uint32_t len = 0,
           uint32_t idx = 0)
{
    return {.kind = kind, .rank = from, .peer = to, .src_off = src, .dst_off = dst, .len = len, .idx = idx};
}
Op wwn(uint32_t from, uint32_t to, uint32_t src, uint32_t dst, uint32_t len, uint32_t idx)
{
    return make_op(OpKind::Wwn, from, to, src, dst, len, idx);
}
Op record(uint32_t from, uint32_t to, uint32_t idx) { return make_op(OpKind::Record, from, to, 0, 0, 0, idx); }
Op stamp(uint32_t rank, uint32_t dst, uint32_t len, uint32_t id)
{
    Op o = make_op(OpKind::Stamp, rank, rank, 0, dst, len);
    o.stamp_id = id;
    return o;
}
uint8_t stamped(uint32_t id, uint32_t rank, uint32_t region_off) { return stamp_byte(stamp_key(id, rank), region_off); }

std::vector<uint8_t> window(const Model &m, const std::vector<uint8_t> &region)
{
    const auto &g = m.geometry();
    return {region.begin() + g.guard, region.begin() + g.guard + g.window};
}

TEST(Model, InitialMemoryIsTheOnlyAllowedContent)
{
    Model m(geo());
    auto r1 = m.initial_region(1);
    EXPECT_EQ(text(m.check_region(1, r1)), "");
    EXPECT_NE(m.initial_region(0), r1) << "ranks must start with different stamps";
    r1[3] ^= 0xff; // inside the guard before the window
    EXPECT_NE(text(m.check_region(1, r1)).find("guard zone damaged"), std::string::npos);
    r1 = m.initial_region(1);
    r1[m.geometry().guard + 5] ^= 1;
    EXPECT_NE(text(m.check_region(1, r1)).find("memory outside the allowed set"), std::string::npos);
}

TEST(Model, WwnDataIsInFlightUntilItsNotifyIsConsumed)
{
    Model m(geo());
    const auto &g = m.geometry();
    const auto src = m.initial_region(0);
    auto dst = m.initial_region(1);
    const Op op = wwn(0, 1, 8, 16, 9, 1);
    ASSERT_TRUE(m.expect(op).accept);
    m.issue(op);
    // In flight: old and new are both allowed.
    EXPECT_EQ(text(m.check_region(1, dst)), "");
    auto landed = dst;
    for (uint32_t i = 0; i < 9; ++i)
        landed[g.guard + 16 + i] = src[g.guard + 8 + i];
    EXPECT_EQ(text(m.check_region(1, landed)), "");
    EXPECT_EQ(m.wait_allowed(1, 0, 1), WaitAllowed::MustComplete);
    EXPECT_EQ(m.wait_allowed(1, 0, 0), WaitAllowed::MustTimeOut) << "another index must not be woken";

    // A snapshot without the payload right after the wait is a violation.
    Model stale = m;
    EXPECT_NE(text(stale.on_wait(1, 0, 1, true, window(m, dst))).find("write-before-notify"), std::string::npos);
    // With it, fine; afterwards the old bytes are no longer allowed.
    EXPECT_EQ(text(m.on_wait(1, 0, 1, true, window(m, landed))), "");
    EXPECT_EQ(text(m.check_region(1, landed)), "");
    EXPECT_NE(text(m.check_region(1, dst)), "");
    // The source was not touched.
    EXPECT_EQ(text(m.check_region(0, src)), "");
    auto src_changed = src;
    src_changed[g.guard + 8] ^= 0x40;
    EXPECT_NE(text(m.check_region(0, src_changed)), "") << "a modified src must be caught";
}

TEST(Model, RejectionsFollowTheReferenceOrder)
{
    Model m(geo());
    Op op = wwn(0, 1, 0, 0, 8, 2);
    EXPECT_FALSE(m.expect(op).accept) << "idx == notifyNum";
    op.idx = 1;
    EXPECT_TRUE(m.expect(op).accept);
    op.side = Side::Host;
    EXPECT_NE(m.expect(op).reason.find("host"), std::string::npos);
    op.side = Side::WrongEngine;
    EXPECT_FALSE(m.expect(op).accept);
    op.side = Side::Device;
    op.len = 0;
    EXPECT_FALSE(m.expect(op).accept);
    op.len = 8;
    for (Addr a : {Addr::StraddleEnd, Addr::PastEnd, Addr::Overflow, Addr::Null}) {
        op.dst_addr = a;
        EXPECT_FALSE(m.expect(op).accept);
        op.dst_addr = Addr::InWindow;
        op.src_addr = a;
        EXPECT_FALSE(m.expect(op).accept);
        op.src_addr = Addr::InWindow;
    }
    EXPECT_FALSE(m.expect(make_op(OpKind::Wait, 1, 0, 0, 0, 0, 7)).accept);
    op.len = 65; // leaves the 64-byte window: a generator bug, not an IUT bug
    EXPECT_THROW(m.expect(op), std::invalid_argument);
}

TEST(Model, BinaryNotifiesCoalesce)
{
    Model m(geo());
    m.issue(record(0, 1, 0));
    m.issue(record(0, 1, 0));
    EXPECT_EQ(m.wait_allowed(1, 0, 0), WaitAllowed::MustComplete);
    EXPECT_EQ(text(m.on_wait(1, 0, 0, true, {})), "");
    EXPECT_EQ(m.wait_allowed(1, 0, 0), WaitAllowed::Either);
    EXPECT_EQ(text(m.on_wait(1, 0, 0, false, {})), "") << "the second record may have coalesced";
    EXPECT_EQ(m.wait_allowed(1, 0, 0), WaitAllowed::MustTimeOut);
    EXPECT_NE(text(m.on_wait(1, 0, 0, true, {})).find("spurious notify"), std::string::npos);
}

TEST(Model, CountingNotifiesCount)
{
    Model m(geo(), NotifyProfile::Counting);
    m.issue(record(1, 0, 1));
    m.issue(record(1, 0, 1));
    EXPECT_EQ(text(m.on_wait(0, 1, 1, true, {})), "");
    EXPECT_EQ(m.wait_allowed(0, 1, 1), WaitAllowed::MustComplete);
    EXPECT_NE(text(m.on_wait(0, 1, 1, false, {})).find("lost notify"), std::string::npos);
}

TEST(Model, AFenceCommitsEarlierWritesWithTheNotify)
{
    const auto run = [](bool fenced) {
        Model m(geo());
        m.issue(make_op(OpKind::Write, 0, 1, 0, 40, 4));
        if (fenced)
            m.issue(make_op(OpKind::Fence, 0, 1));
        m.issue(wwn(0, 1, 8, 0, 8, 0));
        (void)m.on_wait(1, 0, 0, true, {});
        return m.allowed(1, m.geometry().window_to_region(40)).size();
    };
    EXPECT_EQ(run(false), 2u) << "without a fence the plain write may still be in flight";
    EXPECT_EQ(run(true), 1u) << "with a fence it landed before the notify";
}

TEST(Model, LocalCopyAndStampActAtOnce)
{
    Model m(geo());
    const auto &g = m.geometry();
    m.issue(stamp(0, 0, 4, 9));
    EXPECT_EQ(m.allowed(0, g.window_to_region(2)), std::vector<uint8_t>{stamped(9, 0, g.window_to_region(2))});
    m.issue(make_op(OpKind::LocalCopy, 0, 0, 0, 32, 4));
    EXPECT_EQ(m.allowed(0, g.window_to_region(34)), std::vector<uint8_t>{stamped(9, 0, g.window_to_region(2))});
}

TEST(Model, StampsDifferByIdRankAndOffset)
{
    // The core codec: every byte depends on every field, so a stale or foreign
    // stamp is told from the current one.
    const auto &g = geo();
    const uint32_t off = g.window_to_region(5);
    EXPECT_NE(stamped(1, 0, off), stamped(2, 0, off));
    EXPECT_NE(stamped(1, 0, off), stamped(1, 1, off));
    EXPECT_NE(stamped(1, 0, off), stamped(1, 0, off + 8));
}

TEST(Model, ReadResultsStayInFlight)
{
    Model m(geo());
    const auto &g = m.geometry();
    m.issue(make_op(OpKind::Read, 1, 0, 0, 0, 1));
    const auto allowed = m.allowed(1, g.window_to_region(0));
    EXPECT_EQ(allowed.size(), 2u);
}

TEST(Model, ALocalWriteAfterAnInFlightWriteMayLandEitherSide)
{
    Model m(geo());
    const auto &g = m.geometry();
    m.issue(wwn(1, 0, 0, 0, 1, 0));
    m.issue(stamp(0, 0, 1, 5));
    (void)m.on_wait(0, 1, 0, true, {});
    EXPECT_EQ(m.allowed(0, g.window_to_region(0)).size(), 2u) << "stamp and payload both possible";
}

TEST(Model, ARecordIssuedAfterTheWaitsDeadlineIsNotOwedToIt)
{
    Model m(geo());
    const uint64_t late = m.ops_issued();
    m.issue(wwn(0, 1, 0, 0, 4, 1));
    EXPECT_EQ(text(m.on_wait(1, 0, 1, false, {}, late)), "") << "the wait expired before the WWN was issued";
    EXPECT_EQ(m.wait_allowed(1, 0, 1), WaitAllowed::MustComplete) << "the late record stays for the next wait";
    EXPECT_NE(text(m.on_wait(1, 0, 1, false, {})).find("lost notify"), std::string::npos);
}

TEST(Model, EveryRejectionRuleNamesItsClause)
{
    Model m(Geometry{});
    Op op{OpKind::Wwn, 0, 1};
    op.len = 8;
    op.idx = 4;
    EXPECT_EQ(m.expect(op).clause, "WWN.IDX.2");
    op.idx = 0;
    op.len = 0;
    EXPECT_EQ(m.expect(op).clause, "WWN.PRF.2");
    op.len = 8;
    op.src_addr = Addr::PastEnd;
    EXPECT_EQ(m.expect(op).clause, "WWN.ERR.3");
    op.src_addr = Addr::Overflow;
    EXPECT_EQ(m.expect(op).clause, "WWN.ERR.4");
    op.src_addr = Addr::Null;
    EXPECT_EQ(m.expect(op).clause, "WWN.ERR.1");
    op.src_addr = Addr::InWindow;
    op.side = Side::Host;
    EXPECT_EQ(m.expect(op).clause, "WWN.DEV.1");
    op.side = Side::WrongEngine;
    EXPECT_EQ(m.expect(op).clause, "WWN.DEV.2");
    Op wait{OpKind::Wait, 1, 0};
    wait.idx = 9;
    EXPECT_EQ(m.expect(wait).clause, "WWN.IDX.5");
    EXPECT_TRUE(m.expect(Op{OpKind::Wait, 1, 0}).accept);
}

TEST(Model, AToleratedAcceptedIndexMayRaiseAnyNotifyOfItsChannelAndWriteItsPayload)
{
    Model m(Geometry{});
    Op bad{OpKind::Wwn, 0, 1};
    bad.len = 4;
    bad.dst_off = 16;
    bad.idx = 7; // >= notifyNum 4
    ASSERT_FALSE(m.expect(bad).accept);
    m.tolerate(bad, true);
    for (uint32_t i = 0; i < 4; ++i)
        EXPECT_EQ(m.wait_allowed(1, 0, i), WaitAllowed::Either) << "index " << i;
    EXPECT_EQ(m.wait_allowed(0, 1, 0), WaitAllowed::MustTimeOut) << "the other direction is untouched";
    const auto payload = m.allowed(0, m.geometry().window_to_region(0));
    const auto dst = m.allowed(1, m.geometry().window_to_region(16));
    EXPECT_EQ(dst.size(), 2u) << "the old value or the payload";
    EXPECT_NE(std::find(dst.begin(), dst.end(), payload.front()), dst.end());
    // A completed wait on a tainted index orders nothing: no violation either way.
    EXPECT_EQ(text(m.on_wait(1, 0, 2, true, {})), "");
    EXPECT_EQ(text(m.on_wait(1, 0, 2, false, {})), "");
}

TEST(Model, AToleratedRejectionMayHaveWrittenButRaisesNothing)
{
    Model m(Geometry{});
    Op bad{OpKind::Wwn, 0, 1};
    bad.len = 4;
    bad.dst_off = 8;
    bad.idx = 9;
    m.tolerate(bad, false);
    EXPECT_EQ(m.wait_allowed(1, 0, 0), WaitAllowed::MustTimeOut);
    EXPECT_EQ(m.allowed(1, m.geometry().window_to_region(8)).size(), 2u);
}

TEST(Model, AToleratedSourceOutsideMemoryMayWriteAnything)
{
    Model m(Geometry{});
    Op bad{OpKind::Wwn, 0, 1};
    bad.len = 4;
    bad.dst_off = 32;
    bad.src_addr = Addr::StraddleEnd;
    m.tolerate(bad, true);
    auto region = m.initial_region(1);
    for (uint32_t i = 0; i < 4; ++i)
        region[m.geometry().window_to_region(32 + i)] ^= 0x5a;
    EXPECT_EQ(text(m.check_region(1, region)), "");
    region[m.geometry().window_to_region(36)] ^= 0x5a; // one byte past the call's range
    EXPECT_NE(text(m.check_region(1, region)).find("WWN.VIS.3"), std::string::npos);
}

TEST(Model, AWriteByARejectedCallIsBlamedOnTheRuleThatRejectedIt)
{
    // A library that splits a write wrote part of a call it then rejected for
    // its index: that breaks WWN.IDX.3 (no effect), not the memory's clause.
    Model m(Geometry{});
    Op bad{OpKind::Wwn, 0, 1};
    bad.len = 2;
    bad.dst_off = 8;
    bad.idx = 64;
    m.rejected(bad, "WWN.IDX.2");
    EXPECT_EQ(m.wait_allowed(1, 0, 0), WaitAllowed::MustTimeOut);
    auto region = m.initial_region(1);
    EXPECT_EQ(text(m.check_region(1, region)), "") << "writing nothing is what the rule asks";
    region[m.geometry().window_to_region(8)] = m.allowed(0, m.geometry().window_to_region(0)).front();
    const std::string got = text(m.check_region(1, region));
    EXPECT_EQ(got.rfind("WWN.IDX.3: a rejected call wrote", 0), 0u) << got;
    EXPECT_EQ(got.find("WWN.VIS.3"), std::string::npos) << got;
}

} // namespace
} // namespace hcts::prop
