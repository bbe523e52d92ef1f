// Unit tests of the pure model: allowed sets, notify bounds, commits, checks.
#include <gtest/gtest.h>

#include "model/model.h"
#include "model/stamp.h"

namespace hcts::prop {
namespace {

Geometry geo() {
  Geometry g;
  g.ranks = 2;
  g.window = 64;
  g.guard = 16;
  g.notifyNum = 2;
  return g;
}

Op wwn(uint32_t from, uint32_t to, uint32_t src, uint32_t dst, uint32_t len, uint32_t idx) {
  Op op;
  op.kind = OpKind::Wwn;
  op.rank = from;
  op.peer = to;
  op.srcOff = src;
  op.dstOff = dst;
  op.len = len;
  op.idx = idx;
  return op;
}

std::vector<uint8_t> window(const Model &m, const std::vector<uint8_t> &region) {
  const auto &g = m.geometry();
  return {region.begin() + g.guard, region.begin() + g.guard + g.window};
}

TEST(Model, InitialMemoryIsTheOnlyAllowedContent) {
  Model m(geo());
  auto r1 = m.initialRegion(1);
  EXPECT_EQ(m.checkRegion(1, r1), "");
  EXPECT_NE(m.initialRegion(0), r1) << "ranks must start with different stamps";
  r1[3] ^= 0xff;  // inside the guard before the window
  EXPECT_NE(m.checkRegion(1, r1).find("guard zone damaged"), std::string::npos);
  r1 = m.initialRegion(1);
  r1[m.geometry().guard + 5] ^= 1;
  EXPECT_NE(m.checkRegion(1, r1).find("memory outside the allowed set"), std::string::npos);
}

TEST(Model, WwnDataIsInFlightUntilItsNotifyIsConsumed) {
  Model m(geo());
  const auto &g = m.geometry();
  const auto src = m.initialRegion(0);
  auto dst = m.initialRegion(1);
  const Op op = wwn(0, 1, 8, 16, 9, 1);
  ASSERT_TRUE(m.expect(op).accept);
  m.issue(op);
  // In flight: old and new are both allowed.
  EXPECT_EQ(m.checkRegion(1, dst), "");
  auto landed = dst;
  for (uint32_t i = 0; i < 9; ++i) landed[g.guard + 16 + i] = src[g.guard + 8 + i];
  EXPECT_EQ(m.checkRegion(1, landed), "");
  EXPECT_EQ(m.waitAllowed(1, 0, 1), WaitAllowed::MustComplete);
  EXPECT_EQ(m.waitAllowed(1, 0, 0), WaitAllowed::MustTimeOut) << "another index must not be woken";

  // A snapshot without the payload right after the wait is a violation.
  Model stale = m;
  EXPECT_NE(stale.onWait(1, 0, 1, true, window(m, dst)).find("write-before-notify"), std::string::npos);
  // With it, fine; afterwards the old bytes are no longer allowed.
  EXPECT_EQ(m.onWait(1, 0, 1, true, window(m, landed)), "");
  EXPECT_EQ(m.checkRegion(1, landed), "");
  EXPECT_NE(m.checkRegion(1, dst), "");
  // The source was not touched.
  EXPECT_EQ(m.checkRegion(0, src), "");
  auto srcChanged = src;
  srcChanged[g.guard + 8] ^= 0x40;
  EXPECT_NE(m.checkRegion(0, srcChanged), "") << "a modified src must be caught";
}

TEST(Model, RejectionsFollowTheReferenceOrder) {
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
    op.dstAddr = a;
    EXPECT_FALSE(m.expect(op).accept);
    op.dstAddr = Addr::InWindow;
    op.srcAddr = a;
    EXPECT_FALSE(m.expect(op).accept);
    op.srcAddr = Addr::InWindow;
  }
  Op wait;
  wait.kind = OpKind::Wait;
  wait.rank = 1;
  wait.peer = 0;
  wait.idx = 7;
  EXPECT_FALSE(m.expect(wait).accept);
  op.len = 65;  // leaves the 64-byte window: a generator bug, not an IUT bug
  EXPECT_THROW(m.expect(op), std::invalid_argument);
}

TEST(Model, BinaryNotifiesCoalesce) {
  Model m(geo());
  Op rec;
  rec.kind = OpKind::Record;
  rec.rank = 0;
  rec.peer = 1;
  rec.idx = 0;
  m.issue(rec);
  m.issue(rec);
  EXPECT_EQ(m.waitAllowed(1, 0, 0), WaitAllowed::MustComplete);
  EXPECT_EQ(m.onWait(1, 0, 0, true, {}), "");
  EXPECT_EQ(m.waitAllowed(1, 0, 0), WaitAllowed::Either);
  EXPECT_EQ(m.onWait(1, 0, 0, false, {}), "") << "the second record may have coalesced";
  EXPECT_EQ(m.waitAllowed(1, 0, 0), WaitAllowed::MustTimeOut);
  EXPECT_NE(m.onWait(1, 0, 0, true, {}).find("spurious notify"), std::string::npos);
}

TEST(Model, CountingNotifiesCount) {
  Model m(geo(), NotifyProfile::Counting);
  Op rec;
  rec.kind = OpKind::Record;
  rec.rank = 1;
  rec.peer = 0;
  rec.idx = 1;
  m.issue(rec);
  m.issue(rec);
  EXPECT_EQ(m.onWait(0, 1, 1, true, {}), "");
  EXPECT_EQ(m.waitAllowed(0, 1, 1), WaitAllowed::MustComplete);
  EXPECT_NE(m.onWait(0, 1, 1, false, {}).find("lost notify"), std::string::npos);
}

TEST(Model, AFenceCommitsEarlierWritesWithTheNotify) {
  const auto run = [](bool fenced) {
    Model m(geo());
    Op w;
    w.kind = OpKind::Write;
    w.rank = 0;
    w.peer = 1;
    w.srcOff = 0;
    w.dstOff = 40;
    w.len = 4;
    m.issue(w);
    if (fenced) {
      Op f;
      f.kind = OpKind::Fence;
      f.rank = 0;
      f.peer = 1;
      m.issue(f);
    }
    m.issue(wwn(0, 1, 8, 0, 8, 0));
    (void)m.onWait(1, 0, 0, true, {});
    return m.allowed(1, m.geometry().windowToRegion(40)).size();
  };
  EXPECT_EQ(run(false), 2u) << "without a fence the plain write may still be in flight";
  EXPECT_EQ(run(true), 1u) << "with a fence it landed before the notify";
}

TEST(Model, LocalCopyAndStampActAtOnce) {
  Model m(geo());
  const auto &g = m.geometry();
  Op st;
  st.kind = OpKind::Stamp;
  st.rank = 0;
  st.dstOff = 0;
  st.len = 4;
  st.stampId = 9;
  m.issue(st);
  EXPECT_EQ(m.allowed(0, g.windowToRegion(2)), std::vector<uint8_t>{stampByte(9, 0, g.windowToRegion(2))});
  Op cp;
  cp.kind = OpKind::LocalCopy;
  cp.rank = 0;
  cp.srcOff = 0;
  cp.dstOff = 32;
  cp.len = 4;
  m.issue(cp);
  EXPECT_EQ(m.allowed(0, g.windowToRegion(34)), std::vector<uint8_t>{stampByte(9, 0, g.windowToRegion(2))});
}

TEST(Model, ReadResultsStayInFlight) {
  Model m(geo());
  const auto &g = m.geometry();
  Op rd;
  rd.kind = OpKind::Read;
  rd.rank = 1;
  rd.peer = 0;
  rd.srcOff = 0;
  rd.dstOff = 0;
  rd.len = 1;
  m.issue(rd);
  const auto allowed = m.allowed(1, g.windowToRegion(0));
  EXPECT_EQ(allowed.size(), 2u);
}

}  // namespace
}  // namespace hcts::prop

