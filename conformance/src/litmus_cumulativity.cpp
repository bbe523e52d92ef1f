// Litmus L5 (a plain write before the notify) and L13 (a three-party chain):
// whether the notify also covers data it does not carry. P rows: what was
// observed is reported, never failed.
#include <functional>

#include "case_kit.h"

namespace hcts::litmus_cumulativity {
namespace {

StampKey key_for(uint32_t iteration, int sender) { return {9, iteration & 0xfff, static_cast<uint32_t>(sender)}; }

// Repetitions of the slower litmus shapes: a fraction of --repeat, at least `floor`.
uint32_t reps_of(const Ctx &c, uint32_t divisor, uint32_t floor) { return std::max(floor, c.repeat / divisor); }

// One shape, repeated: rank `owner` of the plain data D (written by rank 0 at
// `doff` of its inbox lane for rank 0) reads D on its stream right behind the
// last wait of the chain that `script` builds; the outcomes are counted there.
struct Chain {
    int owner;             // the last rank of the chain; ranks 0..owner take part
    uint32_t reps_divisor; // repetitions: --repeat / reps_divisor, at least 8
    uint64_t doff, dlen;
    std::function<void(const World &, Script &)> script;
};

// Reports the profile: cumulative when D was complete in every run.
void run_chain(const Ctx &c, const std::string &clause, const std::string &id, const std::string &shape,
               const Chain &chain)
{
    const World &w = c.w;
    const uint32_t reps = reps_of(c, chain.reps_divisor, 8);
    Histogram hist = payload_histogram();
    for (uint32_t rep = 0; rep < reps; ++rep) {
        const StampKey key = key_for(3000 * (id == "L13") + 500 + rep, 0);
        prepare_targets(c, 0, chain.owner, {{chain.doff, chain.dlen}}, chain.dlen, key);
        Script s;
        chain.script(w, s);
        const LaunchResult r = c.run(s);
        const auto refused = s.first_failure();
        if (w.rank <= chain.owner) {
            judge_launch(r, clause, "rank " + std::to_string(w.rank) + "'s part", c.ev);
            if (r.ok() && refused) {
                const std::string why = "rank " + std::to_string(w.rank) + "'s op " + std::to_string(*refused) +
                                        " returned " + hccl_result_name(s.rc(*refused)) +
                                        ", so the run shows nothing about cumulativity";
                // Unsupported here (the wait or the snapshot copy): no observation, not harness trouble.
                if (s.rc(*refused) == HCCL_E_NOT_SUPPORT)
                    c.ev.unsupported(clause, why);
                else
                    c.ev.error(clause, why);
            }
        }
        if (w.rank == chain.owner && r.ok() && !refused)
            ++hist[std::string(outcome_name(check_payload(w.device().get(w.scratch(), chain.dlen), key).overall()))];
        mpi::phase_barrier(id + ": checked");
    }
    const Histogram sum = sum_on_root(hist);
    uint64_t observed = 0;
    for (const auto &[k, n] : sum)
        observed += n;
    // No run observed D (waits or snapshots refused): the owner recorded why; no outcome to report.
    if (w.rank == 0 && observed > 0) {
        uint64_t weak = 0;
        for (const auto &k : weak_outcomes())
            weak += sum.at(k);
        c.ev.profile(clause, weak != 0 ? "not-cumulative" : "cumulative",
                     std::to_string(weak) + " of " + std::to_string(observed) +
                         " runs read D incomplete right after the " +
                         (id == "L5" ? "wait for the notify" : "chain's last wait"));
    }
    record_litmus(c, id, shape, hist, weak_outcomes(), Row::P);
}

} // namespace

// L5: S: Write(D); WWN(A, n) ‖ R: Wait(n); read D on its stream at once.
HCTS_CASE(Litmus, L5_Cumulativity, clauses("WWN.LIT.5"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::Write, Feature::LocalCopy))
{
    const uint64_t dlen = 256 * 1024, doff = 65536;
    run_chain(ctx(), "WWN.LIT.5", "L5", "cumulativity",
              {1, 16, doff, dlen, [=](const World &w, Script &s) {
                   if (w.rank == 0) {
                       s.write(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + doff, w.outbox(), dlen);
                       s.wwn(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + 4096, w.outbox(), 64, 40);
                   } else if (w.rank == 1) {
                       s.wait(w.threads[1], w.channel_to(0), 40, w.ok_timeout());
                       s.copy(w.threads[1], w.scratch(), w.inbox(0) + doff, dlen).only_if_previous_ok();
                   }
               }});
}

// L13: P0: Write(D→P2); WWN(→P1, n1) ‖ P1: Wait(n1); WWN(→P2, n2) ‖ P2: Wait(n2); read D.
HCTS_CASE(Litmus, L13_ThreeParty, clauses("WWN.LIT.13"),
          needs(Feature::ThreeRanks, Feature::WriteWithNotify, Feature::NotifyWait, Feature::Write, Feature::LocalCopy))
{
    const uint64_t dlen = 64 * 1024, doff = 65536;
    run_chain(ctx(), "WWN.LIT.13", "L13", "3-party (WRC-like)",
              {2, 32, doff, dlen, [=](const World &w, Script &s) {
                   if (w.rank == 0) {
                       s.write(w.thread(), w.channel_to(2), w.remote_inbox(2, 0) + doff, w.outbox(), dlen);
                       s.wwn(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + 4096, w.outbox() + dlen, 64, 50);
                   } else if (w.rank == 1) {
                       s.wait(w.threads[1], w.channel_to(0), 50, w.ok_timeout());
                       s.wwn(w.threads[1], w.channel_to(2), w.remote_inbox(2, 1) + 4096, w.outbox(), 64, 51);
                   } else if (w.rank == 2) {
                       s.wait(w.threads[1], w.channel_to(1), 51, w.ok_timeout());
                       s.copy(w.threads[1], w.scratch(), w.inbox(0) + doff, dlen).only_if_previous_ok();
                   }
               }});
}

} // namespace hcts::litmus_cumulativity
