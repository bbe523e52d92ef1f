// Profiles: behaviours the documents leave open, observed and reported.
#include "harness.h"
#include "mpi_glue.h"

namespace hcts {
namespace {

StampKey key_for(uint32_t iteration, int sender) { return {6, iteration, static_cast<uint32_t>(sender)}; }

// Receiver waits on idx with the short timeout on a fresh thread; true if it completed.
bool short_wait(int receiver, ChannelHandle ch, uint32_t idx)
{
    World &w = World::get();
    bool done = false;
    if (w.rank == receiver) {
        const ThreadHandle t = w.fresh_thread(COMM_ENGINE_AICPU_TS);
        Script s;
        s.wait(t, ch, idx, w.short_timeout());
        const LaunchResult r = w.run(s, 30000);
        done = t != 0 && r.ok() && s.rc(0) == 0;
    }
    ranks::barrier();
    return done;
}

} // namespace

HCTS_CASE(Profiles, BinaryOrCountingNotify, "WWN.PRF.1")
{
    HCTS_REQUIRE_WWN();
    World &w = World::get();
    // Two writes to one index, then a marker write on another index of the same
    // channel and thread: once the marker's wait completes, both notifies have
    // arrived (in-order delivery on a channel), even when the transport delays them.
    std::vector<Xfer> plan{Xfer{0, 1, 4096, 0, 128, 24, 0, 0, 0, key_for(1, 0)},
                           Xfer{0, 1, 8192, 4096, 128, 24, 0, 0, 0, key_for(2, 0)},
                           Xfer{0, 1, 12288, 8192, 64, 28, 0, 0, 0, key_for(3, 0)}};
    plan[0].wait = plan[1].wait = false;
    (void)run_exchange(plan);
    Script s;
    if (w.rank == 1)
        s.wait(w.threads[1], w.peers[0].channel, 24, w.ok_timeout());
    const LaunchResult first = w.run(s);
    const bool second = short_wait(1, w.peers[0].channel, 24);
    if (w.rank == 1) {
        if (!first.ok() || s.rc(0) != 0)
            Case::current().profile("WWN.PRF.1", "no-notify",
                                    "two writes did not satisfy even one wait: " + first.describe());
        else
            Case::current().profile("WWN.PRF.1", second ? "counting" : "binary",
                                    second ? "a second wait completed after two writes"
                                           : "the second wait timed out: the two notifies coalesced");
    }
}

HCTS_CASE(Profiles, ZeroLength, "WWN.PRF.2")
{
    HCTS_REQUIRE_WWN();
    World &w = World::get();
    const uint64_t off = 8192;
    if (w.rank == 1)
        w.poison(w.inbox(0) + off, 64);
    ranks::barrier();
    Script s;
    if (w.rank == 0)
        s.wwn(w.thread(), w.peers[1].channel, w.remote_inbox(1, 0) + off, w.outbox(), 0, 25);
    (void)w.run(s, 30000);
    int32_t rc = w.rank == 0 ? s.rc(0) : 0;
    ranks::broadcast(&rc, sizeof rc, 0);
    ranks::barrier();
    if (rc != HCCL_SUCCESS) {
        if (w.rank == 0)
            Case::current().profile("WWN.PRF.2", "rejected", std::string("len 0 returned ") + hccl_result_name(rc));
        return;
    }
    const bool notified = short_wait(1, w.peers[0].channel, 25);
    if (w.rank == 1) {
        const size_t bad = count_not_pattern(w.get(w.inbox(0) + off, 64), kPoisonWord);
        Case::current().profile("WWN.PRF.2", notified ? "notify-only" : "success-no-notify",
                                std::string(notified ? "the notify arrived" : "returned success but no notify arrived") +
                                    ", " + std::to_string(bad) + " bytes of dst changed");
    }
}

HCTS_CASE(Profiles, TimeoutUnit, "WWN.PRF.3")
{
    World &w = World::get();
    Case &c = Case::current();
    c.observe("probe_ms", w.unit_probe_ms);
    c.observe("probe", w.unit_probe_note);
    if (!Iut::get().has("HcommChannelNotifyWaitOnThread"))
        HCTS_NOT_SUPPORTED("the IUT lacks HcommChannelNotifyWaitOnThread");
    c.profile("WWN.PRF.3", w.timeout_in_seconds ? "seconds" : "milliseconds", w.unit_probe_note);
}

HCTS_CASE(Profiles, CrossChannelOrdering, "WWN.PRF.4")
{
    HCTS_REQUIRE_WWN();
    World &w = World::get();
    const ScopedChannels second(World::kNotifyNum);
    if (!second.distinct_from_default()) {
        Case::current().profile("WWN.PRF.4", "unobserved", "no second, distinct channel to the same peer");
        return;
    }
    // A large write on channel A, then a small one on channel B, same thread; the
    // receiver waits for B and snapshots A at once.
    uint32_t reordered = 0;
    const uint32_t reps = 8;
    for (uint32_t rep = 0; rep < reps; ++rep) {
        std::vector<Xfer> plan{Xfer{0, 1, 4096, 0, 2ULL << 20, 26, 0, 0, 0, key_for(10 + rep, 0)},
                               Xfer{0, 1, (2ULL << 20) + 8192, (2ULL << 20) + 64, 64, 26, 0, second.to(1), second.to(0),
                                    key_for(30 + rep, 0)}};
        plan[0].wait = false;
        const Exchange ex = run_exchange(plan);
        // Consume A's notify so nothing leaks.
        Script s;
        if (w.rank == 1)
            s.wait(w.threads[1], w.peers[0].channel, 26, w.ok_timeout());
        (void)w.run(s);
        if (w.rank == 1 && !ex.x[0].host.ok())
            ++reordered;
        ranks::barrier();
    }
    if (w.rank == 1)
        Case::current().profile("WWN.PRF.4", reordered != 0 ? "unordered-observed" : "unobserved",
                                std::to_string(reordered) + " of " + std::to_string(reps) +
                                    " runs showed channel A's data incomplete when B's wait completed");
}

HCTS_CASE(Profiles, PlainWriteCumulativity, "WWN.PRF.5")
{
    HCTS_REQUIRE_WWN();
    World &w = World::get();
    if (Iut::get().api().HcommWriteOnThread == nullptr)
        HCTS_NOT_SUPPORTED("the IUT lacks HcommWriteOnThread");
    uint32_t stale = 0;
    const uint32_t reps = 8;
    const uint64_t blen = 1ULL << 20, boff = 65536;
    for (uint32_t rep = 0; rep < reps; ++rep) {
        if (w.rank == 1)
            w.poison(w.inbox(0) + boff, blen);
        std::vector<std::byte> payload;
        if (w.rank == 0) {
            payload.resize(blen);
            fill_payload(payload, key_for(50 + rep, 0));
            w.put(w.outbox() + 65536, payload);
        }
        ranks::barrier();
        Script s;
        if (w.rank == 0) {
            s.write(w.thread(), w.peers[1].channel, w.remote_inbox(1, 0) + boff, w.outbox() + 65536, blen);
            s.wwn(w.thread(), w.peers[1].channel, w.remote_inbox(1, 0) + 4096, w.outbox(), 64, 27);
        } else if (w.rank == 1) { // ranks 2.. stay out: a wait for nothing would time out and stop their thread
            s.wait(w.threads[1], w.peers[0].channel, 27, w.ok_timeout());
            s.copy(w.threads[1], w.scratch(), w.inbox(0) + boff, blen);
        }
        const LaunchResult r = w.run(s);
        if (w.rank == 1) {
            const auto got = check_payload(w.get(w.scratch(), blen), key_for(50 + rep, 0));
            if (!r.ok() || !got.ok())
                ++stale;
        }
        ranks::barrier();
    }
    if (w.rank == 1)
        Case::current().profile("WWN.PRF.5", stale != 0 ? "not-cumulative" : "cumulative",
                                std::to_string(stale) + " of " + std::to_string(reps) +
                                    " runs showed the plain write incomplete after the notify's wait");
}

} // namespace hcts
