// Error paths: bad arguments are refused with the right code and no effect.
#include "bad_calls.h"
#include "case_kit.h"

namespace hcts {
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
        {"WWN.ERR.2", HCCL_E_PARA, {Fault::ForeignChannel, Fault::ForeignThread}, 16},
        {"WWN.ERR.3",
         HCCL_E_PARA,
         {Fault::SrcUnregistered, Fault::SrcPastLocalEnd, Fault::DstPastPeerEnd, Fault::DstBeforePeer},
         18},
        {"WWN.ERR.4", HCCL_E_PARA, {Fault::LenNearMax, Fault::LenHalfRange}, 20},
        // With several faults at once the first check in the vendor's order decides.
        {"WWN.ERR.6", HCCL_E_PTR, {Fault::DstNullIdxMax, Fault::SrcNullLenZero, Fault::ThreadZeroLenZero}, 22},
    };
    return kRows;
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
    Script s;
    if (w.rank == 0)
        for (size_t k = 0; k < row.faults.size(); ++k) {
            const WwnCall valid{w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + regions[k].off, w.outbox(),
                                4096,       row.quiet};
            const WwnCall bad = with_fault(w, 1, valid, row.faults[k], host_memory);
            s.wwn(bad.thread, bad.channel, bad.dst, bad.src, bad.len, bad.idx);
        }
    const LaunchResult r = c.run(s, 30000);
    if (w.rank == 0)
        for (size_t k = 0; k < row.faults.size(); ++k)
            c.ev.check(row.clause, s.rc(k) == row.code,
                       std::string(fault_name(row.faults[k])) + " returned " + hccl_result_name(s.rc(k)) +
                           ", expected " + hccl_result_name(row.code) + " (" + r.describe() + ")");
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

} // namespace hcts
