#include "probes.h"

#include <chrono>
#include <thread>

#include "hcts/core/library.h"
#include "hcts/core/stamp.h"
#include "hcts/mpi_harness.h"
#include "transfer.h"
#include "world.h"

namespace hcts {

namespace {
// How long the sender holds its markers back after the receiver started waiting,
// so that a notify already set completes the wait before any marker exists.
constexpr auto kMarkerHoldBack = std::chrono::milliseconds(100);
constexpr uint64_t kMarkerLen = 64;
} // namespace

void restore_default_wait_timeout(const Ctx &c, const std::string &clause)
{
    Script s;
    s.set_wait_timeout(kInitialDefaultWaitTimeout);
    const LaunchResult r = c.run(s, 10000);
    if (s.rc(0) != 0)
        c.ev.error(clause, "HcommSetNotifyWaitTimeOut(1836) to restore the default returned " +
                               hccl_result_name(s.rc(0)) + " (" + r.describe() + ")");
}

WaitOutcome classify_wait(bool have_thread, int32_t wait_rc, const LaunchResult &r, double timeout_ms)
{
    if (!have_thread)
        return {WaitEnd::Unknown, "no thread to wait on"};
    if (wait_rc != 0 && wait_rc != HCCL_E_TIMEOUT)
        return {WaitEnd::Unknown, "the wait was refused: " + hccl_result_name(wait_rc)};
    const bool timed_out = wait_rc == HCCL_E_TIMEOUT || r.status.task_error == HCCL_E_TIMEOUT;
    if (!timed_out)
        return r.ok() ? WaitOutcome{WaitEnd::Completed, "the wait completed (" + r.describe() + ")"}
                      : WaitOutcome{WaitEnd::Unknown, "the wait's program failed: " + r.describe()};
    // The launch spans the wait, so it cannot end before the timeout unless the
    // wait did (1 ms of clock granularity allowed).
    if (r.elapsed_ms() + 1.0 < timeout_ms)
        return {WaitEnd::Unknown, "the wait ended with HCCL_E_TIMEOUT after " + std::to_string(r.elapsed_ms()) +
                                      " ms, before its timeout of " + std::to_string(timeout_ms) + " ms"};
    return {WaitEnd::TimedOut, "timed out after " + std::to_string(r.elapsed_ms()) + " ms"};
}

WaitOutcome wait_expecting_timeout(const Ctx &ctx, int receiver, ChannelHandle channel, uint32_t idx)
{
    const World &w = ctx.w;
    WaitOutcome out;
    if (w.rank == receiver) {
        HcclResult arc = HCCL_SUCCESS;
        const ThreadHandle t = w.fresh_thread(w.setup_engine, &arc);
        if (t == 0) {
            out = {WaitEnd::Unknown,
                   "no fresh thread for the wait: HcclThreadAcquire returned " + hccl_result_name(arc)};
        } else {
            Script s;
            s.wait(t, channel, idx, w.short_timeout());
            const LaunchResult r = ctx.run(s, 30000);
            out = classify_wait(true, s.rc(0), r, w.short_timeout_ms());
        }
    }
    mpi::phase_barrier("a wait that must time out");
    return out;
}

void judge_no_completion(const WaitOutcome &o, const std::string &clause, const std::string &what, Evidence &ev)
{
    switch (o.end) {
    case WaitEnd::TimedOut: ev.check(clause, true, ""); break;
    case WaitEnd::Completed: ev.check(clause, false, what + ": " + o.detail); break;
    case WaitEnd::Unknown:
        ev.error(clause, what + ": could not establish that the wait does not complete: " + o.detail);
        break;
    }
}

size_t check_quiet(const Ctx &ctx, int sender, int receiver, ChannelHandle send_ch, ChannelHandle recv_ch,
                   const std::vector<uint32_t> &quiet, const std::string &clause)
{
    const World &w = ctx.w;
    const Device &dev = w.device();
    if (quiet.empty())
        return 0;
    const ChannelHandle rch = recv_ch != 0 ? recv_ch : w.channel_to(sender);
    const ChannelHandle sch = send_ch != 0 ? send_ch : w.channel_to(receiver);
    // Peek: decided identically on every rank, since the adapter is the same.
    if (dev.can_peek()) {
        size_t raised = 0;
        if (w.rank == receiver)
            for (uint32_t q : quiet) {
                const auto set = dev.peek_notify(rch, q);
                if (!set)
                    ctx.ev.error(clause, "the adapter's peek_notify failed for notify " + std::to_string(q));
                else if (!ctx.ev.check(clause, !*set, "notify " + std::to_string(q) + " is set (adapter peek)"))
                    ++raised;
            }
        mpi::phase_barrier("quiet notifies peeked");
        return raised;
    }
    if (!ctx.spec.has(Feature::LocalCopy)) {
        if (w.rank == receiver)
            ctx.ev.unsupported(clause, "cannot prove notifies quiet: the adapter has no peek_notify and the case "
                                       "cannot snapshot (no LocalCopy)");
        mpi::phase_barrier("quiet notifies unprovable");
        return 0;
    }
    // Markers: one 64-byte stamped write per index, near the end of the lane.
    const uint64_t lane_off = w.layout.lane_size - 8192 - kMarkerLen * quiet.size();
    const uint64_t src_off = w.layout.outbox_size() - 8192 - kMarkerLen * quiet.size();
    const auto key = [&](size_t i) {
        return StampKey{200, static_cast<uint32_t>(quiet[i]), static_cast<uint32_t>(sender)};
    };
    if (w.rank == receiver)
        dev.poison(w.inbox(sender) + lane_off, kMarkerLen * quiet.size());
    if (w.rank == sender)
        for (size_t i = 0; i < quiet.size(); ++i) {
            std::vector<std::byte> p(kMarkerLen);
            fill_payload(p, key(i));
            dev.put(w.outbox() + src_off + i * kMarkerLen, p);
        }
    mpi::phase_barrier("markers prepared");
    Script s;
    if (w.rank == receiver)
        for (size_t i = 0; i < quiet.size(); ++i) {
            s.wait(w.threads.at(1), rch, quiet[i], w.ok_timeout());
            s.copy(w.threads.at(1), w.scratch() + i * kMarkerLen, w.inbox(sender) + lane_off + i * kMarkerLen,
                   kMarkerLen)
                .only_if_previous_ok();
        }
    if (w.rank == sender) {
        std::this_thread::sleep_for(kMarkerHoldBack);
        for (size_t i = 0; i < quiet.size(); ++i)
            s.wwn(w.thread(), sch, w.remote_inbox(receiver, sender) + lane_off + i * kMarkerLen,
                  w.outbox() + src_off + i * kMarkerLen, kMarkerLen, quiet[i]);
    }
    const LaunchResult r = ctx.run(s);
    mpi::phase_barrier("markers delivered");
    if (w.rank == sender)
        for (size_t i = 0; i < s.size(); ++i)
            if (s.rc(i) != 0)
                ctx.ev.error(clause, "marker write on notify " + std::to_string(quiet[i]) + " returned " +
                                         hccl_result_name(s.rc(i)) + "; cannot prove it was quiet");
    if (w.rank != receiver)
        return 0;
    if (r.trouble() != Trouble::None) {
        ctx.ev.error(clause,
                     "the marker waits did not complete (" + r.describe() + "); cannot prove the notifies quiet");
        return 0;
    }
    size_t raised = 0;
    for (size_t i = 0; i < quiet.size(); ++i) {
        const auto got = check_payload(dev.get(w.scratch() + i * kMarkerLen, kMarkerLen), key(i), "marker");
        raised +=
            !ctx.ev.check(clause, got.ok(),
                          "notify " + std::to_string(quiet[i]) +
                              " was already set: a wait posted before its marker write was sent completed without the "
                              "marker's data (" +
                              got.first_bad + ")");
    }
    return raised;
}

void prepare_targets(const Ctx &ctx, int sender, int receiver, const std::vector<Untouched> &regions, uint64_t src_len,
                     const StampKey &key)
{
    const World &w = ctx.w;
    if (w.rank == receiver)
        for (const Untouched &u : regions)
            w.device().poison(w.inbox(sender) + u.off, u.len);
    if (w.rank == sender) {
        std::vector<std::byte> src(src_len);
        fill_payload(src, key);
        w.device().put(w.outbox(), src);
    }
    mpi::phase_barrier("targets prepared");
}

ZeroLength zero_length_write(const Ctx &ctx, uint32_t idx)
{
    const World &w = ctx.w;
    const Untouched around{8192 - 64, 192}; // dst at 8192 and 64 bytes either side
    prepare_targets(ctx, 0, 1, {around}, 64, StampKey{9, idx, 0});
    Script s;
    if (w.rank == 0)
        s.wwn(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + around.off + 64, w.outbox(), 0, idx);
    (void)ctx.run(s, 30000);
    int32_t rc = w.rank == 0 ? s.rc(0) : 0;
    mpi::broadcast(std::as_writable_bytes(std::span(&rc, 1)), 0, "the zero-length call's return code");
    // A success must raise the notify: a wait that times out shows it did not.
    const WaitOutcome o =
        rc == HCCL_SUCCESS ? wait_expecting_timeout(ctx, 1, w.channel_to(0), idx) : WaitOutcome{WaitEnd::TimedOut, ""};
    if (w.rank != 1)
        return {};
    const size_t bad = count_not_pattern(w.device().get(w.inbox(0) + around.off, around.len), kPoisonWord);
    if (bad != 0)
        return {"bytes-written", std::to_string(bad) + " bytes around dst changed"};
    if (rc != HCCL_SUCCESS)
        return {"rejected", "len 0 returned " + hccl_result_name(rc)};
    if (o.end == WaitEnd::Unknown)
        return {"", "len 0 returned success, and whether it raised the notify is unknown: " + o.detail};
    return o.end == WaitEnd::Completed
               ? ZeroLength{"notify-only", "the notify arrived, no byte written"}
               : ZeroLength{"success-no-notify", "returned success but no notify arrived (" + o.detail + ")"};
}

size_t prove_no_effect(const Ctx &ctx, int sender, int receiver, ChannelHandle send_ch, ChannelHandle recv_ch,
                       uint32_t probe_idx, const std::vector<Untouched> &untouched, const std::vector<uint32_t> &quiet,
                       const std::string &clause)
{
    const World &w = ctx.w;
    const uint64_t probe_off = w.layout.lane_size - 4096;
    const uint64_t probe_src = w.layout.outbox_size() - 4096;
    std::vector<Xfer> plan(1);
    plan[0] = Xfer{sender,    receiver, probe_off, probe_src, 64,
                   probe_idx, 0,        send_ch,   recv_ch,   StampKey{7, 1, static_cast<uint32_t>(sender)}};
    plan[0].snapshot = false;
    const Exchange ex = run_exchange(ctx, plan);
    if (w.rank == sender && ex.x[0].wwn_rc != 0)
        ctx.ev.error(clause, "the probe write (a valid call after the rejected ones) returned " +
                                 hccl_result_name(ex.x[0].wwn_rc) + "; cannot prove they had no effect");
    bool probe_arrived = true;
    if (w.rank == receiver && (ex.launch.trouble() != Trouble::None || !ex.x[0].host.ok())) {
        ctx.ev.error(clause, "the probe write after the rejected calls did not arrive (" + ex.launch.describe() +
                                 "); cannot prove they had no effect");
        probe_arrived = false;
    }
    if (w.rank == receiver && probe_arrived)
        for (const Untouched &u : untouched) {
            size_t first = 0;
            const size_t bad = count_not_pattern(w.device().get(w.inbox(sender) + u.off, u.len), kPoisonWord, &first);
            ctx.ev.check(clause, bad == 0,
                         std::to_string(bad) + " bytes of a rejected call's destination changed (first at +" +
                             std::to_string(first) + " of the " + std::to_string(u.len) + "-byte region)");
        }
    return check_quiet(ctx, sender, receiver, send_ch, recv_ch, quiet, clause);
}

} // namespace hcts
