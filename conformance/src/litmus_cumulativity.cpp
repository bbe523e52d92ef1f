// Litmus L5 (a plain write before the notify) and L13 (a three-party chain):
// whether the notify also covers data it does not carry. P rows: what was
// observed is reported, never failed.
#include "case_kit.h"

namespace hcts {
namespace {

StampKey key_for(uint32_t iteration, int sender) { return {9, iteration & 0xfff, static_cast<uint32_t>(sender)}; }

// Repetitions of the slower litmus shapes: a fraction of --repeat, at least `floor`.
uint32_t reps_of(const Ctx &c, uint32_t divisor, uint32_t floor) { return std::max(floor, c.repeat / divisor); }

uint64_t weak_count(const Histogram &h)
{
    uint64_t n = 0;
    for (const auto &k : weak_outcomes())
        n += h.at(k);
    return n;
}

} // namespace

// L5: S: Write(B); WWN(A, n) ‖ R: Wait(n); read B on its stream at once.
HCTS_CASE(Litmus, L5_Cumulativity, clauses("WWN.LIT.5"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::Write, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const uint32_t reps = reps_of(c, 16, 8);
    const uint64_t blen = 256 * 1024, boff = 65536, aoff = 4096;
    Histogram hist = payload_histogram();
    for (uint32_t rep = 0; rep < reps; ++rep) {
        const StampKey key = key_for(500 + rep, 0);
        if (w.rank == 1)
            dev.poison(w.inbox(0) + boff, blen);
        if (w.rank == 0) {
            std::vector<std::byte> payload(blen);
            fill_payload(payload, key);
            dev.put(w.outbox() + 65536, payload);
        }
        mpi::phase_barrier("L5: prepared");
        Script s;
        if (w.rank == 0) {
            s.write(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + boff, w.outbox() + 65536, blen);
            s.wwn(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + aoff, w.outbox(), 64, 40);
        } else if (w.rank == 1) {
            s.wait(w.threads[1], w.channel_to(0), 40, w.ok_timeout());
            s.copy(w.threads[1], w.scratch(), w.inbox(0) + boff, blen).only_if_previous_ok();
        }
        const LaunchResult r = c.run(s);
        if (w.rank == 1) {
            judge_launch(r, "WWN.LIT.5", "the wait for the marker write", ev());
            if (r.ok() && s.rc(0) == 0)
                ++hist[std::string(outcome_name(check_payload(dev.get(w.scratch(), blen), key).overall()))];
        }
        mpi::phase_barrier("L5: checked");
    }
    const Histogram sum = sum_on_root(hist);
    if (w.rank == 0) {
        const uint64_t weak = weak_count(sum);
        ev().profile("WWN.LIT.5", weak != 0 ? "not-cumulative" : "cumulative",
                     std::to_string(weak) + " of " + std::to_string(reps) +
                         " runs read the plain write B incomplete right after the wait for A");
        ev().litmus(profile_entry("L5", "cumulativity", "Litmus.L5_Cumulativity", sum, weak_outcomes()));
    }
}

// L13: P0: Write(D→P2); WWN(→P1, n1) ‖ P1: Wait(n1); WWN(→P2, n2) ‖ P2: Wait(n2); read D.
HCTS_CASE(Litmus, L13_ThreeParty, clauses("WWN.LIT.13"),
          needs(Feature::ThreeRanks, Feature::WriteWithNotify, Feature::NotifyWait, Feature::Write, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const uint32_t reps = reps_of(c, 32, 8);
    const uint64_t dlen = 64 * 1024, doff = 65536;
    Histogram hist = payload_histogram();
    for (uint32_t rep = 0; rep < reps; ++rep) {
        const StampKey key = key_for(3000 + rep, 0);
        if (w.rank == 2)
            dev.poison(w.inbox(0) + doff, dlen);
        if (w.rank == 0) {
            std::vector<std::byte> p(dlen);
            fill_payload(p, key);
            dev.put(w.outbox(), p);
        }
        mpi::phase_barrier("L13: prepared");
        Script s;
        if (w.rank == 0) {
            s.write(w.thread(), w.channel_to(2), w.remote_inbox(2, 0) + doff, w.outbox(), dlen);
            s.wwn(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + 4096, w.outbox() + dlen, 64, 50);
        } else if (w.rank == 1) {
            s.wait(w.threads[1], w.channel_to(0), 50, w.ok_timeout());
            s.wwn(w.threads[1], w.channel_to(2), w.remote_inbox(2, 1) + 4096, w.outbox(), 64, 51);
        } else if (w.rank == 2) {
            s.wait(w.threads[1], w.channel_to(1), 51, w.ok_timeout());
            s.copy(w.threads[1], w.scratch(), w.inbox(0) + doff, dlen).only_if_previous_ok();
        }
        const LaunchResult r = c.run(s);
        if (w.rank <= 2)
            judge_launch(r, "WWN.LIT.13", "rank " + std::to_string(w.rank) + "'s part of the chain", ev());
        if (w.rank == 2 && r.ok())
            ++hist[std::string(outcome_name(check_payload(dev.get(w.scratch(), dlen), key).overall()))];
        mpi::phase_barrier("L13: checked");
    }
    const Histogram sum = sum_on_root(hist);
    if (w.rank == 0) {
        const uint64_t weak = weak_count(sum);
        ev().profile("WWN.LIT.13", weak != 0 ? "not-cumulative" : "cumulative",
                     std::to_string(weak) + " of " + std::to_string(reps) +
                         " runs: rank 2 read D incomplete after the chain's last wait");
        ev().litmus(profile_entry("L13", "3-party (WRC-like)", "Litmus.L13_ThreeParty", sum, weak_outcomes()));
    }
}

} // namespace hcts
