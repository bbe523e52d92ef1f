// Timeouts and threads: the default wait timeout HcommSetNotifyWaitTimeOut sets
// (WWN.TMO.*), and the threads of one HcclThreadAcquire (WWN.THR.1).
#include <cmath>
#include <limits>

#include "case_kit.h"

namespace hcts {
namespace {

constexpr float kInitialDefault = 1836.0F; // the vendor's initial default (api §7.3)
constexpr uint32_t kDefaultWaitIdx = 61;   // an index nobody raises in these cases
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

// Sets the default back to the vendor's initial value, so later cases see the
// library as they found it.
void restore_default(const Ctx &c, const std::string &clause)
{
    Script s;
    s.set_wait_timeout(kInitialDefault);
    const LaunchResult r = c.run(s, kLaunchDeadlineMs);
    if (s.rc(0) != 0)
        c.ev.error(clause, "HcommSetNotifyWaitTimeOut(1836) to restore the default returned " +
                               hccl_result_name(s.rc(0)) + " (" + r.describe() + ")");
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
        restore_default(c, "WWN.TMO.1");
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
        restore_default(c, "WWN.TMO.2");
    }
    mpi::phase_barrier("negative default timeouts");
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

} // namespace hcts
