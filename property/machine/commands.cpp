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

uint32_t uniform(uint32_t lo, uint32_t hi_exclusive) { return draw(rc::gen::inRange<uint32_t>(lo, hi_exclusive)); }

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
uint32_t gen_len(uint32_t max)
{
    const uint32_t len = draw(rc::gen::weightedOneOf<uint32_t>(
        {{3, rc::gen::elementOf(std::vector<uint32_t>{1u, 7u, 8u, 9u, 63u, 64u, 65u, max / 2, max})},
         {2, rc::gen::inRange<uint32_t>(1, max + 1)}}));
    return std::max<uint32_t>(1, std::min(len, max));
}

uint32_t gen_off(uint32_t window, uint32_t len) { return uniform(0, window - len + 1); }

uint32_t notify_key(const Geometry &g, uint32_t rank, uint32_t peer, uint32_t idx)
{
    return (rank * g.ranks + peer) * g.notify_num + idx;
}

uint32_t gen_valid_idx(const GenState &s, uint32_t rank, uint32_t peer, bool prefer_set)
{
    const Geometry &g = s.cfg->geometry;
    if (prefer_set) {
        // Mostly wait where a record is outstanding: a wait that must time out costs its whole timeout.
        std::vector<uint32_t> set;
        for (uint32_t i = 0; i < g.notify_num; ++i)
            if (s.maybe_set[notify_key(g, rank, peer, i)])
                set.push_back(i);
        if (!set.empty() && uniform(0, 8) != 0)
            return draw(rc::gen::elementOf(set));
    }
    return uniform(0, g.notify_num);
}

uint32_t gen_invalid_idx(const Geometry &g)
{
    return draw(rc::gen::elementOf(
        std::vector<uint32_t>{g.notify_num, g.notify_num + 1, 64u, std::numeric_limits<uint32_t>::max()}));
}

} // namespace

CaseFailure &last_failure()
{
    static CaseFailure failure;
    return failure;
}

void fail_case(const Judge *j, std::string why, bool harness)
{
    CaseFailure &f = last_failure();
    f.log = j ? j->log() : std::vector<std::string>{};
    f.why = std::move(why);
    f.clause = j && !harness ? j->failed_clause() : std::string();
    f.harness = harness;
    RC_FAIL(f.why);
}

GenState initial_gen_state(const PropertySpec &spec, const RunConfig &cfg)
{
    GenState s;
    s.spec = &spec;
    s.cfg = &cfg;
    const Geometry &g = cfg.geometry;
    s.posted.assign(g.ranks, 0);
    s.posted_op.assign(g.ranks, Op{});
    s.maybe_set.assign(size_t{g.ranks} * g.ranks * g.notify_num, 0);
    return s;
}

