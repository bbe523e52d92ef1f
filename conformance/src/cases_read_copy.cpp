// Reads and local copies: HcommReadOnThread fetches the peer's bytes into local
// memory, HcommLocalCopyOnThread copies within it; every length and alignment,
// nothing outside [dst, dst+len) touched. Judged once the program completed
// (its threads drained): when a read's bytes become visible to later ops on the
// same stream the documents do not say (api §7.4: a stream moves on at the doorbell).
#include <cstring>

#include "case_kit.h"

namespace hcts {
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

} // namespace

HCTS_CASE(ReadCopy, RemoteBytesArrive, clauses("API.RD.1", "API.CPY.1"),
          needs(Feature::Read, Feature::LocalCopy, Feature::DeviceThreads))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const StampKey remote_key{21, 1, 1}, local_key{21, 2, 0};
    uint64_t span = 0;
    for (const Piece &p : pieces())
        span = std::max(span, p.src_off + p.len);
    std::byte *const read_area = w.scratch();
    std::byte *const copy_area = w.scratch() + pieces().size() * kSlot;
    if (w.rank == 1) {
        std::vector<std::byte> src(span);
        fill_payload(src, remote_key);
        dev.put(w.outbox(), src);
    }
    if (w.rank == 0) {
        std::vector<std::byte> src(span);
        fill_payload(src, local_key);
        dev.put(w.outbox(), src);
        poison_area(dev, read_area);
        poison_area(dev, copy_area);
    }
    mpi::phase_barrier("read sources stamped");
    if (w.rank == 0) {
        // Rank 1's outbox, as this rank addresses it through the channel.
        std::byte *const remote_outbox = w.peers.at(1).remote_base + w.layout.outbox();
        Script s;
        for (size_t k = 0; k < pieces().size(); ++k) {
            const Piece &p = pieces()[k];
            s.read(w.thread(), w.channel_to(1), read_area + dst_off(k), remote_outbox + p.src_off, p.len);
            s.copy(w.thread(), copy_area + dst_off(k), w.outbox() + p.src_off, p.len);
        }
        const LaunchResult r = c.run(s);
        judge_launch(r, "API.RD.1", "the program of reads", ev());
        judge_launch(r, "API.CPY.1", "the program of local copies", ev());
        std::vector<int32_t> read_rc, copy_rc;
        for (size_t k = 0; k < pieces().size(); ++k) {
            read_rc.push_back(s.rc(2 * k));
            copy_rc.push_back(s.rc(2 * k + 1));
        }
        judge_area(dev, read_area, remote_key, read_rc, "HcommReadOnThread", "API.RD.1", ev());
        judge_area(dev, copy_area, local_key, copy_rc, "HcommLocalCopyOnThread", "API.CPY.1", ev());
    }
    // Rank 1's outbox must stay as stamped until every read completed.
    mpi::phase_barrier("reads judged");
}

} // namespace hcts
