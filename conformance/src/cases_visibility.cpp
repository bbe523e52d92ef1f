// Visibility: after the wait completes, dst holds the whole new payload.
#include "case_kit.h"

namespace hcts {
namespace {

StampKey key_for(uint32_t iteration, int sender) { return {1, iteration, static_cast<uint32_t>(sender)}; }

// Lengths around every boundary a transport may have: word, cache line, page,
// common MTUs and inline limits, 1 MiB segments, and well beyond (16 MiB).
std::vector<uint64_t> sweep_lengths(uint64_t cap)
{
    std::vector<uint64_t> out;
    for (uint64_t l : {1ULL,
                       2ULL,
                       7ULL,
                       8ULL,
                       9ULL,
                       63ULL,
                       64ULL,
                       65ULL,
                       255ULL,
                       256ULL,
                       1023ULL,
                       1024ULL,
                       1025ULL,
                       4095ULL,
                       4096ULL,
                       4097ULL,
                       8191ULL,
                       8193ULL,
                       65535ULL,
                       65536ULL,
                       65537ULL,
                       (1ULL << 20) - 1,
                       (1ULL << 20) + 1,
                       (4ULL << 20) + 3,
                       (16ULL << 20) + 8})
        if (l <= cap)
            out.push_back(l);
    return out;
}

} // namespace

HCTS_CASE(Visibility, LengthSweep, clauses("WWN.VIS.1", "WWN.NTF.5", "WWN.NTF.6"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const uint64_t cap = std::min(w.layout.lane_size - 8192, w.layout.outbox_size() - 8192);
    const auto lengths = sweep_lengths(cap);
    ev().observe("lengths", lengths);
    Histogram hist = payload_histogram();
    uint32_t it = 0;
    for (uint64_t len : lengths) {
        // Alternate the direction so both ranks send and receive.
        const int sender = static_cast<int>(it % 2), receiver = 1 - sender;
        std::vector<Xfer> plan{
            Xfer{sender, receiver, 4096, 0, len, it % World::kNotifyNum, 0, 0, 0, key_for(it, sender)}};
        const Exchange ex = run_exchange(c, plan);
        check_exchange(plan, ex, w.rank, {}, ev());
        if (w.rank == receiver)
            ++hist[std::string(outcome_name(ex.x[0].seen().overall()))];
        ++it;
    }
    const Histogram sum = sum_on_root(hist);
    if (w.rank == 0)
        ev().litmus(litmus_entry("L2", "MP-size", "Visibility.LengthSweep", sum, weak_outcomes()));
}

HCTS_CASE(Visibility, OddAlignmentAndPages, clauses("WWN.VIS.2", "WWN.NTF.5"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    // Source and destination offsets 1..63 from a 64-byte boundary, and ranges
    // that start just before a page end and cross one or more pages.
    std::vector<Xfer> plan;
    uint32_t idx = 0;
    uint64_t dst = 4096, src = 0;
    auto add = [&](uint64_t dst_mis, uint64_t src_mis, uint64_t len) {
        const uint64_t d = ((dst + 4095) & ~uint64_t{4095}) + dst_mis;
        const uint64_t s = ((src + 4095) & ~uint64_t{4095}) + src_mis;
        plan.push_back(Xfer{0, 1, d, s, len, idx, 0, 0, 0, key_for(idx, 0)});
        ++idx;
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
    const Exchange ex = run_exchange(c, plan);
    check_exchange(plan, ex, c.w.rank, {"WWN.VIS.2", "WWN.VIS.2", "WWN.NTF.5", ""}, ev());
}

HCTS_CASE(Visibility, ReuseNeverStale, clauses("WWN.VIS.3"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const uint32_t iterations = 12;
    Histogram hist = payload_histogram();
    for (uint32_t k = 0; k < iterations; ++k) {
        // Same dst every time; poisoned only before the first, so iteration k-1's
        // payload is what a stale read would show.
        std::vector<Xfer> plan{Xfer{0, 1, 8192, 0, (64ULL << 10) + 5, k % 4, 0, 0, 0, key_for(k + 1, 0)}};
        plan[0].poison_dst = k == 0;
        const Exchange ex = run_exchange(c, plan);
        check_exchange(plan, ex, w.rank, {"WWN.VIS.3", "WWN.VIS.3", "", ""}, ev());
        if (w.rank == 1)
            ++hist[std::string(outcome_name(ex.x[0].seen().overall()))];
    }
    if (w.rank == 1)
        ev().litmus(litmus_entry("L3", "MP-stale", "Visibility.ReuseNeverStale", hist, weak_outcomes()));
}

HCTS_CASE(Visibility, SeveralInFlight, clauses("WWN.VIS.4"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    // k writes queued on one thread before the receiver waits for any; it then
    // waits for each in order and snapshots its destination.
    const uint32_t k = 48;
    std::vector<Xfer> plan;
    for (uint32_t i = 0; i < k; ++i)
        plan.push_back(Xfer{0, 1, 4096 + i * 20480ULL, i * 20480ULL, 16384 + i * 3ULL, i, 0, 0, 0, key_for(i, 0)});
    const Exchange ex = run_exchange(c, plan);
    check_exchange(plan, ex, w.rank, {"WWN.VIS.4", "WWN.VIS.4", "", ""}, ev());
    if (w.rank == 1) {
        Histogram hist = payload_histogram();
        for (const auto &r : ex.x)
            ++hist[std::string(outcome_name(r.seen().overall()))];
        ev().litmus(litmus_entry("L4", "MP-k FIFO", "Visibility.SeveralInFlight", hist, weak_outcomes()));
    }
}

HCTS_CASE(Visibility, LaterWriteWins, clauses("WWN.VIS.5"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    Histogram hist{{"P2", 0}, {"stale", 0}, {"torn", 0}, {"absent", 0}, {"foreign", 0}};
    for (uint32_t rep = 0; rep < 8; ++rep) {
        // P1 then P2 to the same dst on one thread, on two indices; the receiver
        // waits for both and snapshots after the second.
        const uint64_t len = 32768 + rep;
        std::vector<Xfer> plan{Xfer{0, 1, 4096, 0, len, 2 * rep, 0, 0, 0, key_for(100 + rep, 0)},
                               Xfer{0, 1, 4096, 65536, len, 2 * rep + 1, 0, 0, 0, key_for(200 + rep, 0)}};
        plan[0].snapshot = false;
        plan[1].poison_dst = false;
        const Exchange ex = run_exchange(c, plan);
        if (w.rank == 0)
            ev().check("WWN.VIS.5", ex.x[0].wwn_rc == 0,
                       "the first write returned " + hccl_result_name(ex.x[0].wwn_rc));
        // Only the second write's payload is expected in dst.
        const std::vector<Xfer> last{plan[1]};
        Exchange only_last{ex.launch, {ex.x[1]}};
        check_exchange(last, only_last, w.rank, {"WWN.VIS.5", "WWN.VIS.5", "", ""}, ev());
        if (w.rank == 1)
            ++hist[ex.x[1].host.ok() ? "P2" : std::string(outcome_name(ex.x[1].host.overall()))];
    }
    if (w.rank == 1)
        ev().litmus(litmus_entry("L6", "CoWW", "Visibility.LaterWriteWins", hist, weak_outcomes()));
}

HCTS_CASE(Visibility, EveryObserverCoherent, clauses("WWN.VIS.6"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    Histogram hist{{"both-new", 0}, {"r1-new-r2-old", 0}, {"other", 0}};
    for (uint32_t rep = 0; rep < 16; ++rep) {
        std::vector<Xfer> plan{Xfer{1, 0, 4096, 0, 256ULL << 10, rep, 0, 0, 0, key_for(rep + 1, 1)}};
        plan[0].poison_dst = rep == 0;
        const Exchange ex = run_exchange(c, plan);
        check_exchange(plan, ex, w.rank, {"WWN.VIS.6", "WWN.VIS.6", "", ""}, ev());
        if (w.rank == 0) {
            const auto &r = ex.x[0];
            // r1 = the device-stream read, r2 = the later host read.
            const bool corr_violation = r.have_snapshot && r.snap.ok() && !r.host.ok();
            ev().check("WWN.VIS.6", !corr_violation,
                       "the device-stream read saw the new payload but the later host read did not: " +
                           r.host.first_bad);
            ++hist[corr_violation                                  ? "r1-new-r2-old"
                   : r.have_snapshot && r.snap.ok() && r.host.ok() ? "both-new"
                                                                   : "other"];
        }
    }
    if (w.rank == 0)
        ev().litmus(litmus_entry("L7", "CoRR-after / L15 observer paths", "Visibility.EveryObserverCoherent", hist,
                                 {"r1-new-r2-old", "other"}));
}

} // namespace hcts
