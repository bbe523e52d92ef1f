// Handles that outlived their communicator (WWN.ERR.7): a thread and a channel
// of a second communicator, used after HcclCommDestroy, are refused and have no effect.
#include "case_kit.h"

namespace hcts::cases_lifecycle {
namespace {

constexpr uint32_t kQuietIdx = 24; // what the stale calls aim at
constexpr uint32_t kProbeIdx = 25; // the valid write after them
constexpr uint64_t kRegion = 8192, kLen = 4096;

struct Stale {
    ThreadHandle thread = 0;   // rank 0's thread of the destroyed communicator
    ChannelHandle channel = 0; // rank 0's channel to rank 1 on it
};

// Channels of `comm` to every peer (the world's protocol, 64 notifies); by rank.
std::vector<ChannelHandle> channels_of(const World &w, HcclComm comm, HcclResult &rc)
{
    std::vector<HcclChannelDesc> descs(static_cast<size_t>(w.size - 1));
    HcclChannelDescInit(descs.data(), static_cast<uint32_t>(descs.size()));
    std::vector<int> peer_of;
    for (int r = 0; r < w.size; ++r)
        if (r != w.rank) {
            HcclChannelDesc &d = descs[peer_of.size()];
            d.remoteRank = static_cast<uint32_t>(r);
            d.channelProtocol = w.protocol;
            d.notifyNum = World::kNotifyNum;
            peer_of.push_back(r);
        }
    std::vector<ChannelHandle> got(descs.size(), 0), by_rank(static_cast<size_t>(w.size), 0);
    rc = w.iut().api().HcclChannelAcquire(comm, w.setup_engine, descs.data(), static_cast<uint32_t>(descs.size()),
                                          got.data());
    for (size_t i = 0; i < got.size(); ++i)
        by_rank[static_cast<size_t>(peer_of[i])] = got[i];
    return by_rank;
}

// A second communicator of every rank (root info from rank 0 over MPI), a thread
// (rank 0) and channels to every peer (every rank) acquired on it, then the
// communicator destroyed. Collective. Empty `why` when it worked; otherwise why
// not (the clause is then NOT_SUPPORTED).
Stale stale_handles(const World &w, std::string &why)
{
    const HcommApi &api = w.iut().api();
    if (api.HcclCommDestroy == nullptr) {
        why = "the IUT has no HcclCommDestroy";
        return {};
    }
    HcclRootInfo root{};
    int32_t rc = w.rank == 0 ? api.HcclGetRootInfo(&root) : HCCL_SUCCESS;
    mpi::broadcast(std::as_writable_bytes(std::span(&rc, 1)), 0, "second comm: root info rc");
    if (rc != HCCL_SUCCESS) {
        why = "HcclGetRootInfo for a second communicator returned " + hccl_result_name(rc);
        return {};
    }
    mpi::broadcast(std::as_writable_bytes(std::span(&root, 1)), 0, "second comm: root info");
    HcclComm comm = nullptr;
    const HcclResult irc =
        api.HcclCommInitRootInfo(static_cast<uint32_t>(w.size), &root, static_cast<uint32_t>(w.rank), &comm);
    Stale out;
    HcclResult trc = HCCL_SUCCESS, crc = HCCL_SUCCESS;
    if (irc == HCCL_SUCCESS && w.rank == 0)
        trc = api.HcclThreadAcquire(comm, w.setup_engine, 1, World::kNotifyNum, &out.thread);
    // Channel set-up is collective: every rank acquires once the others can.
    if (mpi::all_ranks(irc == HCCL_SUCCESS, "second comm: made")) {
        const auto chans = channels_of(w, comm, crc);
        if (w.rank == 0 && w.size > 1)
            out.channel = chans.at(1);
    }
    mpi::phase_barrier("second comm: thread and channels acquired");
    const HcclResult drc = irc == HCCL_SUCCESS ? api.HcclCommDestroy(comm) : HCCL_SUCCESS;
    const bool ok = irc == HCCL_SUCCESS && trc == HCCL_SUCCESS && crc == HCCL_SUCCESS && drc == HCCL_SUCCESS;
    if (!mpi::all_ranks(ok, "second comm: made and destroyed")) {
        why = irc != HCCL_SUCCESS   ? "HcclCommInitRootInfo for a second communicator returned " + hccl_result_name(irc)
              : trc != HCCL_SUCCESS ? "HcclThreadAcquire on the second communicator returned " + hccl_result_name(trc)
              : crc != HCCL_SUCCESS ? "HcclChannelAcquire on the second communicator returned " + hccl_result_name(crc)
              : drc != HCCL_SUCCESS ? "HcclCommDestroy of the second communicator returned " + hccl_result_name(drc)
                                    : "another rank could not make and destroy its second communicator";
        return {};
    }
    return out;
}

} // namespace

HCTS_CASE(Lifecycle, HandlesOfDestroyedCommRefused, clauses("WWN.ERR.7"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    std::string why;
    const Stale stale = stale_handles(w, why);
    if (!mpi::all_ranks(why.empty(), "stale handles made")) {
        if (w.rank <= 1)
            ev().unsupported("WWN.ERR.7", why.empty() ? "another rank could not make stale handles" : why);
        return;
    }
    // Threads acquired after the destroy: a library that hands out a freed
    // handle again would make the stale one name a live thread (as it would on
    // any later acquisition), so the stale handle must still be refused. The
    // second one carries the stale channel's call, so the world's threads never
    // see a call that might fail late.
    HcclResult arc = HCCL_SUCCESS;
    const ThreadHandle later = w.rank == 0 ? w.fresh_thread(w.setup_engine, &arc) : 0;
    const ThreadHandle own = w.rank == 0 ? w.fresh_thread(w.setup_engine, &arc) : 0;
    if (w.rank == 0)
        ev().observe("stale_thread_channel_later", hex(stale.thread) + " " + hex(stale.channel) + " " + hex(later) +
                                                       " (" + hccl_result_name(arc) + ")");
    const std::vector<Untouched> regions{{kRegion, kLen}, {kRegion + 2 * kLen, kLen}};
    prepare_targets(c, 0, 1, regions, kLen, StampKey{14, 1, 0});
    Script s;
    std::vector<std::string> what;
    if (w.rank == 0) {
        s.wwn(stale.thread, w.channel_to(1), w.remote_inbox(1, 0) + regions[0].off, w.outbox(), kLen, kQuietIdx);
        what.push_back("HcommWriteWithNotifyOnThread on thread " + hex(stale.thread));
        s.wait(stale.thread, w.channel_to(1), kQuietIdx, w.short_timeout());
        what.push_back("HcommChannelNotifyWaitOnThread on thread " + hex(stale.thread));
        if (own != 0) {
            s.wwn(own, stale.channel, w.remote_inbox(1, 0) + regions[1].off, w.outbox(), kLen, kQuietIdx);
            what.push_back("HcommWriteWithNotifyOnThread on channel " + hex(stale.channel));
        }
    }
    const LaunchResult r = c.run(s, 30000);
    if (w.rank == 0) {
        if (own == 0)
            ev().error("WWN.ERR.7", "no fresh thread for the stale channel's call: HcclThreadAcquire returned " +
                                        hccl_result_name(arc));
        for (size_t k = 0; k < s.size(); ++k)
            ev().check("WWN.ERR.7", s.rc(k) == HCCL_E_PARA,
                       what[k] + " of a destroyed communicator returned " + hccl_result_name(s.rc(k)) +
                           ", expected HCCL_E_PARA (" + r.describe() + ")");
    }
    prove_no_effect(c, 0, 1, 0, 0, kProbeIdx, regions, {kQuietIdx}, "WWN.ERR.7");
}

} // namespace hcts::cases_lifecycle
