// Timeouts and threads: the default wait timeout HcommSetNotifyWaitTimeOut sets
// (WWN.TMO.*), and the threads of one HcclThreadAcquire (WWN.THR.1).
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <thread>

#include "case_kit.h"

namespace hcts::cases_timeouts {
namespace {

constexpr uint32_t kDefaultWaitIdx = 61; // an index nobody raises in these cases
constexpr uint32_t kLaunchDeadlineMs = 10000;
constexpr double kLateMs = 1000.0; // how much later than the set default a wait may end

// A *WithDefaultTimeout wait on a notify nobody raises, on a fresh thread (a
// wait that timed out leaves its thread in the error state), after the default
// was set to 1 s: it must end with HCCL_E_TIMEOUT after at least one unit and
// less than kLateMs later. Records the outcome under `clause`.
void judge_default_wait(const Ctx &c, const std::string &clause, const std::string &what)
{
    const World &w = c.w;
    if (!w.unit.seconds) {
        if (w.unit.refused)
            c.ev.unsupported(clause, "waits are not supported here: " + w.unit.note);
        else
            c.ev.error(clause, "the timeOut unit is unknown (WWN.PRF.3): " + w.unit.note);
        return;
    }
    const double unit_ms = *w.unit.seconds ? 1000.0 : 1.0;
    HcclResult arc = HCCL_SUCCESS;
    const ThreadHandle t = w.fresh_thread(w.setup_engine, &arc);
    if (t == 0) {
        c.ev.error(clause, "no fresh thread for the wait: HcclThreadAcquire returned " + hccl_result_name(arc));
        return;
    }
    Script s;
    s.wait_default(t, w.channel_to(w.peer()), kDefaultWaitIdx);
    const LaunchResult r = c.run(s, kLaunchDeadlineMs);
    const std::string took = std::to_string(r.elapsed_ms()) + " ms (" + r.describe() + ")";
    if (r.trouble() == Trouble::Missing) {
        c.ev.unsupported(clause, what + ": HcommChannelNotifyWaitOnThreadWithDefaultTimeout is absent");
    } else if (s.rc(0) == HCCL_E_NOT_SUPPORT) {
        c.ev.unsupported(clause, what + ": the wait was refused with HCCL_E_NOT_SUPPORT");
    } else if (s.rc(0) != 0 && s.rc(0) != HCCL_E_TIMEOUT) {
        c.ev.check(clause, false, what + ": the wait was refused with " + hccl_result_name(s.rc(0)));
    } else if (r.status.timed_out != 0) {
        c.ev.check(clause, false,
                   what + ": the wait had not ended when the launch deadline passed after " + took +
                       "; the default set to 1 (" + std::to_string(unit_ms) + " ms) was not used");
    } else if (s.rc(0) == HCCL_E_TIMEOUT || r.status.task_error == HCCL_E_TIMEOUT) {
        const bool in_time = r.elapsed_ms() + 1.0 >= unit_ms && r.elapsed_ms() < unit_ms + kLateMs;
        c.ev.check(clause, in_time,
                   what + ": the wait timed out after " + took + ", expected " + std::to_string(unit_ms) +
                       " ms (the default set to 1) and less than " + std::to_string(unit_ms + kLateMs) + " ms");
    } else if (r.ok()) {
        c.ev.check(clause, false, what + ": the wait completed though no notify was raised (" + r.describe() + ")");
    } else {
        c.ev.error(clause, what + ": the wait's program failed: " + r.describe());
    }
}

} // namespace

HCTS_CASE(Timeouts, SetDefaultWaitTimeout, clauses("WWN.TMO.1"),
          needs(Feature::SetWaitTimeout, Feature::DefaultTimeoutWait))
{
    const Ctx c = ctx();
    if (c.w.rank == 0) {
        Script s;
        s.set_wait_timeout(1.0F);
        const LaunchResult r = c.run(s, kLaunchDeadlineMs);
        if (s.rc(0) != 0 || r.trouble() != Trouble::None)
            ev().check("WWN.TMO.1", false,
                       "HcommSetNotifyWaitTimeOut(1) returned " + hccl_result_name(s.rc(0)) + " (" + r.describe() +
                           ")");
        else
            judge_default_wait(c, "WWN.TMO.1", "after HcommSetNotifyWaitTimeOut(1)");
        restore_default_wait_timeout(c, "WWN.TMO.1");
    }
    mpi::phase_barrier("default wait timeout");
}

HCTS_CASE(Timeouts, NegativeDefaultRefused, clauses("WWN.TMO.2"),
          needs(Feature::SetWaitTimeout, Feature::DefaultTimeoutWait))
{
    const Ctx c = ctx();
    if (c.w.rank == 0) {
        const std::vector<float> bad{-1.0F, -0.5F, std::numeric_limits<float>::quiet_NaN()};
        Script s;
        s.set_wait_timeout(1.0F);
        for (float v : bad)
            s.set_wait_timeout(v);
        const LaunchResult r = c.run(s, kLaunchDeadlineMs);
        bool refused_all = s.rc(0) == 0;
        if (s.rc(0) != 0)
            ev().error("WWN.TMO.2", "HcommSetNotifyWaitTimeOut(1) returned " + hccl_result_name(s.rc(0)) +
                                        ", so the default before the bad calls is unknown (" + r.describe() + ")");
        for (size_t k = 0; k < bad.size(); ++k) {
            const bool refused = s.rc(k + 1) == HCCL_E_PARA;
            refused_all = refused_all && refused;
            ev().check("WWN.TMO.2", refused,
                       "HcommSetNotifyWaitTimeOut(" + std::to_string(bad[k]) + ") returned " +
                           hccl_result_name(s.rc(k + 1)) + ", expected HCCL_E_PARA (" + r.describe() + ")");
        }
        // An accepted bad value may have made the default "forever": no wait then.
        if (refused_all)
            judge_default_wait(c, "WWN.TMO.2", "after the refused calls the default of 1 must hold");
        restore_default_wait_timeout(c, "WWN.TMO.2");
    }
    mpi::phase_barrier("negative default timeouts");
}

namespace {

// One wait of ExtremeTimeoutsWaitLong: an explicit timeOut, or (no timeOut) a
// *WithDefaultTimeout wait after HcommSetNotifyWaitTimeOut(set_default).
struct LongWait {
    std::string what;
    std::optional<uint32_t> timeout; // explicit wait
    float set_default = 0;           // default wait: the default set just before it
    std::string clause;
};

} // namespace

// timeOut at 0 and at the extremes of its type, explicit and as the default: each
// wait, on a fresh thread of its own, is posted about 2.5 s before its notify is
// raised and must complete, with the copy behind it on its thread seeing the
// write's payload. A library that takes 0 as a cut-off of a second or two, or
// counts a long timeout in 32-bit milliseconds (4294968 s wraps to 704 ms, 2^31 s
// to 0), gives up before the notify. The vendor's unit tests accept 0 and
// 0xFFFFFFFF for the wait and 0 and a large value for the default (api §9.6).
HCTS_CASE(Timeouts, ExtremeTimeoutsWaitLong, clauses("WWN.TMO.5", "WWN.TMO.6", "WWN.VIS.1"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy, Feature::SetWaitTimeout,
                Feature::DefaultTimeoutWait))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    constexpr auto kNotifyAfter = std::chrono::milliseconds(2500);
    constexpr uint32_t kFirstIdx = 20;
    constexpr uint64_t kLen = 512, kSlot = 4096, kBase = 1U << 20;
    // 4294967040 is the largest float below 2^32 (UINT32_MAX itself rounds up to 2^32, out of range).
    const std::vector<LongWait> waits{
        {"timeOut 0 (wait forever)", 0U, 0, "WWN.TMO.5"},
        {"timeOut 0xFFFFFFFF", 0xFFFFFFFFU, 0, "WWN.TMO.5"},
        {"timeOut 0x80000000", 0x80000000U, 0, "WWN.TMO.5"},
        {"timeOut 4294968", 4294968U, 0, "WWN.TMO.5"},
        {"timeOut 2147484", 2147484U, 0, "WWN.TMO.5"},
        {"the default after HcommSetNotifyWaitTimeOut(0)", std::nullopt, 0.0F, "WWN.TMO.6"},
        {"the default after HcommSetNotifyWaitTimeOut(4294967040)", std::nullopt, 4294967040.0F, "WWN.TMO.6"},
        {"the default after HcommSetNotifyWaitTimeOut(4294968)", std::nullopt, 4294968.0F, "WWN.TMO.6"}};
    const auto key = [](size_t k) { return StampKey{12, static_cast<uint32_t>(k), 0}; };
    std::vector<ThreadHandle> threads;
    bool have_threads = true;
    if (w.rank == 1) {
        for (size_t k = 0; k < waits.size(); ++k) {
            HcclResult arc = HCCL_SUCCESS;
            threads.push_back(w.fresh_thread(w.setup_engine, &arc));
            if (threads.back() == 0) {
                ev().error(waits[k].clause, "no fresh thread for " + waits[k].what + ": HcclThreadAcquire returned " +
                                                hccl_result_name(arc));
                have_threads = false;
            }
            dev.poison(w.inbox(0) + kBase + k * kSlot, kLen);
            dev.poison(w.scratch() + k * kSlot, kLen);
        }
    }
    if (w.rank == 0)
        for (size_t k = 0; k < waits.size(); ++k) {
            std::vector<std::byte> p(kLen);
            fill_payload(p, key(k));
            dev.put(w.outbox() + k * kSlot, p);
        }
    if (!mpi::all_ranks(have_threads, "extreme timeouts: threads"))
        return;
    Script s;
    std::vector<size_t> wait_op(waits.size()), copy_op(waits.size()), set_op(waits.size(), SIZE_MAX);
    if (w.rank == 1)
        for (size_t k = 0; k < waits.size(); ++k) {
            const uint32_t idx = kFirstIdx + static_cast<uint32_t>(k);
            if (waits[k].timeout) {
                wait_op[k] = s.size();
                s.wait(threads[k], w.channel_to(0), idx, *waits[k].timeout);
            } else {
                set_op[k] = s.size();
                s.set_wait_timeout(waits[k].set_default);
                wait_op[k] = s.size();
                s.wait_default(threads[k], w.channel_to(0), idx);
            }
            copy_op[k] = s.size();
            s.copy(threads[k], w.scratch() + k * kSlot, w.inbox(0) + kBase + k * kSlot, kLen);
        }
    if (w.rank == 0) {
        // The waits are posted long before any notify: past a cut-off of a second or two.
        std::this_thread::sleep_for(kNotifyAfter);
        for (size_t k = 0; k < waits.size(); ++k)
            s.wwn(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + kBase + k * kSlot, w.outbox() + k * kSlot, kLen,
                  kFirstIdx + static_cast<uint32_t>(k));
    }
    const LaunchResult r = c.run(s, 15000);
    if (w.rank == 0)
        for (size_t k = 0; k < s.size(); ++k)
            if (s.rc(k) != 0)
                ev().error(waits[k].clause, "the write with notify for " + waits[k].what + " returned " +
                                                hccl_result_name(s.rc(k)) + " (" + r.describe() + ")");
    mpi::phase_barrier("extreme timeouts: done");
    if (w.rank == 1) {
        ev().observe("extreme_timeouts_ms", r.elapsed_ms());
        const std::string took = std::to_string(r.elapsed_ms()) + " ms (" + r.describe() + ")";
        for (size_t k = 0; k < waits.size(); ++k) {
            const LongWait &lw = waits[k];
            if (set_op[k] != SIZE_MAX && !ev().check(lw.clause, s.rc(set_op[k]) == 0,
                                                     "HcommSetNotifyWaitTimeOut(" + std::to_string(lw.set_default) +
                                                         ") returned " + hccl_result_name(s.rc(set_op[k])) +
                                                         ", expected 0 (the vendor's unit tests accept 0 and large "
                                                         "values; 0 means wait forever)"))
                continue;
            const int32_t rc = s.rc(wait_op[k]);
            if (rc == HCCL_E_NOT_SUPPORT) {
                for (const std::string &cl : {lw.clause, std::string("WWN.VIS.1")})
                    ev().unsupported(cl, "the wait with " + lw.what + " was refused with HCCL_E_NOT_SUPPORT");
                continue;
            }
            if (!ev().check(lw.clause, rc == 0,
                            "the wait with " + lw.what + " returned " + hccl_result_name(rc) +
                                ", expected 0 (the vendor's unit tests accept it)"))
                continue;
            if (s.rc(copy_op[k]) == HCCL_E_NOT_SUPPORT) {
                for (const std::string &cl : {lw.clause, std::string("WWN.VIS.1")})
                    ev().unsupported(cl, "the copy right after the wait with " + lw.what +
                                             " was refused with HCCL_E_NOT_SUPPORT: nothing shows when it completed");
                continue;
            }
            // The copy behind the wait runs only once the wait completed; a wait that
            // gave up first leaves its thread failed and the snapshot poisoned (or, if
            // the copy ran anyway, taken before the payload came). Part of the payload
            // there means the wait did wait for the write: the rest missing breaks
            // write-before-notify (WWN.VIS.1), not the timeout.
            const auto snap =
                check_payload(dev.get(w.scratch() + k * kSlot, kLen), key(k), "dst, copied right after the wait");
            if (!snap.ok() && snap.new_words > 0) {
                ev().check("WWN.VIS.1", false,
                           "the wait with " + lw.what + " completed with part of the payload missing (" +
                               std::to_string(snap.new_words) + " of " + std::to_string(snap.words) +
                               " words there): " + snap.first_bad);
                continue;
            }
            if (snap.ok())
                ev().check("WWN.VIS.1", true, "");
            ev().check(lw.clause, snap.ok(),
                       "the wait with " + lw.what + " did not wait for the notify raised about " +
                           std::to_string(kNotifyAfter.count()) + " ms after it was posted (the launch took " + took +
                           "): " + snap.first_bad);
        }
        if (r.status.timed_out != 0)
            ev().check("WWN.TMO.5", false,
                       "some waits had not completed when the launch deadline passed, " + took +
                           ", though every notify was raised about 2.5 s in");
        restore_default_wait_timeout(c, "WWN.TMO.6");
    }
    mpi::phase_barrier("extreme timeouts: checked");
}

