// Notify delivery: one write, one satisfied wait; isolation; guards; incast.
#include "case_kit.h"

namespace hcts::cases_notify {
namespace {

StampKey key_for(uint32_t iteration, int sender) { return {2, iteration, static_cast<uint32_t>(sender)}; }

// A notify clause's reading of what a satisfied wait let through: no word of
// another write (stale or foreign). Data not yet arrived, or cut mid-word, is the
// visibility clauses' business, so a notify raised early fails those, not this.
bool no_other_writes_data(const PayloadCheck &p) { return p.stale == 0 && p.foreign == 0; }

// The receiver consumes notify `idx` of `channel` (it must be there); on its
// stream right behind the wait it reads dst, which must hold no other write's
// data; once done, the write's payload is all there. Under `clause`.
void consume_and_check(const Ctx &c, ChannelHandle channel, uint32_t idx, uint64_t dst_off, uint64_t len,
                       const StampKey &key, const std::string &clause)
{
    const World &w = c.w;
    Script s;
    if (w.rank == 1) {
        s.wait(w.threads[1], channel, idx, w.ok_timeout());
        s.copy(w.threads[1], w.scratch(), w.inbox(0) + dst_off, len).only_if_previous_ok();
    }
    const LaunchResult r = c.run(s);
    if (w.rank == 1) {
        judge_launch(r, clause, "the wait on the written index " + std::to_string(idx), c.ev);
        c.ev.check(clause, s.rc(0) == 0,
                   "the wait on the written index " + std::to_string(idx) + " returned " + hccl_result_name(s.rc(0)));
        if (s.rc(1) == 0) {
            const auto snap = check_payload(w.device().get(w.scratch(), len), key, "dst, read right after the wait");
            c.ev.check(clause, no_other_writes_data(snap), snap.first_bad);
        } else if (s.rc(0) == 0) {
            // The wait completed but its snapshot was refused: what the wait let
            // through is unknown, so the clause is not shown (as in run_exchange).
            c.ev.unsupported(clause, "no snapshot right after the wait on index " + std::to_string(idx) +
                                         ": the copy returned " + hccl_result_name(s.rc(1)));
        }
        const auto got = check_payload(w.device().get(w.inbox(0) + dst_off, len), key);
        c.ev.check(clause, got.ok(), got.first_bad);
    }
    mpi::phase_barrier("notify consumed");
}

} // namespace

HCTS_CASE(Notify, ExactlyOncePerWrite, clauses("WWN.NTF.1"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const uint32_t n = 16, idx = 5;
    Histogram hist{{"satisfied", 0}, {"lost", 0}, {"spurious", 0}, {"extra-wait-timed-out", 0}};
    for (uint32_t i = 0; i < n; ++i) {
        std::vector<Xfer> plan{Xfer{0, 1, 4096, 0, 512, idx, 0, 0, 0, key_for(i, 0)}};
        const Exchange ex = exchange_checked(c, plan, {"", "WWN.NTF.1", "", ""});
        if (w.rank == 1) {
            const XferResult &x = ex.x[0];
            if (x.have_snapshot)
                ev().check("WWN.NTF.1", no_other_writes_data(x.snap),
                           "write " + std::to_string(i) +
                               ": the wait let through another write's data: " + x.snap.first_bad);
            else
                ev().unsupported("WWN.NTF.1", "no snapshot right after the wait: " + x.no_snapshot);
            ++hist[ex.launch.ok() && x.wait_rc == 0 ? "satisfied" : "lost"];
        }
    }
    const WaitOutcome extra = wait_expecting_timeout(c, 1, w.channel_to(0), idx);
    if (w.rank == 1) {
        judge_no_completion(extra, "WWN.NTF.1",
                            "wait number " + std::to_string(n + 1) + " after " + std::to_string(n) +
                                " writes (a spurious or duplicated notify would complete it)",
                            ev());
        if (extra.end != WaitEnd::Unknown)
            ++hist[extra.end == WaitEnd::Completed ? "spurious" : "extra-wait-timed-out"];
        ev().litmus(litmus_entry("L8", "exactly-once", "Notify.ExactlyOncePerWrite", hist, {"lost", "spurious"}));
    }
    // A later write on another index of the channel raises index idx no second time.
    // A completion delivered again with the next one (a stale completion-queue entry)
    // would; on idx itself the repeat lands on a notify still set and is absorbed
    // unseen, so only a write elsewhere shows it, whatever the timing.
    const uint32_t other = idx + 1;
    const std::vector<Xfer> next{Xfer{0, 1, 4096, 0, 512, other, 0, 0, 0, key_for(n, 0)}};
    exchange_checked(c, next, {"", "WWN.NTF.1", "", ""});
    const WaitOutcome again = wait_expecting_timeout(c, 1, w.channel_to(0), idx);
    if (w.rank == 1)
        judge_no_completion(again, "WWN.NTF.1",
                            "a wait on index " + std::to_string(idx) + " after its " + std::to_string(n) +
                                " writes were consumed and one write with notify on index " + std::to_string(other) +
                                " (a notify delivered twice would complete it)",
                            ev());
}

HCTS_CASE(Notify, IndexIsolation, clauses("WWN.NTF.2"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    // Write on i; a wait on j != i must time out; then the wait on i completes.
    for (auto [i, j] : {std::pair<uint32_t, uint32_t>{7, 8}, {8, 7}, {0, 63}}) {
        std::vector<Xfer> plan{Xfer{0, 1, 4096, 0, 4096, i, 0, 0, 0, key_for(i, 0)}};
        plan[0].wait = false;
        (void)run_exchange(c, plan); // the sender's launch waits for its tasks
        const WaitOutcome o = wait_expecting_timeout(c, 1, w.channel_to(0), j);
        if (w.rank == 1)
            judge_no_completion(o, "WWN.NTF.2",
                                "a wait on index " + std::to_string(j) + " after a write on index " + std::to_string(i),
                                ev());
        consume_and_check(c, w.channel_to(0), i, 4096, 4096, key_for(i, 0), "WWN.NTF.2");
    }
}

HCTS_CASE(Notify, ChannelIsolation, clauses("WWN.NTF.3"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const ScopedChannels second(w, World::kNotifyNum);
    ev().observe("second_channel_acquire", hccl_result_name(second.rc()));
    if (!second.distinct_from_default()) {
        if (w.rank <= 1)
            ev().unsupported("WWN.NTF.3", "a second channel to the same peer could not be acquired as a distinct "
                                          "handle (" +
                                              hccl_result_name(second.rc()) + ")");
        return;
    }
    // Write on channel B index 3: a wait on channel A index 3 must time out, then B's completes.
    std::vector<Xfer> plan{Xfer{0, 1, 4096, 0, 8192, 3, 0, second.to(1), second.to(0), key_for(33, 0)}};
    plan[0].wait = false;
    (void)run_exchange(c, plan);
    const WaitOutcome o = wait_expecting_timeout(c, 1, w.channel_to(0), 3);
    if (w.rank == 1)
        judge_no_completion(o, "WWN.NTF.3", "a wait on the first channel after a write on the second", ev());
    consume_and_check(c, second.to(0), 3, 4096, 8192, key_for(33, 0), "WWN.NTF.3");
}

HCTS_CASE(Notify, IncastSendersIsolated, clauses("WWN.NTF.4"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    // Every other rank sends to rank 0 on both of its threads at once, each on
    // its own index and destination; the stamp's sender field names rank and thread.
    // A mix-up between concurrent writers shows only when their calls overlap, which
    // one round on a loaded machine need not bring about: several rounds, each stamped
    // with its own iteration so a round cannot pass on what an earlier one left.
    constexpr uint32_t kRounds = 6;
    Histogram hist = payload_histogram();
    for (uint32_t round = 0; round < kRounds; ++round) {
        std::vector<Xfer> plan;
        for (int r = 1; r < w.size; ++r)
            for (int t = 0; t < 2; ++t) {
                const uint32_t idx = static_cast<uint32_t>((2 * r + t) % static_cast<int>(World::kNotifyNum));
                plan.push_back(Xfer{r, 0, 4096 + static_cast<uint64_t>(t) * 131072, static_cast<uint64_t>(t) * 131072,
                                    65536 + 24, idx, t, 0, 0,
                                    StampKey{2, 9 + round, static_cast<uint32_t>(2 * r + t)}});
            }
        const Exchange ex = exchange_checked(c, plan, {"", "WWN.NTF.4", "", ""});
        if (w.rank == 0)
            for (const auto &x : ex.x)
                ++hist[std::string(outcome_name(x.host.overall()))];
    }
    if (w.rank == 0)
        ev().litmus(litmus_entry("L9", "isolation (incast)", "Notify.IncastSendersIsolated", hist, weak_outcomes()));
}

HCTS_CASE(Notify, GuardsAndSourceUntouched, clauses("WWN.NTF.5", "WWN.NTF.6"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    std::vector<Xfer> plan;
    uint32_t idx = 0;
    for (uint64_t len : {1ULL, 3ULL, 8ULL, 61ULL, 4096ULL, 4099ULL, 1ULL << 20}) {
        plan.push_back(Xfer{0, 1, 8192 + idx * ((1ULL << 20) + 8192) + (idx % 8), idx * ((1ULL << 20) + 128), len, idx,
                            0, 0, 0, key_for(idx, 0)});
        ++idx;
    }
    const Exchange ex = exchange_checked(c, plan, {"", "", "WWN.NTF.5", "WWN.NTF.6"});
    if (w.rank == 1) {
        Histogram hist{{"guards-intact", 0}, {"guard-changed", 0}};
        for (const auto &x : ex.x)
            ++hist[x.guard_bad == 0 ? "guards-intact" : "guard-changed"];
        ev().litmus(litmus_entry("L10", "guards", "Notify.GuardsAndSourceUntouched", hist, {"guard-changed"}));
    }
}

HCTS_CASE(Notify, BothDirectionsAtOnce, clauses("WWN.NTF.7"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    Histogram hist = payload_histogram();
    hist["deadlock-or-error"] = 0;
    for (uint32_t rep = 0; rep < 8; ++rep) {
        std::vector<Xfer> plan{Xfer{0, 1, 4096, 0, 100000 + rep, 40, 0, 0, 0, key_for(rep, 0)},
                               Xfer{1, 0, 4096, 0, 100000 + rep, 41, 0, 0, 0, key_for(rep, 1)}};
        const Exchange ex = exchange_checked(c, plan, {"", "WWN.NTF.7", "", ""});
        if (w.rank <= 1)
            ++hist[!ex.launch.ok() ? "deadlock-or-error"
                                   : std::string(outcome_name(ex.x[w.rank == 0 ? 1 : 0].host.overall()))];
    }
    const Histogram sum = sum_on_root(hist);
    if (w.rank == 0) {
        std::vector<std::string> forbidden = weak_outcomes();
        forbidden.push_back("deadlock-or-error");
        ev().litmus(litmus_entry("L12", "SB-dual", "Notify.BothDirectionsAtOnce", sum, forbidden));
    }
}

// Overruns: a record on a notify that is already set (binary notifies coalesce,
// counting ones count: WWN.PRF.1) must stay on its own index. Every index of the
// channel is overrun, 3 times (write with notify, record, write with notify) for
// the even ones on the world's channel and twice (record, then write with notify)
// for the odd ones on a second channel (a counting notify's surplus would
// otherwise look set in the second round); the other parity must stay quiet, so
// a spill to i+1 or i-1 is seen for every i, edges included.
namespace {

constexpr uint64_t kOverrunSlot = 1024;
constexpr uint64_t kOverrunBase = 4096;

void overrun_round(const Ctx &c, ChannelHandle ch, uint32_t parity, const std::vector<char> &pattern)
{
    const World &w = c.w;
    const Device &dev = w.device();
    std::vector<uint32_t> raised, quiet;
    for (uint32_t i = 0; i < World::kNotifyNum; ++i)
        (i % 2 == parity ? raised : quiet).push_back(i);
    const auto key = [&](uint32_t i) { return StampKey{2, 700 + parity * 100 + i, 0}; };
    const uint64_t len = 256;
    for (uint32_t i : raised) {
        if (w.rank == 1)
            dev.poison(w.inbox(0) + kOverrunBase + i * kOverrunSlot, len);
        if (w.rank == 0) {
            std::vector<std::byte> p(len);
            fill_payload(p, key(i));
            dev.put(w.outbox() + i * kOverrunSlot, p);
        }
    }
    mpi::phase_barrier("overrun: prepared");
    Script s;
    if (w.rank == 0)
        // Round-robin over the indices, so each index's later records find it set.
        for (char kind : pattern)
            for (uint32_t i : raised) {
                if (kind == 'w')
                    s.wwn(w.thread(), ch, w.remote_inbox(1, 0) + kOverrunBase + i * kOverrunSlot,
                          w.outbox() + i * kOverrunSlot, len, i);
                else
                    s.record(w.thread(), ch, i);
            }
    const LaunchResult sr = c.run(s, 30000);
    if (w.rank == 0)
        for (size_t k = 0; k < s.size(); ++k)
            if (s.rc(k) != 0) {
                c.ev.error("WWN.NTF.2", "call " + std::to_string(k) + " of the overrun round (index " +
                                            std::to_string(s.op(k).idx) + ") returned " + hccl_result_name(s.rc(k)) +
                                            " (" + sr.describe() + ")");
                break;
            }
    mpi::phase_barrier("overrun: recorded");
    // One wait per overrun index: each completes with its payload.
    Script waits;
    if (w.rank == 1)
        for (uint32_t i : raised)
            waits.wait(w.threads.at(1), ch, i, w.ok_timeout());
    const LaunchResult r = c.run(waits, 60000);
    if (w.rank == 1) {
        judge_launch(r, "WWN.NTF.2", "the waits on the overrun indices", c.ev);
        for (size_t k = 0; k < waits.size(); ++k) {
            const uint32_t i = raised[k];
            const auto got = check_payload(dev.get(w.inbox(0) + kOverrunBase + i * kOverrunSlot, len), key(i));
            c.ev.check("WWN.NTF.2", waits.rc(k) == 0 && got.ok(),
                       "the wait on index " + std::to_string(i) + " after " + std::to_string(pattern.size()) +
                           " records on it returned " + hccl_result_name(waits.rc(k)) +
                           "; its data: " + (got.ok() ? std::string("arrived") : got.first_bad));
        }
    }
    mpi::phase_barrier("overrun: consumed");
    // The neighbours of every overrun index: none may have been raised.
    const size_t spilled = check_quiet(c, 0, 1, ch, ch, quiet, "WWN.NTF.2");
    if (w.rank == 1)
        c.ev.observe(parity == 0 ? "overrun_even_spilled" : "overrun_odd_spilled", static_cast<uint64_t>(spilled));
}

} // namespace

HCTS_CASE(Notify, OverrunStaysOnItsIndex, clauses("WWN.NTF.2"),
          needs(Feature::WriteWithNotify, Feature::NotifyRecord, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const ChannelHandle first = w.rank <= 1 ? w.channel_to(w.rank == 0 ? 1 : 0) : 0;
    overrun_round(c, first, 0, {'w', 'r', 'w'});
    const ScopedChannels second(w, World::kNotifyNum);
    if (!second.distinct_from_default()) {
        // The first round judged the even indices; the odd ones need a channel without its surplus.
        ev().observe("overrun_odd_round", "skipped: no second channel (" + hccl_result_name(second.rc()) + ")");
        return;
    }
    overrun_round(c, w.rank <= 1 ? second.to(w.rank == 0 ? 1 : 0) : 0, 1, {'r', 'w'});
}

} // namespace hcts::cases_notify
