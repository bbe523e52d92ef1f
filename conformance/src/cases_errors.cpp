// Error paths: bad arguments are refused with the right code and no effect.
#include "bad_calls.h"
#include "case_kit.h"

namespace hcts::cases_errors {
namespace {

// One row per clause: its bad calls, the code each must return, and the notify
// index they aim at (the probe write after them uses the next one).
struct BadCallsOfClause {
    const char *clause;
    int32_t code;
    std::vector<Fault> faults;
    uint32_t quiet;
};

const std::vector<BadCallsOfClause> &rows()
{
    static const std::vector<BadCallsOfClause> kRows{
        {"WWN.ERR.1", HCCL_E_PTR, {Fault::DstNull, Fault::SrcNull, Fault::ChannelZero, Fault::ThreadZero}, 14},
        {"WWN.ERR.2", HCCL_E_PARA, {Fault::ForeignChannel, Fault::ForeignThread, Fault::StaleChannel}, 16},
        {"WWN.ERR.3",
         HCCL_E_PARA,
         {Fault::SrcUnregistered, Fault::SrcPastLocalEnd, Fault::DstPastPeerEnd, Fault::SrcOneByteOverLocalEnd,
          Fault::DstOneByteOverPeerEnd, Fault::DstBeforePeer},
         18},
        {"WWN.ERR.4", HCCL_E_PARA, {Fault::LenNearMax, Fault::LenHalfRange}, 20},
        // With several faults at once the first check in the vendor's order decides.
        {"WWN.ERR.6", HCCL_E_PTR, {Fault::DstNullIdxMax, Fault::SrcNullLenZero, Fault::ThreadZeroLenZero}, 22},
    };
    return kRows;
}

// A stale channel handle for StaleChannel: every rank acquires a channel to every
// peer on the alternate protocol (so the world's channels stay untouched) and
// destroys it at once. Collective. Rank 0's handle to rank 1, or 0 with `why`
// when the IUT could not acquire or destroy one (the fault is then NOT_SUPPORTED).
ChannelHandle stale_channel(const World &w, std::string &why)
{
    HcclResult arc = HCCL_SUCCESS;
    const std::vector<ChannelHandle> got = w.acquire_channels(World::kNotifyNum, arc, true);
    bool distinct = arc == HCCL_SUCCESS;
    for (int r = 0; r < w.size; ++r)
        if (r != w.rank)
            distinct = distinct && got[static_cast<size_t>(r)] != 0 && got[static_cast<size_t>(r)] != w.channel_to(r);
    // A handle equal to the world's channel is not destroyed: the case still needs it.
    const HcclResult drc = distinct ? w.destroy_channels(got) : HCCL_E_INTERNAL;
    const bool ok = mpi::all_ranks(drc == HCCL_SUCCESS, "stale channel acquired and destroyed");
    if (!ok)
        why = arc != HCCL_SUCCESS   ? "HcclChannelAcquire (alternate protocol) returned " + hccl_result_name(arc)
              : !distinct           ? "HcclChannelAcquire (alternate protocol) returned the world's channel"
              : drc != HCCL_SUCCESS ? "HcclChannelDestroy returned " + hccl_result_name(drc)
                                    : "another rank could not acquire and destroy its channel";
    return ok && w.rank == 0 ? got.at(1) : 0;
}

// Rank 0 makes one call per fault on the device, each aimed at its own 4 KiB
// region of rank 1's inbox lane (so a wrongly accepted call shows where it
// landed) and at notify `quiet`. Under the row's clause: the return codes, no
// byte written and `quiet` not raised (a probe write on quiet + 1 after them).
void run_bad_calls(const Ctx &c, const BadCallsOfClause &row)
{
    const World &w = c.w;
    std::vector<Untouched> regions;
    for (size_t k = 0; k < row.faults.size(); ++k)
        regions.push_back({8192 + k * 8192, 4096});
    prepare_targets(c, 0, 1, regions, 65536, StampKey{5, 1, 0});
    std::vector<std::byte> host_memory(4096); // ordinary host memory, never registered
    ChannelHandle stale = 0;
    std::string no_stale;
    if (std::ranges::find(row.faults, Fault::StaleChannel) != row.faults.end())
        stale = stale_channel(w, no_stale);
    // A fault that cannot be made (no stale handle) is left out of the script.
    const auto made = [&](Fault f) { return f != Fault::StaleChannel || no_stale.empty(); };
    Script s;
    std::vector<size_t> op(row.faults.size(), SIZE_MAX); // script index of each fault's call
    if (w.rank == 0)
        for (size_t k = 0; k < row.faults.size(); ++k) {
            if (!made(row.faults[k]))
                continue;
            const WwnCall valid{w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + regions[k].off, w.outbox(),
                                4096,       row.quiet};
            const WwnCall bad = with_fault(w, 1, valid, row.faults[k], host_memory, stale);
            op[k] = s.size();
            s.wwn(bad.thread, bad.channel, bad.dst, bad.src, bad.len, bad.idx);
        }
    const LaunchResult r = c.run(s, 30000);
    if (w.rank == 0)
        for (size_t k = 0; k < row.faults.size(); ++k) {
            if (op[k] == SIZE_MAX) {
                c.ev.unsupported(row.clause, std::string(fault_name(row.faults[k])) + " not tried: " + no_stale);
                continue;
            }
            c.ev.check(row.clause, s.rc(op[k]) == row.code,
                       std::string(fault_name(row.faults[k])) + " returned " + hccl_result_name(s.rc(op[k])) +
                           ", expected " + hccl_result_name(row.code) + " (" + r.describe() + ")");
        }
    prove_no_effect(c, 0, 1, 0, 0, row.quiet + 1, regions, {row.quiet}, row.clause);
}

} // namespace

// Each clause's bad calls in turn; every clause is judged on its own calls only.
HCTS_CASE(Errors, BadArgumentsRefused, clauses("WWN.ERR.1", "WWN.ERR.2", "WWN.ERR.3", "WWN.ERR.4", "WWN.ERR.6"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    for (const BadCallsOfClause &row : rows())
        run_bad_calls(ctx(), row);
}

HCTS_CASE(Errors, WaitZeroHandles, clauses("WWN.ERR.5"), needs(Feature::NotifyWait))
{
    const Ctx c = ctx();
    const World &w = c.w;
    HcclResult arc = HCCL_SUCCESS;
    if (const ThreadHandle t = w.fresh_thread(w.setup_engine, &arc); t == 0) {
        ev().error("WWN.ERR.5",
                   "no fresh thread for the channel-0 wait: HcclThreadAcquire returned " + hccl_result_name(arc));
    } else {
        Script s;
        s.wait(t, 0, 0, w.short_timeout());
        s.wait(0, w.channel_to(w.peer()), 0, w.short_timeout());
        const LaunchResult r = c.run(s, 30000);
        for (size_t k = 0; k < 2; ++k)
            ev().check("WWN.ERR.5", s.rc(k) == HCCL_E_PTR,
                       std::string(k == 0 ? "wait with channel 0" : "wait with thread 0") + " returned " +
                           hccl_result_name(s.rc(k)) + ", expected HCCL_E_PTR (" + r.describe() + ")");
    }
    mpi::phase_barrier("zero-handle waits");
}

} // namespace hcts::cases_errors
