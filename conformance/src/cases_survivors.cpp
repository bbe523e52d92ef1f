// Regions where bugs written blind to the self-test catalogue survived the
// default gate, each now spanned by construction: read-reduces of several
// internal chunks, a channel record with zero handles, thread acquisitions with
// no notifies and every notify of every thread of one acquisition, plain writes
// of every tail length (not a multiple of 4), a fractional default wait timeout
// (the integer part counts), thousands of notifies through one channel, and the
// host's write with notify Nbi calls in every length and index.
// None is in a suite the segment and adversarial configurations run: each is a
// behaviour of the call, not of the transport's segments or timing.
#include <chrono>
#include <set>
#include <thread>

#include "case_kit.h"
#include "hcomm/hcomm_primitives.h"
#include "hcts/core/adapter.h"
#include "hcts/core/products.h"
#include "reduce_data.h"

namespace hcts::cases_survivors {
namespace {

constexpr uint64_t kMiB = 1ULL << 20;
constexpr uint64_t kGuard = World::kGuard;

constexpr uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

const ReduceType &type_of(uint32_t id)
{
    for (const ReduceType &t : reduce_types())
        if (t.type == id)
            return t;
    throw std::logic_error("no reduce type " + std::to_string(id));
}

std::string rc_of(const Script &s, size_t i) { return hccl_result_name(s.rc(i)); }

} // namespace

// Read-reduces of more than one internal chunk (the reference stages 1 MiB at a
// time; others chunk elsewhere): byte counts just below, at and above one, two and
// three MiB over five element sizes, each into an odd place of this rank's memory.
// Rank 0 reads from rank 1's outbox; judged once the program completed (API.RED.3).
HCTS_CASE(Reduce, ReadReduceAcrossChunks, clauses("API.RED.3"), needs(Feature::ReadReduce, Feature::DeviceThreads))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    struct Call {
        uint32_t type, op;
        int64_t mib, elems; // the count's bytes, as a MiB multiple plus elements
    };
    const std::vector<Call> calls{
        {HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM, 1, -1}, {HCOMM_DATA_TYPE_INT8, HCOMM_REDUCE_MAX, 1, 1},
        {HCOMM_DATA_TYPE_FP16, HCOMM_REDUCE_SUM, 2, 0},   {HCOMM_DATA_TYPE_UINT8, HCOMM_REDUCE_MIN, 2, 3},
        {HCOMM_DATA_TYPE_FP64, HCOMM_REDUCE_SUM, 3, -1},  {HCOMM_DATA_TYPE_INT16, HCOMM_REDUCE_PROD, 3, 5},
    };
    constexpr uint64_t kExtra = 4;
    struct Placed {
        const ReduceType *type;
        uint32_t op;
        uint64_t count, off;
    };
    std::vector<Placed> placed;
    uint64_t off = 64;
    for (const Call &k : calls) {
        const ReduceType &t = type_of(k.type);
        const uint64_t count = static_cast<uint64_t>(k.mib) * kMiB / t.size + static_cast<uint64_t>(k.elems);
        placed.push_back({&t, k.op, count, off});
        off = align_up(off + (count + kExtra) * t.size, 4096) + 64 + 8 * placed.size();
    }
    if (off + 8192 > w.layout.outbox_size() || off > w.layout.scratch_size()) {
        ev().unsupported("API.RED.3", "the memory's regions hold less than the " + std::to_string(off) +
                                          " bytes these reductions need");
        return;
    }
    std::vector<ReduceCase> data;
    for (size_t i = 0; i < placed.size(); ++i)
        data.push_back(
            reduce_case(*placed[i].type, placed[i].op, static_cast<uint32_t>(80 + i), placed[i].count, kExtra));
    if (w.rank == 0)
        for (size_t i = 0; i < placed.size(); ++i)
            dev.put(w.scratch() + placed[i].off, data[i].dst);
    if (w.rank == 1)
        for (size_t i = 0; i < placed.size(); ++i)
            dev.put(w.outbox() + placed[i].off, data[i].src);
    mpi::phase_barrier("survivors: read-reduce operands placed");
    if (w.rank == 0) {
        std::byte *const remote_outbox = w.peers.at(1).remote_base + w.layout.outbox();
        Script s;
        for (const Placed &p : placed)
            s.read_reduce(w.thread(), w.channel_to(1), w.scratch() + p.off, remote_outbox + p.off, p.count,
                          p.type->type, p.op);
        const LaunchResult r = c.run(s, 30000);
        judge_launch(r, "API.RED.3", "the program of read-reduces", ev());
        std::vector<uint64_t> bytes;
        for (size_t i = 0; i < placed.size(); ++i) {
            const Placed &p = placed[i];
            bytes.push_back(p.count * p.type->size);
            const std::string what = "HcommReadReduceOnThread " + std::string(p.type->name) + " " +
                                     reduce_op_name(p.op) + " of " + std::to_string(p.count) + " elements (" +
                                     std::to_string(p.count * p.type->size) + " bytes)";
            if (!ev().check("API.RED.3", s.rc(i) == HCCL_SUCCESS, what + " returned " + rc_of(s, i)))
                continue;
            const std::string bad =
                reduce_mismatch(*p.type, dev.get(w.scratch() + p.off, data[i].want.size()), data[i].want);
            ev().check("API.RED.3", bad.empty(),
                       what + ", once the program completed: " + bad + " (dst = dst op the peer's src over count " +
                           "elements, the " + std::to_string(kExtra) + " after them unchanged)");
        }
        ev().observe("bytes", bytes);
    }
    // The sources must stay until the reads completed.
    mpi::phase_barrier("survivors: read-reduces judged");
}

