// Notifies between the threads of one rank (API.TN.*) and HcommThreadJoin
// (API.JN.*): a thread is an in-order stream and threads synchronise only
// through thread notifies (api §7.4).
#include "case_kit.h"

namespace hcts::cases_thread_notify {
namespace {

constexpr uint32_t kHandoffIdx = 40;      // the thread notify of the handoff
constexpr uint32_t kTimedIdx = 50;        // thread notifies nobody raises
constexpr uint32_t kDefaultIdx = 51;      //
constexpr uint32_t kJoinIdx = 52;         // the thread notify raised only after a join
constexpr uint64_t kPayload = 4096;       // bytes handed from thread A to thread B
constexpr uint64_t kDelayMax = 32u << 20; // A's copy before the payload: keeps A busy for milliseconds
constexpr uint32_t kLaunchMs = 30000;

std::string rc_name(const Script &s, size_t i) { return hccl_result_name(s.rc(i)); }

} // namespace

// Thread B waits on its notify, then copies what A left; A first copies a large
// block (so it is still busy when B's wait is posted), then the payload, then
// records B's notify. B's copy must see the payload: the record runs after A's
// earlier tasks and B's copy after its wait.
HCTS_CASE(Threads, NotifyHandsOverData, clauses("API.TN.1"), needs(Feature::ThreadNotify, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    if (w.rank == 0) {
        const uint64_t delay = std::min<uint64_t>(kDelayMax, w.layout.scratch_size() / 4);
        std::byte *big_src = w.scratch(), *big_dst = w.scratch() + delay;
        std::byte *src = w.scratch() + 2 * delay, *dst = src + kPayload, *snap = dst + kPayload;
        const StampKey key{30, 0, 0};
        std::vector<std::byte> p(kPayload);
        fill_payload(p, key);
        dev.put(src, p);
        dev.poison(dst, kPayload);
        dev.poison(snap, kPayload);
        const ThreadHandle a = w.threads.at(0), b = w.threads.at(1);
        Script s;
        s.thread_wait(b, kHandoffIdx, w.ok_timeout());
        s.copy(b, snap, dst, kPayload).only_if_previous_ok();
        s.copy(a, big_dst, big_src, delay);
        s.copy(a, dst, src, kPayload);
        s.thread_record(a, b, kHandoffIdx);
        const LaunchResult r = c.run(s, kLaunchMs);
        if (r.trouble() == Trouble::Missing) {
            ev().unsupported("API.TN.1", "a call of the handoff is absent (" + r.describe() + ")");
        } else if (s.rc(0) == HCCL_E_NOT_SUPPORT || s.rc(4) == HCCL_E_NOT_SUPPORT) {
            ev().unsupported("API.TN.1", "thread notifies were refused with HCCL_E_NOT_SUPPORT on this row (wait " +
                                             rc_name(s, 0) + ", record " + rc_name(s, 4) + ")");
        } else if (s.rc(1) == HCCL_E_NOT_SUPPORT || s.rc(3) == HCCL_E_NOT_SUPPORT) {
            ev().unsupported("API.TN.1", "the local copies that carry and observe the data were refused with "
                                         "HCCL_E_NOT_SUPPORT (" +
                                             rc_name(s, 1) + ", " + rc_name(s, 3) + ")");
        } else {
            bool calls_ok = true;
            for (size_t i = 0; i < s.size(); ++i)
                calls_ok = calls_ok && s.rc(i) == 0;
            ev().check("API.TN.1", calls_ok && r.ok(),
                       "the calls returned wait " + rc_name(s, 0) + ", copy " + rc_name(s, 1) + ", delay copy " +
                           rc_name(s, 2) + ", payload copy " + rc_name(s, 3) + ", record " + rc_name(s, 4) +
                           "; all must be 0 and the launch clean (" + r.describe() + ")");
            const PayloadCheck seen = check_payload(dev.get(snap, kPayload), key);
            ev().check("API.TN.1", seen.ok(),
                       "thread B's copy right after its wait for thread A's record saw " + describe(seen) +
                           " instead of the payload A copied before the record");
        }
    }
    mpi::phase_barrier("thread notify handoff");
}

// Out-of-range notify indices and zero handles are refused at the call.
HCTS_CASE(Threads, NotifyBadArgumentsRefused, clauses("API.TN.2"),
          needs(Feature::ThreadNotify, Feature::ThreadDefaultWait))
{
    const Ctx c = ctx();
    const World &w = c.w;
    if (w.rank == 0) {
        const ThreadHandle a = w.threads.at(0), b = w.threads.at(1);
        const uint32_t past = World::kNotifyNum; // the threads were acquired with kNotifyNum notifies each
        struct BadCall {
            std::string what;
            int32_t code;
        };
        Script s;
        std::vector<BadCall> rows;
        s.thread_record(a, b, past);
        rows.push_back({"record with dstNotifyIdx " + std::to_string(past), HCCL_E_PARA});
        s.thread_wait(a, past, w.short_timeout());
        rows.push_back({"wait with notifyIdx " + std::to_string(past), HCCL_E_PARA});
        s.thread_wait_default(a, past);
        rows.push_back({"default-timeout wait with notifyIdx " + std::to_string(past), HCCL_E_PARA});
        s.thread_record(0, b, 0);
        rows.push_back({"record with thread 0", HCCL_E_PTR});
        s.thread_record(a, 0, 0);
        rows.push_back({"record with dstThread 0", HCCL_E_PTR});
        s.thread_wait(0, 0, w.short_timeout());
        rows.push_back({"wait with thread 0", HCCL_E_PTR});
        s.thread_wait_default(0, 0);
        rows.push_back({"default-timeout wait with thread 0", HCCL_E_PTR});
        const LaunchResult r = c.run(s, kLaunchMs);
        if (r.trouble() == Trouble::Missing) {
            ev().unsupported("API.TN.2", "a thread notify call is absent (" + r.describe() + ")");
        } else {
            // On rows whose world threads are host-side (CPU_TS) a device script's
            // call on them is refused as unsupported before any index check.
            const bool host_threads = w.setup_engine != COMM_ENGINE_AICPU_TS && w.setup_engine != COMM_ENGINE_AICPU;
            for (size_t i = 0; i < rows.size(); ++i)
                if (host_threads && s.rc(i) == HCCL_E_NOT_SUPPORT)
                    ev().unsupported("API.TN.2", rows[i].what + " was refused with HCCL_E_NOT_SUPPORT: the world's "
                                                                "threads are host-side here");
                else
                    ev().check("API.TN.2", s.rc(i) == rows[i].code,
                               rows[i].what + " returned " + rc_name(s, i) + ", expected " +
                                   hccl_result_name(rows[i].code) + " (" + r.describe() + ")");
        }
    }
    mpi::phase_barrier("thread notify bad arguments");
}

// A thread wait and a default-timeout thread wait (default set to 1) on
// notifies nobody raises, on fresh threads (a timed-out wait leaves its thread
// in the error state), each followed by a marker copy that runs only if the wait
// completed. Then HcommThreadJoin, where the IUT has it: 0 for a thread whose
// tasks ran, the wait's HCCL_E_TIMEOUT for a timed-out thread, HCCL_E_PTR for 0.
HCTS_CASE(Threads, WaitsTimeOutAndJoinReports, clauses("API.TN.3", "API.JN.1"),
          needs(Feature::ThreadNotify, Feature::ThreadDefaultWait, Feature::SetWaitTimeout, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    if (w.rank == 0) {
        HcclResult arc1 = HCCL_SUCCESS, arc2 = HCCL_SUCCESS;
        const ThreadHandle t1 = w.fresh_thread(w.setup_engine, &arc1);
        const ThreadHandle t2 = w.fresh_thread(w.setup_engine, &arc2);
        const ThreadHandle ok_thread = w.threads.at(0);
        if (!w.unit.seconds) {
            ev().unsupported("API.TN.3", "the timeOut unit is unknown (WWN.PRF.3): " + w.unit.note);
            ev().unsupported("API.JN.1", "no timed-out thread to join: the timeOut unit is unknown");
        } else if (t1 == 0 || t2 == 0) {
            const std::string why = "no fresh threads for the waits: HcclThreadAcquire returned " +
                                    hccl_result_name(arc1) + " and " + hccl_result_name(arc2);
            ev().error("API.TN.3", why);
            ev().error("API.JN.1", why);
        } else {
            const double unit_ms = *w.unit.seconds ? 1000.0 : 1.0;
            std::byte *src = w.scratch(), *marks = w.scratch() + 4096;
            dev.stamp(src, 64, 0x3131313131313131ULL);
            dev.poison(marks, 3 * 64);
            // One launch per wait, so a launch's task error belongs to its wait. The
            // marker copy behind a wait tells a completed wait from a timed-out one
            // only when the launch shows no timeout: a library whose thread goes on
            // after a failed task (WWN.THR.2 is STRICT) runs it either way.
            struct Wait {
                const char *what;
                double timeout_ms;
                bool timed_out = false;
            } waits[] = {{"HcommThreadNotifyWaitOnThread", w.short_timeout_ms()},
                         {"HcommThreadNotifyWaitOnThreadWithDefaultTimeout (default 1)", unit_ms}};
            Script first;
            first.set_wait_timeout(1.0F);
            first.thread_wait(t1, kTimedIdx, w.short_timeout());
            first.copy(t1, marks, src, 64).only_if_previous_ok();
            first.copy(ok_thread, marks + 128, src, 64);
            const uint32_t deadline = 5000 + static_cast<uint32_t>(2 * w.short_timeout_ms());
            const LaunchResult r1 = c.run(first, deadline);
            Script second;
            second.thread_wait_default(t2, kDefaultIdx);
            second.copy(t2, marks + 64, src, 64).only_if_previous_ok();
            second.set_wait_timeout(kInitialDefaultWaitTimeout);
            const LaunchResult r2 = c.run(second, deadline);
            const auto marks_now = dev.get(marks, 3 * 64);
            const auto src_now = dev.get(src, 64);
            const auto landed = [&](size_t k) {
                return std::equal(src_now.begin(), src_now.end(), marks_now.begin() + static_cast<ptrdiff_t>(k * 64));
            };
            const struct {
                const Script &s;
                const LaunchResult &r;
                size_t wait_op;
            } runs[] = {{first, r1, 1}, {second, r2, 0}};
            const bool missing = r1.trouble() == Trouble::Missing || r2.trouble() == Trouble::Missing;
            if (missing) {
                ev().unsupported("API.TN.3", "a call is absent (" + r1.describe() + "; " + r2.describe() + ")");
            } else if (first.rc(0) != 0 || second.rc(2) != 0) {
                ev().error("API.TN.3", "HcommSetNotifyWaitTimeOut(1) and (1836) returned " + rc_name(first, 0) +
                                           " and " + rc_name(second, 2) + " (" + r1.describe() + "; " + r2.describe() +
                                           ")");
            } else {
                for (size_t k = 0; k < 2; ++k) {
                    Wait &wt = waits[k];
                    const auto &run = runs[k];
                    if (run.r.status.timed_out != 0) {
                        ev().check("API.TN.3", false,
                                   std::string(wt.what) +
                                       " on a notify nobody raises had not ended when the launch "
                                       "deadline passed after " +
                                       std::to_string(run.r.elapsed_ms()) + " ms");
                        continue;
                    }
                    if (run.s.rc(run.wait_op) == HCCL_E_NOT_SUPPORT) {
                        ev().unsupported("API.TN.3", std::string(wt.what) + " was refused with HCCL_E_NOT_SUPPORT");
                        continue;
                    }
                    const WaitOutcome o = classify_wait(true, run.s.rc(run.wait_op), run.r, wt.timeout_ms);
                    wt.timed_out = o.end == WaitEnd::TimedOut;
                    if (o.end == WaitEnd::Completed && run.s.rc(run.wait_op + 1) == HCCL_E_NOT_SUPPORT) {
                        ev().unsupported("API.TN.3", std::string("the copy behind ") + wt.what +
                                                         " was refused with HCCL_E_NOT_SUPPORT");
                        continue;
                    }
                    if (o.end == WaitEnd::Completed && landed(k)) {
                        ev().check("API.TN.3", false,
                                   std::string(wt.what) + " completed though nothing was recorded (the copy behind "
                                                          "it ran, and the launch reported no error)");
                        continue;
                    }
                    judge_no_completion(o, "API.TN.3", wt.what, ev());
                }
            }
            const auto join = iut().api().HcommThreadJoin;
            if (join == nullptr) {
                ev().unsupported("API.JN.1", "the IUT lacks HcommThreadJoin");
            } else if (r1.status.timed_out != 0 || missing) {
                ev().error("API.JN.1", "the waits' program did not finish, so no thread is known to have timed "
                                       "out (" +
                                           r1.describe() + ")");
            } else {
                const HcclResult ok_rc = join(ok_thread, w.ok_timeout());
                ev().check("API.JN.1", ok_rc == HCCL_SUCCESS,
                           "HcommThreadJoin of a thread whose copy ran returned " + hccl_result_name(ok_rc) +
                               ", expected HCCL_SUCCESS");
                if (waits[0].timed_out && !landed(0)) {
                    const HcclResult failed_rc = join(t1, w.ok_timeout());
                    ev().check("API.JN.1", failed_rc == HCCL_E_TIMEOUT,
                               "HcommThreadJoin of a thread whose wait timed out returned " +
                                   hccl_result_name(failed_rc) + ", expected the task failure HCCL_E_TIMEOUT");
                }
                const HcclResult zero_rc = join(0, 1);
                ev().check("API.JN.1", zero_rc == HCCL_E_PTR,
                           "HcommThreadJoin(thread 0) returned " + hccl_result_name(zero_rc) + ", expected HCCL_E_PTR");
            }
        }
    }
    mpi::phase_barrier("thread waits time out");
}

// HcommThreadJoin called by the program while the thread's tasks run, as the
// vendor's AllReduce templates call it (BatchModeEnd, BatchModeStart, a join of
// every thread, then an AICPU reduce reads what the threads' tasks wrote): it
// returns success only once every task queued on the thread before it has run.
// Thread t's one task is a wait whose notify thread u raises only after the join
// returned: that join (deadline: the short timeout) cannot find t done and must
// not return success. Thread v's last task is a large copy, behind a small one: a
// join of v that returns success finds the large copy's tail in place (a copy on u,
// queued after the join, reads it).
HCTS_CASE(Threads, JoinWaitsForEveryTask, clauses("API.JN.2"),
          needs(Feature::ThreadJoin, Feature::ThreadNotify, Feature::LocalCopy, Feature::BatchMode))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const char *cl = "API.JN.2";
    if (w.rank == 0) {
        HcclResult arc1 = HCCL_SUCCESS, arc2 = HCCL_SUCCESS;
        const ThreadHandle t = w.fresh_thread(w.setup_engine, &arc1);
        const ThreadHandle v = w.fresh_thread(w.setup_engine, &arc2);
        const ThreadHandle u = w.threads.at(0);
        if (t == 0 || v == 0) {
            ev().error(cl, "no fresh threads to join: HcclThreadAcquire returned " + hccl_result_name(arc1) + " and " +
                               hccl_result_name(arc2));
        } else {
            constexpr uint64_t kTail = 4096;
            const uint64_t big = std::min<uint64_t>(kDelayMax, w.layout.scratch_size() / 4);
            std::byte *big_src = w.scratch(), *big_dst = w.scratch() + big;
            std::byte *small = w.scratch() + 2 * big, *small_dst = small + kPayload, *snap = small_dst + kPayload;
            std::vector<std::byte> tail(kTail);
            fill_payload(tail, StampKey{52, 0, 0});
            dev.put(big_src + big - kTail, tail);
            dev.poison(big_dst + big - kTail, kTail);
            dev.poison(snap, kTail);
            const char *tag = "hcts-join";
            // t's wait is its only task: a join that waits for all but the last task
            // returns at once instead of at its deadline.
            Script s;
            s.batch_start(tag);                            // 0
            s.thread_wait(t, kJoinIdx, w.ok_timeout());    // 1: released by 10
            s.copy(v, small_dst, small, kPayload);         // 2
            s.copy(v, big_dst, big_src, big);              // 3: v's last task
            s.batch_end(tag);                              // 4
            s.batch_start(tag);                            // 5
            s.thread_join(t, w.short_timeout());           // 6: t's wait is pending
            s.thread_join(v, w.ok_timeout());              // 7
            s.batch_end(tag);                              // 8
            s.copy(u, snap, big_dst + big - kTail, kTail); // 9: after v's join
            s.thread_record(u, t, kJoinIdx);               // 10: releases t
            const uint32_t deadline = 20000 + static_cast<uint32_t>(2 * w.short_timeout_ms());
            const LaunchResult r = c.run(s, deadline);
            const std::string calls = "BatchModeStart " + rc_name(s, 0) + ", join(t) " + rc_name(s, 6) + ", join(v) " +
                                      rc_name(s, 7) + ", BatchModeEnd " + rc_name(s, 4) + "/" + rc_name(s, 8);
            if (r.trouble() == Trouble::Missing) {
                ev().unsupported(cl, "a call of the program is absent (" + r.describe() + ")");
            } else if (const auto op = s.first_unsupported()) {
                ev().unsupported(cl, "op " + std::to_string(*op) +
                                         " of the program was refused with HCCL_E_NOT_SUPPORT (" + calls + ", wait " +
                                         rc_name(s, 1) + ")");
            } else if (s.rc(0) != 0 || s.rc(4) != 0 || s.rc(5) != 0 || s.rc(8) != 0) {
                ev().error(cl, "the batch around the tasks and the joins was refused (" + calls + ")");
            } else if (r.status.timed_out != 0) {
                ev().error(cl, "the program did not end before its deadline (" + r.describe() + "; " + calls + ")");
            } else if (s.rc(1) != 0 || s.rc(2) != 0 || s.rc(3) != 0 || s.rc(9) != 0 || s.rc(10) != 0) {
                ev().error(cl, "a task call around the joins was refused: wait " + rc_name(s, 1) + ", copies " +
                                   rc_name(s, 2) + ", " + rc_name(s, 3) + ", " + rc_name(s, 9) + ", record " +
                                   rc_name(s, 10));
            } else {
                ev().check(cl, s.rc(6) != HCCL_SUCCESS,
                           "HcommThreadJoin returned HCCL_SUCCESS for a thread whose only task, a wait, could not "
                           "have completed: its notify was raised only after the join returned");
                const bool tail_in_place = dev.get(snap, kTail) == tail;
                ev().check(cl, s.rc(7) == HCCL_SUCCESS,
                           "HcommThreadJoin of a thread whose tasks are two local copies returned " + rc_name(s, 7) +
                               ", expected HCCL_SUCCESS");
                ev().check(cl, s.rc(7) != HCCL_SUCCESS || tail_in_place,
                           "HcommThreadJoin returned HCCL_SUCCESS before the thread's last task, a copy of " +
                               std::to_string(big) + " bytes, had written its last " + std::to_string(kTail) +
                               " bytes (a copy queued on another thread after the join read them unwritten)");
            }
        }
    }
    mpi::phase_barrier("thread join waits");
}

} // namespace hcts::cases_thread_notify
