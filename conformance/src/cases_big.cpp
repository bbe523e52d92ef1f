// A write with notify of more than 4 GiB (WWN.BIG.1): every byte arrives, or the
// call is refused with no effect; the vendor's UB path holds the length in 32
// bits (api §9.2), which would deliver len mod 2^32 bytes and still notify.
// Costly (two buffers above 4 GiB, ~8.5 GiB of memory for 2 ranks, several
// seconds), so it runs only with --big (HCTS_BIG=1).
#include <chrono>
#include <cstring>

#include "case_kit.h"

namespace hcts::cases_big {
namespace {

constexpr uint64_t kLen = (uint64_t{1} << 32) + 4096 + 13; // past 4 GiB, by an odd amount
constexpr uint64_t kOff = 4096;                            // src and dst offset in each buffer
constexpr uint64_t kChunk = uint64_t{256} << 20;           // host staging, so no 4 GiB vector
constexpr uint32_t kIdx = 30;

double ms_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The payload: each 8-byte word names its own offset (a multiplicative hash of
// the word index and the run's key), cheap enough for 4 GiB where the stamp
// codec is not; a shifted, truncated or repeated range shows at its first word.
void fill_big(std::span<std::byte> out, uint64_t first_offset) // first_offset: a multiple of 8
{
    const uint64_t first_word = first_offset / 8;
    const auto word_at = [&](uint64_t i) {
        return (first_word + i + 1) * 0x9e3779b97f4a7c15ULL ^ 0x4249472d57574e31ULL; // "BIG-WWN1"
    };
    const size_t words = out.size() / 8;
    for (size_t i = 0; i < words; ++i) {
        const uint64_t word = word_at(i);
        std::memcpy(out.data() + i * 8, &word, 8);
    }
    if (const size_t tail = out.size() % 8; tail != 0) {
        const uint64_t word = word_at(words);
        std::memcpy(out.data() + words * 8, &word, tail);
    }
}

// Compares [dst, dst+kLen) with the payload, chunk by chunk: the first byte that
// differs (UINT64_MAX when none) and, when asked, whether every byte still holds poison.
struct BigCheck {
    uint64_t first_bad = UINT64_MAX;
    bool all_poison = true;
};
BigCheck check_big(const Device &dev, const std::byte *dst, bool want_poison)
{
    BigCheck out;
    std::vector<std::byte> want(kChunk);
    for (uint64_t off = 0; off < kLen; off += kChunk) {
        const size_t n = static_cast<size_t>(std::min(kChunk, kLen - off));
        const std::vector<std::byte> got = dev.get(dst + off, n);
        if (want_poison) {
            out.all_poison = out.all_poison && count_not_pattern(got, kPoisonWord) == 0;
            continue;
        }
        fill_big(std::span(want).first(n), off);
        const auto bad = std::mismatch(got.begin(), got.end(), want.begin());
        if (bad.first != got.end()) {
            out.first_bad = off + static_cast<uint64_t>(bad.first - got.begin());
            break;
        }
    }
    return out;
}

} // namespace

HCTS_CASE(Big, WriteAbove4GiB, clauses("WWN.BIG.1"), needs(Feature::WriteWithNotify, Feature::NotifyWait))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const uint64_t need = kOff + kLen + World::kGuard;
    const uint64_t peer_size = w.rank <= 1 ? w.peers.at(static_cast<size_t>(w.rank == 0 ? 1 : 0)).remote_size : 0;
    const bool fits = w.rank > 1 || (w.local_size >= need && peer_size >= need);
    if (!mpi::all_ranks(fits, "big buffers")) {
        if (w.rank == 1)
            ev().profile("WWN.BIG.1", "buffer-too-small",
                         "HcclGetHcclBuffer gave " + std::to_string(w.local_size) + " bytes, the peer's is " +
                             std::to_string(peer_size) + "; a write of " + std::to_string(kLen) + " bytes at offset " +
                             std::to_string(kOff) + " needs " + std::to_string(need) +
                             " (reference: HCCL_BUFFSIZE=2100, MB, and --big)");
        return;
    }
    if (!options().big) {
        if (w.rank <= 1)
            ev().unsupported("WWN.BIG.1", "not run: the buffers hold a write of " + std::to_string(kLen) +
                                              " bytes, but it costs seconds and GiBs: pass --big (HCTS_BIG=1)");
        return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    std::byte *dst = w.local_base + kOff; // rank 1's own buffer
    if (w.rank <= 1) {
        // Rank 1 poisons dst, rank 0 writes the payload to src, through one staging chunk.
        std::vector<std::byte> p(kChunk);
        if (w.rank == 1)
            fill_pattern(p, kPoisonWord);
        for (uint64_t off = 0; off < kLen; off += kChunk) {
            const size_t n = static_cast<size_t>(std::min(kChunk, kLen - off));
            if (w.rank == 0)
                fill_big(std::span(p).first(n), off);
            dev.put(w.local_base + kOff + off, std::span(p).first(n));
        }
        if (w.rank == 1)
            dev.stamp(dst + kLen, World::kGuard, kGuardWord);
    }
    mpi::phase_barrier("big: prepared");
    const double prep_ms = ms_since(t0);
    Script s;
    if (w.rank == 0)
        s.wwn(w.thread(), w.channel_to(1), w.peers[1].remote_base + kOff, w.local_base + kOff, kLen, kIdx);
    // The wait outlasts the transfer by far: moving 4 GiB took 14-20 s on a VM where a
    // page's first touch costs ~12 us (selftest runs two entries at once), and a wait
    // that ends first reads as a truncated write. The launch deadline stays above it.
    constexpr uint32_t kWaitS = 100;
    if (w.rank == 1)
        s.wait(w.threads.at(1), w.channel_to(0), kIdx, w.timeout_of(kWaitS));
    const LaunchResult r = c.run(s, (kWaitS + 20) * 1000);
    int32_t rc = w.rank == 0 ? s.rc(0) : 0;
    mpi::broadcast(std::as_writable_bytes(std::span(&rc, 1)), 0, "big: the call's return code");
    if (w.rank != 1)
        return;
    const auto t1 = std::chrono::steady_clock::now();
    const BigCheck got = check_big(dev, dst, rc != 0);
    const size_t guard_bad = count_not_pattern(dev.get(dst + kLen, World::kGuard), kGuardWord);
    ev().observe("big_ms", nlohmann::json{{"prepare", prep_ms}, {"transfer", r.elapsed_ms()}, {"check", ms_since(t1)}});
    const std::string len = std::to_string(kLen);
    if (rc != 0) {
        if (got.all_poison && guard_bad == 0)
            ev().profile("WWN.BIG.1", "refused",
                         "len " + len + " returned " + hccl_result_name(rc) + ", no byte written");
        else
            ev().profile("WWN.BIG.1", "truncated",
                         "len " + len + " returned " + hccl_result_name(rc) + " but bytes of dst or its guard changed");
    } else if (s.rc(0) != 0 || !r.ok()) {
        ev().profile("WWN.BIG.1", "truncated",
                     "len " + len + " was accepted but the wait for its notify returned " + hccl_result_name(s.rc(0)) +
                         " (" + r.describe() + ")");
    } else if (got.first_bad != UINT64_MAX || guard_bad != 0) {
        ev().profile("WWN.BIG.1", "truncated",
                     "len " + len + " was accepted and notified, but dst differs from the payload from byte " +
                         std::to_string(got.first_bad) +
                         (got.first_bad == (kLen & 0xffffffffULL) ? " (len mod 2^32)" : "") +
                         ", guard bytes changed: " + std::to_string(guard_bad));
    } else {
        ev().profile("WWN.BIG.1", "delivered",
                     "all " + len + " bytes arrived (transfer " + std::to_string(r.elapsed_ms()) + " ms)");
    }
}

} // namespace hcts::cases_big
