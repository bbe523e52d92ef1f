// A long stream of writes with notify whose lengths walk every size and every
// remainder modulo 64, a few MiB in all: on softverbs the segment configuration
// carries every payload through its same-host rings (SOFTVERBS_TRANSPORT=ring), so
// the stream wraps each 256 KiB ring a few dozen times with records of every size
// meeting the wrap point at every alignment, while the receiver lags behind its
// waits. Each destination must hold its payload whole (WWN.VIS.4): a transport
// that overwrites unread bytes at the wrap, or loses a record, shows here.
#include "case_kit.h"

namespace hcts::cases_stream {
namespace {

constexpr uint32_t kPerRound = World::kNotifyNum; // one write with notify per index
constexpr uint64_t kBase = 8ULL << 20;            // in the receiver's inbox lane
constexpr uint32_t kStampRun = 36;

// The lengths of one round: every remainder modulo 64 by construction (length k
// has remainder (k * 37 + round) % 64), scaled from a few bytes to beyond a 64 KiB
// ring chunk as the rounds go on.
std::vector<uint64_t> lengths_of(uint32_t round, uint64_t seed)
{
    static constexpr uint64_t kScale[] = {1024, 8192, 24000, 70000, 140000};
    std::vector<uint64_t> out;
    uint64_t x = seed * 0x9E3779B97F4A7C15ULL + round;
    for (uint32_t k = 0; k < kPerRound; ++k) {
        x ^= x >> 31;
        x *= 0xBF58476D1CE4E5B9ULL;
        const uint64_t scale = kScale[round % std::size(kScale)];
        const uint64_t len = (x >> 8) % scale / 64 * 64 + (k * 37 + round) % 64;
        out.push_back(len == 0 ? 1 : len);
    }
    return out;
}

} // namespace

// Rank 0 sends rounds of 64 writes with notify (one per index) back to back into
// packed destinations; rank 1 waits for each in order, then copies the round's
// destinations on its stream and checks every byte.
HCTS_CASE(Visibility, LongStreamEverySize, clauses("WWN.VIS.4"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const uint32_t rounds = 5;
    uint64_t moved = 0;
    for (uint32_t round = 0; round < rounds; ++round) {
        const std::vector<uint64_t> lens = lengths_of(round, c.seed);
        std::vector<uint64_t> at(lens.size());
        uint64_t total = 0;
        for (size_t k = 0; k < lens.size(); ++k) {
            at[k] = total + (k % 8); // unaligned, packed
            total = at[k] + lens[k];
        }
        moved += total;
        const auto key = [&](size_t k) { return StampKey{kStampRun, round * kPerRound + static_cast<uint32_t>(k), 0}; };
        if (w.rank == 0) {
            std::vector<std::byte> src(total);
            for (size_t k = 0; k < lens.size(); ++k)
                fill_payload(std::span(src).subspan(at[k], lens[k]), key(k));
            dev.put(w.outbox(), src);
        }
        if (w.rank == 1) {
            dev.poison(w.inbox(0) + kBase, total);
            dev.poison(w.scratch(), total);
        }
        mpi::phase_barrier("long stream: prepared");
        Script s;
        if (w.rank == 0)
            for (size_t k = 0; k < lens.size(); ++k)
                s.wwn(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + kBase + at[k], w.outbox() + at[k], lens[k],
                      static_cast<uint32_t>(k));
        if (w.rank == 1) {
            for (size_t k = 0; k < lens.size(); ++k)
                s.wait(w.thread(), w.channel_to(0), static_cast<uint32_t>(k), w.ok_timeout());
            s.copy(w.thread(), w.scratch(), w.inbox(0) + kBase, total).only_if_previous_ok();
        }
        const LaunchResult r = c.run(s, 60000);
        mpi::phase_barrier("long stream: done");
        const std::string what = "round " + std::to_string(round) + " of the long stream (" +
                                 std::to_string(lens.size()) + " writes with notify, " + std::to_string(total) +
                                 " bytes, seed " + std::to_string(c.seed) + ")";
        if (w.rank == 0)
            for (size_t k = 0; k < lens.size(); ++k)
                if (!ev().check("WWN.VIS.4", s.rc(k) == 0,
                                what + ": write " + std::to_string(k) + " returned " + hccl_result_name(s.rc(k))))
                    break;
        if (w.rank == 1) {
            judge_launch(r, "WWN.VIS.4", "the receiver's waits in " + what, ev());
            bool waited = true;
            for (size_t k = 0; k < lens.size() && waited; ++k)
                waited = ev().check("WWN.VIS.4", s.rc(k) == 0,
                                    what + ": the wait for notify " + std::to_string(k) + " returned " +
                                        hccl_result_name(s.rc(k)));
            if (waited && s.rc(lens.size()) == 0) {
                const std::vector<std::byte> got = dev.get(w.scratch(), total);
                for (size_t k = 0; k < lens.size(); ++k) {
                    const auto chk = check_payload(std::span(got).subspan(at[k], lens[k]), key(k), "destination");
                    if (!ev().check("WWN.VIS.4", chk.ok(),
                                    what + ": after every wait, write " + std::to_string(k) + "'s destination (" +
                                        std::to_string(lens[k]) + " bytes at " + std::to_string(at[k]) +
                                        "): " + chk.first_bad))
                        break;
                }
            }
        }
        mpi::phase_barrier("long stream: checked");
    }
    if (w.rank == 1)
        ev().observe("long_stream_bytes", static_cast<double>(moved));
}

} // namespace hcts::cases_stream
