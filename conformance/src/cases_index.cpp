// Notify index bounds: [0, notifyNum) works, everything else is refused cleanly.
#include <cstdlib>

#include "case_kit.h"
#include "hcts/core/settings.h"

namespace hcts::cases_index {
namespace {

StampKey key_for(uint32_t iteration, int sender) { return {3, iteration, static_cast<uint32_t>(sender)}; }

std::string acquire_failure(uint32_t n, const ScopedChannels &c)
{
    return "HcclChannelAcquire(notifyNum " + std::to_string(n) + ") returned " + hccl_result_name(c.rc());
}

std::vector<uint32_t> notify_nums()
{
    // Every value 1..64 when HCTS_EXHAUSTIVE is set; otherwise the edges and a few between.
    std::vector<uint32_t> out;
    if (hcts::settings::present(hcts::suite_settings::exhaustive)) {
        for (uint32_t n = 1; n <= 64; ++n)
            out.push_back(n);
        return out;
    }
    return {1, 2, 3, 7, 8, 16, 31, 32, 33, 63, 64};
}

} // namespace

HCTS_CASE(Index, EveryValidIndexWorks, clauses("WWN.IDX.1"), needs(Feature::WriteWithNotify, Feature::NotifyWait))
{
    const Ctx c = ctx();
    ev().observe("notify_nums", notify_nums());
    for (uint32_t n : notify_nums()) {
        const ScopedChannels chans(c.w, n);
        if (chans.to(c.w.peer()) == 0) {
            ev().check("WWN.IDX.1", false, acquire_failure(n, chans));
            continue;
        }
        std::vector<Xfer> plan;
        for (uint32_t i = 0; i < n; ++i)
            plan.push_back(Xfer{0, 1, 4096 + i * 512ULL, i * 512ULL, 256 + i, i, 0, chans.to(1), chans.to(0),
                                key_for(n * 100 + i, 0)});
        // The data at the wait is the visibility clauses' business; here it is judged once delivered.
        (void)exchange_checked(c, plan, {"", "WWN.IDX.1", "", ""});
    }
}

HCTS_CASE(Index, OutOfRangeRejected, clauses("WWN.IDX.2", "WWN.IDX.3", "WWN.IDX.6"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    // WWN.IDX.6: what out-of-range calls did, worst first over every notifyNum.
    std::string outcome = "rejected", detail = "every out-of-range index was rejected";
    for (uint32_t n : {1U, 8U, 64U}) {
        const ScopedChannels chans(w, n);
        // Rank 0 sends on its channel to rank 1; rank 1 receives on its channel to rank 0.
        const ChannelHandle ch = chans.to(w.rank == 0 ? 1 : 0);
        if (ch == 0) {
            if (w.rank <= 1)
                ev().check("WWN.IDX.2", false, acquire_failure(n, chans));
            continue;
        }
        const std::vector<uint32_t> bad{n, n + 1, UINT32_MAX};
        std::vector<Untouched> regions;
        for (size_t k = 0; k < bad.size(); ++k)
            regions.push_back({8192 + k * 8192, 4096});
        prepare_targets(c, 0, 1, regions, 4096, key_for(n, 0));
        Script s;
        if (w.rank == 0) {
            for (size_t k = 0; k < bad.size(); ++k)
                s.wwn(w.thread(), ch, w.remote_inbox(1, 0) + regions[k].off, w.outbox(), 4096, bad[k]);
        }
        const LaunchResult r = c.run(s);
        if (w.rank == 0)
            for (size_t k = 0; k < bad.size(); ++k)
                ev().check("WWN.IDX.2", s.rc(k) == HCCL_E_PARA,
                           "remoteNotifyIdx " + std::to_string(bad[k]) + " on a channel with notifyNum " +
                               std::to_string(n) + " returned " + hccl_result_name(s.rc(k)) +
                               ", expected HCCL_E_PARA (" + r.describe() + ")");
        // Probe on the highest valid index; the others must stay quiet.
        std::vector<uint32_t> quiet;
        for (uint32_t q = 0; q + 1 < n; ++q)
            quiet.push_back(q);
        const size_t raised = prove_no_effect(c, 0, 1, ch, ch, n - 1, regions, quiet, "WWN.IDX.3");
        uint8_t accepted = 0;
        for (size_t k = 0; w.rank == 0 && k < bad.size(); ++k)
            accepted |= s.rc(k) == HCCL_SUCCESS;
        mpi::broadcast(std::as_writable_bytes(std::span(&accepted, 1)), 0, "out-of-range calls accepted");
        if (raised != 0 && accepted != 0 && outcome != "notify-on-other-index") {
            outcome = "notify-on-other-index";
            detail = "an out-of-range index was accepted on a channel with notifyNum " + std::to_string(n) + " and " +
                     std::to_string(raised) + " other notifies were set";
        } else if (accepted != 0 && outcome == "rejected") {
            outcome = "accepted-no-notify";
            detail = "an out-of-range index was accepted on a channel with notifyNum " + std::to_string(n) +
                     "; no other notify was set";
        }
    }
    if (w.rank == 1)
        ev().profile("WWN.IDX.6", outcome, detail);
}

HCTS_CASE(Index, AcquireAbove64Rejected, clauses("WWN.IDX.4"), needs())
{
    const World &w = world();
    // On the alternate protocol: the world's live default channel holds the key
    // (engine, peer, protocol) with notifyNum 64, so an IUT that checks channel
    // reuse first would refuse 65 for the mismatch and the bound would go unjudged.
    for (uint32_t n : {65U, 100U, 1000U}) {
        HcclResult rc = HCCL_SUCCESS;
        const auto got = w.acquire_channels(n, rc, true);
        ev().check("WWN.IDX.4", rc == HCCL_E_PARA,
                   "HcclChannelAcquire with notifyNum " + std::to_string(n) + " returned " + hccl_result_name(rc) +
                       ", expected HCCL_E_PARA");
        if (rc == HCCL_SUCCESS)
            (void)w.destroy_channels(got); // an accepted channel must not linger into other cases
        mpi::phase_barrier("notifyNum above 64 tried");
    }
}

HCTS_CASE(Index, WaitSideBound, clauses("WWN.IDX.5"), needs(Feature::WriteWithNotify, Feature::NotifyWait))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const ScopedChannels chans(w, 4);
    const ChannelHandle ch = chans.to(w.peer());
    if (ch == 0) {
        ev().check("WWN.IDX.5", false, acquire_failure(4, chans));
        return;
    }
    // A fresh thread, so an accepted (wrong) wait only costs its short timeout.
    HcclResult arc = HCCL_SUCCESS;
    const ThreadHandle t = w.fresh_thread(w.setup_engine, &arc);
    if (t == 0) {
        ev().error("WWN.IDX.5", "no fresh thread for the waits: HcclThreadAcquire returned " + hccl_result_name(arc));
        mpi::phase_barrier("wait-side bound");
        return;
    }
    Script s;
    for (uint32_t idx : {4U, 5U, UINT32_MAX})
        s.wait(t, ch, idx, w.short_timeout());
    const LaunchResult r = c.run(s, 30000);
    for (size_t k = 0; k < s.size(); ++k)
        ev().check("WWN.IDX.5", s.rc(k) == HCCL_E_PARA,
                   "wait on localNotifyIdx " + std::to_string(s.op(k).idx) +
                       " of a channel with notifyNum 4 returned " + hccl_result_name(s.rc(k)) +
                       ", expected HCCL_E_PARA (" + r.describe() + ")");
    mpi::phase_barrier("wait-side bound");
}

} // namespace hcts::cases_index
