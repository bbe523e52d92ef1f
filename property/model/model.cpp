#include "model/model.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "hcts/core/stamp.h"

namespace hcts::prop {

const char *wait_allowed_name(WaitAllowed w)
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
    if (g.notify_num == 0)
        throw std::invalid_argument("Model: notifyNum must be at least 1");
    mem_.resize(g.ranks);
    for (uint32_t r = 0; r < g.ranks; ++r) {
        const auto init = initial_region(r);
        mem_[r].resize(g.region_bytes());
        for (uint32_t b = 0; b < g.region_bytes(); ++b)
            mem_[r][b].committed = {init[b]};
    }
    notifies_.resize(size_t{g.ranks} * g.ranks * g.notify_num);
    last_fence_.assign(size_t{g.ranks} * g.ranks, 0);
}

std::vector<uint8_t> Model::initial_region(uint32_t rank) const
{
    std::vector<uint8_t> out(geo_.region_bytes());
    for (uint32_t b = 0; b < out.size(); ++b)
        out[b] = stamp_byte(stamp_key(0, rank), b);
    return out;
}

std::vector<uint8_t> Model::stamp_bytes(const Op &op) const
{
    std::vector<uint8_t> out(op.len);
    for (uint32_t i = 0; i < op.len; ++i)
        out[i] = stamp_byte(stamp_key(op.stamp_id, op.rank), geo_.window_to_region(op.dst_off + i));
    return out;
}

Model::NotifyState &Model::notify(uint32_t rank, uint32_t peer, uint32_t idx)
{
    return notifies_[(size_t{rank} * geo_.ranks + peer) * geo_.notify_num + idx];
}
const Model::NotifyState &Model::notify(uint32_t rank, uint32_t peer, uint32_t idx) const
{
    return notifies_[(size_t{rank} * geo_.ranks + peer) * geo_.notify_num + idx];
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
        if (op.src_addr == Addr::Null || op.dst_addr == Addr::Null)
            return reject("null src or dst (HCCL_E_PTR)", "WWN.ERR.1");
        if (op.len == 0)
            return reject("len == 0 (HCCL_E_PARA)", "WWN.PRF.2");
        if (op.src_addr == Addr::Overflow || op.dst_addr == Addr::Overflow)
            return reject("src + len or dst + len overflows (HCCL_E_PARA)", "WWN.ERR.4");
        if (op.src_addr != Addr::InWindow)
            return reject("[src, src+len) outside local communication memory (HCCL_E_PARA)", "WWN.ERR.3");
        if (op.dst_addr != Addr::InWindow)
            return reject("[dst, dst+len) outside the target's communication memory (HCCL_E_PARA)", "WWN.ERR.3");
        if (op.src_off + uint64_t{op.len} > geo_.window || op.dst_off + uint64_t{op.len} > geo_.window)
            throw std::invalid_argument("Model::expect: " + show(op) + " leaves the window of " +
                                        std::to_string(geo_.window) +
                                        " bytes; generate out-of-range addresses with Addr, not offsets");
    }
    const bool indexed =
        op.kind == OpKind::Wwn || op.kind == OpKind::Record || op.kind == OpKind::Wait || op.kind == OpKind::PostWait;
    if (indexed && op.idx >= geo_.notify_num)
        return reject("notify index " + std::to_string(op.idx) + " >= notifyNum " + std::to_string(geo_.notify_num) +
                          " (HCCL_E_PARA)",
                      op.kind == OpKind::Wait || op.kind == OpKind::PostWait ? "WWN.IDX.5" : "WWN.IDX.2");
    return {};
}

uint32_t Model::new_op(const Op &op, uint32_t from, uint32_t to)
{
    ops_.push_back(OpInfo{"#" + std::to_string(ops_.size()) + " " + show(op), from, to, seq_++, {}});
    return static_cast<uint32_t>(ops_.size() - 1);
}

void Model::add_record(const Op &op, uint32_t id, bool carries_data)
{
    auto &n = notify(op.peer, op.rank, op.idx);
    n.records.push_back({id, carries_data, last_fence_[size_t{op.rank} * geo_.ranks + op.peer]});
    ++n.hi;
    n.lo = profile_ == NotifyProfile::Binary ? std::max(n.lo, 1u) : n.lo + 1;
}

