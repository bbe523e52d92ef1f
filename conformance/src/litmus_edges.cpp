// Litmus at the edges: L14 zero-length writes, L15 the paths by which dst may
// be read after the wait, L16 bad calls repeated (refused, no byte, no notify).
#include "bad_calls.h"
#include "case_kit.h"
#include "hcts/core/catalogue.h"

namespace hcts::litmus_edges {
namespace {

StampKey key_for(uint32_t iteration, int sender) { return {9, iteration & 0xfff, static_cast<uint32_t>(sender)}; }
uint32_t reps_of(const Ctx &c, uint32_t divisor, uint32_t floor) { return std::max(floor, c.repeat / divisor); }

} // namespace

// L14: WWN(len = 0), repeated: rejected, notify-only (the SHMEM choice), success
// without a notify (a hazard: the peer would wait forever) or bytes written.
HCTS_CASE(Litmus, L14_ZeroLength, clauses("WWN.LIT.14"), needs(Feature::WriteWithNotify, Feature::NotifyWait))
{
    const Ctx c = ctx();
    const uint32_t reps = reps_of(c, 64, 4);
    Histogram hist{{"rejected", 0}, {"notify-only", 0}, {"success-no-notify", 0}, {"bytes-written", 0}};
    for (uint32_t rep = 0; rep < reps; ++rep) {
        const ZeroLength z = zero_length_write(c, 52);
        if (c.rank() == 1 && z.outcome.empty())
            ev().error("WWN.LIT.14", z.detail);
        else if (c.rank() == 1)
            ++hist[z.outcome];
    }
    if (c.rank() == 1) {
        std::string observed = "rejected";
        for (const char *k : {"bytes-written", "success-no-notify", "notify-only"})
            if (hist.at(k) != 0) {
                observed = k;
                break;
            }
        ev().profile("WWN.LIT.14", observed,
                     "of " + std::to_string(reps) + " zero-length calls: " + nlohmann::json(hist).dump());
    }
    record_litmus(c, "L14", "zero-len", hist, {"success-no-notify", "bytes-written"}, Row::P);
}

// L15: after the wait, read dst via (a) the waiting device thread, (b) the host
// once the launch completed — both valid paths (WWN.VIS.1) — and (c) another
// device thread that is not ordered after the wait (PROFILE: no path the
// documents call valid, so a stale read there is reported, not failed).
HCTS_CASE(Litmus, L15_ObserverPaths, clauses("WWN.VIS.1", "WWN.LIT.15"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const uint32_t reps = reps_of(c, 16, 8);
    const uint64_t len = 64 * 1024, doff = 65536;
    Histogram a = payload_histogram(), b = payload_histogram(), cc = payload_histogram();
    for (uint32_t rep = 0; rep < reps; ++rep) {
        const StampKey key = key_for(4000 + rep, 0);
        if (w.rank == 1) {
            dev.poison(w.inbox(0) + doff, len);
            dev.poison(w.scratch(), 2 * len);
        }
        if (w.rank == 0) {
            std::vector<std::byte> p(len);
            fill_payload(p, key);
            dev.put(w.outbox(), p);
        }
        mpi::phase_barrier("L15: prepared");
        Script s;
        if (w.rank == 0) {
            s.wwn(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + doff, w.outbox(), len, 53);
        } else if (w.rank == 1) {
            // (c) is enqueued first on the other thread so it is not ordered after the wait.
            s.copy(w.threads[0], w.scratch() + len, w.inbox(0) + doff, len);
            s.wait(w.threads[1], w.channel_to(0), 53, w.ok_timeout());
            s.copy(w.threads[1], w.scratch(), w.inbox(0) + doff, len);
        }
        const LaunchResult r = c.run(s);
        if (w.rank == 1) {
            judge_launch(r, "WWN.VIS.1", "L15: the waiting program", ev());
            ev().check("WWN.VIS.1", s.rc(1) == 0, "L15: the wait returned " + hccl_result_name(s.rc(1)));
            if (r.trouble() == Trouble::None) {
                // A read (a) or (c) whose copy was refused read nothing: the scratch
                // still holds poison, which must not be judged as a stale dst.
                const auto pb = check_payload(dev.get(w.inbox(0) + doff, len), key, "dst read by the host (L15 b)");
                ev().check("WWN.VIS.1", pb.ok(), pb.first_bad);
                ++b[std::string(outcome_name(pb.overall()))];
                if (s.rc(2) == 0) {
                    const auto pa =
                        check_payload(dev.get(w.scratch(), len), key, "dst read by the waiting thread (L15 a)");
                    ev().check("WWN.VIS.1", pa.ok(), pa.first_bad);
                    ++a[std::string(outcome_name(pa.overall()))];
                } else if (s.rc(1) == 0) {
                    ev().unsupported("WWN.VIS.1", "L15: the waiting thread's copy of dst returned " +
                                                      hccl_result_name(s.rc(2)) + ": no read right after the wait");
                }
                if (s.rc(0) == 0)
                    ++cc[std::string(outcome_name(check_payload(dev.get(w.scratch() + len, len), key).overall()))];
                else
                    ev().unsupported("WWN.LIT.15",
                                     "L15: the other thread's copy of dst returned " + hccl_result_name(s.rc(0)));
            }
        }
        mpi::phase_barrier("L15: checked");
    }
    if (w.rank == 1) {
        ev().litmus(
            litmus_entry("L15.a", "observer: waiting device thread", "Litmus.L15_ObserverPaths", a, weak_outcomes()));
        ev().litmus(
            litmus_entry("L15.b", "observer: host after the launch", "Litmus.L15_ObserverPaths", b, weak_outcomes()));
        ev().litmus(profile_entry("L15.c", "observer: another device thread, unordered", "Litmus.L15_ObserverPaths", cc,
                                  weak_outcomes()));
        uint64_t reads = 0;
        for (const auto &[k, v] : cc)
            reads += v;
        const ClauseEvidence *l15 = ev().find("WWN.LIT.15");
        const bool refused = l15 != nullptr && l15->unsupported > 0; // recorded above: NOT_SUPPORTED
        if (reads == 0 && !refused)
            ev().error("WWN.LIT.15", "no run of L15 completed, so no read by another thread was observed");
        else if (reads != 0)
            ev().profile("WWN.LIT.15", cc.at("new") == reads ? "new-observed" : "stale-observed",
                         std::to_string(reads - cc.at("new")) + " of " + std::to_string(reads) +
                             " reads by another device thread (not ordered after the wait) missed the payload");
    }
}

// L16: bad calls are refused, deliver no byte and raise no notify. Each call is
// judged under the clause of its error class; the histogram counts refusals.
HCTS_CASE(Litmus, L16_ErrorPaths, clauses("WWN.ERR.1", "WWN.ERR.3", "WWN.ERR.4", "WWN.IDX.2"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    struct Bad {
        Fault fault;
        const char *clause;
        int32_t expected;
    };
    static const Bad kBad[] = {
        {Fault::DstNull, "WWN.ERR.1", HCCL_E_PTR},         {Fault::SrcNull, "WWN.ERR.1", HCCL_E_PTR},
        {Fault::ChannelZero, "WWN.ERR.1", HCCL_E_PTR},     {Fault::IdxAtNotifyNum, "WWN.IDX.2", HCCL_E_PARA},
        {Fault::DstPastPeerEnd, "WWN.ERR.3", HCCL_E_PARA}, {Fault::LenNearMax, "WWN.ERR.4", HCCL_E_PARA}};
    const Untouched region{8192, 4096};
    // Each fault has its own notify and probe index: a notify a wrongly accepted
    // call left set stays with its fault, so it fails that fault's clause in later
    // repetitions, never the clause of the next fault (a MUST one for a STRICT
    // departure).
    const auto idx_of = [](size_t fault) { return static_cast<uint32_t>(40 + 2 * fault); };
    // A bad call accepted where only a STRICT clause (the reference's stricter
    // choice) forbids it is counted apart: it fails that clause, which the report
    // shows, but must not make the litmus entry decide the MUST gate.
    Histogram hist{{"refused", 0}, {"refused-wrong-code", 0}, {"accepted", 0}, {"accepted-strict", 0}};
    for (uint32_t rep = 0; rep < reps_of(c, 128, 2); ++rep)
        for (size_t f = 0; f < std::size(kBad); ++f) {
            const Bad &bad = kBad[f];
            const uint32_t idx = idx_of(f);
            prepare_targets(c, 0, 1, {region}, region.len, key_for(5000 + rep, 0));
            Script s;
            if (w.rank == 0) {
                const WwnCall call = with_fault(
                    w, 1, {w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + region.off, w.outbox(), region.len, idx},
                    bad.fault, {});
                s.wwn(call.thread, call.channel, call.dst, call.src, call.len, call.idx);
            }
            (void)c.run(s, 30000);
            if (w.rank == 0) {
                const int32_t rc = s.rc(0);
                const Clause *clause = catalogue().find(bad.clause);
                const bool strict = clause != nullptr && clause->kind == "STRICT";
                ++hist[rc == bad.expected   ? "refused"
                       : rc != HCCL_SUCCESS ? "refused-wrong-code"
                       : strict             ? "accepted-strict"
                                            : "accepted"];
                ev().check(bad.clause, rc != HCCL_SUCCESS,
                           "L16: " + std::string(fault_name(bad.fault)) + " returned HCCL_SUCCESS");
            }
            // The probe write after the bad call proves no byte and no notify arrived.
            prove_no_effect(c, 0, 1, 0, 0, idx + 1, {region}, {idx}, bad.clause);
        }
    record_litmus(c, "L16", "error paths", hist, {"accepted"});
}

} // namespace hcts::litmus_edges
