// Handles that outlived their communicator (WWN.ERR.7): a thread of a second
// communicator, used after HcclCommDestroy, is refused and has no effect.
#include "case_kit.h"

namespace hcts {
namespace {

constexpr uint32_t kQuietIdx = 24; // what the stale calls aim at
constexpr uint32_t kProbeIdx = 25; // the valid write after them
constexpr uint64_t kRegion = 8192, kLen = 4096;

// A second communicator of every rank (root info from rank 0 over MPI), one
// thread acquired on it by rank 0, then the communicator destroyed. Collective.
// Rank 0's stale thread handle, or 0 with `why` (the clause is then NOT_SUPPORTED).
ThreadHandle stale_thread(const World &w, std::string &why)
{
    const HcommApi &api = w.iut().api();
    if (api.HcclCommDestroy == nullptr) {
        why = "the IUT has no HcclCommDestroy";
        return 0;
    }
    HcclRootInfo root{};
    int32_t rc = w.rank == 0 ? api.HcclGetRootInfo(&root) : HCCL_SUCCESS;
    mpi::broadcast(std::as_writable_bytes(std::span(&rc, 1)), 0, "second comm: root info rc");
    if (rc != HCCL_SUCCESS) {
        why = "HcclGetRootInfo for a second communicator returned " + hccl_result_name(rc);
        return 0;
    }
    mpi::broadcast(std::as_writable_bytes(std::span(&root, 1)), 0, "second comm: root info");
    HcclComm comm = nullptr;
    const HcclResult irc =
        api.HcclCommInitRootInfo(static_cast<uint32_t>(w.size), &root, static_cast<uint32_t>(w.rank), &comm);
    ThreadHandle t = 0;
    HcclResult trc = HCCL_SUCCESS;
    if (irc == HCCL_SUCCESS && w.rank == 0)
        trc = api.HcclThreadAcquire(comm, w.setup_engine, 1, World::kNotifyNum, &t);
    mpi::phase_barrier("second comm: thread acquired");
    const HcclResult drc = irc == HCCL_SUCCESS ? api.HcclCommDestroy(comm) : HCCL_SUCCESS;
    const bool ok = irc == HCCL_SUCCESS && trc == HCCL_SUCCESS && drc == HCCL_SUCCESS;
    if (!mpi::all_ranks(ok, "second comm: made and destroyed")) {
        why = irc != HCCL_SUCCESS   ? "HcclCommInitRootInfo for a second communicator returned " + hccl_result_name(irc)
              : trc != HCCL_SUCCESS ? "HcclThreadAcquire on the second communicator returned " + hccl_result_name(trc)
              : drc != HCCL_SUCCESS ? "HcclCommDestroy of the second communicator returned " + hccl_result_name(drc)
                                    : "another rank could not make and destroy its second communicator";
        return 0;
    }
    return t;
}

} // namespace

HCTS_CASE(Lifecycle, ThreadOfDestroyedCommRefused, clauses("WWN.ERR.7"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    std::string why;
    const ThreadHandle stale = stale_thread(w, why);
    if (!mpi::all_ranks(why.empty(), "stale thread made")) {
        if (w.rank <= 1)
            ev().unsupported("WWN.ERR.7", why.empty() ? "another rank could not make a stale thread" : why);
        return;
    }
    // A thread acquired after the destroy: a library that hands out a freed
    // handle again would make the stale one name it (as it would on any
    // later acquisition), so the stale handle must still be refused.
    HcclResult arc = HCCL_SUCCESS;
    const ThreadHandle later = w.rank == 0 ? w.fresh_thread(w.setup_engine, &arc) : 0;
    if (w.rank == 0)
        ev().observe("stale_and_later_threads", hex(stale) + " " + hex(later) + " (" + hccl_result_name(arc) + ")");
    prepare_targets(c, 0, 1, {{kRegion, kLen}}, kLen, StampKey{14, 1, 0});
    Script s;
    if (w.rank == 0) {
        s.wwn(stale, w.channel_to(1), w.remote_inbox(1, 0) + kRegion, w.outbox(), kLen, kQuietIdx);
        s.wait(stale, w.channel_to(1), kQuietIdx, w.short_timeout());
    }
    const LaunchResult r = c.run(s, 30000);
    if (w.rank == 0)
        for (size_t k = 0; k < s.size(); ++k)
            ev().check("WWN.ERR.7", s.rc(k) == HCCL_E_PARA,
                       std::string(k == 0 ? "HcommWriteWithNotifyOnThread" : "HcommChannelNotifyWaitOnThread") +
                           " on thread " + hex(stale) + " of a destroyed communicator returned " +
                           hccl_result_name(s.rc(k)) + ", expected HCCL_E_PARA (" + r.describe() + ")");
    prove_no_effect(c, 0, 1, 0, 0, kProbeIdx, {{kRegion, kLen}}, {kQuietIdx}, "WWN.ERR.7");
}

} // namespace hcts