OpCommand::OpCommand(const GenState &s)
{
    const Geometry &g = s.cfg->geometry;
    const Choice c = pick(s.spec->mix);
    Op op;
    op.rank = uniform(0, g.ranks);
    op.peer = (op.rank + 1 + uniform(0, g.ranks - 1)) % g.ranks;
    auto data_args = [&] {
        op.len = gen_len(g.window);
        op.src_off = gen_off(g.window, op.len);
        op.dst_off = gen_off(g.window, op.len);
    };
    switch (c) {
    case Choice::Check:
        op.kind = OpKind::Check;
        op.rank = op.peer = 0;
        break;
    case Choice::Stamp:
        op.kind = OpKind::Stamp;
        data_args();
        op.src_off = 0;
        op.stamp_id = s.next_stamp;
        break;
    case Choice::Wwn:
    case Choice::WwnInvalidIdx:
    case Choice::WwnHost:
    case Choice::WwnWrongEngine:
        op.kind = OpKind::Wwn;
        data_args();
        op.idx = c == Choice::WwnInvalidIdx ? gen_invalid_idx(g) : gen_valid_idx(s, op.peer, op.rank, false);
        // Mostly aim at a wait the peer has posted: the race the snapshot checks.
        if (c == Choice::Wwn && s.posted[op.peer] && s.posted_op[op.peer].peer == op.rank && uniform(0, 4) != 0)
            op.idx = s.posted_op[op.peer].idx;
        if (c == Choice::WwnHost)
            op.side = Side::Host;
        if (c == Choice::WwnWrongEngine)
            op.side = Side::WrongEngine;
        break;
    case Choice::WwnBadAddr: {
        op.kind = OpKind::Wwn;
        data_args();
        op.idx = gen_valid_idx(s, op.peer, op.rank, false);
        const uint32_t bad = uniform(0, 8);
        switch (bad) {
        case 0: op.len = 0; break;
        case 1: op.dst_addr = Addr::StraddleEnd; break;
        case 2: op.dst_addr = Addr::PastEnd; break;
        case 3: op.dst_addr = Addr::Overflow; break;
        case 4: op.dst_addr = Addr::Null; break;
        case 5: op.src_addr = Addr::StraddleEnd; break;
        case 6: op.src_addr = Addr::PastEnd; break;
        default: op.src_addr = Addr::Null; break;
        }
        break;
    }
    case Choice::Write:
        op.kind = OpKind::Write;
        data_args();
        break;
    case Choice::Read:
        op.kind = OpKind::Read;
        data_args();
        break;
    case Choice::Record:
    case Choice::RecordInvalidIdx:
        op.kind = OpKind::Record;
        op.idx = c == Choice::RecordInvalidIdx ? gen_invalid_idx(g) : gen_valid_idx(s, op.peer, op.rank, false);
        break;
    case Choice::Wait:
    case Choice::WaitInvalidIdx:
    case Choice::PostWait:
        op.kind = c == Choice::PostWait ? OpKind::PostWait : OpKind::Wait;
        op.idx = c == Choice::WaitInvalidIdx ? gen_invalid_idx(g) : gen_valid_idx(s, op.rank, op.peer, true);
        // A posted wait must outlast the commands until its Join.
        op.timeout_ms = c == Choice::PostWait ? 2 * s.cfg->wait_timeout_ms : s.cfg->wait_timeout_ms;
        break;
    case Choice::Join: op.kind = OpKind::Join; break;
    case Choice::LocalCopy: {
        // Overlapping local copies are undefined; generate disjoint halves.
        op.kind = OpKind::LocalCopy;
        const uint32_t half = g.window / 2;
        op.len = gen_len(half);
        op.src_off = gen_off(half, op.len);
        op.dst_off = half + gen_off(half, op.len);
        if (*rc::gen::arbitrary<bool>())
            std::swap(op.src_off, op.dst_off);
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
    const bool valid_idx = op_.idx < g.notify_num;
    switch (op_.kind) {
    case OpKind::Wwn:
        if (valid_idx && op_.side == Side::Device && op_.len > 0 && op_.src_addr == Addr::InWindow &&
            op_.dst_addr == Addr::InWindow)
            ++s.maybe_set[notify_key(g, op_.peer, op_.rank, op_.idx)];
        break;
    case OpKind::Record:
        if (valid_idx)
            ++s.maybe_set[notify_key(g, op_.peer, op_.rank, op_.idx)];
        break;
    case OpKind::Wait:
    case OpKind::PostWait:
        if (!valid_idx)
            break;
        s.maybe_set[notify_key(g, op_.rank, op_.peer, op_.idx)] = 0; // a hint for generation only
        if (op_.kind == OpKind::PostWait) {
            s.posted[op_.rank] = 1;
            s.posted_op[op_.rank] = op_;
        }
        break;
    case OpKind::Join: s.posted[op_.rank] = 0; break;
    case OpKind::Stamp: ++s.next_stamp; break;
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
        fail_case(&j, "the harness failed on " + hcts::prop::show(op_) + ": " + e.what(), true);
    }
    if (!err.empty())
        fail_case(&j, err, false);
}

void OpCommand::show(std::ostream &os) const { os << hcts::prop::show(op_); }

} // namespace hcts::prop