namespace hcts::prop {
namespace {

TEST(Model, ALocalWriteAfterAnInFlightWriteMayLandEitherSide) {
  Model m(geo());
  const auto &g = m.geometry();
  m.issue(wwn(1, 0, 0, 0, 1, 0));
  Op st;
  st.kind = OpKind::Stamp;
  st.rank = 0;
  st.dstOff = 0;
  st.len = 1;
  st.stampId = 5;
  m.issue(st);
  (void)m.onWait(0, 1, 0, true, {});
  EXPECT_EQ(m.allowed(0, g.windowToRegion(0)).size(), 2u) << "stamp and payload both possible";
}

}  // namespace
}  // namespace hcts::prop

namespace hcts::prop {
namespace {

TEST(Model, ARecordIssuedAfterTheWaitsDeadlineIsNotOwedToIt) {
  Model m(geo());
  const uint64_t late = m.opsIssued();
  m.issue(wwn(0, 1, 0, 0, 4, 1));
  EXPECT_EQ(m.onWait(1, 0, 1, false, {}, late), "") << "the wait expired before the WWN was issued";
  EXPECT_EQ(m.waitAllowed(1, 0, 1), WaitAllowed::MustComplete) << "the late record stays for the next wait";
  EXPECT_NE(m.onWait(1, 0, 1, false, {}).find("lost notify"), std::string::npos);
}

}  // namespace
}  // namespace hcts::prop
