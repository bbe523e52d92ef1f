// Notify delivery: one write, one satisfied wait; isolation; guards; incast.
#include "harness.h"
#include "mpi_glue.h"

namespace hcts {
namespace {

StampKey key_for(uint32_t iteration, int sender) { return {2, iteration, static_cast<uint32_t>(sender)}; }

// A wait on `idx` of `channel` by `receiver` that must NOT complete: runs on a
// fresh thread with the short timeout. Returns true when the wait completed.
bool wait_completes(int receiver, ChannelHandle channel, uint32_t idx, std::string &detail)
{
    World &w = World::get();
    bool completed = false;
    if (w.rank == receiver) {
        const ThreadHandle t = w.fresh_thread(COMM_ENGINE_AICPU_TS);
        Script s;
        s.wait(t, channel, idx, w.short_timeout());
        const LaunchResult r = w.run(s, 30000);
        completed = t != 0 && r.ok() && s.rc(0) == 0;
        detail = "wait rc " + std::string(hccl_result_name(s.rc(0))) + ", " + r.describe();
    }
    ranks::barrier();
    return completed;
}

} // namespace

HCTS_CASE(Notify, ExactlyOncePerWrite, "WWN.NTF.1")
{
    HCTS_REQUIRE_WWN();
    World &w = World::get();
    const uint32_t n = 16, idx = 5;
    std::map<std::string, uint64_t> hist;
    for (uint32_t i = 0; i < n; ++i) {
        std::vector<Xfer> plan{Xfer{0, 1, 4096, 0, 512, idx, 0, 0, 0, key_for(i, 0)}};
        const Exchange ex = run_exchange(plan);
        check_exchange(plan, ex, {"", "WWN.NTF.1", "", ""});
        if (w.rank == 1)
            ++hist[ex.launch_ok() && ex.x[0].wait_rc == 0 ? "satisfied" : "lost"];
    }
    std::string detail;
    const bool extra = wait_completes(1, w.peers[0].channel, idx, detail);
    if (w.rank == 1) {
        Case::current().expect("WWN.NTF.1", !extra,
                               "wait number " + std::to_string(n + 1) + " after " + std::to_string(n) +
                                   " writes completed (a spurious or duplicated notify): " + detail);
        hist[extra ? "spurious" : "extra-wait-timed-out"] += 1;
        Case::current().litmus(
            litmus_entry("L8", "exactly-once", "Notify.ExactlyOncePerWrite", hist, {"lost", "spurious"}));
    }
}

HCTS_CASE(Notify, IndexIsolation, "WWN.NTF.2")
{
    HCTS_REQUIRE_WWN();
    World &w = World::get();
    // Write on i; a wait on j != i must time out; then the wait on i completes.
    for (auto [i, j] : {std::pair<uint32_t, uint32_t>{7, 8}, {8, 7}, {0, 63}}) {
        std::vector<Xfer> plan{Xfer{0, 1, 4096, 0, 4096, i, 0, 0, 0, key_for(i, 0)}};
        plan[0].wait = false;
        (void)run_exchange(plan); // lands: the sender's launch waits for its tasks
        std::string detail;
        const bool woke = wait_completes(1, w.peers[0].channel, j, detail);
        if (w.rank == 1)
            Case::current().expect("WWN.NTF.2", !woke,
                                   "a write on index " + std::to_string(i) + " satisfied a wait on index " +
                                       std::to_string(j) + " (" + detail + ")");
        // Consume i (it must be there) so no notify leaks into later cases.
        Script s;
        if (w.rank == 1)
            s.wait(w.threads[1], w.peers[0].channel, i, w.ok_timeout());
        const LaunchResult r = w.run(s);
        if (w.rank == 1) {
            Case::current().expect("WWN.NTF.2", r.ok() && s.rc(0) == 0,
                                   "the wait on the written index " + std::to_string(i) + " did not complete: " +
                                       r.describe());
            const auto got = check_payload(w.get(w.inbox(0) + 4096, 4096), key_for(i, 0));
            Case::current().expect("WWN.NTF.2", got.ok(), got.first_bad);
        }
        ranks::barrier();
    }
}

HCTS_CASE(Notify, ChannelIsolation, "WWN.NTF.3")
{
    HCTS_REQUIRE_WWN();
    World &w = World::get();
    const ScopedChannels second(World::kNotifyNum);
    Case::current().observe("second_channel_acquire", hccl_result_name(second.rc()));
    if (!second.distinct_from_default())
        HCTS_NOT_SUPPORTED("a second channel to the same peer could not be acquired as a distinct handle (" +
                           std::string(hccl_result_name(second.rc())) + ")");
    // Write on channel B index 3: a wait on channel A index 3 must time out, then B's completes.
    std::vector<Xfer> plan{Xfer{0, 1, 4096, 0, 8192, 3, 0, second.to(1), second.to(0), key_for(33, 0)}};
    plan[0].wait = false;
    (void)run_exchange(plan);
    std::string detail;
    const bool woke = wait_completes(1, w.peers[0].channel, 3, detail);
    if (w.rank == 1)
        Case::current().expect("WWN.NTF.3", !woke,
                               "a write on the second channel satisfied a wait on the first (" + detail + ")");
    Script s;
    if (w.rank == 1)
        s.wait(w.threads[1], second.to(0), 3, w.ok_timeout());
    const LaunchResult r = w.run(s);
    if (w.rank == 1) {
        Case::current().expect("WWN.NTF.3", r.ok() && s.rc(0) == 0,
                               "the wait on the second channel did not complete: " + r.describe());
        const auto got = check_payload(w.get(w.inbox(0) + 4096, 8192), key_for(33, 0));
        Case::current().expect("WWN.NTF.3", got.ok(), got.first_bad);
    }
    ranks::barrier();
}

HCTS_CASE(Notify, IncastSendersIsolated, "WWN.NTF.4")
{
    HCTS_REQUIRE_WWN();
    World &w = World::get();
    // Every other rank sends to rank 0 on both of its threads at once, each on
    // its own index and destination; the stamp's sender field names rank and thread.
    std::vector<Xfer> plan;
    for (int r = 1; r < w.size; ++r)
        for (int t = 0; t < 2; ++t) {
            const uint32_t idx = static_cast<uint32_t>((2 * r + t) % static_cast<int>(World::kNotifyNum));
            Xfer x{r, 0, 4096 + static_cast<uint64_t>(t) * 131072, static_cast<uint64_t>(t) * 131072, 65536 + 24, idx,
                   t, 0, 0, StampKey{2, 9, static_cast<uint32_t>(2 * r + t)}};
            plan.push_back(x);
        }
    const Exchange ex = run_exchange(plan);
    check_exchange(plan, ex, {"", "WWN.NTF.4", "", ""});
    if (w.rank == 0) {
        std::map<std::string, uint64_t> hist;
        for (const auto &x : ex.x)
            ++hist[outcome_name(x.host.overall())];
        Case::current().litmus(
            litmus_entry("L9", "isolation (incast)", "Notify.IncastSendersIsolated", hist, {"foreign", "torn", "absent", "stale"}));
    }
}

HCTS_CASE(Notify, GuardsAndSourceUntouched, "WWN.NTF.5", "WWN.NTF.6")
{
    HCTS_REQUIRE_WWN();
    World &w = World::get();
    std::vector<Xfer> plan;
    uint32_t idx = 0;
    for (uint64_t len : {1ULL, 3ULL, 8ULL, 61ULL, 4096ULL, 4099ULL, 1ULL << 20}) {
        plan.push_back(Xfer{0, 1, 8192 + idx * ((1ULL << 20) + 8192) + (idx % 8), idx * ((1ULL << 20) + 128), len,
                            idx, 0, 0, 0, key_for(idx, 0)});
        ++idx;
    }
    const Exchange ex = run_exchange(plan);
    check_exchange(plan, ex, {"", "", "WWN.NTF.5", "WWN.NTF.6"});
    if (w.rank == 1) {
        std::map<std::string, uint64_t> hist;
        for (const auto &x : ex.x)
            ++hist[x.guard_bad == 0 ? "guards-intact" : "guard-changed"];
        Case::current().litmus(litmus_entry("L10", "guards", "Notify.GuardsAndSourceUntouched", hist, {"guard-changed"}));
    }
}

HCTS_CASE(Notify, BothDirectionsAtOnce, "WWN.NTF.7")
{
    HCTS_REQUIRE_WWN();
    World &w = World::get();
    std::map<std::string, uint64_t> hist;
    for (uint32_t rep = 0; rep < 8; ++rep) {
        std::vector<Xfer> plan{Xfer{0, 1, 4096, 0, 100000 + rep, 40, 0, 0, 0, key_for(rep, 0)},
                               Xfer{1, 0, 4096, 0, 100000 + rep, 41, 0, 0, 0, key_for(rep, 1)}};
        const Exchange ex = run_exchange(plan);
        check_exchange(plan, ex, {"", "WWN.NTF.7", "", ""});
        const size_t mine = w.rank == 0 ? 1 : 0;
        ++hist[!ex.launch_ok() ? "deadlock-or-error" : outcome_name(ex.x[mine].host.overall())];
    }
    Case::current().litmus(litmus_entry("L12." + std::to_string(w.rank), "SB-dual (receiver rank " + std::to_string(w.rank) + ")",
                                        "Notify.BothDirectionsAtOnce", hist,
                                        {"deadlock-or-error", "stale", "torn", "absent", "foreign"}));
}

} // namespace hcts
