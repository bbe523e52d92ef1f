// Reads and local copies: HcommReadOnThread fetches the peer's bytes into local
// memory, HcommLocalCopyOnThread copies within it; every length and alignment,
// nothing outside [dst, dst+len) touched. Judged once the program completed
// (its threads drained): when a read's bytes become visible to later ops on the
// same stream the documents do not say (api §7.4: a stream moves on at the doorbell).
#include <cstring>

#include "case_kit.h"

namespace hcts::cases_read_copy {
namespace {

struct Piece {
    uint64_t len;
    uint64_t src_off; // in the source rank's outbox
};

// Lengths from one byte to beyond a segment and several pages, at odd offsets.
const std::vector<Piece> &pieces()
{
    static const std::vector<Piece> kPieces{{1, 0},       {2, 3},        {7, 13},       {64, 64},
                                            {4093, 1001}, {65537, 4099}, {262147, 8191}};
    return kPieces;
}

constexpr uint64_t kSlot = 300u << 10; // a piece and its guards in the destination area
constexpr uint64_t kGuard = 64;

uint64_t dst_off(size_t k) { return k * kSlot + kGuard + (k * 17) % 64; }

// Poisons every piece's destination and guards in `area` (this rank's memory).
void poison_area(const Device &dev, std::byte *area)
{
    for (size_t k = 0; k < pieces().size(); ++k)
        dev.poison(area + dst_off(k) - kGuard, pieces()[k].len + 2 * kGuard);
}

// Judges every piece in `area` against the payload of `key` at its source offset,
// and its guards against the poison, under `clause`.
void judge_area(const Device &dev, const std::byte *area, const StampKey &key, const std::vector<int32_t> &rcs,
                const char *call, const std::string &clause, Evidence &ev)
{
    for (size_t k = 0; k < pieces().size(); ++k) {
        const Piece &p = pieces()[k];
        const std::string what = std::string(call) + " of " + std::to_string(p.len) + " bytes (src +" +
                                 std::to_string(p.src_off) + ", dst +" + std::to_string(dst_off(k) % 64) + ")";
        if (!ev.check(clause, rcs[k] == HCCL_SUCCESS, what + " returned " + hccl_result_name(rcs[k])))
            continue;
        const std::vector<std::byte> got = dev.get(area + dst_off(k) - kGuard, p.len + 2 * kGuard);
        std::vector<std::byte> want(p.len);
        fill_payload(want, key, p.src_off);
        size_t first = SIZE_MAX;
        for (size_t i = 0; i < p.len && first == SIZE_MAX; ++i)
            if (got[kGuard + i] != want[i])
                first = i;
        ev.check(clause, first == SIZE_MAX,
                 what + ": byte " + std::to_string(first) + " of dst does not hold the source's byte (got " +
                     (first == SIZE_MAX ? "" : hex(static_cast<uint8_t>(got[kGuard + first]))) + ", expected " +
                     (first == SIZE_MAX ? "" : hex(static_cast<uint8_t>(want[first]))) + ")");
        const size_t before = count_not_pattern(std::span(got).first(kGuard), kPoisonWord);
        const size_t after = count_not_pattern(std::span(got).last(kGuard), kPoisonWord);
        ev.check(clause, before + after == 0,
                 what + ": " + std::to_string(before) + " bytes before and " + std::to_string(after) +
                     " after [dst, dst+len) changed");
    }
}

uint64_t source_span()
{
    uint64_t span = 0;
    for (const Piece &p : pieces())
        span = std::max(span, p.src_off + p.len);
    return span;
}

std::vector<int32_t> rcs_of(const Script &s)
{
    std::vector<int32_t> out;
    for (size_t i = 0; i < s.size(); ++i)
        out.push_back(s.rc(i));
    return out;
}

} // namespace

// Rank 0 reads every piece of rank 1's stamped outbox into its scratch.
HCTS_CASE(ReadCopy, RemoteBytesArrive, clauses("API.RD.1"), needs(Feature::Read, Feature::DeviceThreads))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const StampKey key{21, 1, 1};
    std::byte *const area = w.scratch();
    if (w.rank == 1) {
        std::vector<std::byte> src(source_span());
        fill_payload(src, key);
        dev.put(w.outbox(), src);
    }
    if (w.rank == 0)
        poison_area(dev, area);
    mpi::phase_barrier("read sources stamped");
    if (w.rank == 0) {
        // Rank 1's outbox, as this rank addresses it through the channel.
        std::byte *const remote_outbox = w.peers.at(1).remote_base + w.layout.outbox();
        Script s;
        for (size_t k = 0; k < pieces().size(); ++k)
            s.read(w.thread(), w.channel_to(1), area + dst_off(k), remote_outbox + pieces()[k].src_off,
                   pieces()[k].len);
        const LaunchResult r = c.run(s);
        judge_launch(r, "API.RD.1", "the program of reads", ev());
        judge_area(dev, area, key, rcs_of(s), "HcommReadOnThread", "API.RD.1", ev());
    }
    // Rank 1's outbox must stay as stamped until every read completed.
    mpi::phase_barrier("reads judged");
}

// Rank 0 copies every piece of its stamped outbox into its scratch.
HCTS_CASE(ReadCopy, LocalCopyExact, clauses("API.CPY.1"), needs(Feature::LocalCopy, Feature::DeviceThreads))
{
    const Ctx c = ctx();
    const World &w = c.w;
    if (w.rank != 0)
        return;
    const Device &dev = w.device();
    const StampKey key{21, 2, 0};
    std::byte *const area = w.scratch();
    std::vector<std::byte> src(source_span());
    fill_payload(src, key);
    dev.put(w.outbox(), src);
    poison_area(dev, area);
    Script s;
    for (size_t k = 0; k < pieces().size(); ++k)
        s.copy(w.thread(), area + dst_off(k), w.outbox() + pieces()[k].src_off, pieces()[k].len);
    const LaunchResult r = c.run(s);
    judge_launch(r, "API.CPY.1", "the program of local copies", ev());
    judge_area(dev, area, key, rcs_of(s), "HcommLocalCopyOnThread", "API.CPY.1", ev());
}

} // namespace hcts::cases_read_copy
