#include "model/model.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "hcts/core/stamp.h"

namespace hcts::prop {

const char *waitAllowedName(WaitAllowed w)
{
    switch (w) {
    case WaitAllowed::MustComplete: return "must complete";
    case WaitAllowed::MustTimeOut: return "must time out";
    case WaitAllowed::Either: return "may complete or time out";
    }
    return "?";
}

Model::Model(Geometry g, NotifyProfile profile) : geo_(g), profile_(profile)
{
    if (g.ranks < 2)
        throw std::invalid_argument("Model: ranks is " + std::to_string(g.ranks) + ", need at least 2");
    if (g.notifyNum == 0)
        throw std::invalid_argument("Model: notifyNum must be at least 1");
    mem_.resize(g.ranks);
    for (uint32_t r = 0; r < g.ranks; ++r) {
        const auto init = initialRegion(r);
        mem_[r].resize(g.regionBytes());
        for (uint32_t b = 0; b < g.regionBytes(); ++b)
            mem_[r][b].committed = {init[b]};
    }
    notifies_.resize(size_t{g.ranks} * g.ranks * g.notifyNum);
    lastFence_.assign(size_t{g.ranks} * g.ranks, 0);
}

std::vector<uint8_t> Model::initialRegion(uint32_t rank) const
{
    std::vector<uint8_t> out(geo_.regionBytes());
    for (uint32_t b = 0; b < out.size(); ++b)
        out[b] = stamp_byte(stampKey(0, rank), b);
    return out;
}

std::vector<uint8_t> Model::stampBytes(const Op &op) const
{
    std::vector<uint8_t> out(op.len);
    for (uint32_t i = 0; i < op.len; ++i)
        out[i] = stamp_byte(stampKey(op.stampId, op.rank), geo_.windowToRegion(op.dstOff + i));
    return out;
}

Model::NotifyState &Model::notify(uint32_t rank, uint32_t peer, uint32_t idx)
{
    return notifies_[(size_t{rank} * geo_.ranks + peer) * geo_.notifyNum + idx];
}
const Model::NotifyState &Model::notify(uint32_t rank, uint32_t peer, uint32_t idx) const
{
    return notifies_[(size_t{rank} * geo_.ranks + peer) * geo_.notifyNum + idx];
}

Expectation Model::expect(const Op &op) const
{
    auto reject = [](std::string why, std::string clause) {
        return Expectation{false, std::move(why), std::move(clause)};
    };
    const bool remote = op.kind == OpKind::Wwn || op.kind == OpKind::Write || op.kind == OpKind::Read ||
                        op.kind == OpKind::Record || op.kind == OpKind::Wait || op.kind == OpKind::PostWait ||
                        op.kind == OpKind::Fence;
    if (remote && (op.peer >= geo_.ranks || op.peer == op.rank))
        throw std::invalid_argument("Model::expect: peer " + std::to_string(op.peer) + " of " + show(op) +
                                    " is not another rank");
    if (op.side == Side::Host)
        return reject("device-only call made from the host (HCCL_E_NOT_SUPPORT)", "WWN.DEV.1");
    if (op.side == Side::WrongEngine)
        return reject("thread is not of engine AICPU_TS (HCCL_E_NOT_SUPPORT)", "WWN.DEV.2");
    const bool data =
        op.kind == OpKind::Wwn || op.kind == OpKind::Write || op.kind == OpKind::Read || op.kind == OpKind::LocalCopy;
    if (data) {
        if (op.srcAddr == Addr::Null || op.dstAddr == Addr::Null)
            return reject("null src or dst (HCCL_E_PTR)", "WWN.ERR.1");
        if (op.len == 0)
            return reject("len == 0 (HCCL_E_PARA)", "WWN.PRF.2");
        if (op.srcAddr == Addr::Overflow || op.dstAddr == Addr::Overflow)
            return reject("src + len or dst + len overflows (HCCL_E_PARA)", "WWN.ERR.4");
        if (op.srcAddr != Addr::InWindow)
            return reject("[src, src+len) outside local communication memory (HCCL_E_PARA)", "WWN.ERR.3");
        if (op.dstAddr != Addr::InWindow)
            return reject("[dst, dst+len) outside the target's communication memory (HCCL_E_PARA)", "WWN.ERR.3");
        if (op.srcOff + uint64_t{op.len} > geo_.window || op.dstOff + uint64_t{op.len} > geo_.window)
            throw std::invalid_argument("Model::expect: " + show(op) + " leaves the window of " +
                                        std::to_string(geo_.window) +
                                        " bytes; generate out-of-range addresses with Addr, not offsets");
    }
    const bool indexed =
        op.kind == OpKind::Wwn || op.kind == OpKind::Record || op.kind == OpKind::Wait || op.kind == OpKind::PostWait;
    if (indexed && op.idx >= geo_.notifyNum)
        return reject("notify index " + std::to_string(op.idx) + " >= notifyNum " + std::to_string(geo_.notifyNum) +
                          " (HCCL_E_PARA)",
                      op.kind == OpKind::Wait || op.kind == OpKind::PostWait ? "WWN.IDX.5" : "WWN.IDX.2");
    return {};
}

uint32_t Model::newOp(const Op &op, uint32_t from, uint32_t to)
{
    ops_.push_back(OpInfo{"#" + std::to_string(ops_.size()) + " " + show(op), from, to, seq_++, {}});
    return static_cast<uint32_t>(ops_.size() - 1);
}

void Model::addRecord(const Op &op, uint32_t id, bool carriesData)
{
    auto &n = notify(op.peer, op.rank, op.idx);
    n.records.push_back({id, carriesData, lastFence_[size_t{op.rank} * geo_.ranks + op.peer]});
    ++n.hi;
    n.lo = profile_ == NotifyProfile::Binary ? std::max(n.lo, 1u) : n.lo + 1;
}

void Model::putInFlight(uint32_t id, uint32_t srcRank, uint32_t srcOff, uint32_t dstRank, uint32_t dstOff, uint32_t len)
{
    for (uint32_t i = 0; i < len; ++i) {
        const auto values = allowedOf(cell(srcRank, srcOff + i));
        auto &dst = cell(dstRank, dstOff + i);
        dst.any = dst.any || cell(srcRank, srcOff + i).any;
        for (uint8_t v : values)
            dst.pending.push_back({id, v});
    }
}

void Model::issue(const Op &op)
{
    const uint32_t w = geo_.guard;
    switch (op.kind) {
    case OpKind::Wwn:
    case OpKind::Write: {
        const uint32_t id = newOp(op, op.rank, op.peer);
        putInFlight(id, op.rank, w + op.srcOff, op.peer, w + op.dstOff, op.len);
        if (op.kind == OpKind::Wwn)
            addRecord(op, id, true);
        break;
    }
    case OpKind::Record: addRecord(op, newOp(op, op.rank, op.peer), false); break;
    case OpKind::Read: {
        // Nothing orders a read's landing except its own completion, which the
        // API does not expose: the bytes stay in flight (sound, if weak).
        putInFlight(newOp(op, op.rank, op.rank), op.peer, w + op.srcOff, op.rank, w + op.dstOff, op.len);
        break;
    }
    case OpKind::LocalCopy: {
        newOp(op, op.rank, op.rank);
        // Read every source byte first: the ranges may overlap.
        std::vector<std::vector<uint8_t>> values(op.len);
        std::vector<bool> anything(op.len);
        for (uint32_t i = 0; i < op.len; ++i) {
            values[i] = allowedOf(cell(op.rank, w + op.srcOff + i));
            anything[i] = cell(op.rank, w + op.srcOff + i).any;
        }
        for (uint32_t i = 0; i < op.len; ++i) {
            auto &dst = cell(op.rank, w + op.dstOff + i);
            dst.any = dst.any || anything[i];
            localWrite(dst, values[i]);
        }
        break;
    }
    case OpKind::Stamp: {
        newOp(op, op.rank, op.rank);
        const auto bytes = stampBytes(op);
        for (uint32_t i = 0; i < op.len; ++i)
            localWrite(cell(op.rank, w + op.dstOff + i), {bytes[i]});
        break;
    }
    case OpKind::Fence:
        newOp(op, op.rank, op.peer);
        lastFence_[size_t{op.rank} * geo_.ranks + op.peer] = seq_; // everything issued so far is before it
        break;
    case OpKind::Wait:
    case OpKind::PostWait:
    case OpKind::Join:
    case OpKind::Check: throw std::invalid_argument("Model::issue: " + show(op) + " is not applied with issue()");
    }
}

void Model::taint(uint32_t rank, uint32_t peer, uint32_t idx)
{
    if (idx < geo_.notifyNum) {
        notify(rank, peer, idx).tainted = true;
        return;
    }
    for (uint32_t i = 0; i < geo_.notifyNum; ++i)
        notify(rank, peer, i).tainted = true;
}

void Model::tolerate(const Op &op, bool accepted)
{
    const bool moves =
        op.kind == OpKind::Wwn || op.kind == OpKind::Write || op.kind == OpKind::Read || op.kind == OpKind::LocalCopy;
    const bool remoteDst = op.kind == OpKind::Wwn || op.kind == OpKind::Write;
    const uint32_t dstRank = remoteDst ? op.peer : op.rank;
    const uint32_t srcRank = op.kind == OpKind::Read ? op.peer : op.rank;
    // A destination outside the window is outside the tracked region too (the
    // drivers form such addresses at the end of the buffer or beyond it).
    if (moves && op.len > 0 && op.dstAddr == Addr::InWindow && op.srcAddr != Addr::Null) {
        const uint32_t id = newOp(op, op.kind == OpKind::Read ? op.peer : op.rank, dstRank);
        if (op.srcAddr == Addr::InWindow) {
            putInFlight(id, srcRank, geo_.windowToRegion(op.srcOff), dstRank, geo_.windowToRegion(op.dstOff), op.len);
        } else {
            for (uint32_t i = 0; i < op.len; ++i)
                cell(dstRank, geo_.windowToRegion(op.dstOff + i)).any = true;
        }
    }
    if (!accepted)
        return;
    if (op.kind == OpKind::Wwn || op.kind == OpKind::Record)
        taint(op.peer, op.rank, op.idx);
    else if (op.kind == OpKind::Wait || op.kind == OpKind::PostWait)
        taint(op.rank, op.peer, op.idx);
}

void Model::rejected(const Op &op, const std::string &clause)
{
    const bool moves =
        op.kind == OpKind::Wwn || op.kind == OpKind::Write || op.kind == OpKind::Read || op.kind == OpKind::LocalCopy;
    if (!moves || op.len == 0 || op.dstAddr != Addr::InWindow || op.srcAddr != Addr::InWindow)
        return;
    const bool remoteDst = op.kind == OpKind::Wwn || op.kind == OpKind::Write;
    const uint32_t dstRank = remoteDst ? op.peer : op.rank;
    const uint32_t srcRank = op.kind == OpKind::Read ? op.peer : op.rank;
    const uint32_t id = newOp(op, op.kind == OpKind::Read ? op.peer : op.rank, dstRank);
    ops_[id].forbiddenBy = clause == "WWN.IDX.2" ? "WWN.IDX.3" : clause;
    putInFlight(id, srcRank, geo_.windowToRegion(op.srcOff), dstRank, geo_.windowToRegion(op.dstOff), op.len);
}

WaitAllowed Model::waitAllowed(uint32_t rank, uint32_t peer, uint32_t idx) const
{
    const auto &n = notify(rank, peer, idx);
    if (n.tainted)
        return WaitAllowed::Either;
    if (n.lo >= 1)
        return WaitAllowed::MustComplete;
    if (n.hi == 0)
        return WaitAllowed::MustTimeOut;
    return WaitAllowed::Either;
}

void Model::localWrite(Cell &c, std::vector<uint8_t> values)
{
    c.committed = std::move(values);
    c.committedSeq = ops_.back().seq;
}

void Model::commit(uint32_t rank, const Record &rec, std::vector<Cell> &mem) const
{
    const OpInfo &info = ops_[rec.op];
    for (auto &c : mem) {
        std::vector<uint8_t> fenced, own;
        uint64_t fencedSeq = 0;
        std::erase_if(c.pending, [&](const Pending &p) {
            const OpInfo &o = ops_[p.op];
            if (p.op == rec.op) {
                own.push_back(p.value);
                return true;
            }
            if (o.from == info.from && o.to == rank && o.from != o.to && o.seq < rec.fenceSeq &&
                o.forbiddenBy.empty()) {
                fenced.push_back(p.value);
                fencedSeq = std::max(fencedSeq, o.seq);
                return true;
            }
            return false;
        });
        // Fenced writes all landed, in an order the fence does not fix among
        // themselves; the notify's own data landed after them.
        std::vector<uint8_t> landed = !own.empty() ? own : fenced;
        const uint64_t landedSeq = !own.empty() ? info.seq : fencedSeq;
        if (landed.empty())
            continue;
        if (c.committedSeq > landedSeq) {
            // What is committed came from a call made after this write; nothing
            // orders the two, so either may be the one that landed last.
            c.committed.insert(c.committed.end(), landed.begin(), landed.end());
        } else {
            c.committed = std::move(landed);
            c.committedSeq = landedSeq;
        }
    }
}

Violations Model::onWait(uint32_t rank, uint32_t peer, uint32_t idx, bool completed, std::span<const uint8_t> snapshot,
                         uint64_t lateFromOp)
{
    Violations out;
    auto add = [&out](const char *clause, const std::ostringstream &os) { out.push_back({clause, os.str()}); };
    const WaitAllowed allowedNow = waitAllowed(rank, peer, idx);
    auto &n = notify(rank, peer, idx);
    const bool anyOwed =
        std::any_of(n.records.begin(), n.records.end(), [&](const Record &r) { return r.op < lateFromOp; });
    if (completed && allowedNow == WaitAllowed::MustTimeOut) {
        std::ostringstream os;
        os << "spurious notify: wait on rank " << rank << " channel from " << peer << " idx " << idx
           << " completed, but no record towards it is outstanding";
        add("WWN.NTF.1", os);
    }
    if (!completed && allowedNow == WaitAllowed::MustComplete && anyOwed) {
        std::ostringstream os;
        os << "lost notify: wait on rank " << rank << " channel from " << peer << " idx " << idx << " timed out, but "
           << ops_[n.records.front().op].text << " was not consumed";
        add("WWN.NTF.1", os);
    }
    if (!completed) {
        // Owed records coalesced (or were lost, reported above); late ones land
        // after the deadline and stay for the next wait.
        std::erase_if(n.records, [&](const Record &r) { return r.op < lateFromOp; });
        n.hi = static_cast<uint32_t>(n.records.size());
        n.lo = n.records.empty() ? 0 : (profile_ == NotifyProfile::Binary ? 1 : n.hi);
        return out;
    }
    if (n.records.empty())
        return out;
    const Record rec = n.records.front();
    n.records.pop_front();
    n.hi -= 1;
    n.lo = n.lo > 0 ? n.lo - 1 : 0;
    // A tainted notify may have been raised by a tolerated call instead: the
    // wait proves nothing about rec's data, which stays in flight.
    if (n.tainted)
        return out;
    std::vector<Cell> after = mem_[rank];
    commit(rank, rec, after);
    if (!snapshot.empty()) {
        if (snapshot.size() != geo_.window) {
            std::ostringstream os;
            os << "snapshot of rank " << rank << " has " << snapshot.size() << " bytes, expected " << geo_.window;
            add("WWN.VIS.1", os);
        } else {
            int shown = 0;
            std::ostringstream os;
            std::map<std::string, int> forbidden; // one violation per clause
            for (uint32_t i = 0; i < geo_.window; ++i) {
                const Cell &c = after[geo_.windowToRegion(i)];
                const auto why = blame(c, snapshot[i]);
                if (why && why->empty())
                    continue;
                if (why) {
                    if (forbidden.emplace(*why, 0).second)
                        out.push_back({*why, "a rejected call wrote: right after the wait consumed " +
                                                 ops_[rec.op].text + ", " +
                                                 describe(rank, geo_.windowToRegion(i), snapshot[i], c)});
                    continue;
                }
                if (shown++ < 4)
                    os << (shown > 1 ? "\n" : "") << "write-before-notify: right after the wait consumed "
                       << ops_[rec.op].text << ", " << describe(rank, geo_.windowToRegion(i), snapshot[i], c);
            }
            if (shown > 4)
                os << "\n(" << shown << " bytes differ in the snapshot)";
            if (shown > 0)
                add("WWN.VIS.1", os);
        }
    }
    mem_[rank] = std::move(after);
    return out;
}

std::optional<std::string> Model::blame(const Cell &c, uint8_t value) const
{
    if (c.any || std::find(c.committed.begin(), c.committed.end(), value) != c.committed.end())
        return std::string();
    std::optional<std::string> out;
    for (const auto &p : c.pending) {
        if (p.value != value)
            continue;
        if (ops_[p.op].forbiddenBy.empty())
            return std::string();
        out = ops_[p.op].forbiddenBy;
    }
    return out;
}

std::vector<uint8_t> Model::allowedOf(const Cell &c) const
{
    std::vector<uint8_t> out = c.committed;
    for (const auto &p : c.pending)
        out.push_back(p.value);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<uint8_t> Model::allowed(uint32_t rank, uint32_t regionOff) const
{
    return allowedOf(cell(rank, regionOff));
}

std::string Model::describe(uint32_t rank, uint32_t regionOff, uint8_t got, const Cell &c) const
{
    std::ostringstream os;
    char hex[8];
    const char *zone = regionOff < geo_.guard                  ? "guard before window"
                       : regionOff >= geo_.guard + geo_.window ? "guard after window"
                                                               : "window";
    os << "rank " << rank << " " << zone << " byte " << (int64_t{regionOff} - geo_.guard) << ": got ";
    std::snprintf(hex, sizeof hex, "0x%02x", got);
    os << hex << ", allowed {";
    for (size_t i = 0; i < c.committed.size(); ++i) {
        std::snprintf(hex, sizeof hex, "0x%02x", c.committed[i]);
        os << (i ? ", " : "") << hex;
    }
    os << " committed";
    if (c.any)
        os << ", anything (a tolerated call may still write here)";
    for (const auto &p : c.pending) {
        std::snprintf(hex, sizeof hex, "0x%02x", p.value);
        os << ", " << hex << " in flight from " << ops_[p.op].text;
    }
    os << "}";
    return os.str();
}

Violations Model::checkRegion(uint32_t rank, std::span<const uint8_t> region) const
{
    Violations out;
    if (region.size() != geo_.regionBytes()) {
        out.push_back({"WWN.NTF.5", "region of rank " + std::to_string(rank) + " has " + std::to_string(region.size()) +
                                        " bytes, expected " + std::to_string(geo_.regionBytes())});
        return out;
    }
    // Guard bytes damaged break WWN.NTF.5; window bytes no call could have
    // written (stale, foreign or torn data, a changed source) break WWN.VIS.3.
    std::ostringstream guard, window;
    int shownGuard = 0, shownWindow = 0;
    std::map<std::string, int> forbidden; // one violation per clause
    for (uint32_t b = 0; b < region.size(); ++b) {
        const Cell &c = cell(rank, b);
        const auto why = blame(c, region[b]);
        if (why && why->empty())
            continue;
        if (why) {
            if (forbidden.emplace(*why, 0).second)
                out.push_back({*why, "a rejected call wrote: " + describe(rank, b, region[b], c)});
            continue;
        }
        const bool isGuard = b < geo_.guard || b >= geo_.guard + geo_.window;
        int &shown = isGuard ? shownGuard : shownWindow;
        std::ostringstream &os = isGuard ? guard : window;
        if (shown++ < 4)
            os << (shown > 1 ? "\n" : "") << (isGuard ? "guard zone damaged: " : "memory outside the allowed set: ")
               << describe(rank, b, region[b], c);
    }
    for (auto [shown, os, clause] :
         {std::tuple{shownGuard, &guard, "WWN.NTF.5"}, {shownWindow, &window, "WWN.VIS.3"}}) {
        if (shown == 0)
            continue;
        if (shown > 4)
            *os << "\n(" << shown << " bytes of rank " << rank << " differ)";
        out.push_back({clause, os->str()});
    }
    return out;
}

} // namespace hcts::prop
