// Profiles: behaviours the documents leave open, observed and reported. Each
// allowed outcome is reachable (a legal variant produces it); an outcome that
// could not be established is ERROR, never a guess.
#include "case_kit.h"

namespace hcts::cases_profiles {
namespace {

StampKey key_for(uint32_t iteration, int sender) { return {6, iteration, static_cast<uint32_t>(sender)}; }

// Records launch trouble of a profile case's program under `clause`; true when
// the run can be counted as an observation: the launch went through and every op
// of `s` returned 0 (a refused wait or a skipped snapshot shows nothing).
bool counted(const LaunchResult &r, const Script &s, const std::string &clause, const std::string &what, Evidence &ev)
{
    if (r.trouble() == Trouble::Missing) {
        ev.unsupported(clause, what + ": a call the script needs is absent");
        return false;
    }
    if (r.trouble() != Trouble::None) {
        ev.error(clause, what + " did not complete, so it shows nothing about the profile: " + r.describe());
        return false;
    }
    if (const auto i = s.first_failure()) {
        const std::string why = what + ": op " + std::to_string(*i) + " returned " + hccl_result_name(s.rc(*i)) +
                                ", so the run shows nothing about the profile";
        // Refused as unsupported (a wait or a snapshot copy this IUT does not offer
        // here): the observation cannot be made. Any other failure is harness trouble.
        if (s.rc(*i) == HCCL_E_NOT_SUPPORT)
            ev.unsupported(clause, why);
        else
            ev.error(clause, why);
        return false;
    }
    return true;
}

} // namespace

HCTS_CASE(Profiles, BinaryOrCountingNotify, clauses("WWN.PRF.1"), needs(Feature::WriteWithNotify, Feature::NotifyWait))
{
    const Ctx c = ctx();
    const World &w = c.w;
    // Two writes to one index, then a marker write on another index of the same
    // channel and thread: once the marker's wait completes, both notifies have
    // arrived (in-order delivery on a channel), even when the transport delays them.
    std::vector<Xfer> plan{Xfer{0, 1, 4096, 0, 128, 24, 0, 0, 0, key_for(1, 0)},
                           Xfer{0, 1, 8192, 4096, 128, 24, 0, 0, 0, key_for(2, 0)},
                           Xfer{0, 1, 12288, 8192, 64, 28, 0, 0, 0, key_for(3, 0)}};
    plan[0].wait = plan[1].wait = false;
    (void)run_exchange(c, plan);
    Script s;
    if (w.rank == 1)
        s.wait(w.threads[1], w.channel_to(0), 24, w.ok_timeout());
    const LaunchResult first = c.run(s);
    const WaitOutcome second = wait_expecting_timeout(c, 1, w.channel_to(0), 24);
    if (w.rank != 1)
        return;
    // Only a wait that ran out of time says "no notify"; a refused one says nothing (ERROR below).
    if (first.trouble() == Trouble::Iut || (first.trouble() == Trouble::None && s.rc(0) == HCCL_E_TIMEOUT))
        ev().profile("WWN.PRF.1", "no-notify", "two writes did not satisfy even one wait: " + first.describe());
    else if (counted(first, s, "WWN.PRF.1", "the first wait", ev())) {
        if (second.end == WaitEnd::Unknown)
            ev().error("WWN.PRF.1", "the second wait neither completed nor timed out cleanly: " + second.detail);
        else
            ev().profile("WWN.PRF.1", second.end == WaitEnd::Completed ? "counting" : "binary",
                         second.end == WaitEnd::Completed
                             ? "a second wait completed after two writes"
                             : "the second wait " + second.detail + ": the two notifies coalesced");
    }
}

HCTS_CASE(Profiles, ZeroLength, clauses("WWN.PRF.2"), needs(Feature::WriteWithNotify, Feature::NotifyWait))
{
    const ZeroLength z = zero_length_write(ctx(), 25);
    if (world().rank != 1)
        return;
    if (z.outcome.empty())
        ev().error("WWN.PRF.2", z.detail);
    else
        ev().profile("WWN.PRF.2", z.outcome, z.detail);
}

HCTS_CASE(Profiles, TimeoutUnit, clauses("WWN.PRF.3"), needs(Feature::NotifyWait))
{
    const World &w = world();
    ev().observe("probe_ms", w.unit.probe_ms);
    ev().observe("probe", w.unit.note);
    if (!w.unit.seconds && w.unit.refused)
        ev().unsupported("WWN.PRF.3", "waits are not supported here: " + w.unit.note);
    else if (!w.unit.seconds)
        ev().error("WWN.PRF.3", "the unit probe could not tell: " + w.unit.note);
    else
        ev().profile("WWN.PRF.3", *w.unit.seconds ? "seconds" : "milliseconds", w.unit.note);
}

HCTS_CASE(Profiles, CrossChannelOrdering, clauses("WWN.PRF.4"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const ScopedChannels second(w, World::kNotifyNum);
    if (!second.distinct_from_default()) {
        if (w.rank == 1)
            ev().unsupported("WWN.PRF.4",
                             "no second, distinct channel to the same peer (" + hccl_result_name(second.rc()) + ")");
        return;
    }
    // A large write on channel A, then a small one on channel B, same thread; in
    // the same launch the receiver waits for B and snapshots A on its stream at
    // once, then consumes A's notify.
    const uint64_t alen = 2ULL << 20;
    uint32_t reordered = 0, observed = 0;
    const uint32_t reps = 8;
    for (uint32_t rep = 0; rep < reps; ++rep) {
        const StampKey ka = key_for(10 + rep, 0), kb = key_for(30 + rep, 0);
        if (w.rank == 1)
            dev.poison(w.inbox(0) + 4096, alen);
        if (w.rank == 0) {
            std::vector<std::byte> p(alen);
            fill_payload(p, ka);
            dev.put(w.outbox(), p);
            std::vector<std::byte> q(64);
            fill_payload(q, kb);
            dev.put(w.outbox() + alen + 64, q);
        }
        mpi::phase_barrier("cross-channel: prepared");
        Script s;
        if (w.rank == 0) {
            s.wwn(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + 4096, w.outbox(), alen, 26);
            s.wwn(w.thread(), second.to(1), w.remote_inbox(1, 0) + alen + 8192, w.outbox() + alen + 64, 64, 26);
        } else if (w.rank == 1) {
            s.wait(w.threads[1], second.to(0), 26, w.ok_timeout());
            s.copy(w.threads[1], w.scratch(), w.inbox(0) + 4096, alen).only_if_previous_ok();
            s.wait(w.threads[1], w.channel_to(0), 26, w.ok_timeout());
        }
        const LaunchResult r = c.run(s);
        if (w.rank == 1 && counted(r, s, "WWN.PRF.4", "the receiver's program", ev())) {
            ++observed;
            reordered += !check_payload(dev.get(w.scratch(), alen), ka).ok();
        }
        mpi::phase_barrier("cross-channel: checked");
    }
    if (w.rank == 1 && observed > 0)
        ev().profile("WWN.PRF.4", reordered != 0 ? "unordered-observed" : "unobserved",
                     std::to_string(reordered) + " of " + std::to_string(observed) +
                         " runs showed channel A's data incomplete when B's wait completed");
}

HCTS_CASE(Profiles, PlainWriteCumulativity, clauses("WWN.PRF.5"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::Write, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    uint32_t stale = 0, observed = 0;
    const uint32_t reps = 8;
    const uint64_t blen = 1ULL << 20, boff = 65536;
    for (uint32_t rep = 0; rep < reps; ++rep) {
        if (w.rank == 1)
            dev.poison(w.inbox(0) + boff, blen);
        if (w.rank == 0) {
            std::vector<std::byte> payload(blen);
            fill_payload(payload, key_for(50 + rep, 0));
            dev.put(w.outbox() + 65536, payload);
        }
        mpi::phase_barrier("cumulativity: prepared");
        Script s;
        if (w.rank == 0) {
            s.write(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + boff, w.outbox() + 65536, blen);
            s.wwn(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + 4096, w.outbox(), 64, 27);
        } else if (w.rank == 1) { // ranks 2.. stay out: a wait for nothing would time out and stop their thread
            s.wait(w.threads[1], w.channel_to(0), 27, w.ok_timeout());
            s.copy(w.threads[1], w.scratch(), w.inbox(0) + boff, blen).only_if_previous_ok();
        }
        const LaunchResult r = c.run(s);
        if (w.rank == 1 && counted(r, s, "WWN.PRF.5", "the receiver's program", ev())) {
            ++observed;
            stale += !check_payload(dev.get(w.scratch(), blen), key_for(50 + rep, 0)).ok();
        }
        mpi::phase_barrier("cumulativity: checked");
    }
    if (w.rank == 1 && observed > 0)
        ev().profile("WWN.PRF.5", stale != 0 ? "not-cumulative" : "cumulative",
                     std::to_string(stale) + " of " + std::to_string(observed) +
                         " runs showed the plain write incomplete after the notify's wait");
}

} // namespace hcts::cases_profiles
