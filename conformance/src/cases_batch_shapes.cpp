// Batches of every shape: HcommBatchTransferOnThread performs its descriptors in
// array order (API.BT.3), for any length and any mix of entry types. Order is made
// observable by construction: writes go to a few shared destinations, so a later
// entry overwriting an earlier one must win, and every notify (a write with notify
// or a notify record) must follow the writes before it in the array. A library
// that performs some entries out of order (the third on, the tail reversed, a
// notify hoisted) shows a destination holding the wrong entry's payload.
#include <array>
#include <cstring>
#include <optional>

#include "case_kit.h"

namespace hcts::cases_batch_shapes {
namespace {

constexpr uint32_t kDsts = 3;          // shared destinations at the receiver
constexpr uint64_t kSlot = 4096;       // spacing of destinations, sources, read slots
constexpr uint64_t kBase = 2ULL << 20; // destinations in the receiver's inbox lane
constexpr uint64_t kReadBase = 8192;   // the receiver's bytes the batch reads (its outbox)
constexpr uint32_t kLaunchMs = 30000;
constexpr uint32_t kStampTag = 34;

uint64_t dst_len(uint32_t d) { return 512 + 64 * d; } // each destination has one length: no torn mixes

enum class Kind { Write, WriteNotify, Read, Record };

struct Entry {
    Kind kind;
    uint32_t dst = 0;    // Write, WriteNotify: destination; Read: its read slot
    uint32_t notify = 0; // WriteNotify, Record: notify index
};

const char *kind_name(Kind k)
{
    switch (k) {
    case Kind::Write: return "WRITE";
    case Kind::WriteNotify: return "WRITE_WITH_NOTIFY";
    case Kind::Read: return "READ";
    case Kind::Record: return "NOTIFY_RECORD";
    }
    return "?";
}

// The shape of a batch of n entries: a mix of every type over the shared
// destinations, from a small generator seeded by the run's seed and n, always
// ending with a write with notify (at whose wait every entry must be visible).
std::vector<Entry> shape(uint32_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ULL + n * 0xBF58476D1CE4E5B9ULL + 1;
    const auto next = [&] {
        x ^= x >> 30;
        x *= 0xBF58476D1CE4E5B9ULL;
        x ^= x >> 27;
        return x;
    };
    std::vector<Entry> out;
    uint32_t notify = 0, reads = 0;
    for (uint32_t k = 0; k + 1 < n; ++k) {
        const uint64_t r = next();
        // Writes dominate so destinations are overwritten often; the 2nd and 3rd
        // entries always write one destination, so every batch of 3 or more has a
        // pair whose order shows.
        Kind kind = std::array{Kind::Write, Kind::Write, Kind::WriteNotify, Kind::Read, Kind::Record}[r % 5];
        uint32_t d = static_cast<uint32_t>((r >> 8) % kDsts);
        if (k == 1 || k == 2) {
            kind = Kind::Write;
            d = 0;
        }
        Entry e{kind, d, 0};
        if (kind == Kind::WriteNotify || kind == Kind::Record)
            e.notify = notify++;
        if (kind == Kind::Read)
            e.dst = reads++;
        out.push_back(e);
    }
    out.push_back(Entry{Kind::WriteNotify, static_cast<uint32_t>(next() % kDsts), notify});
    return out;
}

StampKey write_key(uint32_t n, uint32_t k) { return {kStampTag, n, k}; }
StampKey read_key(uint32_t slot) { return {kStampTag, 1000, slot}; }

std::string describe_shape(const std::vector<Entry> &es)
{
    std::string s;
    for (size_t k = 0; k < es.size(); ++k) {
        s += (k ? ", " : "") + std::to_string(k) + ":" + kind_name(es[k].kind);
        if (es[k].kind == Kind::Write || es[k].kind == Kind::WriteNotify)
            s += "->d" + std::to_string(es[k].dst);
        if (es[k].kind == Kind::WriteNotify || es[k].kind == Kind::Record)
            s += "#" + std::to_string(es[k].notify);
    }
    return s;
}

// The entry whose payload destination d must hold once the entries [0, upto)
// were performed in order and none after them writes d; nullopt when some later
// entry writes d (it may be in flight) or none before `upto` did.
std::optional<uint32_t> settled_writer(const std::vector<Entry> &es, uint32_t d, size_t upto)
{
    std::optional<uint32_t> last;
    for (size_t k = 0; k < es.size(); ++k) {
        const bool writes = (es[k].kind == Kind::Write || es[k].kind == Kind::WriteNotify) && es[k].dst == d;
        if (!writes)
            continue;
        if (k >= upto)
            return std::nullopt;
        last = static_cast<uint32_t>(k);
    }
    return last;
}

} // namespace

// Rank 0 sends one batch of each length to rank 1; rank 1 waits for the batch's
// notifies in array order and snapshots every destination right behind each wait.
// At the wait for the notify of entry p, a destination that no entry after p
// writes must hold the payload of the last entry before p that wrote it; at the
// last entry's notify that is every destination. Rank 0 checks what its READ
// entries fetched once its program ended.
HCTS_CASE(Batch, ShapesKeepArrayOrder, clauses("API.BT.3"),
          needs(Feature::BatchTransfer, Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const std::vector<uint32_t> lengths{1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 31, 64};
    // The receiver's bytes that READ entries fetch: stamped once.
    if (w.rank == 1)
        for (uint32_t r = 0; r < 64; ++r) {
            std::vector<std::byte> p(kSlot / 2);
            fill_payload(p, read_key(r));
            dev.put(w.outbox() + kReadBase + r * kSlot, p);
        }
    const std::string seed = "seed " + std::to_string(c.seed);
    for (const uint32_t n : lengths) {
        const std::vector<Entry> es = shape(n, c.seed);
        const std::string what = "the batch of " + std::to_string(n) + " (" + seed + ": " + describe_shape(es) + ")";
        if (w.rank == 0) {
            for (uint32_t k = 0; k < n; ++k) {
                std::vector<std::byte> p(dst_len(es[k].dst));
                fill_payload(p, write_key(n, k));
                dev.put(w.outbox() + k * kSlot, p);
            }
            dev.poison(w.scratch(), 64 * kSlot);
        }
        if (w.rank == 1) {
            dev.poison(w.inbox(0) + kBase, kDsts * kSlot);
            dev.poison(w.scratch(), 64 * kDsts * kSlot);
        }
        mpi::phase_barrier("batch shapes: prepared");
        Script s;
        std::vector<size_t> notify_entry; // entry of each notify, in array order
        for (uint32_t k = 0; k < n; ++k)
            if (es[k].kind == Kind::WriteNotify || es[k].kind == Kind::Record)
                notify_entry.push_back(k);
        if (w.rank == 0) {
            std::vector<HcommBatchTransferDesc> descs(n);
            for (uint32_t k = 0; k < n; ++k) {
                HcommBatchTransferDesc &d = descs[k];
                std::memset(&d, 0, sizeof d);
                const Entry &e = es[k];
                void *dst = w.remote_inbox(1, 0) + kBase + e.dst * kSlot;
                void *src = w.outbox() + k * kSlot;
                switch (e.kind) {
                case Kind::Write:
                    d.transType = HCOMM_TRANSFER_TYPE_WRITE;
                    d.transferInfo.write = {dst_len(e.dst), dst, src};
                    break;
                case Kind::WriteNotify:
                    d.transType = HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY;
                    d.transferInfo.writeWithNotify = {dst_len(e.dst), dst, src, e.notify};
                    break;
                case Kind::Read: {
                    // READ: local dst, the peer's src (its stamped outbox bytes).
                    std::byte *peer_src = w.peers.at(1).remote_base + w.layout.outbox() + kReadBase + e.dst * kSlot;
                    d.transType = HCOMM_TRANSFER_TYPE_READ;
                    d.transferInfo.read = {kSlot / 2, w.scratch() + e.dst * kSlot, peer_src};
                    break;
                }
                case Kind::Record:
                    d.transType = HCOMM_TRANSFER_TYPE_NOTIFY_RECORD;
                    d.transferInfo.notifyRecord.notifyIdx = e.notify;
                    break;
                }
            }
            s.batch(w.thread(), w.channel_to(1), descs);
        } else if (w.rank == 1) {
            for (size_t j = 0; j < notify_entry.size(); ++j) {
                s.wait(w.thread(), w.channel_to(0), es[notify_entry[j]].notify, w.ok_timeout());
                s.copy(w.thread(), w.scratch() + j * kDsts * kSlot, w.inbox(0) + kBase, kDsts * kSlot)
                    .only_if_previous_ok();
            }
        }
        const LaunchResult r = c.run(s, kLaunchMs);
        mpi::phase_barrier("batch shapes: done");
        if (w.rank == 0) {
            if (r.trouble() == Trouble::Missing)
                ev().unsupported("API.BT.3", "HcommBatchTransferOnThread is absent (" + r.describe() + ")");
            else
                ev().check("API.BT.3", s.rc(0) == 0 && r.ok(),
                           what + " returned " + hccl_result_name(s.rc(0)) + ", expected 0 (" + r.describe() + ")");
            for (uint32_t k = 0; k < n; ++k)
                if (es[k].kind == Kind::Read) {
                    const auto got = check_payload(dev.get(w.scratch() + es[k].dst * kSlot, kSlot / 2),
                                                   read_key(es[k].dst), "the READ's dst");
                    ev().check("API.BT.3", got.ok(),
                               what + ": entry " + std::to_string(k) + " (READ) fetched: " + got.first_bad);
                }
        } else if (w.rank == 1) {
            judge_launch(r, "API.BT.3", "the waits for " + what, ev());
            for (size_t j = 0; j < notify_entry.size(); ++j) {
                const size_t p = notify_entry[j];
                const int32_t wrc = s.rc(2 * j), crc = s.rc(2 * j + 1);
                if (wrc != 0) {
                    ev().check("API.BT.3", false,
                               what + ": the wait for entry " + std::to_string(p) + "'s notify " +
                                   std::to_string(es[p].notify) + " returned " + hccl_result_name(wrc));
                    break;
                }
                if (crc == HCCL_E_NOT_SUPPORT) {
                    ev().unsupported("API.BT.3", "the copy right after the wait was refused with HCCL_E_NOT_SUPPORT");
                    break;
                }
                // The notify of entry p covers entries [0, p], itself included when it writes.
                for (uint32_t d = 0; d < kDsts; ++d) {
                    const auto writer = settled_writer(es, d, p + 1);
                    if (!writer)
                        continue;
                    const auto got = check_payload(dev.get(w.scratch() + (j * kDsts + d) * kSlot, dst_len(d)),
                                                   write_key(n, *writer), "destination d" + std::to_string(d));
                    ev().check("API.BT.3", got.ok(),
                               what + ": right after the wait for entry " + std::to_string(p) + "'s notify, d" +
                                   std::to_string(d) + " must hold entry " + std::to_string(*writer) +
                                   "'s payload (the last write to it in array order, none after it): " + got.first_bad);
                }
            }
            // Once both programs ended every destination holds its last writer's payload.
            for (uint32_t d = 0; d < kDsts; ++d) {
                const auto writer = settled_writer(es, d, n);
                if (!writer)
                    continue;
                const auto got =
                    check_payload(dev.get(w.inbox(0) + kBase + d * kSlot, dst_len(d)), write_key(n, *writer));
                ev().check("API.BT.3", got.ok(),
                           what + ": once the programs ended d" + std::to_string(d) + " must hold entry " +
                               std::to_string(*writer) + "'s payload (a later entry wins): " + got.first_bad);
            }
        }
        mpi::phase_barrier("batch shapes: checked");
    }
}

// A batch takes its descriptors at the call (API.BT.5): the vendor builds a call's work
// when it is made (api §7.4), so a caller may refill its array as soon as the call
// returned, as a loop over one array does. Rank 0's thread is held on a thread notify,
// the batch queued behind the hold, the array refilled with descriptors to other places
// (other sources too) and only then the hold released from a second thread: rank 1 must
// find the first descriptors' payloads, and poison where the refilled ones point.
HCTS_CASE(Batch, DescriptorsAreTakenAtTheCall, clauses("API.BT.5"),
          needs(Feature::BatchTransfer, Feature::WriteWithNotify, Feature::NotifyWait, Feature::ThreadNotify))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    constexpr uint32_t kEntries = 3, kHold = 7, kIdx = 9;
    constexpr uint64_t kLen = 1000, kTaken = kBase, kRefilled = kBase + 8 * kSlot;
    const auto key = [](uint32_t k, bool refilled) { return StampKey{kStampTag, refilled ? 2001U : 2000U, k}; };
    if (w.rank == 0)
        for (uint32_t k = 0; k < kEntries; ++k)
            for (const bool refilled : {false, true}) {
                std::vector<std::byte> p(kLen);
                fill_payload(p, key(k, refilled));
                dev.put(w.outbox() + (refilled ? 4 + k : k) * kSlot, p);
            }
    if (w.rank == 1)
        dev.poison(w.inbox(0) + kTaken, kRefilled + kEntries * kSlot - kTaken);
    mpi::phase_barrier("batch descriptors: prepared");
    Script s;
    if (w.rank == 0) {
        const auto descs = [&](bool refilled) {
            std::vector<HcommBatchTransferDesc> d(kEntries);
            for (uint32_t k = 0; k < kEntries; ++k) {
                std::memset(&d[k], 0, sizeof d[k]);
                void *dst = w.remote_inbox(1, 0) + (refilled ? kRefilled : kTaken) + k * kSlot;
                void *src = w.outbox() + (refilled ? 4 + k : k) * kSlot;
                if (k + 1 < kEntries) {
                    d[k].transType = HCOMM_TRANSFER_TYPE_WRITE;
                    d[k].transferInfo.write = {kLen, dst, src};
                } else {
                    d[k].transType = HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY;
                    d[k].transferInfo.writeWithNotify = {kLen, dst, src, kIdx};
                }
            }
            return d;
        };
        s.thread_wait(w.thread(), kHold, w.ok_timeout());
        s.batch(w.thread(), w.channel_to(1), descs(false));
        s.reuse_last_batch_descs(descs(true));
        s.thread_record(w.threads.at(1), w.thread(), kHold);
    } else if (w.rank == 1) {
        s.wait(w.thread(), w.channel_to(0), kIdx, w.ok_timeout());
    }
    const LaunchResult r = c.run(s, kLaunchMs);
    mpi::phase_barrier("batch descriptors: done");
    const char *cl = "API.BT.5";
    if (w.rank == 0) {
        if (r.trouble() == Trouble::Missing) {
            ev().unsupported(cl, "a call of the program is absent (" + r.describe() + ")");
        } else if (s.rc(0) == HCCL_E_NOT_SUPPORT || s.rc(3) == HCCL_E_NOT_SUPPORT) {
            ev().unsupported(cl, "a thread notify was refused with HCCL_E_NOT_SUPPORT: the thread cannot be held");
        } else if (s.rc(2) != 0) {
            ev().error(cl, "the programs library did not refill the array (HCTS_OP_REUSE_ARGS returned " +
                               std::to_string(s.rc(2)) + "): it predates the op");
        } else {
            ev().check(cl, s.rc(1) == 0 && s.rc(0) == 0 && s.rc(3) == 0 && r.ok(),
                       "the hold " + hccl_result_name(s.rc(0)) + ", the batch " + hccl_result_name(s.rc(1)) +
                           " and the release " + hccl_result_name(s.rc(3)) + " must return 0 (" + r.describe() + ")");
        }
    } else if (w.rank == 1) {
        judge_launch(r, cl, "the wait for the batch's notify", ev());
        ev().check(cl, s.rc(0) == 0,
                   "the wait for the batch's write with notify returned " + hccl_result_name(s.rc(0)));
        for (uint32_t k = 0; k < kEntries; ++k) {
            const auto got = check_payload(dev.get(w.inbox(0) + kTaken + k * kSlot, kLen), key(k, false));
            ev().check(cl, got.ok(),
                       "entry " + std::to_string(k) + " as it was at the call must be performed: " + got.first_bad);
            size_t first = 0;
            const size_t changed =
                count_not_pattern(dev.get(w.inbox(0) + kRefilled + k * kSlot, kLen), kPoisonWord, &first);
            ev().check(cl, changed == 0,
                       "entry " + std::to_string(k) +
                           " as the caller refilled it after the call was performed: " + std::to_string(changed) +
                           " bytes changed where it points, the first at byte " + std::to_string(first));
        }
    }
    mpi::phase_barrier("batch descriptors: checked");
}

} // namespace hcts::cases_batch_shapes