HCTS_CASE(Threads, AcquireGivesDistinctThreads, clauses("WWN.THR.1"), needs(Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    if (w.rank == 0) {
        ThreadHandle t[2] = {0, 0};
        const HcclResult arc = w.iut().api().HcclThreadAcquire(w.comm, w.setup_engine, 2, World::kNotifyNum, t);
        if (arc != HCCL_SUCCESS) {
            ev().error("WWN.THR.1", "HcclThreadAcquire(threadNum 2) returned " + hccl_result_name(arc));
        } else {
            ev().check("WWN.THR.1", t[0] != 0 && t[1] != 0 && t[0] != t[1],
                       "HcclThreadAcquire(threadNum 2) returned handles " + hex(t[0]) + " and " + hex(t[1]) +
                           ": they must be non-zero and distinct");
            // Each copies its own stamped source to its own destination.
            const uint64_t len = 256;
            std::byte *src = w.scratch(), *dst = w.scratch() + 4096;
            Script s;
            for (int k = 0; k < 2; ++k) {
                std::vector<std::byte> p(len);
                fill_payload(p, StampKey{7, static_cast<uint32_t>(k), 0});
                dev.put(src + k * 1024, p);
                dev.poison(dst + k * 1024, len);
                s.copy(t[k], dst + k * 1024, src + k * 1024, len);
            }
            const LaunchResult r = c.run(s, 30000);
            for (int k = 0; k < 2; ++k) {
                // A library that refuses local copies cannot show a thread runs this way.
                if (s.rc(static_cast<size_t>(k)) == HCCL_E_NOT_SUPPORT) {
                    ev().unsupported("WWN.THR.1", "the local copy on thread " + std::to_string(k) +
                                                      " was refused with HCCL_E_NOT_SUPPORT");
                    continue;
                }
                const bool landed =
                    s.rc(static_cast<size_t>(k)) == 0 &&
                    check_payload(dev.get(dst + k * 1024, len), StampKey{7, static_cast<uint32_t>(k), 0}).ok();
                ev().check("WWN.THR.1", landed,
                           "a local copy on thread " + std::to_string(k) + " of the batch returned " +
                               hccl_result_name(s.rc(static_cast<size_t>(k))) + " (" + r.describe() +
                               "); its data landed: " + (landed ? "yes" : "no"));
            }
        }
    }
    mpi::phase_barrier("threads of one acquire");
}

} // namespace hcts::cases_timeouts
