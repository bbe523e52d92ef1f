// How long an explicit wait lasts: timeOut 0 waits for a notify raised late
// (WWN.TMO.4), a finite timeOut ends a wait nobody answers in time (WWN.TMO.3).
#include <chrono>
#include <thread>

#include "case_kit.h"

namespace hcts::cases_waits {
namespace {

constexpr uint32_t kForeverIdx = 9;   // the notify the late write raises
constexpr uint32_t kUnraisedIdx = 58; // an index nobody raises in these cases
constexpr auto kHoldBack = std::chrono::milliseconds(300);
constexpr uint32_t kForeverDeadlineMs = 10000; // a "forever" wait still must not hang the run
constexpr double kLateBoundMs = 500.0;         // WWN.TMO.3: how much after its timeout a wait may end
constexpr uint32_t kQueuedFirstIdx = 60;       // WWN.TMO.8: the wait ahead
constexpr uint32_t kQueuedSecondIdx = 62;      // WWN.TMO.8: the wait queued behind it

} // namespace

// The receiver posts a wait with timeOut 0 on a fresh thread (one left waiting
// forever must not block later cases); the sender raises the notify 300 ms later.
HCTS_CASE(Timeouts, WaitForeverCompletesLate, clauses("WWN.TMO.4"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const uint64_t dst_off = 4096, len = 4096;
    const StampKey key{11, 1, 0};
    HcclResult arc = HCCL_SUCCESS;
    const ThreadHandle t = w.rank == 1 ? w.fresh_thread(w.setup_engine, &arc) : 0;
    if (w.rank == 1) {
        w.device().poison(w.inbox(0) + dst_off, len);
        if (t == 0)
            ev().error("WWN.TMO.4",
                       "no fresh thread for the wait: HcclThreadAcquire returned " + hccl_result_name(arc));
    }
    if (w.rank == 0) {
        std::vector<std::byte> p(len);
        fill_payload(p, key);
        w.device().put(w.outbox(), p);
    }
    const bool ready = mpi::all_ranks(w.rank != 1 || t != 0, "forever wait: thread");
    if (!ready)
        return;
    Script s;
    if (w.rank == 1)
        s.wait(t, w.channel_to(0), kForeverIdx, 0);
    if (w.rank == 0) {
        std::this_thread::sleep_for(kHoldBack); // the wait is posted long before the notify
        s.wwn(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + dst_off, w.outbox(), len, kForeverIdx);
    }
    const LaunchResult r = c.run(s, kForeverDeadlineMs);
    if (w.rank == 0 && s.rc(0) != 0)
        ev().error("WWN.TMO.4", "the late write with notify returned " + hccl_result_name(s.rc(0)) + " (" +
                                    r.describe() + "); the forever wait cannot be judged");
    mpi::phase_barrier("forever wait: done");
    if (w.rank != 1)
        return;
    const std::string took = std::to_string(r.elapsed_ms()) + " ms (" + r.describe() + ")";
    ev().observe("forever_wait_ms", r.elapsed_ms());
    if (s.rc(0) == HCCL_E_NOT_SUPPORT) {
        ev().unsupported("WWN.TMO.4", "the wait with timeOut 0 was refused with HCCL_E_NOT_SUPPORT");
    } else if (s.rc(0) != 0 && s.rc(0) != HCCL_E_TIMEOUT) {
        ev().check("WWN.TMO.4", false, "the wait with timeOut 0 returned " + hccl_result_name(s.rc(0)));
    } else if (r.status.timed_out != 0) {
        ev().check("WWN.TMO.4", false,
                   "the wait with timeOut 0 had not completed " + took +
                       " after it was posted, though the notify was "
                       "raised 300 ms in");
    } else if (s.rc(0) == HCCL_E_TIMEOUT || r.status.task_error == HCCL_E_TIMEOUT) {
        ev().check("WWN.TMO.4", false,
                   "the wait with timeOut 0 ended with HCCL_E_TIMEOUT after " + took +
                       "; timeOut 0 means wait forever (api §7.3)");
    } else if (!r.ok()) {
        judge_launch(r, "WWN.TMO.4", "the wait with timeOut 0", ev());
    } else {
        const auto got = check_payload(w.device().get(w.inbox(0) + dst_off, len), key);
        ev().check("WWN.TMO.4", got.ok(), "the late write's payload after the wait completed: " + got.first_bad);
    }
}

// A wait with a finite timeOut on a notify nobody raises, on a fresh thread.
HCTS_CASE(Timeouts, FiniteWaitEndsInTime, clauses("WWN.TMO.3"), needs(Feature::NotifyWait))
{
    const Ctx c = ctx();
    const World &w = c.w;
    if (w.rank == 0) {
        if (!w.unit.seconds) {
            if (w.unit.refused)
                ev().unsupported("WWN.TMO.3", "waits are not supported here: " + w.unit.note);
            else
                ev().error("WWN.TMO.3", "the timeOut unit is unknown (WWN.PRF.3): " + w.unit.note);
        } else {
            // 1 s, or 300 ms where waits count milliseconds: each a short wait.
            const uint32_t timeout = w.short_timeout();
            const double timeout_ms = w.short_timeout_ms();
            HcclResult arc = HCCL_SUCCESS;
            const ThreadHandle t = w.fresh_thread(w.setup_engine, &arc);
            if (t == 0) {
                ev().error("WWN.TMO.3",
                           "no fresh thread for the wait: HcclThreadAcquire returned " + hccl_result_name(arc));
            } else {
                Script s;
                s.wait(t, w.channel_to(1), kUnraisedIdx, timeout);
                const LaunchResult r = c.run(s, 10000);
                const std::string took = std::to_string(r.elapsed_ms()) + " ms (" + r.describe() + ")";
                const std::string allowed = "; allowed: HCCL_E_TIMEOUT after " + std::to_string(timeout_ms) + " to " +
                                            std::to_string(timeout_ms + kLateBoundMs) + " ms";
                ev().observe("finite_wait_ms", r.elapsed_ms());
                if (s.rc(0) == HCCL_E_NOT_SUPPORT)
                    ev().unsupported("WWN.TMO.3", "the wait was refused with HCCL_E_NOT_SUPPORT");
                else if (s.rc(0) != 0 && s.rc(0) != HCCL_E_TIMEOUT)
                    ev().check("WWN.TMO.3", false, "the wait returned " + hccl_result_name(s.rc(0)) + allowed);
                else if (r.status.timed_out != 0)
                    ev().check("WWN.TMO.3", false, "the wait had not ended after " + took + allowed);
                else if (s.rc(0) == HCCL_E_TIMEOUT || r.status.task_error == HCCL_E_TIMEOUT)
                    // 1 ms of clock granularity allowed below, as classify_wait does.
                    ev().check("WWN.TMO.3",
                               r.elapsed_ms() + 1.0 >= timeout_ms && r.elapsed_ms() <= timeout_ms + kLateBoundMs,
                               "the wait with timeOut " + std::to_string(timeout) +
                                   " ended with HCCL_E_TIMEOUT after " + took + allowed);
                else if (r.ok())
                    ev().check("WWN.TMO.3", false,
                               "the wait completed though nobody raised the notify (" + r.describe() + ")" + allowed);
                else
                    ev().error("WWN.TMO.3", "the wait's program failed: " + r.describe());
            }
        }
    }
    mpi::phase_barrier("finite wait");
}

// Two waits with timeOut t queued on one fresh thread of rank 1; rank 0 answers the first
// 0.6 t and the second 1.35 t after the barrier that starts both. A library that starts a
// wait's clock when the call queued it times the second out at t; one that charges it the
// whole seconds already spent (t - 1 s left at 0.6 t) at 1.1 t.
HCTS_CASE(Timeouts, QueuedWaitCountsFromItsStart, clauses("WWN.TMO.8"),
          needs(Feature::NotifyWait, Feature::NotifyRecord))
{
    const Ctx c = ctx();
    const World &w = c.w;
    if (!w.unit.seconds) {
        if (w.rank == 1 && w.unit.refused)
            ev().unsupported("WWN.TMO.8", "waits are not supported here: " + w.unit.note);
        else if (w.rank == 1)
            ev().error("WWN.TMO.8", "the timeOut unit is unknown (WWN.PRF.3): " + w.unit.note);
        return;
    }
    const uint32_t timeout = *w.unit.seconds ? 2U : 2000U;
    constexpr double kTimeoutMs = 2000.0;
    HcclResult arc = HCCL_SUCCESS;
    const ThreadHandle t = w.rank == 1 ? w.fresh_thread(w.setup_engine, &arc) : 0;
    if (w.rank == 1 && t == 0)
        ev().error("WWN.TMO.8", "no fresh thread for the waits: HcclThreadAcquire returned " + hccl_result_name(arc));
    if (!mpi::all_ranks(w.rank != 1 || t != 0, "queued waits: thread"))
        return;
    mpi::phase_barrier("queued waits: start");
    if (w.rank == 0) {
        const auto answer = [&](uint32_t idx, double at_ms, const auto start) {
            std::this_thread::sleep_until(start + std::chrono::microseconds(static_cast<int64_t>(at_ms * 1000)));
            Script s;
            s.record(w.thread(), w.channel_to(1), idx);
            const LaunchResult r = c.run(s, 10000);
            if (s.rc(0) != 0 || !r.ok())
                ev().error("WWN.TMO.8", "the record of notify " + std::to_string(idx) + " returned " +
                                            hccl_result_name(s.rc(0)) + " (" + r.describe() + ")");
        };
        const auto start = std::chrono::steady_clock::now();
        answer(kQueuedFirstIdx, 0.6 * kTimeoutMs, start);
        answer(kQueuedSecondIdx, 1.35 * kTimeoutMs, start);
    } else if (w.rank == 1) {
        Script s;
        s.wait(t, w.channel_to(0), kQueuedFirstIdx, timeout);
        s.wait(t, w.channel_to(0), kQueuedSecondIdx, timeout);
        const LaunchResult r = c.run(s, 10000);
        const std::string how = " (" + std::to_string(r.elapsed_ms()) + " ms, " + r.describe() + ")";
        if (s.rc(0) == HCCL_E_NOT_SUPPORT || s.rc(1) == HCCL_E_NOT_SUPPORT)
            ev().unsupported("WWN.TMO.8", "a wait on a fresh thread was refused with HCCL_E_NOT_SUPPORT");
        else if (s.rc(0) != 0)
            // The first notify is due 0.6 t into its wait: a first wait that failed says nothing
            // about the queued one (a loaded machine, or another fault).
            ev().error("WWN.TMO.8", "the first wait returned " + hccl_result_name(s.rc(0)) + how +
                                        "; the queued wait cannot be judged");
        else
            ev().check("WWN.TMO.8", s.rc(1) == 0 && r.ok(),
                       "the wait queued behind another, answered 1.35 t after it was queued and about 0.75 t after "
                       "it started (t = " +
                           std::to_string(timeout) + (*w.unit.seconds ? " s" : " ms") + "), returned " +
                           hccl_result_name(s.rc(1)) + how +
                           "; its timeOut must count from when it starts, in its thread's order");
    }
    mpi::phase_barrier("queued waits: done");
}

} // namespace hcts::cases_waits
