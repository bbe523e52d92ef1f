// Litmus L11: may the sender overwrite src, and when? After the receiver said
// its wait completed (F: dst never holds the overwrite), and right behind the
// call on the same thread (P: a stream that moves on at the doorbell may carry
// the overwrite, as Nbi calls may until completion).
#include "case_kit.h"

namespace hcts::litmus_source_reuse {
namespace {
StampKey key_for(uint32_t iteration, int sender) { return {9, iteration & 0xfff, static_cast<uint32_t>(sender)}; }
} // namespace

HCTS_CASE(Litmus, L11_SourceReuse, clauses("WWN.LIT.11", "WWN.LIT.11N"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::NotifyRecord, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const uint32_t total = std::max(16U, c.repeat / 4), batch = 16;
    const uint64_t len = 4096;
    const uint32_t ack = 49;
    Histogram hists[2];
    bool overwrite_refused[2] = {false, false}; // on the sender: its overwrites of src were refused
    for (auto &h : hists)
        h = {{"original", 0}, {"overwritten", 0}, {"mixed", 0}, {"other", 0}};
    for (int form = 0; form < 2; ++form) {
        const bool handshake = form == 0;
        const char *clause = handshake ? "WWN.LIT.11" : "WWN.LIT.11N";
        for (uint32_t done = 0; done < total; done += batch) {
            const uint32_t n = std::min(batch, total - done);
            const uint32_t it = 1000 * static_cast<uint32_t>(form + 1) + done;
            // src_i at outbox + 2*i*len, its replacement right after it.
            if (w.rank == 1)
                for (uint32_t i = 0; i < n; ++i)
                    dev.poison(w.inbox(0) + 4096 + i * 2 * len, len);
            if (w.rank == 0)
                for (uint32_t i = 0; i < n; ++i) {
                    std::vector<std::byte> p(len);
                    fill_payload(p, key_for(it + i, 0));
                    dev.put(w.outbox() + i * 2 * len, p);
                    fill_payload(p, key_for(it + 500 + i, 0));
                    dev.put(w.outbox() + i * 2 * len + len, p);
                }
            mpi::phase_barrier("L11: prepared");
            Script s;
            for (uint32_t i = 0; i < n; ++i) {
                // One index per write of the batch: notifies are binary, so two writes
                // to one index before its wait would coalesce (a slow receiver, e.g.
                // across nodes, then waits forever for the second).
                const uint32_t idx = 24 + i;
                if (w.rank == 0) {
                    s.wwn(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + 4096 + i * 2 * len,
                          w.outbox() + i * 2 * len, len, idx);
                    if (handshake)
                        s.wait(w.thread(), w.channel_to(1), ack, w.ok_timeout());
                    s.copy(w.thread(), w.outbox() + i * 2 * len, w.outbox() + i * 2 * len + len, len);
                } else if (w.rank == 1) {
                    s.wait(w.threads[1], w.channel_to(0), idx, w.ok_timeout());
                    if (handshake)
                        s.record(w.threads[1], w.channel_to(0), ack);
                }
            }
            const LaunchResult r = c.run(s);
            if (w.rank <= 1) {
                for (size_t k = 0; k < s.size(); ++k) {
                    const std::string what = "rank " + std::to_string(w.rank) + " op " + std::to_string(k) +
                                             " returned " + hccl_result_name(s.rc(k)) + " (" + r.describe() + ")";
                    // A refused overwrite of src (a local copy) means the reuse was
                    // never made: nothing is shown, neither way.
                    if (s.op(k).kind == HCTS_OP_LOCAL_COPY && s.rc(k) != 0) {
                        ev().unsupported(clause, what + ": the overwrite of src could not be made");
                        overwrite_refused[form] = true;
                    } else
                        ev().check(clause, s.rc(k) == 0, what);
                }
                judge_launch(r, clause, "rank " + std::to_string(w.rank) + "'s program", ev());
            }
            if (w.rank == 1)
                for (uint32_t i = 0; i < n; ++i) {
                    const auto got = dev.get(w.inbox(0) + 4096 + i * 2 * len, len);
                    const auto orig = check_payload(got, key_for(it + i, 0));
                    const auto over = check_payload(got, key_for(it + 500 + i, 0));
                    ++hists[form][orig.ok()        ? "original"
                                  : over.ok()      ? "overwritten"
                                  : over.new_words ? "mixed"
                                                   : "other"];
                    if (handshake)
                        ev().check(clause, over.new_words == 0,
                                   "write " + std::to_string(done + i) + ": " + std::to_string(over.new_words) +
                                       " words of dst hold the overwrite of src made after the receiver's ack");
                }
            mpi::phase_barrier("L11: checked");
        }
    }
    const Histogram sum0 = sum_on_root(hists[0]), sum1 = sum_on_root(hists[1]);
    if (w.rank == 0) {
        ev().litmus(litmus_entry("L11", "src-reuse after known completion", "Litmus.L11_SourceReuse", sum0,
                                 {"overwritten", "mixed"}));
        ev().litmus(profile_entry("L11.nbi", "src-reuse right after the call (same thread)", "Litmus.L11_SourceReuse",
                                  sum1, {"overwritten", "mixed"}));
        const uint64_t seen = sum1.at("overwritten") + sum1.at("mixed");
        if (!overwrite_refused[1]) // else NOT_SUPPORTED (recorded above): no overwrite was made to be seen
            ev().profile("WWN.LIT.11N", seen != 0 ? "overwrite-seen" : "payload-kept",
                         std::to_string(seen) + " of " + std::to_string(total) +
                             " writes carried (part of) an overwrite of src enqueued right behind the call");
    }
}

} // namespace hcts::litmus_source_reuse
