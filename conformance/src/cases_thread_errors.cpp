// A thread after one of its tasks failed: it stays in its error state (later
// work on it does not run, WWN.THR.2) and the other threads, even those of the
// same HcclThreadAcquire, work on (WWN.THR.3).
#include "case_kit.h"

namespace hcts::cases_thread_errors {
namespace {

constexpr uint32_t kUnraisedIdx = 57; // the wait that fails: nobody raises it
constexpr uint32_t kBrokenIdx = 20;   // the write on the failed thread
constexpr uint32_t kHealthyIdx = 21;  // the write on its sibling
constexpr uint64_t kBrokenDst = 8192, kHealthyDst = 16384, kLen = 4096;

// Rank 0's two threads of one acquire; thread 0 ends in its error state after
// a wait that timed out. False (evidence recorded) when that could not be made.
bool fail_first_thread(const Ctx &c, ThreadHandle (&t)[2])
{
    const World &w = c.w;
    bool ok = true;
    if (w.rank == 0) {
        const HcclResult arc = w.iut().api().HcclThreadAcquire(w.comm, w.setup_engine, 2, World::kNotifyNum, t);
        if (arc != HCCL_SUCCESS) {
            for (const char *cl : {"WWN.THR.2", "WWN.THR.3"})
                c.ev.error(cl, "HcclThreadAcquire(threadNum 2) returned " + hccl_result_name(arc));
            ok = false;
        } else {
            Script s;
            s.wait(t[0], w.channel_to(1), kUnraisedIdx, w.short_timeout());
            const LaunchResult r = c.run(s, 30000);
            const WaitOutcome o = classify_wait(true, s.rc(0), r, w.short_timeout_ms());
            if (o.end != WaitEnd::TimedOut) {
                for (const char *cl : {"WWN.THR.2", "WWN.THR.3"})
                    c.ev.error(cl, "the wait meant to fail thread 0 did not time out: " + o.detail);
                ok = false;
            }
        }
    }
    return mpi::all_ranks(ok, "thread 0 failed");
}

} // namespace

HCTS_CASE(Threads, ErrorStateAfterFailedTask, clauses("WWN.THR.2", "WWN.THR.3"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    ThreadHandle t[2] = {0, 0};
    if (!fail_first_thread(c, t))
        return;
    const StampKey broken_key{12, 1, 0}, healthy_key{12, 2, 0};
    if (w.rank == 1) {
        dev.poison(w.inbox(0) + kBrokenDst, kLen);
        dev.poison(w.inbox(0) + kHealthyDst, kLen);
    }
    if (w.rank == 0)
        for (const auto &[off, key] : {std::pair{uint64_t{0}, broken_key}, std::pair{kLen, healthy_key}}) {
            std::vector<std::byte> p(kLen);
            fill_payload(p, key);
            dev.put(w.outbox() + off, p);
        }
    HcclResult arc = HCCL_SUCCESS;
    // The receiver waits on a fresh thread, with a bound: a lost write costs 5 s, not the run.
    const ThreadHandle rt = w.rank == 1 ? w.fresh_thread(w.setup_engine, &arc) : 0;
    if (!mpi::all_ranks(w.rank != 1 || rt != 0, "receiver thread")) {
        if (w.rank == 1)
            ev().error("WWN.THR.3",
                       "no fresh thread for the wait: HcclThreadAcquire returned " + hccl_result_name(arc));
        return;
    }
    Script s;
    if (w.rank == 0) {
        s.wwn(t[0], w.channel_to(1), w.remote_inbox(1, 0) + kBrokenDst, w.outbox(), kLen, kBrokenIdx);
        s.wwn(t[1], w.channel_to(1), w.remote_inbox(1, 0) + kHealthyDst, w.outbox() + kLen, kLen, kHealthyIdx);
    }
    if (w.rank == 1)
        s.wait(rt, w.channel_to(0), kHealthyIdx, w.unit.seconds.value_or(true) ? 5U : 5000U);
    const LaunchResult r = c.run(s, 20000);
    // What rank 0's calls returned and whether its launch reported a task error.
    int32_t sent[3] = {0, 0, 0};
    if (w.rank == 0) {
        sent[0] = s.rc(0);
        sent[1] = s.rc(1);
        sent[2] = r.status.task_error;
    }
    mpi::broadcast(std::as_writable_bytes(std::span(sent)), 0, "calls after the failure");
    if (w.rank == 0) {
        ev().check("WWN.THR.3", sent[1] == 0,
                   "a write with notify on the failed thread's sibling returned " + hccl_result_name(sent[1]) +
                       ", expected 0 (" + r.describe() + ")");
        // Accepted and skipped (the reference), or refused: either way not run.
        if (sent[0] == 0)
            ev().check("WWN.THR.2", sent[2] != 0,
                       "a write with notify on the failed thread was accepted and its launch reported no task error "
                       "(" +
                           r.describe() + "); its work must not run and the launch must report the failure");
    }
    if (w.rank == 1) {
        const auto got = check_payload(dev.get(w.inbox(0) + kHealthyDst, kLen), healthy_key);
        ev().check("WWN.THR.3", s.rc(0) == 0 && r.ok() && got.ok(),
                   "after another thread of the same acquire failed, a write with notify on its sibling: the wait "
                   "returned " +
                       hccl_result_name(s.rc(0)) + " (" + r.describe() +
                       "), its payload: " + (got.ok() ? std::string("arrived") : got.first_bad));
        size_t first = 0;
        const size_t changed = count_not_pattern(dev.get(w.inbox(0) + kBrokenDst, kLen), kPoisonWord, &first);
        ev().check("WWN.THR.2", changed == 0,
                   std::to_string(changed) + " bytes of the failed thread's write's destination changed (first at +" +
                       std::to_string(first) + "): work on a thread in its error state ran (call returned " +
                       hccl_result_name(sent[0]) + ")");
    }
    check_quiet(c, 0, 1, 0, 0, {kBrokenIdx}, "WWN.THR.2");
}

} // namespace hcts::cases_thread_errors
