// Every notify index against its neighbours (WWN.NTF.8): writes with notify on
// every even index, then on every odd one, must leave the other parity quiet,
// and waits issued in reverse order of the writes all complete with their data.
// Two rounds per channel instead of one launch per pair: each quiet index has
// both neighbours raised, so i-1, i+1, 0 and N-1 are all covered.
#include "case_kit.h"

namespace hcts::cases_neighbours {
namespace {

constexpr uint64_t kSlot = 1024; // per index: dst and src slots
constexpr uint64_t kBase = 4096; // first dst slot in the inbox lane

uint64_t len_of(uint32_t i) { return 512 + i; } // distinct lengths, so a swapped write shows
StampKey key_of(uint32_t n, uint32_t i) { return {13, n * 100 + i, 0}; }

// One round: rank 0 writes with notify on `raised` (ascending, one thread),
// rank 1 proves the others quiet, then waits for `raised` in reverse order.
void round(const Ctx &c, uint32_t n, ChannelHandle ch, const std::vector<uint32_t> &raised,
           const std::vector<uint32_t> &quiet)
{
    const World &w = c.w;
    const Device &dev = w.device();
    for (uint32_t i : raised) {
        if (w.rank == 1)
            dev.poison(w.inbox(0) + kBase + i * kSlot, len_of(i));
        if (w.rank == 0) {
            std::vector<std::byte> p(len_of(i));
            fill_payload(p, key_of(n, i));
            dev.put(w.outbox() + i * kSlot, p);
        }
    }
    mpi::phase_barrier("neighbours: prepared");
    Script s;
    if (w.rank == 0)
        for (uint32_t i : raised)
            s.wwn(w.thread(), ch, w.remote_inbox(1, 0) + kBase + i * kSlot, w.outbox() + i * kSlot, len_of(i), i);
    const LaunchResult sr = c.run(s, 30000);
    if (w.rank == 0)
        for (size_t k = 0; k < raised.size(); ++k)
            if (s.rc(k) != 0)
                c.ev.error("WWN.NTF.8", "the write with notify on index " + std::to_string(raised[k]) +
                                            " of notifyNum " + std::to_string(n) + " returned " +
                                            hccl_result_name(s.rc(k)) + " (" + sr.describe() + ")");
    mpi::phase_barrier("neighbours: written");
    check_quiet(c, 0, 1, ch, ch, quiet, "WWN.NTF.8");
    Script waits;
    if (w.rank == 1)
        for (auto it = raised.rbegin(); it != raised.rend(); ++it)
            waits.wait(w.threads.at(1), ch, *it, w.ok_timeout());
    const LaunchResult r = c.run(waits, 60000);
    mpi::phase_barrier("neighbours: consumed");
    if (w.rank != 1)
        return;
    judge_launch(r, "WWN.NTF.8", "the waits in reverse order on notifyNum " + std::to_string(n), c.ev);
    for (size_t k = 0; k < waits.size(); ++k) {
        const uint32_t i = waits.op(k).idx;
        const auto got = check_payload(dev.get(w.inbox(0) + kBase + i * kSlot, len_of(i)), key_of(n, i));
        c.ev.check("WWN.NTF.8", waits.rc(k) == 0 && got.ok(),
                   "notifyNum " + std::to_string(n) + ": the wait on index " + std::to_string(i) + " (issued " +
                       std::to_string(k + 1) + " of " + std::to_string(waits.size()) +
                       ", reverse order of the writes) returned " + hccl_result_name(waits.rc(k)) +
                       "; its data: " + (got.ok() ? std::string("arrived") : got.first_bad));
    }
}

} // namespace

HCTS_CASE(Notify, EveryIndexIsolatedFromNeighbours, clauses("WWN.NTF.8"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    // The world's channel (notifyNum 64) and an odd notifyNum, whose edges share a parity.
    for (uint32_t n : {World::kNotifyNum, 5U}) {
        std::unique_ptr<ScopedChannels> own;
        ChannelHandle ch = w.channel_to(w.rank == 0 ? 1 : 0);
        if (n != World::kNotifyNum) {
            own = std::make_unique<ScopedChannels>(w, n);
            ch = own->to(w.rank == 0 ? 1 : 0);
            if (ch == 0) {
                if (w.rank <= 1)
                    ev().error("WWN.NTF.8", "HcclChannelAcquire(notifyNum " + std::to_string(n) + ") returned " +
                                                hccl_result_name(own->rc()));
                continue;
            }
        }
        if (w.rank > 1)
            ch = 0; // ranks 2.. only take part in the barriers
        for (uint32_t parity : {0U, 1U}) {
            std::vector<uint32_t> raised, quiet;
            for (uint32_t i = 0; i < n; ++i)
                (i % 2 == parity ? raised : quiet).push_back(i);
            round(c, n, ch, raised, quiet);
        }
    }
}

} // namespace hcts::cases_neighbours