void Model::put_in_flight(uint32_t id, uint32_t src_rank, uint32_t src_off, uint32_t dst_rank, uint32_t dst_off,
                          uint32_t len)
{
    for (uint32_t i = 0; i < len; ++i) {
        const auto values = allowed_of(cell(src_rank, src_off + i));
        auto &dst = cell(dst_rank, dst_off + i);
        dst.any = dst.any || cell(src_rank, src_off + i).any;
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
        const uint32_t id = new_op(op, op.rank, op.peer);
        put_in_flight(id, op.rank, w + op.src_off, op.peer, w + op.dst_off, op.len);
        if (op.kind == OpKind::Wwn)
            add_record(op, id, true);
        break;
    }
    case OpKind::Record: add_record(op, new_op(op, op.rank, op.peer), false); break;
    case OpKind::Read: {
        // Nothing orders a read's landing except its own completion, which the
        // API does not expose: the bytes stay in flight (sound, if weak).
        put_in_flight(new_op(op, op.rank, op.rank), op.peer, w + op.src_off, op.rank, w + op.dst_off, op.len);
        break;
    }
    case OpKind::LocalCopy: {
        new_op(op, op.rank, op.rank);
        // Read every source byte first: the ranges may overlap.
        std::vector<std::vector<uint8_t>> values(op.len);
        std::vector<bool> anything(op.len);
        for (uint32_t i = 0; i < op.len; ++i) {
            values[i] = allowed_of(cell(op.rank, w + op.src_off + i));
            anything[i] = cell(op.rank, w + op.src_off + i).any;
        }
        for (uint32_t i = 0; i < op.len; ++i) {
            auto &dst = cell(op.rank, w + op.dst_off + i);
            dst.any = dst.any || anything[i];
            local_write(dst, values[i]);
        }
        break;
    }
    case OpKind::Stamp: {
        new_op(op, op.rank, op.rank);
        const auto bytes = stamp_bytes(op);
        for (uint32_t i = 0; i < op.len; ++i)
            local_write(cell(op.rank, w + op.dst_off + i), {bytes[i]});
        break;
    }
    case OpKind::Fence:
        new_op(op, op.rank, op.peer);
        last_fence_[size_t{op.rank} * geo_.ranks + op.peer] = seq_; // everything issued so far is before it
        break;
    case OpKind::Wait:
    case OpKind::PostWait:
    case OpKind::Join:
    case OpKind::Check: throw std::invalid_argument("Model::issue: " + show(op) + " is not applied with issue()");
    }
}

void Model::taint(uint32_t rank, uint32_t peer, uint32_t idx)
{
    if (idx < geo_.notify_num) {
        notify(rank, peer, idx).tainted = true;
        return;
    }
    for (uint32_t i = 0; i < geo_.notify_num; ++i)
        notify(rank, peer, i).tainted = true;
}

