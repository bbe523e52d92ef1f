// Batches whose READs and writes touch the same bytes (API.BT.3, API.BT.4): each
// batch mixes WRITE, READ and WRITE_WITH_NOTIFY entries over overlapping ranges of
// one window in the peer's memory, at lengths from 1 byte to past a segment
// (4000 bytes in the segment configuration), and some writes with notify send what
// an earlier READ fetched ("relays"). A byte model run in array order says what
// every READ must fetch and what the window must hold at each wait and at the end,
// so any reordering of the entries shows: a read hoisted above a write fetches
// stale bytes, a relay hoisted above its READ sends what the READ's destination
// held before (poison). Which clause judges a byte follows what is promised:
// a READ after a write on one channel sees it, and a notify is fenced behind the
// READs before it (API.BT.3, MUST); a READ not overtaken by a later write, and a
// relay of bytes a plain write changed between its READ and it, rest on the
// reference's entry-after-entry order (API.BT.4, STRICT). Named Visibility.* so the
// segment and adversarial configurations run it too.
#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

#include "case_kit.h"

namespace hcts::cases_batch_reads {
namespace {

constexpr uint64_t kWin = 12 * 1024;      // the window at the receiver
constexpr uint64_t kWinBase = 3ULL << 20; // in the receiver's inbox lane for rank 0
constexpr uint64_t kSlot = 8 * 1024;      // per entry: its source, its READ's destination
constexpr uint64_t kMaxLen = 6000;        // past one 4000-byte segment
constexpr uint64_t kMaxRelay = 1024;      // a relay fits one WQE of any plausible segment size
constexpr uint32_t kLaunchMs = 30000;
constexpr uint32_t kStampRun = 35;

enum class Kind { Write, Read, Notify };

struct Entry {
    Kind kind = Kind::Write;
    uint64_t off = 0, len = 0;        // the window range it writes or reads
    std::optional<uint32_t> relay_of; // Notify: the READ entry whose destination it sends
    uint64_t relay_at = 0;            // ... from this offset in that READ's destination
    uint32_t notify = 0;
};

struct Rng {
    uint64_t x;
    uint64_t next()
    {
        x += 0x9E3779B97F4A7C15ULL;
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    uint64_t below(uint64_t n) { return next() % n; }
};

// A length from 1 byte to kMaxLen, small ones as likely as large ones.
uint64_t any_length(Rng &g)
{
    const uint64_t scale = std::array<uint64_t, 3>{16, 600, kMaxLen}[g.below(3)];
    return 1 + g.below(scale);
}

Entry entry(Kind kind, uint64_t off = 0, uint64_t len = 0)
{
    Entry e;
    e.kind = kind;
    e.off = off;
    e.len = len;
    return e;
}

std::vector<Entry> shape(uint32_t n, uint64_t seed)
{
    Rng g{seed * 0x2545F4914F6CDD1DULL + n};
    std::vector<Entry> es;
    uint32_t notify = 0;
    const auto range = [&](Entry &e, uint64_t len) {
        e.len = len;
        e.off = g.below(kWin - len + 1);
    };
    // Every batch of 4 or more starts with a READ between two writes of its range
    // (the second over its first half) and a relay of its second half: both
    // clauses see an order there in every run.
    if (n >= 4) {
        Entry w0 = entry(Kind::Write);
        range(w0, 64 + g.below(3000));
        Entry r1 = entry(Kind::Read, w0.off, w0.len);
        Entry w2 = entry(Kind::Write, w0.off, w0.len / 2);
        Entry x3 = entry(Kind::Notify);
        x3.relay_of = 1;
        x3.relay_at = w0.len / 2;
        range(x3, std::min(kMaxRelay, w0.len - w0.len / 2));
        x3.notify = notify++;
        es = {w0, r1, w2, x3};
    }
    while (es.size() + 1 < n) {
        Entry e;
        const uint64_t r = g.below(20);
        std::vector<uint32_t> reads;
        for (uint32_t k = 0; k < es.size(); ++k)
            if (es[k].kind == Kind::Read)
                reads.push_back(k);
        if (r < 7) {
            e.kind = Kind::Write;
            range(e, any_length(g));
        } else if (r < 13) {
            e.kind = Kind::Read;
            range(e, any_length(g));
        } else {
            e.kind = Kind::Notify;
            e.notify = notify++;
            if (!reads.empty() && g.below(3) != 0) {
                const uint32_t m = reads[g.below(reads.size())];
                e.relay_of = m;
                e.relay_at = g.below(es[m].len);
                range(e, 1 + g.below(std::min(kMaxRelay, es[m].len - e.relay_at)));
            } else {
                range(e, any_length(g));
            }
        }
        es.push_back(e);
    }
    // The last entry notifies: its wait covers the whole batch on a fenced library.
    Entry last = entry(Kind::Notify);
    range(last, any_length(g));
    last.notify = notify++;
    if (es.size() < n)
        es.push_back(last);
    return es;
}

std::string describe(const std::vector<Entry> &es)
{
    std::string s;
    for (size_t k = 0; k < es.size(); ++k) {
        const Entry &e = es[k];
        s += (k ? ", " : "") + std::to_string(k) + ":";
        s += e.kind == Kind::Write ? "WRITE" : e.kind == Kind::Read ? "READ" : "WRITE_WITH_NOTIFY";
        s += "[" + std::to_string(e.off) + "+" + std::to_string(e.len) + ")";
        if (e.relay_of)
            s += " from READ " + std::to_string(*e.relay_of) + "@" + std::to_string(e.relay_at);
        if (e.kind == Kind::Notify)
            s += "#" + std::to_string(e.notify);
    }
    return s;
}

StampKey source_key(uint32_t batch, uint32_t k) { return {kStampRun, batch * 64 + k, 0}; }
StampKey window_key(uint32_t batch) { return {kStampRun, batch * 64 + 63, 1}; }

// The byte model of one batch performed entry after entry.
struct Model {
    struct Byte {
        std::byte v{};
        bool strict = false; // the value rests on an order only API.BT.4 promises
    };
    std::vector<std::vector<Byte>> window_after; // the window after entry k
    std::vector<std::vector<Byte>> fetched;      // what READ k fetched (else empty)
    std::vector<std::vector<bool>> overtakable;  // READ k's bytes a later entry writes
};

bool writes(const Entry &e) { return e.kind != Kind::Read; }

Model run_model(const std::vector<Entry> &es, uint32_t batch)
{
    Model m;
    std::vector<std::byte> init(kWin);
    fill_payload(init, window_key(batch));
    std::vector<Model::Byte> win(kWin);
    for (uint64_t i = 0; i < kWin; ++i)
        win[i].v = init[i];
    m.fetched.resize(es.size());
    m.overtakable.resize(es.size());
    for (size_t k = 0; k < es.size(); ++k) {
        const Entry &e = es[k];
        if (e.kind == Kind::Read) {
            m.fetched[k].assign(win.begin() + static_cast<std::ptrdiff_t>(e.off),
                                win.begin() + static_cast<std::ptrdiff_t>(e.off + e.len));
            m.overtakable[k].assign(e.len, false);
            for (size_t j = k + 1; j < es.size(); ++j)
                if (writes(es[j]))
                    for (uint64_t i = 0; i < e.len; ++i)
                        if (e.off + i >= es[j].off && e.off + i < es[j].off + es[j].len)
                            m.overtakable[k][i] = true;
        } else if (e.relay_of) {
            const uint32_t r = *e.relay_of;
            const Entry &re = es[r];
            for (uint64_t i = 0; i < e.len; ++i) {
                Model::Byte b = m.fetched[r][e.relay_at + i];
                // A plain write between the READ and this relay may overtake the READ.
                const uint64_t src = re.off + e.relay_at + i;
                for (size_t j = r + 1; j < k; ++j)
                    if (writes(es[j]) && src >= es[j].off && src < es[j].off + es[j].len)
                        b.strict = true;
                win[e.off + i] = b;
            }
        } else {
            std::vector<std::byte> p(e.len);
            fill_payload(p, source_key(batch, static_cast<uint32_t>(k)));
            for (uint64_t i = 0; i < e.len; ++i)
                win[e.off + i] = {p[i], false};
        }
        m.window_after.push_back(win);
    }
    return m;
}

// The first byte of `got` that differs from the model, per clause: `settled`
// says which bytes are judged, `strict_extra` marks more bytes as API.BT.4's.
struct Mismatch {
    std::optional<uint64_t> must, strict;
    std::string at(uint64_t i, const std::vector<std::byte> &got, const std::vector<Model::Byte> &want,
                   uint64_t base) const
    {
        return "byte " + std::to_string(base + i) + " is " + hex(static_cast<uint8_t>(got[i])) + ", the model says " +
               hex(static_cast<uint8_t>(want[i].v));
    }
};

} // namespace

// Rank 0 sends each batch to rank 1, whose window holds a known pattern; rank 1
// waits for the batch's notifies in array order and snapshots the window right
// behind each wait. At the wait for entry p, a byte no later entry writes holds
// the model's value after p; once both programs ended every byte of the window
// does, and every READ's destination at rank 0 holds what the model says it fetched.
HCTS_CASE(Visibility, BatchReadsAndWrites, clauses("API.BT.3", "API.BT.4"),
          needs(Feature::BatchTransfer, Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const std::vector<uint32_t> lengths{2, 3, 4, 6, 9, 14, 24, 40};
    const std::string seed = "seed " + std::to_string(c.seed);
    for (uint32_t b = 0; b < lengths.size(); ++b) {
        const uint32_t n = lengths[b];
        const std::vector<Entry> es = shape(n, c.seed);
        const Model model = run_model(es, b);
        const std::string what = "the batch of " + std::to_string(n) + " (" + seed + ": " + describe(es) + ")";
        std::vector<size_t> notifies; // entries that notify, in array order
        for (size_t k = 0; k < es.size(); ++k)
            if (es[k].kind == Kind::Notify)
                notifies.push_back(k);
        if (w.rank == 0) {
            for (uint32_t k = 0; k < es.size(); ++k) {
                std::vector<std::byte> p(kSlot);
                fill_payload(p, source_key(b, k));
                dev.put(w.outbox() + k * kSlot, p);
            }
            dev.poison(w.scratch(), es.size() * kSlot);
        }
        if (w.rank == 1) {
            std::vector<std::byte> init(kWin);
            fill_payload(init, window_key(b));
            dev.put(w.inbox(0) + kWinBase, init);
            dev.poison(w.scratch(), notifies.size() * kWin);
        }
        mpi::phase_barrier("batch reads: prepared");
        Script s;
        if (w.rank == 0) {
            std::vector<HcommBatchTransferDesc> descs(es.size());
            std::byte *const peer_win = w.remote_inbox(1, 0) + kWinBase;
            for (uint32_t k = 0; k < es.size(); ++k) {
                HcommBatchTransferDesc &d = descs[k];
                std::memset(&d, 0, sizeof d);
                const Entry &e = es[k];
                switch (e.kind) {
                case Kind::Write:
                    d.transType = HCOMM_TRANSFER_TYPE_WRITE;
                    d.transferInfo.write = {e.len, peer_win + e.off, w.outbox() + k * kSlot};
                    break;
                case Kind::Read:
                    d.transType = HCOMM_TRANSFER_TYPE_READ;
                    d.transferInfo.read = {e.len, w.scratch() + k * kSlot, peer_win + e.off};
                    break;
                case Kind::Notify: {
                    std::byte *src =
                        e.relay_of ? w.scratch() + *e.relay_of * kSlot + e.relay_at : w.outbox() + k * kSlot;
                    d.transType = HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY;
                    d.transferInfo.writeWithNotify = {e.len, peer_win + e.off, src, e.notify};
                    break;
                }
                }
            }
            s.batch(w.thread(), w.channel_to(1), descs);
        } else if (w.rank == 1) {
            for (size_t j = 0; j < notifies.size(); ++j) {
                s.wait(w.thread(), w.channel_to(0), es[notifies[j]].notify, w.ok_timeout());
                s.copy(w.thread(), w.scratch() + j * kWin, w.inbox(0) + kWinBase, kWin).only_if_previous_ok();
            }
        }
        const LaunchResult r = c.run(s, kLaunchMs);
        mpi::phase_barrier("batch reads: done");
        // Judges `got` against the model's bytes where `judged`; a byte is API.BT.4's
        // when its value rests on a STRICT order (`strict`).
        const auto judge = [&](const std::string &where, const std::vector<std::byte> &got,
                               const std::vector<Model::Byte> &want, const std::vector<bool> &judged,
                               const std::vector<bool> &strict, uint64_t base) {
            Mismatch mm;
            for (uint64_t i = 0; i < got.size(); ++i) {
                if (!judged[i] || got[i] == want[i].v)
                    continue;
                auto &slot = (want[i].strict || strict[i]) ? mm.strict : mm.must;
                if (!slot)
                    slot = i;
            }
            if (mm.must)
                ev().check("API.BT.3", false, what + ": " + where + ": " + mm.at(*mm.must, got, want, base));
            else
                ev().check("API.BT.3", true, where);
            if (mm.strict)
                ev().check("API.BT.4", false,
                           what + ": " + where + ": " + mm.at(*mm.strict, got, want, base) +
                               " (a later entry's bytes, or a READ overtaken by a later write)");
            else
                ev().check("API.BT.4", true, where);
        };
        if (w.rank == 0) {
            if (r.trouble() == Trouble::Missing) {
                ev().unsupported("API.BT.3", "HcommBatchTransferOnThread is absent (" + r.describe() + ")");
                ev().unsupported("API.BT.4", "HcommBatchTransferOnThread is absent (" + r.describe() + ")");
            } else {
                ev().check("API.BT.3", s.rc(0) == 0 && r.ok(),
                           what + " returned " + hccl_result_name(s.rc(0)) + ", expected 0 (" + r.describe() + ")");
                if (s.rc(0) == 0)
                    for (size_t k = 0; k < es.size(); ++k)
                        if (es[k].kind == Kind::Read)
                            judge("READ entry " + std::to_string(k) + "'s destination",
                                  dev.get(w.scratch() + k * kSlot, es[k].len), model.fetched[k],
                                  std::vector<bool>(es[k].len, true), model.overtakable[k], 0);
            }
        } else if (w.rank == 1) {
            judge_launch(r, "API.BT.3", "the waits for " + what, ev());
            bool waits_ok = true;
            for (size_t j = 0; j < notifies.size(); ++j) {
                const size_t p = notifies[j];
                if (s.rc(2 * j) != 0) {
                    ev().check("API.BT.3", false,
                               what + ": the wait for entry " + std::to_string(p) + "'s notify " +
                                   std::to_string(es[p].notify) + " returned " + hccl_result_name(s.rc(2 * j)));
                    waits_ok = false;
                    break;
                }
                if (s.rc(2 * j + 1) == HCCL_E_NOT_SUPPORT) {
                    ev().unsupported("API.BT.3", "the copy right after the wait was refused with HCCL_E_NOT_SUPPORT");
                    waits_ok = false;
                    break;
                }
                // Bytes a later entry writes may still be in flight: not judged.
                std::vector<bool> settled(kWin, true);
                for (size_t k = p + 1; k < es.size(); ++k)
                    if (writes(es[k]))
                        std::fill(settled.begin() + static_cast<std::ptrdiff_t>(es[k].off),
                                  settled.begin() + static_cast<std::ptrdiff_t>(es[k].off + es[k].len), false);
                judge("right after the wait for entry " + std::to_string(p) + "'s notify, the window",
                      dev.get(w.scratch() + j * kWin, kWin), model.window_after[p], settled,
                      std::vector<bool>(kWin, false), 0);
            }
            if (waits_ok)
                judge("once the programs ended, the window", dev.get(w.inbox(0) + kWinBase, kWin),
                      model.window_after.back(), std::vector<bool>(kWin, true), std::vector<bool>(kWin, false), 0);
        }
        mpi::phase_barrier("batch reads: checked");
    }
}

} // namespace hcts::cases_batch_reads
