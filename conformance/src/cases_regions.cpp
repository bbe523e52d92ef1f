// Regions of the input space a bug can hide in, spanned by construction rather
// than sampled by one case each: every thread the comm gives out (sending and
// receiving), destinations and sources anywhere in the peer's communication
// memory (its first and last megabyte included), thousands of notifies through
// one channel on one index and on every index, reads split into segments and
// chains, and write-reduces with notify larger than one internal chunk. The
// cases but the long run are in suites the segment and adversarial
// configurations run too, so each length also crosses the segment size there.
#include <functional>

#include "case_kit.h"
#include "hcomm/hcomm_primitives.h"
#include "reduce_data.h"

namespace hcts::cases_regions {
namespace {

constexpr uint64_t kMiB = 1ULL << 20;
constexpr uint64_t kGuard = World::kGuard;
// Below this the edge cases cannot keep their regions apart (the reference gives 400 MB).
constexpr uint64_t kMinBuffer = 64 * kMiB;

constexpr uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// One write with notify between ranks 0 and 1, placed by offsets into their
// communication memories, on threads named by their slot in each rank's list.
struct Shot {
    int sender = 0;
    uint64_t dst = 0;  // in the receiver's memory
    uint64_t src = 0;  // in the sender's memory
    uint64_t snap = 0; // in the receiver's memory: its copy of dst right after the wait
    uint64_t len = 0;
    uint32_t idx = 0;
    size_t send_slot = 0; // the sender's thread
    size_t recv_slot = 0; // the receiver's thread: the wait and the snapshot
    StampKey key{};
    std::string where; // for messages
    int receiver() const { return 1 - sender; }
    std::string what(uint64_t size) const
    {
        return "write with notify of " + std::to_string(len) + " bytes to offset " + std::to_string(dst) + " of " +
               std::to_string(size) + " (" + where + "), rank " + std::to_string(sender) + "->" +
               std::to_string(receiver()) + ", idx " + std::to_string(idx) + ", sender thread #" +
               std::to_string(send_slot) + ", receiver thread #" + std::to_string(recv_slot);
    }
};

struct Clauses3 {
    std::string at_wait, visible, guards;
};

// Runs the shots in one launch per rank (every sender's write, then every
// receiver's wait and snapshot on its thread) and judges what this rank owns:
// return codes, the snapshot right after the wait (`at_wait`), dst once every
// program completed (`visible`), and the guard words around dst that lie inside
// the memory (`guards`). `size` is every rank's communication memory.
void run_shots(const Ctx &c, const std::vector<Shot> &shots, const std::vector<ThreadHandle> &threads, uint64_t size,
               const Clauses3 &cl)
{
    const World &w = c.w;
    const Device &dev = w.device();
    std::byte *const base = w.local_base;
    for (const Shot &x : shots) {
        if (x.receiver() == w.rank) {
            dev.poison(base + x.dst, x.len);
            dev.poison(base + x.snap, x.len);
            if (x.dst >= kGuard)
                dev.stamp(base + x.dst - kGuard, kGuard, kGuardWord);
            if (x.dst + x.len + kGuard <= size)
                dev.stamp(base + x.dst + x.len, kGuard, kGuardWord);
        }
        if (x.sender == w.rank) {
            std::vector<std::byte> p(x.len);
            fill_payload(p, x.key);
            dev.put(base + x.src, p);
        }
    }
    mpi::phase_barrier("regions: shots prepared");
    Script s;
    std::vector<int> send_op(shots.size(), -1), wait_op(shots.size(), -1);
    for (size_t i = 0; i < shots.size(); ++i) {
        const Shot &x = shots[i];
        if (x.sender != w.rank)
            continue;
        send_op[i] = static_cast<int>(s.size());
        s.wwn(threads.at(x.send_slot), w.channel_to(x.receiver()),
              w.peers.at(static_cast<size_t>(x.receiver())).remote_base + x.dst, base + x.src, x.len, x.idx);
    }
    for (size_t i = 0; i < shots.size(); ++i) {
        const Shot &x = shots[i];
        if (x.receiver() != w.rank)
            continue;
        wait_op[i] = static_cast<int>(s.size());
        s.wait(threads.at(x.recv_slot), w.channel_to(x.sender), x.idx, w.ok_timeout());
        s.copy(threads.at(x.recv_slot), base + x.snap, base + x.dst, x.len).only_if_previous_ok();
    }
    const LaunchResult r = c.run(s);
    mpi::phase_barrier("regions: shots launched");
    bool launch_judged = false;
    for (size_t i = 0; i < shots.size(); ++i) {
        const Shot &x = shots[i];
        const std::string what = x.what(size);
        if (send_op[i] >= 0) {
            const int32_t rc = s.rc(static_cast<size_t>(send_op[i]));
            c.ev.check(cl.visible, rc == HCCL_SUCCESS, what + " returned " + hccl_result_name(rc));
        }
        if (wait_op[i] < 0)
            continue;
        if (!launch_judged) {
            judge_launch(r, cl.visible, "the receiver's program", c.ev);
            launch_judged = true;
        }
        const int32_t wait_rc = s.rc(static_cast<size_t>(wait_op[i]));
        const int32_t copy_rc = s.rc(static_cast<size_t>(wait_op[i]) + 1);
        c.ev.check(cl.visible, wait_rc == HCCL_SUCCESS, what + ": the wait returned " + hccl_result_name(wait_rc));
        const PayloadCheck host = check_payload(dev.get(base + x.dst, x.len), x.key, "dst (host read)");
        c.ev.check(cl.visible, host.ok(), what + ", after every program completed: " + host.first_bad);
        if (wait_rc == HCCL_SUCCESS && copy_rc == HCCL_SUCCESS && r.trouble() != Trouble::Harness) {
            const PayloadCheck snap =
                check_payload(dev.get(base + x.snap, x.len), x.key, "dst (device-stream read right after the wait)");
            c.ev.check(cl.at_wait, snap.ok(), what + ": " + snap.first_bad);
        } else if (wait_rc == HCCL_SUCCESS) {
            c.ev.unsupported(cl.at_wait, what + ": no snapshot right after the wait: the copy returned " +
                                             hccl_result_name(copy_rc) + " (" + r.describe() + ")");
        }
        size_t bad = 0;
        if (x.dst >= kGuard)
            bad += count_not_pattern(dev.get(base + x.dst - kGuard, kGuard), kGuardWord);
        if (x.dst + x.len + kGuard <= size)
            bad += count_not_pattern(dev.get(base + x.dst + x.len, kGuard), kGuardWord);
        c.ev.check(cl.guards, bad == 0, what + ": " + std::to_string(bad) + " guard bytes around dst changed");
    }
}

// Lengths just below, at and above one, two and three segments, and many
// segments with a short tail (as Visibility.LengthSweep), capped at `cap`.
std::vector<uint64_t> around_segments(uint64_t s, std::initializer_list<uint64_t> multiples, uint64_t cap)
{
    std::vector<uint64_t> out;
    if (s == 0 || s > cap)
        return out;
    for (uint64_t k : multiples)
        for (uint64_t l : {k * s - 1, k * s, k * s + 1, k * s + 7})
            if (l > 0 && l <= cap)
                out.push_back(l);
    return out;
}

void sort_unique(std::vector<uint64_t> &v)
{
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Every rank's communication memory, as HcclChannelGetHcclBuffer returned the
// peer's: both two-party ranks must agree on it to place dst at its end.
// 0 (with the clauses told why) when they do not, or it is below kMinBuffer.
uint64_t edge_buffer(const Ctx &c, std::initializer_list<const char *> clauses)
{
    const World &w = c.w;
    const uint64_t mine = w.local_size;
    const uint64_t peer_view = w.rank <= 1 ? w.peers.at(static_cast<size_t>(1 - w.rank)).remote_size : mine;
    const bool same = mpi::all_ranks(mine == peer_view, "regions: buffer sizes agree");
    if (!same) {
        for (const char *cl : clauses)
            c.ev.error(cl, "HcclChannelGetHcclBuffer returned " + std::to_string(peer_view) +
                               " bytes for the peer, whose HcclGetHcclBuffer returned " + std::to_string(mine) +
                               " (API.BUF.1's business): the edges of the memory are not known");
        return 0;
    }
    if (mine < kMinBuffer) {
        for (const char *cl : clauses)
            c.ev.unsupported(cl, "the communication memory has " + std::to_string(mine) +
                                     " bytes; placing transfers at its start, middle and end needs " +
                                     std::to_string(kMinBuffer));
        return 0;
    }
    return mine;
}

} // namespace

// Every thread the comm gives out, sending and receiving: the world's two and
// four more from one HcclThreadAcquire. In each round every rank sends on each of
// its threads (slot k) to the peer, which waits and snapshots on its thread of
// the same slot; both directions at once. Lengths per round: a few bytes, across
// a page or the segment size, many segments, more than a MiB.
HCTS_CASE(Visibility, EveryThread, clauses("WWN.VIS.1", "WWN.NTF.5"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    constexpr uint32_t kExtra = 4;
    std::vector<ThreadHandle> threads = w.threads;
    HcclResult arc = HCCL_SUCCESS;
    if (w.rank <= 1) {
        std::vector<ThreadHandle> more(kExtra, 0);
        arc = iut().api().HcclThreadAcquire(w.comm, w.setup_engine, kExtra, World::kNotifyNum, more.data());
        threads.insert(threads.end(), more.begin(), more.end());
    }
    if (!mpi::all_ranks(arc == HCCL_SUCCESS, "regions: threads acquired")) {
        ev().error("WWN.VIS.1", "HcclThreadAcquire of " + std::to_string(kExtra) + " more threads returned " +
                                    hccl_result_name(arc) + " on this rank or another");
        return;
    }
    const size_t n = threads.size();
    ev().observe("threads", n);
    const uint64_t slot = std::min<uint64_t>(2 * kMiB, (w.layout.lane_size / n) & ~uint64_t{4095});
    const uint64_t cap = slot - 2 * kGuard - 64;
    const uint64_t seg = segment_size();
    const uint64_t straddle = seg != 0 && seg < cap / 4 ? seg : 4096;
    // One round's length for slot k: each round a region of lengths, shifted per
    // thread so the threads also differ in their tails.
    const std::vector<std::function<uint64_t(size_t)>> rounds{
        [](size_t k) { return 1 + 7 * k; },
        [&](size_t k) { return straddle - 2 + k; },
        [&](size_t k) { return 3 * straddle + 13 * k + 1; },
        [&](size_t k) { return std::min<uint64_t>(cap, kMiB + 8 * k + 3); },
    };
    std::vector<uint64_t> seen;
    for (uint32_t round = 0; round < rounds.size(); ++round) {
        std::vector<Shot> shots;
        for (int sender = 0; sender <= 1; ++sender)
            for (size_t k = 0; k < n; ++k) {
                Shot x;
                x.sender = sender;
                x.len = std::min(cap, rounds[round](k));
                x.dst = w.layout.inbox(sender) + kGuard + k * slot + (k * 9) % 64;
                x.src = w.layout.outbox() + k * slot;
                x.snap = w.layout.scratch() + k * slot;
                x.idx = static_cast<uint32_t>((k + n * round) % World::kNotifyNum);
                x.send_slot = k;
                x.recv_slot = k;
                x.key = {71, round * 64 + static_cast<uint32_t>(k), static_cast<uint32_t>(sender)};
                x.where = "thread slot " + std::to_string(k) + " of " + std::to_string(n);
                seen.push_back(x.len);
                shots.push_back(x);
            }
        run_shots(c, shots, threads, w.local_size, {"WWN.VIS.1", "WWN.VIS.1", "WWN.NTF.5"});
    }
    sort_unique(seen);
    ev().observe("lengths", seen);
}

// Destinations at the start, in the middle, in the last MiB and at the very end
// of the peer's communication memory (the size HcclChannelGetHcclBuffer
// returned), for lengths from one byte to a whole MiB and across the segment
// size. Both directions at once; one launch per length.
HCTS_CASE(Visibility, BufferEdges, clauses("WWN.VIS.1", "WWN.NTF.5"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const uint64_t size = edge_buffer(c, {"WWN.VIS.1", "WWN.NTF.5"});
    if (size == 0)
        return;
    std::vector<uint64_t> lengths{1, 63, 4097, 65536 + 5, kMiB};
    const std::vector<uint64_t> seg = around_segments(segment_size(), {1, 3}, kMiB);
    lengths.insert(lengths.end(), seg.begin(), seg.end());
    sort_unique(lengths);
    ev().observe("lengths", lengths);
    ev().observe("buffer_size", size);
    // Snapshots and sources live in the quarter after the first one: away from every edge.
    const uint64_t snaps = size / 4, sources = size / 4 + size / 8;
    for (uint32_t li = 0; li < lengths.size(); ++li) {
        const uint64_t len = lengths[li];
        struct Place {
            const char *where;
            uint64_t dst;
        };
        const std::vector<Place> candidates{
            {"the start", 0},
            {"the middle", ((size / 2) & ~uint64_t{4095}) + 5},
            {"the last MiB", size - kMiB + 3},
            {"the very end", size - len},
        };
        std::vector<Place> places;
        for (const Place &p : candidates) {
            if (p.dst + len > size)
                continue;
            // Keep the placements and their guards apart within one launch.
            const bool overlaps = std::any_of(places.begin(), places.end(), [&](const Place &q) {
                return p.dst < q.dst + len + 2 * kGuard && q.dst < p.dst + len + 2 * kGuard;
            });
            if (!overlaps)
                places.push_back(p);
        }
        std::vector<Shot> shots;
        for (int sender = 0; sender <= 1; ++sender)
            for (uint32_t j = 0; j < places.size(); ++j) {
                Shot x;
                x.sender = sender;
                x.len = len;
                x.dst = places[j].dst;
                x.src = sources + j * align_up(len + 64, 4096) + 3 * j;
                x.snap = snaps + j * align_up(len + 64, 4096);
                x.idx = (li * 4 + j) % World::kNotifyNum;
                x.send_slot = 0;
                x.recv_slot = 1;
                x.key = {72, li * 8 + j, static_cast<uint32_t>(sender)};
                x.where = places[j].where;
                shots.push_back(x);
            }
        run_shots(c, shots, c.w.threads, size, {"WWN.VIS.1", "WWN.VIS.1", "WWN.NTF.5"});
    }
}

// Reads split into segments and chains, from the start, middle and very end of
// the peer's memory into odd offsets of this rank's: every length around one to
// 64 segments (with --segment-size) and fixed ones up to 256 KiB. Both ranks read
// at once; judged once the program completed (API.RD.1).
HCTS_CASE(Visibility, ReadSegmentsAndEdges, clauses("API.RD.1"), needs(Feature::Read, Feature::DeviceThreads))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const uint64_t size = edge_buffer(c, {"API.RD.1"});
    if (size == 0)
        return;
    constexpr uint64_t kMax = 256 * 1024 + 3; // API.RD.1's range
    std::vector<uint64_t> lengths{1, 7, 4097, 65537, kMax};
    const std::vector<uint64_t> seg = around_segments(segment_size(), {1, 2, 3, 16, 17, 33, 64}, kMax);
    lengths.insert(lengths.end(), seg.begin(), seg.end());
    sort_unique(lengths);
    const uint64_t longest = lengths.back();
    ev().observe("lengths", lengths);
    // Source regions of this rank's memory, each stamped once over the longest
    // length: a read of len at a region's start sees payload offset 0, one that
    // ends at the region's end sees offset longest - len.
    struct Region {
        const char *where;
        uint64_t off;
        bool from_end; // reads end where the region ends
    };
    const std::vector<Region> regions{{"the start", 0, false},
                                      {"the middle", ((size / 2) & ~uint64_t{4095}) + 3, false},
                                      {"the very end", size - longest, true}};
    const auto key_of = [](int rank, size_t region) {
        return StampKey{73, static_cast<uint32_t>(region), static_cast<uint32_t>(rank)};
    };
    const int peer = 1 - w.rank;
    struct Read {
        size_t region;
        uint64_t len, dst, src;
    };
    std::vector<Read> reads;
    uint64_t cursor = size / 4;
    for (size_t r = 0; r < regions.size(); ++r)
        for (uint64_t len : lengths) {
            const uint64_t src = regions[r].from_end ? regions[r].off + longest - len : regions[r].off;
            const uint64_t dst = cursor + kGuard + (reads.size() * 13) % 64;
            cursor = align_up(dst + len + kGuard, 64);
            reads.push_back({r, len, dst, src});
        }
    if (w.rank <= 1) {
        for (size_t r = 0; r < regions.size(); ++r) {
            std::vector<std::byte> p(longest);
            fill_payload(p, key_of(w.rank, r));
            dev.put(w.local_base + regions[r].off, p);
        }
        for (const Read &rd : reads)
            dev.poison(w.local_base + rd.dst - kGuard, rd.len + 2 * kGuard);
    }
    mpi::phase_barrier("regions: read sources stamped");
    Script s;
    if (w.rank <= 1)
        for (const Read &rd : reads)
            s.read(w.thread(), w.channel_to(peer), w.local_base + rd.dst,
                   w.peers.at(static_cast<size_t>(peer)).remote_base + rd.src, rd.len);
    const LaunchResult r = c.run(s);
    if (w.rank <= 1) {
        judge_launch(r, "API.RD.1", "the program of reads", ev());
        for (size_t i = 0; i < reads.size(); ++i) {
            const Read &rd = reads[i];
            const Region &g = regions[rd.region];
            const std::string what = "HcommReadOnThread of " + std::to_string(rd.len) + " bytes from offset " +
                                     std::to_string(rd.src) + " of rank " + std::to_string(peer) + "'s " +
                                     std::to_string(size) + " (" + g.where + ") to local offset " +
                                     std::to_string(rd.dst);
            if (!ev().check("API.RD.1", s.rc(i) == HCCL_SUCCESS, what + " returned " + hccl_result_name(s.rc(i))))
                continue;
            const std::vector<std::byte> got = dev.get(w.local_base + rd.dst - kGuard, rd.len + 2 * kGuard);
            std::vector<std::byte> want(rd.len);
            fill_payload(want, key_of(peer, rd.region), rd.src - g.off);
            size_t first = SIZE_MAX;
            for (size_t b = 0; b < rd.len && first == SIZE_MAX; ++b)
                if (got[kGuard + b] != want[b])
                    first = b;
            ev().check("API.RD.1", first == SIZE_MAX,
                       what + ": byte " + std::to_string(first) + " of dst does not hold the source's byte (got " +
                           (first == SIZE_MAX ? "" : hex(static_cast<uint8_t>(got[kGuard + first]))) + ", expected " +
                           (first == SIZE_MAX ? "" : hex(static_cast<uint8_t>(want[first]))) + ")");
            const size_t around = count_not_pattern(std::span(got).first(kGuard), kPoisonWord) +
                                  count_not_pattern(std::span(got).last(kGuard), kPoisonWord);
            ev().check("API.RD.1", around == 0,
                       what + ": " + std::to_string(around) + " bytes around [dst, dst+len) changed");
        }
    }
    // The sources must stay as stamped until every rank's reads completed.
    mpi::phase_barrier("regions: reads judged");
}

// A long run of round trips through one channel: rank 0 writes with notify, rank
// 1 waits, snapshots and answers with a write with notify of its own on the same
// index, which rank 0 waits for and snapshots. First on one index, then cycling
// every index of the channel's 64. No barrier between launches:
// the notifies pace both ranks. Every payload is judged at its wait; then no
// notify may be left set on either side (WWN.NTF.1). In the Index suite, so only
// the plain configuration runs it: its payloads are below any segment size, and
// its ~1.5 s (a loaded 2-core machine) would otherwise count three times.
HCTS_CASE(Index, LongRunOneChannel, clauses("WWN.VIS.1", "WWN.IDX.1", "WWN.NTF.1"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    // Sized for a loaded 2-core machine, where a round trip costs 1-5 ms (mostly the
    // snapshot copies): 400 trips (800 notifies through the channel) in ~1.5 s. The
    // first 300 on one index take each direction past twice the usual 128-deep
    // receive queue; the last 100 reach every index of 64 once, 36 of them twice.
    constexpr uint32_t kTrips = 400;
    constexpr uint32_t kOneIndex = 300;
    constexpr uint32_t kPerLaunch = 85; // 3 ops per trip on each side, 255 of the program's 256
    constexpr uint64_t kSlot = 128;
    constexpr uint32_t kFixedIdx = World::kNotifyNum - 1;
    const auto len_of = [](uint32_t i) { return 40 + (i % 7) * 8 + i % 3; };
    const auto idx_of = [](uint32_t i) { return i < kOneIndex ? kFixedIdx : i % World::kNotifyNum; };
    const auto clause_of = [](uint32_t i) { return i < kOneIndex ? "WWN.VIS.1" : "WWN.IDX.1"; };
    if (w.layout.lane_size < kTrips * kSlot + 8192 || w.layout.scratch_size() < kTrips * kSlot) {
        ev().unsupported("WWN.VIS.1", "the memory's lanes are too small for " + std::to_string(kTrips) + " slots");
        return;
    }
    const int peer = 1 - w.rank;
    // This rank receives in its inbox lane for the peer; sources in its outbox.
    const uint64_t in = w.rank <= 1 ? w.layout.inbox(peer) + 4096 : 0;
    if (w.rank <= 1) {
        dev.poison(w.local_base + in, kTrips * kSlot);
        dev.poison(w.scratch(), kTrips * kSlot);
        std::vector<std::byte> src(kTrips * kSlot);
        for (uint32_t i = 0; i < kTrips; ++i)
            fill_payload(std::span(src).subspan(i * kSlot, len_of(i)), StampKey{74, i, static_cast<uint32_t>(w.rank)});
        dev.put(w.outbox(), src);
    }
    mpi::phase_barrier("regions: long run prepared");
    const uint32_t timeout = w.timeout_of(5);
    uint32_t done = 0;
    bool ok = true;
    std::vector<int32_t> wait_rc(kTrips, HCCL_SUCCESS - 1), copy_rc(kTrips, HCCL_SUCCESS - 1);
    std::vector<bool> launched_ok(kTrips, false); // a failed launch's ops may never have run
    LaunchResult bad_launch;
    while (done < kTrips && ok) {
        const uint32_t end = std::min(kTrips, done + kPerLaunch);
        Script s;
        std::vector<size_t> wait_at;
        if (w.rank <= 1) {
            const ThreadHandle t = w.thread();
            const ChannelHandle ch = w.channel_to(peer);
            std::byte *const remote = w.peers.at(static_cast<size_t>(peer)).remote_base + w.layout.inbox(w.rank) + 4096;
            for (uint32_t i = done; i < end; ++i) {
                const auto wwn = [&] {
                    s.wwn(t, ch, remote + i * kSlot, w.outbox() + i * kSlot, len_of(i), idx_of(i));
                };
                if (w.rank == 0)
                    wwn();
                wait_at.push_back(s.size());
                s.wait(t, ch, idx_of(i), timeout);
                s.copy(t, w.scratch() + i * kSlot, w.local_base + in + i * kSlot, len_of(i)).only_if_previous_ok();
                if (w.rank == 1)
                    wwn();
            }
        }
        const LaunchResult r = c.run(s, 15000);
        for (uint32_t i = done; i < end && w.rank <= 1; ++i) {
            wait_rc[i] = s.rc(wait_at[i - done]);
            copy_rc[i] = s.rc(wait_at[i - done] + 1);
            launched_ok[i] = r.ok();
        }
        if (!r.ok())
            bad_launch = r;
        ok = mpi::all_ranks(r.ok(), "regions: long-run launch completed");
        done = end;
    }
    if (w.rank <= 1) {
        ev().observe("round_trips", done);
        if (!ok)
            judge_launch(bad_launch, "WWN.VIS.1", "a launch of the long run (trips up to " + std::to_string(done) + ")",
                         ev());
        // One finding per clause (the first), so thousands of trips do not flood the report.
        std::map<std::string, std::string> first_bad;
        std::map<std::string, uint32_t> bad_count, judged;
        bool copy_refused = false;
        // Trips past a failed launch never ran: they count against their clause
        // too, so the verdict does not depend on which launch failed.
        for (uint32_t i = 0; i < kTrips; ++i) {
            // A wait that fails on a cycling index breaks that index (WWN.IDX.1); a
            // payload short at its wait breaks write-before-notify wherever it is.
            std::string cl = clause_of(i);
            if (copy_rc[i] == HCCL_E_NOT_SUPPORT) {
                copy_refused = true;
                continue;
            }
            const std::string what = "round trip " + std::to_string(i) + " (idx " + std::to_string(idx_of(i)) +
                                     ", len " + std::to_string(len_of(i)) + ", received from rank " +
                                     std::to_string(peer) + ")";
            std::string why;
            if (i >= done)
                why = what + ": not reached, the run stopped after trip " + std::to_string(done - 1);
            else if (!launched_ok[i])
                why = what + ": the launch that held it did not complete";
            else if (wait_rc[i] != HCCL_SUCCESS)
                why = what + ": the wait returned " + hccl_result_name(wait_rc[i]);
            else if (copy_rc[i] != HCCL_SUCCESS)
                why = what + ": the snapshot after the wait returned " + hccl_result_name(copy_rc[i]);
            else if (const PayloadCheck p = check_payload(dev.get(w.scratch() + i * kSlot, len_of(i)),
                                                          StampKey{74, i, static_cast<uint32_t>(peer)},
                                                          "dst (device-stream read right after the wait)");
                     !p.ok()) {
                why = what + ": " + p.first_bad;
                cl = "WWN.VIS.1";
            }
            ++judged[cl];
            if (!why.empty() && bad_count[cl]++ == 0)
                first_bad[cl] = why;
        }
        if (copy_refused)
            for (const char *cl : {"WWN.VIS.1", "WWN.IDX.1"})
                ev().unsupported(cl, "the snapshot right after a wait was refused with HCCL_E_NOT_SUPPORT");
        for (const auto &[cl, n] : judged)
            ev().check(cl, bad_count[cl] == 0,
                       std::to_string(bad_count[cl]) + " of " + std::to_string(n) +
                           " round trips went wrong; first: " + first_bad[cl]);
    }
    // After the run every wait consumed its own notify: none is left set on either side.
    std::vector<uint32_t> all(World::kNotifyNum);
    for (uint32_t i = 0; i < World::kNotifyNum; ++i)
        all[i] = i;
    if (ok) {
        check_quiet(c, 0, 1, w.rank == 0 ? w.channel_to(1) : 0, w.rank == 1 ? w.channel_to(0) : 0, all, "WWN.NTF.1");
        check_quiet(c, 1, 0, w.rank == 1 ? w.channel_to(0) : 0, w.rank == 0 ? w.channel_to(1) : 0, all, "WWN.NTF.1");
    } else if (w.rank <= 1) {
        ev().error("WWN.NTF.1", "the long run stopped early; whether notifies were left set is not judged");
    }
}

// Write-reduces with notify of more than one internal chunk (the reference
// stages 1 MiB at a time; others chunk elsewhere): byte counts just below, at and
// above one, two and three MiB, over four element sizes. Each on its own index;
// the receiver snapshots right after each wait (API.RED.4).
HCTS_CASE(Visibility, WriteReduceAcrossChunks, clauses("API.RED.4"),
          needs(Feature::WriteReduceWithNotify, Feature::NotifyWait, Feature::NotifyRecord, Feature::LocalCopy,
                Feature::DeviceThreads))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    struct Call {
        uint32_t type, op;
        int64_t bytes; // the count's bytes, as a MiB multiple plus elements
        int64_t elems;
    };
    const std::vector<Call> calls{
        {HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM, 1, -1}, {HCOMM_DATA_TYPE_INT8, HCOMM_REDUCE_MAX, 1, 1},
        {HCOMM_DATA_TYPE_FP16, HCOMM_REDUCE_SUM, 2, 0},   {HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_MIN, 2, 3},
        {HCOMM_DATA_TYPE_FP64, HCOMM_REDUCE_SUM, 3, -1},
    };
    constexpr uint64_t kExtra = 4;
    const auto type_of = [](uint32_t id) -> const ReduceType & {
        for (const ReduceType &t : reduce_types())
            if (t.type == id)
                return t;
        throw std::logic_error("no reduce type " + std::to_string(id));
    };
    struct Placed {
        const ReduceType *type;
        uint32_t op;
        uint64_t count, off;
    };
    std::vector<Placed> placed;
    uint64_t off = 0;
    for (const Call &k : calls) {
        const ReduceType &t = type_of(k.type);
        const uint64_t count = static_cast<uint64_t>(k.bytes) * kMiB / t.size + k.elems;
        placed.push_back({&t, k.op, count, off});
        off = align_up(off + (count + kExtra) * t.size, 4096) + 64;
    }
    if (off + 8192 > w.layout.lane_size || off > w.layout.outbox_size() || off > w.layout.scratch_size()) {
        ev().unsupported("API.RED.4", "the memory's regions hold less than the " + std::to_string(off) +
                                          " bytes these reductions need");
        return;
    }
    std::vector<ReduceCase> data;
    for (size_t i = 0; i < placed.size(); ++i)
        data.push_back(
            reduce_case(*placed[i].type, placed[i].op, static_cast<uint32_t>(60 + i), placed[i].count, kExtra));
    if (w.rank == 0)
        for (size_t i = 0; i < placed.size(); ++i)
            dev.put(w.outbox() + placed[i].off, data[i].src);
    if (w.rank == 1)
        for (size_t i = 0; i < placed.size(); ++i) {
            dev.put(w.inbox(0) + placed[i].off, data[i].dst);
            dev.poison(w.scratch() + placed[i].off, data[i].dst.size());
        }
    mpi::phase_barrier("regions: reduce operands placed");
    Script s;
    for (size_t i = 0; i < placed.size(); ++i) {
        const Placed &p = placed[i];
        const auto idx = static_cast<uint32_t>(10 + i);
        if (w.rank == 0) {
            s.write_reduce_notify(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + p.off, w.outbox() + p.off,
                                  p.count, p.type->type, p.op, idx);
            // A refused call raises no notify: a plain record stands in, so the wait ends.
            s.record(w.thread(), w.channel_to(1), idx).only_if_previous_failed();
        }
        if (w.rank == 1) {
            s.wait(w.thread(), w.channel_to(0), idx, w.ok_timeout());
            s.copy(w.thread(), w.scratch() + p.off, w.inbox(0) + p.off, data[i].dst.size()).only_if_previous_ok();
        }
    }
    const LaunchResult r = c.run(s);
    std::vector<int32_t> rcs(placed.size());
    if (w.rank == 0)
        for (size_t i = 0; i < placed.size(); ++i)
            rcs[i] = s.rc(2 * i);
    mpi::broadcast(std::as_writable_bytes(std::span(rcs)), 0, "regions: write-reduce return codes");
    if (w.rank <= 1)
        judge_launch(r, "API.RED.4", w.rank == 0 ? "the sender's program" : "the receiver's program", ev());
    if (w.rank != 1)
        return;
    for (size_t i = 0; i < placed.size(); ++i) {
        const Placed &p = placed[i];
        const std::string what = "HcommWriteReduceWithNotifyOnThread " + std::string(p.type->name) + " " +
                                 reduce_op_name(p.op) + " of " + std::to_string(p.count) + " elements (" +
                                 std::to_string(p.count * p.type->size) + " bytes)";
        if (!ev().check("API.RED.4", rcs[i] == HCCL_SUCCESS, what + " returned " + hccl_result_name(rcs[i])))
            continue;
        const int32_t wait_rc = s.rc(2 * i), copy_rc = s.rc(2 * i + 1);
        if (!ev().check("API.RED.4", wait_rc == HCCL_SUCCESS,
                        what + ": the wait returned " + hccl_result_name(wait_rc)))
            continue;
        if (copy_rc != HCCL_SUCCESS) {
            ev().unsupported("API.RED.4", what + ": no snapshot right after the wait: the copy returned " +
                                              hccl_result_name(copy_rc));
            continue;
        }
        const std::string bad =
            reduce_mismatch(*p.type, dev.get(w.scratch() + p.off, data[i].want.size()), data[i].want);
        ev().check("API.RED.4", bad.empty(),
                   what + ", right after the wait: " + bad + " (dst = dst op src over count elements, the " +
                       std::to_string(kExtra) + " after them unchanged)");
    }
}

// Every ordered pair of ranks at once: each rank writes with notify to every
// peer on the channels one HcclChannelAcquire gave it (the world's), so with
// three or more ranks (the peers configuration) a channel that reaches the
// right rank but writes with another peer's memory, key or notifies shows.
// Three rounds: a few KiB, then lengths across many segments, then about a megabyte
// each, which overfill a same-host ring and a TCP receive queue mid-message and cross
// every piece boundary of a cross-process copy.
HCTS_CASE(Visibility, EveryPairOfRanks, clauses("WWN.VIS.1", "WWN.NTF.5", "WWN.NTF.6"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const uint64_t per_peer = std::min<uint64_t>(kMiB, (w.layout.lane_size / 2) & ~uint64_t{4095});
    const uint64_t cap = per_peer - 2 * kGuard - 4096;
    ev().observe("ranks", w.size);
    for (uint32_t round = 0; round < 3; ++round) {
        std::vector<Xfer> plan;
        for (int r = 0; r < w.size; ++r)
            for (int p = 0; p < w.size; ++p) {
                if (p == r)
                    continue;
                const auto pair = static_cast<uint32_t>(r * w.size + p);
                const uint64_t len = round == 0   ? 4096 + 977 * pair
                                     : round == 1 ? std::min<uint64_t>(cap, 200000 + 4099 * pair)
                                                  : cap - std::min<uint64_t>(cap / 2, 977 * pair);
                // The sender's outbox holds one source per receiver; a destination sits in
                // the receiver's lane for this sender, so no two transfers overlap.
                plan.push_back(Xfer{r, p, 4096 + kGuard, static_cast<uint64_t>(p) * per_peer, len,
                                    (7 * pair + round) % World::kNotifyNum, static_cast<int>(pair % 2), 0, 0,
                                    StampKey{21, round, pair}});
            }
        exchange_checked(c, plan, {});
    }
}

} // namespace hcts::cases_regions