// Reductions on the comm's threads at once: each thread stages its chunks through
// memory of its own (the reference: a registered scratch per thread, api §7.4 "across
// threads: concurrent"), so read-reduces and write-reduces of more than one internal
// chunk running on two threads together must not mix (blind set 7's M08 shared one
// scratch). Rank 0 queues on each thread a read-reduce and a write-reduce, alternating,
// several rounds in one program so they overlap; judged once it completed.
HCTS_CASE(Reduce, EveryThreadAtOnce, clauses("API.RED.2", "API.RED.3"),
          needs(Feature::ReadReduce, Feature::WriteReduce, Feature::DeviceThreads))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    constexpr uint32_t kRounds = 3;
    constexpr uint64_t kExtra = 4;
    const ReduceType &t = type_of(HCOMM_DATA_TYPE_INT32);
    const uint64_t count = (3 * kMiB / 2 + 12) / t.size; // a chunk and a half
    const uint64_t slot = align_up((count + kExtra) * t.size, 4096) + 4096;
    const size_t n = kRounds * w.threads.size(); // per direction: one read and one write per thread and round
    if (n * slot + 64 > std::min(w.layout.outbox_size(), w.layout.scratch_size())) {
        ev().unsupported("API.RED.3", "the memory's regions hold less than the " + std::to_string(n * slot) +
                                          " bytes these reductions need");
        return;
    }
    // Slot k: the read-reduce's dst (rank 0's scratch) and src (rank 1's outbox), and the
    // write-reduce's src (rank 0's outbox) and dst (rank 1's inbox lane for rank 0).
    std::vector<ReduceCase> reads, writes;
    for (size_t k = 0; k < n; ++k) {
        reads.push_back(reduce_case(t, HCOMM_REDUCE_SUM, static_cast<uint32_t>(100 + k), count, kExtra));
        writes.push_back(reduce_case(t, HCOMM_REDUCE_SUM, static_cast<uint32_t>(200 + k), count, kExtra));
    }
    const uint64_t at = 64;
    if (w.rank == 0)
        for (size_t k = 0; k < n; ++k) {
            dev.put(w.scratch() + at + k * slot, reads[k].dst);
            dev.put(w.outbox() + at + k * slot, writes[k].src);
        }
    if (w.rank == 1)
        for (size_t k = 0; k < n; ++k) {
            dev.put(w.outbox() + at + k * slot, reads[k].src);
            dev.put(w.inbox(0) + at + k * slot, writes[k].dst);
        }
    mpi::phase_barrier("survivors: reduce operands placed on every thread");
    Script s;
    if (w.rank == 0) {
        std::byte *const remote_outbox = w.peers.at(1).remote_base + w.layout.outbox();
        for (size_t k = 0; k < n; ++k) {
            const ThreadHandle th = w.threads[k % w.threads.size()];
            s.read_reduce(th, w.channel_to(1), w.scratch() + at + k * slot, remote_outbox + at + k * slot, count,
                          t.type, HCOMM_REDUCE_SUM);
            s.write_reduce(th, w.channel_to(1), w.remote_inbox(1, 0) + at + k * slot, w.outbox() + at + k * slot, count,
                           t.type, HCOMM_REDUCE_SUM);
        }
        judge_launch(c.run(s, 30000), "API.RED.3", "the program of reductions on every thread", ev());
    }
    std::vector<int32_t> rcs(2 * n, HCCL_SUCCESS);
    if (w.rank == 0)
        for (size_t i = 0; i < rcs.size(); ++i)
            rcs[i] = s.rc(i);
    mpi::broadcast(std::as_writable_bytes(std::span(rcs)), 0, "survivors: reduce return codes");
    ev().observe("threads", w.threads.size());
    for (size_t k = 0; k < n; ++k) {
        const std::string on = " of " + std::to_string(count) + " INT32 elements on thread " +
                               std::to_string(k % w.threads.size()) + ", round " + std::to_string(k / w.threads.size());
        // The rank holding the call's dst judges it: its return code, then the elements.
        const auto judge = [&](const char *clause, const char *call, int32_t rc, const std::byte *dst,
                               const ReduceCase &want) {
            if (!ev().check(clause, rc == HCCL_SUCCESS, call + on + " returned " + hccl_result_name(rc)))
                return;
            const std::string bad = reduce_mismatch(t, dev.get(dst, want.want.size()), want.want);
            ev().check(clause, bad.empty(),
                       call + on + ", once the program completed: " + bad +
                           " (with the comm's other threads reducing beside it)");
        };
        if (w.rank == 0)
            judge("API.RED.3", "HcommReadReduceOnThread", rcs[2 * k], w.scratch() + at + k * slot, reads[k]);
        if (w.rank == 1)
            judge("API.RED.2", "HcommWriteReduceOnThread", rcs[2 * k + 1], w.inbox(0) + at + k * slot, writes[k]);
    }
    mpi::phase_barrier("survivors: reductions on every thread judged");
}