void Model::tolerate(const Op &op, bool accepted)
{
    const bool moves =
        op.kind == OpKind::Wwn || op.kind == OpKind::Write || op.kind == OpKind::Read || op.kind == OpKind::LocalCopy;
    const bool remote_dst = op.kind == OpKind::Wwn || op.kind == OpKind::Write;
    const uint32_t dst_rank = remote_dst ? op.peer : op.rank;
    const uint32_t src_rank = op.kind == OpKind::Read ? op.peer : op.rank;
    // A destination outside the window is outside the tracked region too (the
    // drivers form such addresses at the end of the buffer or beyond it).
    if (moves && op.len > 0 && op.dst_addr == Addr::InWindow && op.src_addr != Addr::Null) {
        const uint32_t id = new_op(op, op.kind == OpKind::Read ? op.peer : op.rank, dst_rank);
        if (op.src_addr == Addr::InWindow) {
            put_in_flight(id, src_rank, geo_.window_to_region(op.src_off), dst_rank, geo_.window_to_region(op.dst_off),
                          op.len);
        } else {
            for (uint32_t i = 0; i < op.len; ++i)
                cell(dst_rank, geo_.window_to_region(op.dst_off + i)).any = true;
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
    if (!moves || op.len == 0 || op.dst_addr != Addr::InWindow || op.src_addr != Addr::InWindow)
        return;
    const bool remote_dst = op.kind == OpKind::Wwn || op.kind == OpKind::Write;
    const uint32_t dst_rank = remote_dst ? op.peer : op.rank;
    const uint32_t src_rank = op.kind == OpKind::Read ? op.peer : op.rank;
    const uint32_t id = new_op(op, op.kind == OpKind::Read ? op.peer : op.rank, dst_rank);
    ops_[id].forbidden_by = clause == "WWN.IDX.2" ? "WWN.IDX.3" : clause;
    put_in_flight(id, src_rank, geo_.window_to_region(op.src_off), dst_rank, geo_.window_to_region(op.dst_off), op.len);
}

WaitAllowed Model::wait_allowed(uint32_t rank, uint32_t peer, uint32_t idx) const
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

void Model::local_write(Cell &c, std::vector<uint8_t> values)
{
    c.committed = std::move(values);
    c.committed_seq = ops_.back().seq;
}

void Model::commit(uint32_t rank, const Record &rec, std::vector<Cell> &mem) const
{
    const OpInfo &info = ops_[rec.op];
    for (auto &c : mem) {
        std::vector<uint8_t> fenced, own;
        uint64_t fenced_seq = 0;
        std::erase_if(c.pending, [&](const Pending &p) {
            const OpInfo &o = ops_[p.op];
            if (p.op == rec.op) {
                own.push_back(p.value);
                return true;
            }
            if (o.from == info.from && o.to == rank && o.from != o.to && o.seq < rec.fence_seq &&
                o.forbidden_by.empty()) {
                fenced.push_back(p.value);
                fenced_seq = std::max(fenced_seq, o.seq);
                return true;
            }
            return false;
        });
        // Fenced writes all landed, in an order the fence does not fix among
        // themselves; the notify's own data landed after them.
        std::vector<uint8_t> landed = !own.empty() ? own : fenced;
        const uint64_t landed_seq = !own.empty() ? info.seq : fenced_seq;
        if (landed.empty())
            continue;
        if (c.committed_seq > landed_seq) {
            // What is committed came from a call made after this write; nothing
            // orders the two, so either may be the one that landed last.
            c.committed.insert(c.committed.end(), landed.begin(), landed.end());
        } else {
            c.committed = std::move(landed);
            c.committed_seq = landed_seq;
        }
    }
}

Violations Model::on_wait(uint32_t rank, uint32_t peer, uint32_t idx, bool completed, std::span<const uint8_t> snapshot,
                          uint64_t late_from_op)
{
    Violations out;
    auto add = [&out](const char *clause, const std::ostringstream &os) { out.push_back({clause, os.str()}); };
    const WaitAllowed allowed_now = wait_allowed(rank, peer, idx);
    auto &n = notify(rank, peer, idx);
    const bool any_owed =
        std::any_of(n.records.begin(), n.records.end(), [&](const Record &r) { return r.op < late_from_op; });
    if (completed && allowed_now == WaitAllowed::MustTimeOut) {
        std::ostringstream os;
        os << "spurious notify: wait on rank " << rank << " channel from " << peer << " idx " << idx
           << " completed, but no record towards it is outstanding";
        add("WWN.NTF.1", os);
    }
    if (!completed && allowed_now == WaitAllowed::MustComplete && any_owed) {
        std::ostringstream os;
        os << "lost notify: wait on rank " << rank << " channel from " << peer << " idx " << idx << " timed out, but "
           << ops_[n.records.front().op].text << " was not consumed";
        add("WWN.NTF.1", os);
    }
    if (!completed) {
        // Owed records coalesced (or were lost, reported above); late ones land
        // after the deadline and stay for the next wait.
        std::erase_if(n.records, [&](const Record &r) { return r.op < late_from_op; });
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
                const Cell &c = after[geo_.window_to_region(i)];
                const auto why = blame(c, snapshot[i]);
                if (why && why->empty())
                    continue;
                if (why) {
                    if (forbidden.emplace(*why, 0).second)
                        out.push_back({*why, "a rejected call wrote: right after the wait consumed " +
                                                 ops_[rec.op].text + ", " +
                                                 describe(rank, geo_.window_to_region(i), snapshot[i], c)});
                    continue;
                }
                if (shown++ < 4)
                    os << (shown > 1 ? "\n" : "") << "write-before-notify: right after the wait consumed "
                       << ops_[rec.op].text << ", " << describe(rank, geo_.window_to_region(i), snapshot[i], c);
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
        if (ops_[p.op].forbidden_by.empty())
            return std::string();
        out = ops_[p.op].forbidden_by;
    }
    return out;
}

std::vector<uint8_t> Model::allowed_of(const Cell &c) const
{
    std::vector<uint8_t> out = c.committed;
    for (const auto &p : c.pending)
        out.push_back(p.value);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<uint8_t> Model::allowed(uint32_t rank, uint32_t region_off) const
{
    return allowed_of(cell(rank, region_off));
}

std::string Model::describe(uint32_t rank, uint32_t region_off, uint8_t got, const Cell &c) const
{
    std::ostringstream os;
    char hex[8];
    const char *zone = region_off < geo_.guard                  ? "guard before window"
                       : region_off >= geo_.guard + geo_.window ? "guard after window"
                                                                : "window";
    os << "rank " << rank << " " << zone << " byte " << (int64_t{region_off} - geo_.guard) << ": got ";
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

Violations Model::check_region(uint32_t rank, std::span<const uint8_t> region) const
{
    Violations out;
    if (region.size() != geo_.region_bytes()) {
        out.push_back({"WWN.NTF.5", "region of rank " + std::to_string(rank) + " has " + std::to_string(region.size()) +
                                        " bytes, expected " + std::to_string(geo_.region_bytes())});
        return out;
    }
    // Guard bytes damaged break WWN.NTF.5; window bytes no call could have
    // written (stale, foreign or torn data, a changed source) break WWN.VIS.3.
    std::ostringstream guard, window;
    int shown_guard = 0, shown_window = 0;
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
        const bool is_guard = b < geo_.guard || b >= geo_.guard + geo_.window;
        int &shown = is_guard ? shown_guard : shown_window;
        std::ostringstream &os = is_guard ? guard : window;
        if (shown++ < 4)
            os << (shown > 1 ? "\n" : "") << (is_guard ? "guard zone damaged: " : "memory outside the allowed set: ")
               << describe(rank, b, region[b], c);
    }
    for (auto [shown, os, clause] :
         {std::tuple{shown_guard, &guard, "WWN.NTF.5"}, {shown_window, &window, "WWN.VIS.3"}}) {
        if (shown == 0)
            continue;
        if (shown > 4)
            *os << "\n(" << shown << " bytes of rank " << rank << " differ)";
        out.push_back({clause, os->str()});
    }
    return out;
}

} // namespace hcts::prop
