// Visibility: after the wait completes, dst holds the whole new payload.
#include <array>
#include <random>
#include <span>

#include "case_kit.h"

namespace hcts::cases_visibility {
namespace {

StampKey key_for(uint32_t iteration, int sender) { return {1, iteration, static_cast<uint32_t>(sender)}; }

// Lengths around every boundary a transport may have: word, cache line, page,
// common MTUs and inline limits, 1 MiB segments, and well beyond (16 MiB).
constexpr uint64_t kMiB = 1ULL << 20;
constexpr uint64_t kSweep[] = {1,     2,     7,     8,        9,        63,           64,           65,   255,
                               256,   1023,  1024,  1025,     4095,     4096,         4097,         8191, 8193,
                               65535, 65536, 65537, kMiB - 1, kMiB + 1, 4 * kMiB + 3, 16 * kMiB + 8};

// With a known segment size S (--segment-size: the adapter's or the user's),
// lengths just below, at and above one, two and three segments, and many
// segments with a short tail: a payload split into transport operations must
// arrive whole, its last partial segment too.
std::vector<uint64_t> straddling(uint64_t s)
{
    if (s == 0 || s > (1ULL << 40)) // none, or beyond any buffer (and k * s must not wrap)
        return {};
    std::vector<uint64_t> out;
    for (uint64_t k : {1ULL, 2ULL, 3ULL})
        for (uint64_t l : {k * s - 1, k * s, k * s + 1})
            if (l > 0)
                out.push_back(l);
    out.push_back(8 * s + 3);
    out.push_back(64 * s + 7);
    return out;
}

// Overlapping plain writes of one round: [start, start + len) of the destination span,
// each from its own source slot, stamped with its own key.
struct PlainWrite {
    uint64_t start, len;
    StampKey key;
};

// The destination span after the writes land in call order: each byte the last writer's.
std::vector<std::byte> last_writer_wins(const std::vector<PlainWrite> &ws, uint64_t span)
{
    std::vector<std::byte> out(span);
    for (const PlainWrite &p : ws)
        fill_payload(std::span(out).subspan(p.start, p.len), p.key);
    return out;
}

// Where `got` differs from `want`: how many bytes, the first one, and whose data it holds
// there (an earlier write's bytes left over the later one's: write-after-write order broken).
std::string overlap_mismatch(std::span<const std::byte> got, std::span<const std::byte> want,
                             const std::vector<PlainWrite> &ws)
{
    size_t first = got.size(), bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
        if (got[i] != want[i]) {
            first = std::min(first, i);
            ++bad;
        }
    if (bad == 0)
        return "";
    int last = -1, holder = -1;
    for (size_t k = 0; k < ws.size(); ++k) {
        const PlainWrite &p = ws[k];
        if (first < p.start || first >= p.start + p.len)
            continue;
        last = static_cast<int>(k);
        std::vector<std::byte> mine(p.len);
        fill_payload(mine, p.key);
        if (mine[first - p.start] == got[first])
            holder = static_cast<int>(k);
    }
    std::string s = std::to_string(bad) + " of " + std::to_string(got.size()) +
                    " bytes differ from the last writer's; the first at offset " + std::to_string(first) + " holds " +
                    hex(static_cast<uint64_t>(got[first])) + ", expected " + hex(static_cast<uint64_t>(want[first])) +
                    " from write " + std::to_string(last);
    if (holder >= 0 && holder != last)
        s += " (it matches write " + std::to_string(holder) + ", an earlier one: the later write did not win)";
    return s;
}

} // namespace

HCTS_CASE(Visibility, LengthSweep, clauses("WWN.VIS.1", "WWN.NTF.5", "WWN.NTF.6"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const uint64_t cap = std::min(c.w.layout.lane_size - 8192, c.w.layout.outbox_size() - 8192);
    std::vector<uint64_t> lengths = straddling(segment_size());
    lengths.insert(lengths.end(), std::begin(kSweep), std::end(kSweep));
    std::sort(lengths.begin(), lengths.end());
    lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
    std::erase_if(lengths, [cap](uint64_t l) { return l > cap; });
    if (segment_size() != 0)
        ev().observe("segment_size", segment_size());
    ev().observe("lengths", lengths);
    Histogram hist = payload_histogram();
    for (uint32_t it = 0; it < lengths.size(); ++it) {
        // Alternate the direction so both ranks send and receive.
        const int sender = static_cast<int>(it % 2);
        const std::vector<Xfer> plan{
            Xfer{sender, 1 - sender, 4096, 0, lengths[it], it % World::kNotifyNum, 0, 0, 0, key_for(it, sender)}};
        const Exchange ex = exchange_checked(c, plan, {});
        count_seen(plan, ex, c.rank(), hist);
    }
    record_litmus(c, "L2", "MP-size", hist, weak_outcomes());
}

HCTS_CASE(Visibility, OddAlignmentAndPages, clauses("WWN.VIS.2", "WWN.NTF.5"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    // Source and destination offsets 1..63 from a 64-byte boundary, and ranges
    // that start just before a page end and cross one or more pages.
    std::vector<Xfer> plan;
    uint64_t dst = 4096, src = 0;
    auto add = [&](uint64_t dst_mis, uint64_t src_mis, uint64_t len) {
        const auto idx = static_cast<uint32_t>(plan.size());
        const uint64_t d = ((dst + 4095) & ~uint64_t{4095}) + dst_mis;
        const uint64_t s = ((src + 4095) & ~uint64_t{4095}) + src_mis;
        plan.push_back(Xfer{0, 1, d, s, len, idx, 0, 0, 0, key_for(idx, 0)});
        dst = d + len + 4096;
        src = s + len + 64;
    };
    for (uint64_t dm : {1ULL, 3ULL, 7ULL, 13ULL, 31ULL, 63ULL})
        for (uint64_t sm : {0ULL, 1ULL, 5ULL, 63ULL})
            add(dm, sm, 1 + dm * 17 + sm);
    for (uint64_t len : {6ULL, 4100ULL, 3 * 4096ULL + 5})
        add(4096 - 3, 1, len); // starts 3 bytes before a page end
    add(4093, 7, 65536 + 9);
    const Ctx c = ctx();
    const Exchange ex = exchange_checked(c, plan, {"WWN.VIS.2", "WWN.VIS.2", "WWN.NTF.5", ""});
}

HCTS_CASE(Visibility, ReuseNeverStale, clauses("WWN.VIS.3"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    Histogram hist = payload_histogram();
    for (uint32_t k = 0; k < 12; ++k) {
        // Same dst every time; poisoned only before the first, so iteration k-1's
        // payload is what a stale read would show.
        std::vector<Xfer> plan{Xfer{0, 1, 8192, 0, (64ULL << 10) + 5, k % 4, 0, 0, 0, key_for(k + 1, 0)}};
        plan[0].poison_dst = k == 0;
        const Exchange ex = exchange_checked(c, plan, {"WWN.VIS.3", "WWN.VIS.3", "", ""});
        count_seen(plan, ex, c.rank(), hist);
    }
    record_litmus(c, "L3", "MP-stale", hist, weak_outcomes());
}

HCTS_CASE(Visibility, SeveralInFlight, clauses("WWN.VIS.4"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    // k writes queued on one thread before the receiver waits for any; it then
    // waits for each in order and snapshots its destination. How deep the queue
    // behind a write gets depends on how the sender's thread and the library's
    // worker are scheduled, which one round on a loaded machine need not bring
    // about: several rounds, each stamped with its own iterations so a round
    // cannot pass on what an earlier one left.
    constexpr uint32_t kRounds = 4;
    constexpr uint32_t kWrites = 48;
    Histogram hist = payload_histogram();
    for (uint32_t round = 0; round < kRounds; ++round) {
        std::vector<Xfer> plan;
        for (uint32_t i = 0; i < kWrites; ++i)
            plan.push_back(Xfer{0, 1, 4096 + i * 20480ULL, i * 20480ULL, 16384 + i * 3ULL, i, 0, 0, 0,
                                key_for(round * kWrites + i, 0)});
        const Exchange ex = exchange_checked(c, plan, {"WWN.VIS.4", "WWN.VIS.4", "", ""});
        count_seen(plan, ex, c.rank(), hist);
    }
    record_litmus(c, "L4", "MP-k FIFO", hist, weak_outcomes());
}

HCTS_CASE(Visibility, LaterWriteWins, clauses("WWN.VIS.5"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    Histogram hist = payload_histogram();
    for (uint32_t rep = 0; rep < 8; ++rep) {
        // P1 then P2 to the same dst on one thread, on two indices; the receiver
        // waits for both and snapshots after the second.
        const uint64_t len = 32768 + rep;
        std::vector<Xfer> plan{Xfer{0, 1, 4096, 0, len, 2 * rep, 0, 0, 0, key_for(100 + rep, 0)},
                               Xfer{0, 1, 4096, 65536, len, 2 * rep + 1, 0, 0, 0, key_for(200 + rep, 0)}};
        plan[0].snapshot = false;
        plan[1].poison_dst = false;
        const Exchange ex = run_exchange(c, plan);
        if (c.rank() == 0)
            ev().check("WWN.VIS.5", ex.x[0].wwn_rc == 0,
                       "the first write returned " + hccl_result_name(ex.x[0].wwn_rc));
        // Only the second write's payload is expected in dst.
        const std::vector<Xfer> last{plan[1]};
        const Exchange only_last{ex.launch, {ex.x[1]}};
        check_exchange(last, only_last, c.rank(), {"WWN.VIS.5", "WWN.VIS.5", "", ""}, ev());
        count_seen(last, only_last, c.rank(), hist);
    }
    record_litmus(c, "L6", "CoWW", hist, weak_outcomes());
}

HCTS_CASE(Visibility, EveryObserverCoherent, clauses("WWN.VIS.6"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    Histogram hist{{"both-new", 0}, {"r1-new-r2-old", 0}, {"other", 0}};
    for (uint32_t rep = 0; rep < 16; ++rep) {
        std::vector<Xfer> plan{Xfer{1, 0, 4096, 0, 256ULL << 10, rep, 0, 0, 0, key_for(rep + 1, 1)}};
        plan[0].poison_dst = rep == 0;
        const Exchange ex = exchange_checked(c, plan, {"WWN.VIS.6", "WWN.VIS.6", "", ""});
        if (c.rank() != 0)
            continue;
        // r1 = the device-stream read, r2 = the later host read.
        const XferResult &r = ex.x[0];
        const bool r1_new = r.have_snapshot && r.snap.ok();
        ev().check("WWN.VIS.6", !(r1_new && !r.host.ok()),
                   "the device-stream read saw the new payload but the later host read did not: " + r.host.first_bad);
        ++hist[!r1_new ? "other" : r.host.ok() ? "both-new" : "r1-new-r2-old"];
    }
    record_litmus(c, "L7", "CoRR-after / L15 observer paths", hist, {"r1-new-r2-old", "other"});
}

// Several plain writes on one thread and channel, overlapping with different start
// addresses (and, with a transport segment, split into WRITEs with more starts),
// then a write with notify: right after the wait and once the programs ended every
// byte must hold the last write's data. RC executes one QP's WRITEs in order, so a
// later write wins wherever the two overlap, whatever their starts
// (sv_adversary_waw_same_start_only keeps that order only for equal starts).
HCTS_CASE(Visibility, OverlappingPlainWritesThenNotify, clauses("WWN.VIS.7"),
          needs(Feature::Write, Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const std::string clause = "WWN.VIS.7";
    constexpr uint64_t kBase = 4096, kSpan = 96 * 1024, kSlot = 128 * 1024, kNotifyLen = 64;
    constexpr uint32_t kRounds = 12, kWrites = 6;
    if (kBase + kSpan + 4096 > w.layout.lane_size || (kWrites + 1) * kSlot > w.layout.outbox_size()) {
        ev().unsupported(clause, "the memory's regions hold less than these writes need");
        return;
    }
    // Shapes from the run's seed: the first write covers the span; each later one starts
    // where no earlier one did and overlaps what came before.
    std::mt19937_64 rng(c.seed ^ 0x5eed7ULL);
    ev().observe("seed", c.seed);
    for (uint32_t round = 0; round < kRounds; ++round) {
        std::vector<PlainWrite> ws;
        ws.push_back({0, kSpan, StampKey{11, round * 8, 0}});
        while (ws.size() < kWrites) {
            const uint64_t len = 1024 + rng() % (40 * 1024);
            const uint64_t start = 1 + rng() % (kSpan - len);
            if (std::none_of(ws.begin(), ws.end(), [&](const PlainWrite &p) { return p.start == start; }))
                ws.push_back({start, len, StampKey{11, round * 8 + static_cast<uint32_t>(ws.size()), 0}});
        }
        const StampKey notify_key{11, round * 8 + kWrites, 0};
        const uint32_t idx = round % World::kNotifyNum;
        std::string shape;
        for (const PlainWrite &p : ws)
            shape += (shape.empty() ? "" : ", ") + std::to_string(p.start) + "+" + std::to_string(p.len);
        const std::string what = "round " + std::to_string(round) + " (seed " + std::to_string(c.seed) +
                                 "; plain writes start+len: " + shape + "; then a write with notify on index " +
                                 std::to_string(idx) + ")";
        if (w.rank == 0) {
            for (size_t k = 0; k < ws.size(); ++k) {
                std::vector<std::byte> p(ws[k].len);
                fill_payload(p, ws[k].key);
                dev.put(w.outbox() + k * kSlot, p);
            }
            std::vector<std::byte> p(kNotifyLen);
            fill_payload(p, notify_key);
            dev.put(w.outbox() + kWrites * kSlot, p);
        } else if (w.rank == 1) {
            dev.poison(w.inbox(0) + kBase, kSpan + kNotifyLen);
            dev.poison(w.scratch(), kSpan + kNotifyLen);
        }
        mpi::phase_barrier("overlapping writes: prepared");
        Script s;
        if (w.rank == 0) {
            for (size_t k = 0; k < ws.size(); ++k)
                s.write(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + kBase + ws[k].start, w.outbox() + k * kSlot,
                        ws[k].len);
            s.wwn(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + kBase + kSpan, w.outbox() + kWrites * kSlot,
                  kNotifyLen, idx);
        } else if (w.rank == 1) {
            s.wait(w.thread(), w.channel_to(0), idx, w.ok_timeout());
            s.copy(w.thread(), w.scratch(), w.inbox(0) + kBase, kSpan + kNotifyLen).only_if_previous_ok();
        }
        const LaunchResult r = c.run(s);
        // The receiver judges the data only when every call of the sender returned 0.
        std::array<int32_t, 2> sent{0, 0}; // the first refusal's code, and whether it was HCCL_E_NOT_SUPPORT
        if (w.rank == 0) {
            judge_launch(r, clause, "the sender's program", ev());
            if (const auto u = s.first_unsupported()) {
                ev().unsupported(clause,
                                 what + ": call " + std::to_string(*u) + " was refused with HCCL_E_NOT_SUPPORT");
                sent = {HCCL_E_NOT_SUPPORT, 1};
            } else if (const auto f = s.first_failure()) {
                ev().check(clause, false,
                           what + ": call " + std::to_string(*f) + " returned " + hccl_result_name(s.rc(*f)));
                sent = {s.rc(*f), 0};
            } else if (!r.ok()) {
                sent = {-1, 0};
            }
        }
        mpi::broadcast(std::as_writable_bytes(std::span(sent)), 0, "overlapping writes: the sender's return codes");
        if (w.rank == 1 && sent[0] == 0) {
            judge_launch(r, clause, "the receiver's program", ev());
            const std::vector<std::byte> want = last_writer_wins(ws, kSpan);
            if (s.rc(0) == HCCL_E_NOT_SUPPORT) {
                ev().unsupported(clause, what + ": the wait was refused with HCCL_E_NOT_SUPPORT");
            } else if (s.rc(0) != 0) {
                ev().check(clause, false, what + ": the wait returned " + hccl_result_name(s.rc(0)));
            } else if (s.rc(1) == HCCL_E_NOT_SUPPORT) {
                ev().unsupported(clause, what + ": the copy right after the wait was refused with HCCL_E_NOT_SUPPORT");
            } else if (s.rc(1) != 0) {
                ev().error(clause, what + ": the copy right after the wait returned " + hccl_result_name(s.rc(1)));
            } else {
                const std::vector<std::byte> snap = dev.get(w.scratch(), kSpan + kNotifyLen);
                const std::string bad = overlap_mismatch(std::span(snap).first(kSpan), want, ws);
                ev().check(clause, bad.empty(), what + ": right after the wait, " + bad);
                const PayloadCheck n =
                    check_payload(std::span(snap).subspan(kSpan), notify_key, "the notify's payload");
                ev().check(clause, n.ok(), what + ": right after the wait, " + describe(n));
            }
            // Once both programs ended the order must hold for good.
            const std::vector<std::byte> host = dev.get(w.inbox(0) + kBase, kSpan);
            const std::string bad = overlap_mismatch(host, want, ws);
            ev().check(clause, bad.empty(), what + ": once the programs ended, " + bad);
        }
        mpi::phase_barrier("overlapping writes: checked");
    }
}

} // namespace hcts::cases_visibility