// HcommChannelNotifyRecordOnThread with thread 0, and with channel 0, from the
// device program: each returns HCCL_E_PTR (api §9.3) and raises nothing at the
// peer, which is shown quiet on that index afterwards.
HCTS_CASE(Errors, ChannelRecordZeroHandles, clauses("API.REC.1"),
          needs(Feature::NotifyRecord, Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    constexpr uint32_t kIdx = 37;
    if (w.rank == 0) {
        Script s;
        s.record(0, w.channel_to(1), kIdx);
        s.record(w.thread(), 0, kIdx);
        const LaunchResult r = c.run(s, 15000);
        if (r.trouble() == Trouble::Missing) {
            ev().unsupported("API.REC.1", "HcommChannelNotifyRecordOnThread is absent (" + r.describe() + ")");
        } else {
            const char *rows[] = {"thread 0 (a live channel to rank 1)", "channel 0 (a live thread)"};
            for (size_t i = 0; i < 2; ++i)
                ev().check("API.REC.1", s.rc(i) == HCCL_E_PTR,
                           std::string("HcommChannelNotifyRecordOnThread with ") + rows[i] + ", index " +
                               std::to_string(kIdx) + " returned " + rc_of(s, i) + ", expected HCCL_E_PTR (" +
                               r.describe() + ")");
        }
    }
    check_quiet(c, 0, 1, w.rank == 0 ? w.channel_to(1) : 0, w.rank == 1 ? w.channel_to(0) : 0, {kIdx}, "API.REC.1");
}

// HcclThreadAcquire with notifyNumPerThread 0 (documented range [0, 65535]):
// accepted, with distinct non-zero handles, each of which runs a local copy.
HCTS_CASE(Threads, AcquireWithoutNotifies, clauses("API.THR.8"), needs(Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    if (w.rank == 0) {
        constexpr uint32_t kThreads = 3;
        std::vector<ThreadHandle> t(kThreads, 0);
        const HcclResult arc = iut().api().HcclThreadAcquire(w.comm, w.setup_engine, kThreads, 0, t.data());
        std::string handles;
        for (ThreadHandle h : t)
            handles += (handles.empty() ? "" : ", ") + hex(h);
        const bool distinct = std::set<ThreadHandle>(t.begin(), t.end()).size() == kThreads &&
                              std::find(t.begin(), t.end(), ThreadHandle{0}) == t.end();
        if (ev().check("API.THR.8", arc == HCCL_SUCCESS && distinct,
                       "HcclThreadAcquire(threadNum " + std::to_string(kThreads) + ", notifyNumPerThread 0) returned " +
                           hccl_result_name(arc) + " with handles " + handles +
                           "; expected HCCL_SUCCESS and distinct non-zero handles (0 is in the documented range)")) {
            constexpr uint64_t kLen = 4093;
            std::byte *const src = w.scratch();
            std::vector<std::byte> p(kLen);
            fill_payload(p, StampKey{91, 0, 0});
            dev.put(src, p);
            Script s;
            for (uint32_t i = 0; i < kThreads; ++i) {
                dev.poison(w.scratch() + (i + 1) * 8192, kLen);
                s.copy(t[i], w.scratch() + (i + 1) * 8192, src, kLen);
            }
            const LaunchResult r = c.run(s, 15000);
            judge_launch(r, "API.THR.8", "the program of copies on the threads acquired without notifies", ev());
            for (uint32_t i = 0; i < kThreads; ++i) {
                if (s.rc(i) == HCCL_E_NOT_SUPPORT) {
                    // The copy is the case's only way to use the thread: refused, it shows nothing.
                    ev().unsupported("API.THR.8", "a local copy on thread #" + std::to_string(i) + " (" + hex(t[i]) +
                                                      ") of an acquire without notifies was refused with "
                                                      "HCCL_E_NOT_SUPPORT");
                    continue;
                }
                const PayloadCheck got = check_payload(dev.get(w.scratch() + (i + 1) * 8192, kLen), StampKey{91, 0, 0});
                ev().check("API.THR.8", s.rc(i) == HCCL_SUCCESS && got.ok(),
                           "a local copy on thread #" + std::to_string(i) + " (" + hex(t[i]) +
                               ") of an acquire without notifies returned " + rc_of(s, i) + " and left " +
                               describe(got));
            }
        }
    }
    mpi::phase_barrier("survivors: threads without notifies");
}

// Every notify of every thread of one HcclThreadAcquire: for threads acquired
// together (4 with 6 notifies each, then 3 with 64, then 2 with 100), thread
// (b+1) mod N copies a payload and raises notify k of thread b, for every k (with
// 64 and 100: the first, the middle, the last two); thread b waits for each and
// copies what was handed over. The last index of later threads is where an
// acquisition that shorts them shows; 100, more than the set-up threads' 64 (the
// comm's first), where the count is taken from another acquire than the caller's
// (HcclThreadAcquire.md: notifyNumPerThread notifies for each thread, up to 65535).
// Then across acquires: a thread with 6 notifies raises notify 97 of one with 100 (the
// index is dstThread's).
HCTS_CASE(Threads, EveryThreadEveryNotify, clauses("API.TN.1"), needs(Feature::ThreadNotify, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    struct Group {
        uint32_t threads, notifies;
        std::vector<uint32_t> indices;
    };
    const std::vector<Group> groups{{4, 6, {0, 1, 2, 3, 4, 5}}, {3, 64, {0, 31, 62, 63}}, {2, 100, {0, 64, 98, 99}}};
    if (w.rank == 0) {
        struct Pair {
            uint32_t group, from, to, idx;
            uint64_t len, src, dst, snap;
            ThreadHandle a, b;
            uint32_t to_group; // the receiver's acquire (another than the recorder's: the index is the receiver's)
        };
        std::vector<Pair> pairs;
        std::vector<std::vector<ThreadHandle>> acquired(groups.size());
        uint64_t cursor = 0;
        for (uint32_t g = 0; g < groups.size(); ++g) {
            std::vector<ThreadHandle> &t = acquired[g];
            t.assign(groups[g].threads, 0);
            const HcclResult arc =
                iut().api().HcclThreadAcquire(w.comm, w.setup_engine, groups[g].threads, groups[g].notifies, t.data());
            if (arc != HCCL_SUCCESS) {
                ev().error("API.TN.1", "HcclThreadAcquire of " + std::to_string(groups[g].threads) + " threads with " +
                                           std::to_string(groups[g].notifies) + " notifies returned " +
                                           hccl_result_name(arc));
                continue;
            }
            for (uint32_t b = 0; b < groups[g].threads; ++b)
                for (uint32_t k : groups[g].indices) {
                    const uint32_t a = (b + 1) % groups[g].threads;
                    const uint64_t len = 61 + 4 * pairs.size() + k % 3;
                    pairs.push_back({g, a, b, k, len, cursor, cursor + 256, cursor + 512, t[a], t[b], g});
                    cursor += 1024;
                }
        }
        // Across acquires: a thread with 6 notifies raises notify 97 of a thread with 100. The
        // index is the receiving thread's (HcommThreadNotifyRecordOnThread's dstNotifyIdx), so
        // a library that bounds it by the recorder's own count refuses a valid call.
        if (acquired[0].front() != 0 && acquired[2].front() != 0)
            pairs.push_back({0, 0, 1, 97, 77, cursor, cursor + 256, cursor + 512, acquired[0][0], acquired[2][1], 2});
        for (size_t i = 0; i < pairs.size(); ++i) {
            const Pair &p = pairs[i];
            std::vector<std::byte> payload(p.len);
            fill_payload(payload, StampKey{92, static_cast<uint32_t>(i), 0});
            dev.put(w.scratch() + p.src, payload);
            dev.poison(w.scratch() + p.dst, p.len);
            dev.poison(w.scratch() + p.snap, p.len);
        }
        Script s;
        // First every hand-over (never blocks), then every wait with its copy: each
        // thread's stream holds its records before its waits, so none waits on itself.
        for (const Pair &p : pairs) {
            s.copy(p.a, w.scratch() + p.dst, w.scratch() + p.src, p.len);
            s.thread_record(p.a, p.b, p.idx);
        }
        const size_t waits = s.size();
        for (const Pair &p : pairs) {
            s.thread_wait(p.b, p.idx, w.timeout_of(5));
            s.copy(p.b, w.scratch() + p.snap, w.scratch() + p.dst, p.len).only_if_previous_ok();
        }
        const LaunchResult r = c.run(s, 30000);
        if (r.trouble() == Trouble::Missing) {
            ev().unsupported("API.TN.1", "a call of the hand-over is absent (" + r.describe() + ")");
        } else {
            judge_launch(r, "API.TN.1", "the program of hand-overs between the threads of one acquire", ev());
            uint32_t bad = 0, refused = 0;
            std::string first, first_refused;
            for (size_t i = 0; i < pairs.size(); ++i) {
                const Pair &p = pairs[i];
                const auto acquire = [&](uint32_t g) {
                    return "an acquire of " + std::to_string(groups[g].threads) + " with " +
                           std::to_string(groups[g].notifies) + " notifies each";
                };
                const std::string what =
                    p.to_group == p.group
                        ? "thread #" + std::to_string(p.from) + " -> thread #" + std::to_string(p.to) + " of " +
                              acquire(p.group) + ", notify " + std::to_string(p.idx)
                        : "thread #" + std::to_string(p.from) + " of " + acquire(p.group) + " -> thread #" +
                              std::to_string(p.to) + " of " + acquire(p.to_group) + ", notify " + std::to_string(p.idx);
                // A call refused as unsupported shows nothing about the hand-over (the
                // suite's rule everywhere): it is counted apart, never as a pass.
                const size_t ops[] = {2 * i, 2 * i + 1, waits + 2 * i, waits + 2 * i + 1};
                if (std::any_of(std::begin(ops), std::end(ops),
                                [&](size_t op) { return s.rc(op) == HCCL_E_NOT_SUPPORT; })) {
                    if (refused++ == 0)
                        first_refused = what + ": the copy returned " + rc_of(s, 2 * i) + ", the record " +
                                        rc_of(s, 2 * i + 1) + ", the wait " + rc_of(s, waits + 2 * i) +
                                        ", the copy after it " + rc_of(s, waits + 2 * i + 1);
                    continue;
                }
                std::string why;
                if (s.rc(2 * i) != 0 || s.rc(2 * i + 1) != 0)
                    why = what + ": the copy returned " + rc_of(s, 2 * i) + ", the record " + rc_of(s, 2 * i + 1);
                else if (s.rc(waits + 2 * i) != 0)
                    why = what + ": the wait returned " + rc_of(s, waits + 2 * i);
                else if (s.rc(waits + 2 * i + 1) != 0)
                    why = what + ": the copy after the wait returned " + rc_of(s, waits + 2 * i + 1);
                else if (const PayloadCheck got = check_payload(dev.get(w.scratch() + p.snap, p.len),
                                                                StampKey{92, static_cast<uint32_t>(i), 0});
                         !got.ok())
                    why = what + ": the copy right after the wait saw " + describe(got);
                if (!why.empty() && bad++ == 0)
                    first = why;
            }
            ev().observe("hand_overs", pairs.size());
            if (refused > 0)
                ev().unsupported("API.TN.1",
                                 std::to_string(refused) + " of " + std::to_string(pairs.size()) +
                                     " hand-overs were refused with HCCL_E_NOT_SUPPORT; first: " + first_refused);
            if (bad > 0 || refused < pairs.size())
                ev().check("API.TN.1", bad == 0,
                           std::to_string(bad) + " of " + std::to_string(pairs.size()) +
                               " hand-overs through a thread notify went wrong; first: " + first);
        }
    }
    mpi::phase_barrier("survivors: every thread notify");
}

// Plain writes of every tail length: 1 to 9 bytes, around a page, 64 KiB and a
// MiB, each to an odd offset of the peer's inbox from an odd offset of the
// sender's outbox, both directions at once. Judged by the receiver once every
// program completed: [dst, dst+len) holds the source and the guards around it
// are untouched (API.WR.1).
HCTS_CASE(ReadCopy, WriteEveryTail, clauses("API.WR.1"), needs(Feature::Write, Feature::DeviceThreads))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    std::vector<uint64_t> lengths{1, 2, 3, 4, 5, 6, 7, 9, 61, 4093, 4094, 4095, 4096, 4097, 65537, 65538, 65539};
    for (uint64_t l : {kMiB + 1, kMiB + 2, kMiB + 3})
        lengths.push_back(l);
    if (const uint64_t seg = segment_size(); seg != 0 && seg < kMiB)
        for (uint64_t l : {seg - 1, seg + 1, seg + 2, 3 * seg + 3})
            lengths.push_back(l);
    std::sort(lengths.begin(), lengths.end());
    lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
    ev().observe("lengths", lengths);
    struct Place {
        uint64_t len, dst, src;
    };
    std::vector<Place> places;
    uint64_t cursor = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
        const uint64_t dst = cursor + kGuard + (i * 13) % 64 + 1;
        places.push_back({lengths[i], dst, cursor + (i * 7) % 64 + 3});
        cursor = align_up(dst + lengths[i] + kGuard, 4096);
    }
    if (cursor > w.layout.lane_size || cursor > w.layout.outbox_size()) {
        ev().unsupported("API.WR.1", "the memory's regions hold less than the " + std::to_string(cursor) +
                                         " bytes these writes need");
        return;
    }
    const int peer = 1 - w.rank;
    const auto key_of = [](int sender, size_t i) {
        return StampKey{93, static_cast<uint32_t>(i), static_cast<uint32_t>(sender)};
    };
    if (w.rank <= 1)
        for (size_t i = 0; i < places.size(); ++i) {
            const Place &p = places[i];
            dev.stamp(w.inbox(peer) + p.dst - kGuard, p.len + 2 * kGuard, kGuardWord);
            dev.poison(w.inbox(peer) + p.dst, p.len);
            std::vector<std::byte> payload(p.len);
            fill_payload(payload, key_of(w.rank, i));
            dev.put(w.outbox() + p.src, payload);
        }
    mpi::phase_barrier("survivors: write tails prepared");
    Script s;
    if (w.rank <= 1)
        for (const Place &p : places)
            s.write(w.thread(), w.channel_to(peer), w.remote_inbox(peer, w.rank) + p.dst, w.outbox() + p.src, p.len);
    const LaunchResult r = c.run(s, 30000);
    std::vector<int32_t> rcs(places.size(), 0);
    for (size_t i = 0; i < places.size() && w.rank <= 1; ++i)
        rcs[i] = s.rc(i);
    // Each receiver judges the peer's writes: their return codes come from the sender.
    std::vector<int32_t> rc0 = w.rank == 0 ? rcs : std::vector<int32_t>(places.size());
    std::vector<int32_t> rc1 = w.rank == 1 ? rcs : std::vector<int32_t>(places.size());
    mpi::broadcast(std::as_writable_bytes(std::span(rc0)), 0, "survivors: rank 0's write return codes");
    mpi::broadcast(std::as_writable_bytes(std::span(rc1)), 1, "survivors: rank 1's write return codes");
    if (w.rank <= 1) {
        judge_launch(r, "API.WR.1", "the program of plain writes", ev());
        const std::vector<int32_t> &peer_rc = peer == 0 ? rc0 : rc1;
        uint32_t bad = 0;
        std::string first;
        for (size_t i = 0; i < places.size(); ++i) {
            const Place &p = places[i];
            const std::string what = "HcommWriteOnThread of " + std::to_string(p.len) + " bytes from rank " +
                                     std::to_string(peer) + " to offset " + std::to_string(p.dst) +
                                     " of its inbox lane here";
            std::string why;
            if (peer_rc[i] != HCCL_SUCCESS) {
                why = what + " returned " + hccl_result_name(peer_rc[i]);
            } else {
                const std::vector<std::byte> got = dev.get(w.inbox(peer) + p.dst - kGuard, p.len + 2 * kGuard);
                const PayloadCheck data = check_payload(std::span(got).subspan(kGuard, p.len), key_of(peer, i));
                const size_t guards = count_not_pattern(std::span(got).first(kGuard), kGuardWord) +
                                      count_not_pattern(std::span(got).last(kGuard), kGuardWord);
                if (!data.ok())
                    why = what + ", once every program completed: " + data.first_bad;
                else if (guards != 0)
                    why = what + ": " + std::to_string(guards) + " guard bytes around dst changed";
            }
            if (!why.empty() && bad++ == 0)
                first = why;
        }
        ev().check("API.WR.1", bad == 0,
                   std::to_string(bad) + " of " + std::to_string(places.size()) +
                       " plain writes went wrong; first: " + first);
    }
    mpi::phase_barrier("survivors: write tails judged");
}

// HcommSetNotifyWaitTimeOut keeps the integer part of its float (api §7.3):
// rank 0 sets 1.7 and waits with the default on a notify nobody raises, which
// must give up after one unit (not two); rank 1 sets 0.6, whose integer part 0
// means forever, and waits with the default on a notify rank 0 raises only
// after its own wait ended (about 1.3 s in): that wait must complete. Both on
// fresh threads; the default is set back to 1836 afterwards.
HCTS_CASE(Timeouts, DefaultTimeoutKeepsIntegerPart, clauses("WWN.TMO.7"),
          needs(Feature::SetWaitTimeout, Feature::DefaultTimeoutWait, Feature::WriteWithNotify, Feature::NotifyWait,
                Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    constexpr uint32_t kSilentIdx = 58, kLateIdx = 59;
    constexpr double kLateMs = 500.0;
    constexpr auto kNotifyAfter = std::chrono::milliseconds(1300);
    const char *cl = "WWN.TMO.7";
    const bool unit_known = mpi::all_ranks(w.unit.seconds.has_value(), "survivors: timeout unit known");
    if (!unit_known) {
        if (w.rank <= 1) {
            if (w.unit.refused)
                ev().unsupported(cl, "waits are not supported here: " + w.unit.note);
            else
                ev().error(cl, "the timeOut unit is unknown (WWN.PRF.3) on this rank or another: " + w.unit.note);
        }
        return;
    }
    const double unit_ms = *w.unit.seconds ? 1000.0 : 1.0;
    HcclResult arc = HCCL_SUCCESS;
    const ThreadHandle t = w.rank <= 1 ? w.fresh_thread(w.setup_engine, &arc) : 0;
    if (!mpi::all_ranks(w.rank > 1 || t != 0, "survivors: fresh threads for the default waits")) {
        if (w.rank <= 1)
            ev().error(cl, "no fresh thread for the default wait on this rank or another (HcclThreadAcquire returned " +
                               hccl_result_name(arc) + " here)");
        return;
    }
    mpi::phase_barrier("survivors: fractional defaults start");
    const auto start = std::chrono::steady_clock::now();
    const int peer = 1 - w.rank;
    bool late_wait_ok = true;
    if (w.rank == 0) {
        Script s;
        s.set_wait_timeout(1.7F);
        s.wait_default(t, w.channel_to(peer), kSilentIdx);
        const LaunchResult r = c.run(s, 10000);
        const std::string took = std::to_string(r.elapsed_ms()) + " ms (" + r.describe() + ")";
        if (r.trouble() == Trouble::Missing) {
            ev().unsupported(cl, "HcommSetNotifyWaitTimeOut or the default-timeout wait is absent");
        } else if (s.rc(0) != 0) {
            ev().check(cl, false, "HcommSetNotifyWaitTimeOut(1.7) returned " + rc_of(s, 0));
        } else if (s.rc(1) == HCCL_E_NOT_SUPPORT) {
            ev().unsupported(cl, "the default-timeout wait was refused with HCCL_E_NOT_SUPPORT");
        } else if (r.status.timed_out != 0) {
            ev().check(cl, false,
                       "after HcommSetNotifyWaitTimeOut(1.7) a default wait on a notify nobody raises had "
                       "not ended when the launch deadline passed after " +
                           took);
        } else if (s.rc(1) == HCCL_E_TIMEOUT || r.status.task_error == HCCL_E_TIMEOUT) {
            ev().check(cl, r.elapsed_ms() + 1.0 >= unit_ms && r.elapsed_ms() < unit_ms + kLateMs,
                       "after HcommSetNotifyWaitTimeOut(1.7) a default wait on a notify nobody raises timed out "
                       "after " +
                           took + "; expected the integer part, 1 unit (" + std::to_string(unit_ms) +
                           " ms), and less than " + std::to_string(unit_ms + kLateMs) + " ms");
        } else {
            ev().check(cl, false,
                       "after HcommSetNotifyWaitTimeOut(1.7) a default wait on a notify nobody raises returned " +
                           rc_of(s, 1) + " (" + r.describe() + ")");
        }
        std::this_thread::sleep_until(start + kNotifyAfter);
        Script n;
        n.wwn(w.thread(), w.channel_to(peer), w.remote_inbox(peer, w.rank), w.outbox(), 8, kLateIdx);
        const LaunchResult rn = c.run(n, 10000);
        if (n.rc(0) != 0 || !rn.ok())
            ev().error(cl, "the write with notify that ends rank 1's wait returned " + rc_of(n, 0) + " (" +
                               rn.describe() + ")");
    } else if (w.rank == 1) {
        Script s;
        s.set_wait_timeout(0.6F);
        s.wait_default(t, w.channel_to(peer), kLateIdx);
        const LaunchResult r = c.run(s, 10000);
        const double at = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        late_wait_ok = s.rc(1) == 0 && r.ok();
        if (r.trouble() == Trouble::Missing) {
            ev().unsupported(cl, "HcommSetNotifyWaitTimeOut or the default-timeout wait is absent");
        } else if (s.rc(0) != 0) {
            ev().check(cl, false, "HcommSetNotifyWaitTimeOut(0.6) returned " + rc_of(s, 0));
        } else if (s.rc(1) == HCCL_E_NOT_SUPPORT) {
            ev().unsupported(cl, "the default-timeout wait was refused with HCCL_E_NOT_SUPPORT");
        } else {
            ev().check(cl, late_wait_ok,
                       "after HcommSetNotifyWaitTimeOut(0.6) (integer part 0: forever) a default wait for a notify "
                       "raised about " +
                           std::to_string(kNotifyAfter.count()) + " ms in returned " + rc_of(s, 1) + " after " +
                           std::to_string(at) + " ms (" + r.describe() + "); it must wait for the notify");
        }
    }
    // A wait that gave up early leaves the late notify set: consume it on a fresh thread.
    if (!mpi::all_ranks(late_wait_ok, "survivors: the late notify was consumed") && w.rank == 1) {
        const ThreadHandle u = w.fresh_thread(w.setup_engine);
        if (u != 0) {
            Script s;
            s.wait(u, w.channel_to(peer), kLateIdx, w.timeout_of(3));
            (void)c.run(s, 10000);
        }
    }
    if (w.rank <= 1)
        restore_default_wait_timeout(c, cl);
    mpi::phase_barrier("survivors: fractional defaults judged");
}

// Thousands of notifies through one channel, both directions: in each window
// rank 0 writes with notify on every index of the channel's 64 (a small payload
// each, to a slot of its own), rank 1 waits for all 64 and answers with 64 of its
// own, which rank 0 waits for. 160 windows: 10240 notifies each way through the
// one channel pair (~0.2 s on the reference), paced by the notifies alone (no
// barrier, no snapshot per notify). At the end every wait must have completed, every payload be in its
// slot, and no notify be left set on either side.
HCTS_CASE(Index, ThousandsOfNotifies, clauses("WWN.NTF.1", "WWN.VIS.1", "WWN.IDX.1"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    constexpr uint32_t kIdx = World::kNotifyNum;
    constexpr uint32_t kWindows = 160;
    constexpr uint32_t kPerLaunch = 2; // 128 ops a window on each side: 256 per program
    constexpr uint64_t kSlot = 32;
    constexpr uint32_t kTotal = kWindows * kIdx; // each way
    const auto len_of = [](uint32_t n) { return 5 + (n * 7) % 23; };
    if (w.layout.lane_size < kTotal * kSlot + 8192) {
        ev().unsupported("WWN.NTF.1", "the memory's lanes are too small for " + std::to_string(kTotal) + " slots");
        return;
    }
    const int peer = 1 - w.rank;
    const uint64_t in = 8192; // in this rank's inbox lane for the peer, and in its outbox
    if (w.rank <= 1) {
        dev.poison(w.inbox(peer) + in, kTotal * kSlot);
        std::vector<std::byte> src(kTotal * kSlot);
        for (uint32_t n = 0; n < kTotal; ++n)
            fill_payload(std::span(src).subspan(n * kSlot, len_of(n)), StampKey{94, n, static_cast<uint32_t>(w.rank)});
        dev.put(w.outbox() + in, src);
    }
    mpi::phase_barrier("survivors: thousands of notifies prepared");
    const uint32_t timeout = w.timeout_of(5);
    std::vector<int32_t> wait_rc(kTotal, HCCL_SUCCESS - 1), wwn_rc(kTotal, HCCL_SUCCESS - 1);
    uint32_t done = 0;
    bool ok = true, out_of_time = false;
    LaunchResult bad_launch;
    const auto t0 = std::chrono::steady_clock::now();
    // Well inside the case deadline, so a library that moves the windows slowly (each
    // launch completing, but seconds apart) ends the case with what it judged, not
    // with the watchdog aborting the run.
    constexpr auto kBudget = std::chrono::seconds(45); // the case deadline is 60 s
    while (done < kWindows && ok && !out_of_time) {
        const uint32_t end = std::min(kWindows, done + kPerLaunch);
        Script s;
        std::vector<size_t> wait_at, wwn_at;
        if (w.rank <= 1) {
            const ThreadHandle t = w.thread();
            const ChannelHandle ch = w.channel_to(peer);
            std::byte *const remote = w.remote_inbox(peer, w.rank) + in;
            for (uint32_t win = done; win < end; ++win) {
                const auto send = [&] {
                    for (uint32_t k = 0; k < kIdx; ++k) {
                        const uint32_t n = win * kIdx + k;
                        wwn_at.push_back(s.size());
                        s.wwn(t, ch, remote + n * kSlot, w.outbox() + in + n * kSlot, len_of(n), k);
                    }
                };
                const auto receive = [&] {
                    for (uint32_t k = 0; k < kIdx; ++k) {
                        wait_at.push_back(s.size());
                        s.wait(t, ch, k, timeout);
                    }
                };
                if (w.rank == 0) {
                    send();
                    receive();
                } else {
                    receive();
                    send();
                }
            }
        }
        const LaunchResult r = c.run(s, 20000);
        for (size_t j = 0; j < wait_at.size(); ++j) {
            wait_rc[done * kIdx + j] = s.rc(wait_at[j]);
            wwn_rc[done * kIdx + j] = s.rc(wwn_at[j]);
        }
        if (!r.ok())
            bad_launch = r;
        ok = mpi::all_ranks(r.ok(), "survivors: a window launch completed");
        done = end;
        out_of_time = !mpi::all_ranks(std::chrono::steady_clock::now() - t0 < kBudget,
                                      "survivors: the windows are within their time budget");
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    // A wait's return is its enqueue's; whether it completed shows in its launch.
    // So only the windows of launches that completed on every rank are judged one
    // by one; a launch that did not complete (a wait that never got its notify
    // ends it with a task error) fails the clauses on the rank that ran it.
    const uint32_t judged = ok ? done : done - std::min(done, kPerLaunch);
    if (w.rank <= 1) {
        ev().observe("notifies_each_way", done * kIdx);
        ev().observe("run_ms", ms);
        // A slow but correct library (a notify sent late, legal) still shows the region
        // once hundreds of notifies passed one channel: what ran is judged; fewer is ERROR.
        constexpr uint32_t kEnough = 8; // 512 notifies each way, past the 128 and 256 marks
        if (ok && out_of_time && done < kEnough)
            for (const char *cl : {"WWN.NTF.1", "WWN.IDX.1"})
                ev().error(cl, "only " + std::to_string(done) + " of " + std::to_string(kWindows) + " windows ran in " +
                                   std::to_string(ms) +
                                   " ms (the reference takes about 200 ms for all); too few to judge");
        if (out_of_time)
            ev().observe("windows_within_budget", done);
        if (!bad_launch.ok()) {
            const std::string what = "a launch of windows " + std::to_string(judged) + " to " +
                                     std::to_string(done - 1) + " (after " + std::to_string(judged * kIdx) +
                                     " notifies each way)";
            judge_launch(bad_launch, "WWN.NTF.1", what, ev());
            judge_launch(bad_launch, "WWN.IDX.1", what, ev());
        }
        uint32_t bad_wait = 0, bad_data = 0;
        std::string first_wait, first_data;
        const std::vector<std::byte> got = dev.get(w.inbox(peer) + in, kTotal * kSlot);
        for (uint32_t n = 0; n < judged * kIdx; ++n) {
            const std::string what = "notify " + std::to_string(n) + " (window " + std::to_string(n / kIdx) + ", idx " +
                                     std::to_string(n % kIdx) + ") from rank " + std::to_string(peer);
            if (wait_rc[n] != HCCL_SUCCESS || wwn_rc[n] != HCCL_SUCCESS) {
                if (bad_wait++ == 0)
                    first_wait = what + ": this rank's wait returned " + hccl_result_name(wait_rc[n]) +
                                 ", its own write with notify of the same slot " + hccl_result_name(wwn_rc[n]);
                continue;
            }
            const PayloadCheck p = check_payload(std::span(got).subspan(n * kSlot, len_of(n)),
                                                 StampKey{94, n, static_cast<uint32_t>(peer)}, "dst (host read)");
            if (!p.ok() && bad_data++ == 0)
                first_data = what + ", once every program completed: " + p.first_bad;
        }
        ev().check("WWN.NTF.1", bad_wait == 0,
                   std::to_string(bad_wait) + " of " + std::to_string(judged * kIdx) +
                       " waits (or the writes with notify beside them) were refused; first: " + first_wait);
        ev().check("WWN.VIS.1", bad_data == 0,
                   std::to_string(bad_data) + " payloads were not in their slots; first: " + first_data);
        ev().check("WWN.IDX.1", bad_wait == 0,
                   "every index of 64 must carry " + std::to_string(kWindows) + " notifies each way; " +
                       std::to_string(bad_wait) + " waits were refused");
    }
    std::vector<uint32_t> all(kIdx);
    for (uint32_t i = 0; i < kIdx; ++i)
        all[i] = i;
    if (ok) {
        check_quiet(c, 0, 1, w.rank == 0 ? w.channel_to(1) : 0, w.rank == 1 ? w.channel_to(0) : 0, all, "WWN.NTF.1");
        check_quiet(c, 1, 0, w.rank == 1 ? w.channel_to(0) : 0, w.rank == 0 ? w.channel_to(1) : 0, all, "WWN.NTF.1");
    } else if (w.rank <= 1) {
        ev().error("WWN.NTF.1", "the windows stopped early; whether notifies were left set is not judged");
    }
}

// The host's write with notify Nbi calls where they have a home: ranks 0 and 1
// acquire a CPU thread and a CPU channel over RoCE to each other (api §8; on a
// product without that engine, Atlas 350, the acquisition must be refused and
// nothing more is judged); each in turn issues 64 calls, one on every index of the channel,
// HcommWriteWithNotifyNbiOnThread and HcommWriteWithNotifyNbi in blocks of 8,
// each block over lengths 1 byte to 1 MiB + 3 (most not a multiple of 4), all
// before the peer waits; the peer waits for every index on the host
// (HcommChannelNotifyWait; after a first failure for one unit each, so a
// library that drops many notifies still ends in time) and finds every payload in place.
HCTS_CASE(NbiCalls, HostWriteWithNotifyEveryShape, clauses("API.NBI.3"), needs(Feature::Nbi, Feature::HostOnlyCalls))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const HcommApi &api = iut().api();
    const char *cl = "API.NBI.3";
    const std::string product = adapter().product();
    const products::Product *row = products::Table::builtin().find(product);
    const bool home = row != nullptr && row->generation == products::Generation::Ascend950 &&
                      std::ranges::count(row->protocols(COMM_ENGINE_CPU), COMM_PROTOCOL_ROCE) > 0;
    if (api.HcommWriteWithNotifyNbiOnThread == nullptr || api.HcommWriteWithNotifyNbi == nullptr ||
        api.HcommChannelNotifyWait == nullptr || api.HcclChannelGetHcclBuffer == nullptr) {
        ev().unsupported(cl, "a write with notify Nbi call, HcommChannelNotifyWait or HcclChannelGetHcclBuffer is "
                             "absent");
        return;
    }
    const int peer = 1 - w.rank;
    ThreadHandle t = 0;
    ChannelHandle ch = 0;
    void *remote = nullptr;
    uint64_t remote_size = 0;
    HcclResult trc = HCCL_SUCCESS, crc = HCCL_SUCCESS, brc = HCCL_SUCCESS;
    if (w.rank <= 1) {
        trc = api.HcclThreadAcquire(w.comm, COMM_ENGINE_CPU, 1, 1, &t);
        HcclChannelDesc d;
        HcclChannelDescInit(&d, 1);
        d.remoteRank = static_cast<uint32_t>(peer);
        d.channelProtocol = COMM_PROTOCOL_ROCE;
        d.notifyNum = World::kNotifyNum;
        crc = api.HcclChannelAcquire(w.comm, COMM_ENGINE_CPU, &d, 1, &ch);
        if (crc == HCCL_SUCCESS)
            brc = api.HcclChannelGetHcclBuffer(w.comm, ch, &remote, &remote_size);
    }
    const bool ready = trc == HCCL_SUCCESS && crc == HCCL_SUCCESS && brc == HCCL_SUCCESS && remote != nullptr;
    const std::string got = "a CPU thread (HcclThreadAcquire " + hccl_result_name(trc) +
                            "), a CPU channel over RoCE (HcclChannelAcquire " + hccl_result_name(crc) +
                            ") and its peer buffer (" + hccl_result_name(brc) + ")";
    if (!mpi::all_ranks(ready, "survivors: host CPU thread and channel acquired")) {
        if (w.rank <= 1 && home)
            ev().error(cl, got + " on product '" + product +
                               "', whose table row has the CPU engine over RoCE: "
                               "the Nbi calls cannot be judged");
        else if (w.rank <= 1)
            // No home for the Nbi calls (api §8): the clause holds if no CPU RoCE channel is given out.
            ev().check(cl, !ready || crc != HCCL_SUCCESS,
                       "product '" + product +
                           "' has no host CPU engine over RoCE, yet this rank acquired its channel while another "
                           "rank did not: " +
                           got);
        ev().observe("nbi_home", home ? "acquisition failed" : "none on this product");
        if (ch != 0 && api.HcclChannelDestroy != nullptr)
            (void)api.HcclChannelDestroy(w.comm, &ch, 1);
        return;
    }
    const std::vector<uint64_t> lengths{1, 3, 8, 61, 4095, 4097, 65537, kMiB + 3};
    constexpr uint32_t kCalls = World::kNotifyNum;
    std::vector<uint64_t> off(kCalls + 1, 0);
    for (uint32_t j = 0; j < kCalls; ++j)
        off[j + 1] = align_up(off[j] + lengths[j % lengths.size()] + 2 * kGuard, 4096);
    if (off[kCalls] + 8192 > w.layout.lane_size || off[kCalls] > w.layout.outbox_size()) {
        ev().unsupported(cl, "the memory's regions are too small for the calls");
        if (api.HcclChannelDestroy != nullptr)
            (void)api.HcclChannelDestroy(w.comm, &ch, 1);
        return;
    }
    const auto dst_of = [&](uint32_t j) { return off[j] + kGuard + j % 7; };
    const auto key_of = [](int sender, uint32_t j) { return StampKey{95, j, static_cast<uint32_t>(sender)}; };
    const auto form_of = [](uint32_t j) {
        return (j / 8) % 2 == 0 ? "HcommWriteWithNotifyNbiOnThread" : "HcommWriteWithNotifyNbi";
    };
    if (w.rank <= 1) {
        dev.poison(w.inbox(peer), off[kCalls]);
        for (uint32_t j = 0; j < kCalls; ++j) {
            std::vector<std::byte> p(lengths[j % lengths.size()]);
            fill_payload(p, key_of(w.rank, j));
            dev.put(w.outbox() + off[j] + 5, p);
        }
    }
    mpi::phase_barrier("survivors: Nbi payloads placed");
    for (int sender = 0; sender <= 1; ++sender) {
        std::vector<int32_t> rcs(kCalls, 0);
        if (w.rank == sender) {
            auto *const base = static_cast<std::byte *>(remote) + w.layout.inbox(sender);
            for (uint32_t j = 0; j < kCalls; ++j) {
                const uint64_t len = lengths[j % lengths.size()];
                std::byte *const dst = base + dst_of(j);
                std::byte *const src = w.outbox() + off[j] + 5;
                rcs[j] = (j / 8) % 2 == 0 ? api.HcommWriteWithNotifyNbiOnThread(t, ch, dst, src, len, j)
                                          : api.HcommWriteWithNotifyNbi(ch, dst, src, len, j);
            }
        }
        mpi::broadcast(std::as_writable_bytes(std::span(rcs)), sender, "survivors: Nbi return codes");
        if (w.rank == 1 - sender) {
            uint32_t bad = 0, refused = 0;
            std::string first;
            for (uint32_t j = 0; j < kCalls; ++j) {
                const uint64_t len = lengths[j % lengths.size()];
                // Outside its home (a 950 row with the CPU engine over RoCE) a product
                // may refuse the call as unsupported: that shows nothing either way.
                if (!home && rcs[j] == HCCL_E_NOT_SUPPORT) {
                    ++refused;
                    continue;
                }
                const std::string what = std::string(form_of(j)) + " of " + std::to_string(len) + " bytes on index " +
                                         std::to_string(j) + " from rank " + std::to_string(sender);
                std::string why;
                if (rcs[j] != HCCL_SUCCESS) {
                    why = what + " returned " + hccl_result_name(rcs[j]);
                } else if (const int32_t wrc =
                               api.HcommChannelNotifyWait(ch, j, bad == 0 ? w.timeout_of(5) : w.short_timeout());
                           wrc != 0) {
                    why = what + ": the host's HcommChannelNotifyWait for it returned " + hccl_result_name(wrc);
                } else if (const PayloadCheck p = check_payload(dev.get(w.inbox(sender) + dst_of(j), len),
                                                                key_of(sender, j), "dst (host read after the wait)");
                           !p.ok()) {
                    why = what + ": " + p.first_bad;
                }
                if (!why.empty() && bad++ == 0)
                    first = why;
            }
            if (refused > 0)
                ev().unsupported(cl, std::to_string(refused) + " of " + std::to_string(kCalls) +
                                         " writes with notify from the host were refused with HCCL_E_NOT_SUPPORT "
                                         "on product '" +
                                         product + "', which has no host CPU engine over RoCE for them");
            if (refused < kCalls)
                ev().check(cl, bad == 0,
                           std::to_string(bad) + " of " + std::to_string(kCalls - refused) +
                               " writes with notify from the host went wrong; first: " + first);
        }
        mpi::phase_barrier("survivors: Nbi direction judged");
    }
    if (api.HcclChannelDestroy != nullptr && w.rank <= 1)
        (void)api.HcclChannelDestroy(w.comm, &ch, 1);
    mpi::phase_barrier("survivors: Nbi channels destroyed");
}

} // namespace hcts::cases_survivors
