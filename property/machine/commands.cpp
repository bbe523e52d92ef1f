#include "machine/commands.h"

#include <algorithm>
#include <limits>
#include <ostream>

namespace hcts::prop {
namespace {

// RapidCheck scales inRange and friends with the size of the case; a command's
// fields should not depend on how far into the sequence it is, so draw them at
// the nominal size (they still shrink towards the first/lowest value).
template <typename T>
T draw(rc::Gen<T> g)
{
    return *rc::gen::resize(rc::kNominalSize, std::move(g));
}

uint32_t uniform(uint32_t lo, uint32_t hiExclusive) { return draw(rc::gen::inRange<uint32_t>(lo, hiExclusive)); }

Choice pick(const Mix &m)
{
    uint32_t total = 0;
    for (uint32_t c = 0; c < static_cast<uint32_t>(Choice::Count); ++c)
        total += m.weight(static_cast<Choice>(c));
    if (total == 0)
        throw std::invalid_argument("property mix has no command with a non-zero weight");
    uint32_t x = uniform(0, total);
    for (uint32_t c = 0; c < static_cast<uint32_t>(Choice::Count); ++c) {
        const uint32_t w = m.weight(static_cast<Choice>(c));
        if (x < w)
            return static_cast<Choice>(c);
        x -= w;
    }
    return Choice::Check;
}

// Lengths: the edges (1, word +-1, cache line +-1, half and whole window) and anything.
uint32_t genLen(uint32_t max)
{
    const uint32_t len = draw(rc::gen::weightedOneOf<uint32_t>(
        {{3, rc::gen::elementOf(std::vector<uint32_t>{1u, 7u, 8u, 9u, 63u, 64u, 65u, max / 2, max})},
         {2, rc::gen::inRange<uint32_t>(1, max + 1)}}));
    return std::max<uint32_t>(1, std::min(len, max));
}

uint32_t genOff(uint32_t window, uint32_t len) { return uniform(0, window - len + 1); }

uint32_t notifyKey(const Geometry &g, uint32_t rank, uint32_t peer, uint32_t idx)
{
    return (rank * g.ranks + peer) * g.notifyNum + idx;
}

uint32_t genValidIdx(const GenState &s, uint32_t rank, uint32_t peer, bool preferSet)
{
    const Geometry &g = s.cfg->geometry;
    if (preferSet) {
        // Mostly wait where a record is outstanding: a wait that must time out costs its whole timeout.
        std::vector<uint32_t> set;
        for (uint32_t i = 0; i < g.notifyNum; ++i)
            if (s.maybeSet[notifyKey(g, rank, peer, i)])
                set.push_back(i);
        if (!set.empty() && uniform(0, 8) != 0)
            return draw(rc::gen::elementOf(set));
    }
    return uniform(0, g.notifyNum);
}

uint32_t genInvalidIdx(const Geometry &g)
{
    return draw(rc::gen::elementOf(
        std::vector<uint32_t>{g.notifyNum, g.notifyNum + 1, 64u, std::numeric_limits<uint32_t>::max()}));
}

} // namespace

CaseFailure &lastFailure()
{
    static CaseFailure failure;
    return failure;
}

void failCase(const Judge *j, std::string why, bool harness)
{
    CaseFailure &f = lastFailure();
    f.log = j ? j->log() : std::vector<std::string>{};
    f.why = std::move(why);
    f.clause = j && !harness ? j->failedClause() : std::string();
    f.harness = harness;
    RC_FAIL(f.why);
}

GenState initialGenState(const PropertySpec &spec, const RunConfig &cfg)
{
    GenState s;
    s.spec = &spec;
    s.cfg = &cfg;
    const Geometry &g = cfg.geometry;
    s.posted.assign(g.ranks, 0);
    s.postedOp.assign(g.ranks, Op{});
    s.maybeSet.assign(size_t{g.ranks} * g.ranks * g.notifyNum, 0);
    return s;
}

OpCommand::OpCommand(const GenState &s)
{
    const Geometry &g = s.cfg->geometry;
    const Choice c = pick(s.spec->mix);
    Op op;
    op.rank = uniform(0, g.ranks);
    op.peer = (op.rank + 1 + uniform(0, g.ranks - 1)) % g.ranks;
    auto dataArgs = [&] {
        op.len = genLen(g.window);
        op.srcOff = genOff(g.window, op.len);
        op.dstOff = genOff(g.window, op.len);
    };
    switch (c) {
    case Choice::Check:
        op.kind = OpKind::Check;
        op.rank = op.peer = 0;
        break;
    case Choice::Stamp:
        op.kind = OpKind::Stamp;
        dataArgs();
        op.srcOff = 0;
        op.stampId = s.nextStamp;
        break;
    case Choice::Wwn:
    case Choice::WwnInvalidIdx:
    case Choice::WwnHost:
    case Choice::WwnWrongEngine:
        op.kind = OpKind::Wwn;
        dataArgs();
        op.idx = c == Choice::WwnInvalidIdx ? genInvalidIdx(g) : genValidIdx(s, op.peer, op.rank, false);
        // Mostly aim at a wait the peer has posted: the race the snapshot checks.
        if (c == Choice::Wwn && s.posted[op.peer] && s.postedOp[op.peer].peer == op.rank && uniform(0, 4) != 0)
            op.idx = s.postedOp[op.peer].idx;
        if (c == Choice::WwnHost)
            op.side = Side::Host;
        if (c == Choice::WwnWrongEngine)
            op.side = Side::WrongEngine;
        break;
    case Choice::WwnBadAddr: {
        op.kind = OpKind::Wwn;
        dataArgs();
        op.idx = genValidIdx(s, op.peer, op.rank, false);
        const uint32_t bad = uniform(0, 8);
        switch (bad) {
        case 0: op.len = 0; break;
        case 1: op.dstAddr = Addr::StraddleEnd; break;
        case 2: op.dstAddr = Addr::PastEnd; break;
        case 3: op.dstAddr = Addr::Overflow; break;
        case 4: op.dstAddr = Addr::Null; break;
        case 5: op.srcAddr = Addr::StraddleEnd; break;
        case 6: op.srcAddr = Addr::PastEnd; break;
        default: op.srcAddr = Addr::Null; break;
        }
        break;
    }
    case Choice::Write:
        op.kind = OpKind::Write;
        dataArgs();
        break;
    case Choice::Read:
        op.kind = OpKind::Read;
        dataArgs();
        break;
    case Choice::Record:
    case Choice::RecordInvalidIdx:
        op.kind = OpKind::Record;
        op.idx = c == Choice::RecordInvalidIdx ? genInvalidIdx(g) : genValidIdx(s, op.peer, op.rank, false);
        break;
    case Choice::Wait:
    case Choice::WaitInvalidIdx:
    case Choice::PostWait:
        op.kind = c == Choice::PostWait ? OpKind::PostWait : OpKind::Wait;
        op.idx = c == Choice::WaitInvalidIdx ? genInvalidIdx(g) : genValidIdx(s, op.rank, op.peer, true);
        // A posted wait must outlast the commands until its Join.
        op.timeoutMs = c == Choice::PostWait ? 2 * s.cfg->waitTimeoutMs : s.cfg->waitTimeoutMs;
        break;
    case Choice::Join: op.kind = OpKind::Join; break;
    case Choice::LocalCopy: {
        // Overlapping local copies are undefined; generate disjoint halves.
        op.kind = OpKind::LocalCopy;
        const uint32_t half = g.window / 2;
        op.len = genLen(half);
        op.srcOff = genOff(half, op.len);
        op.dstOff = half + genOff(half, op.len);
        if (*rc::gen::arbitrary<bool>())
            std::swap(op.srcOff, op.dstOff);
        break;
    }
    case Choice::Fence: op.kind = OpKind::Fence; break;
    case Choice::Count: break;
    }
    op_ = op;
}

void OpCommand::checkPreconditions(const GenState &s) const
{
    switch (op_.kind) {
    case OpKind::Join: RC_PRE(s.posted[op_.rank] != 0); break;
    case OpKind::Wait:
        // A wait that times out takes its whole timeout; a posted wait elsewhere
        // would expire meanwhile, so blocking waits only run when none is posted.
        RC_PRE(std::find(s.posted.begin(), s.posted.end(), 1) == s.posted.end());
        break;
    case OpKind::PostWait:
    case OpKind::Stamp:
    case OpKind::LocalCopy:
    case OpKind::Read:
        // While a wait is posted on a rank, nothing but remote writes changes its
        // memory, so the snapshot taken at the wait has one allowed set.
        RC_PRE(s.posted[op_.rank] == 0);
        break;
    default: break;
    }
    // While a wait is posted on a rank, that rank issues nothing: a device launch
    // waits for every queue it touched, and its memory must stay still.
    if (op_.kind != OpKind::Join && op_.kind != OpKind::Check && op_.kind != OpKind::Stamp)
        RC_PRE(s.posted[op_.rank] == 0);
}

void OpCommand::apply(GenState &s) const
{
    const Geometry &g = s.cfg->geometry;
    const bool validIdx = op_.idx < g.notifyNum;
    switch (op_.kind) {
    case OpKind::Wwn:
        if (validIdx && op_.side == Side::Device && op_.len > 0 && op_.srcAddr == Addr::InWindow &&
            op_.dstAddr == Addr::InWindow)
            ++s.maybeSet[notifyKey(g, op_.peer, op_.rank, op_.idx)];
        break;
    case OpKind::Record:
        if (validIdx)
            ++s.maybeSet[notifyKey(g, op_.peer, op_.rank, op_.idx)];
        break;
    case OpKind::Wait:
    case OpKind::PostWait:
        if (!validIdx)
            break;
        s.maybeSet[notifyKey(g, op_.rank, op_.peer, op_.idx)] = 0; // a hint for generation only
        if (op_.kind == OpKind::PostWait) {
            s.posted[op_.rank] = 1;
            s.postedOp[op_.rank] = op_;
        }
        break;
    case OpKind::Join: s.posted[op_.rank] = 0; break;
    case OpKind::Stamp: ++s.nextStamp; break;
    default: break;
    }
}

void OpCommand::run(const GenState &, Judge &j) const
{
    std::string err;
    try {
        err = j.step(op_);
    } catch (const std::exception &e) {
        // No observation of the implementation: the property ends in ERROR.
        failCase(&j, "the harness failed on " + hcts::prop::show(op_) + ": " + e.what(), true);
    }
    if (!err.empty())
        failCase(&j, err, false);
}

void OpCommand::show(std::ostream &os) const { os << hcts::prop::show(op_); }

} // namespace hcts::prop
