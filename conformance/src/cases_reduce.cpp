// Reductions: HcommLocalReduceOnThread, HcommWriteReduceOnThread,
// HcommReadReduceOnThread and HcommWriteReduceWithNotifyOnThread compute
// dst[i] = dst[i] op src[i] for `count` elements of the data type (api §5), for
// every op and every data type the reference reduces; invalid types and ops are
// refused with HCCL_E_PARA and no effect (api §9.3).
#include "case_kit.h"
#include "hcomm/hcomm_primitives.h"
#include "reduce_data.h"

namespace hcts::cases_reduce {
namespace {

constexpr uint64_t kCount = 37; // odd, not a multiple of any vector width
constexpr uint64_t kExtra = 4;  // elements after dst's count that must stay as they were
constexpr uint64_t kSlot = 512; // one combination's buffer

struct Combo {
    const ReduceType *type;
    uint32_t op;
    uint32_t index;
    std::string name() const { return std::string(type->name) + " " + reduce_op_name(op); }
};

std::vector<Combo> combos()
{
    std::vector<Combo> out;
    for (const ReduceType &t : reduce_types())
        for (uint32_t op : reduce_ops())
            out.push_back({&t, op, static_cast<uint32_t>(out.size())});
    return out;
}

// What one call kind showed over all combinations, judged under `clause` (the
// result of every accepted call) and "API.RED.5" (every combination accepted).
// A refusal with HCCL_E_PARA is the documented answer to an unsupported type or
// op; any other refusal fails the clause.
// `unseen` marks combinations whose result could not be looked at (judged by the caller).
void judge_combos(const std::vector<Combo> &all, const std::vector<int32_t> &rcs,
                  const std::vector<std::vector<std::byte>> &got, const char *call, const std::string &clause,
                  Evidence &ev, const std::vector<bool> &unseen = {})
{
    size_t accepted = 0;
    std::vector<std::string> refused;
    for (const Combo &k : all) {
        const int32_t rc = rcs[k.index];
        if (!unseen.empty() && unseen[k.index] && rc == HCCL_SUCCESS) {
            ++accepted;
            continue;
        }
        const std::string what = std::string(call) + " " + k.name() + " (count " + std::to_string(kCount) + ")";
        if (rc == HCCL_E_PARA) {
            refused.push_back(k.name());
            continue;
        }
        if (!ev.check(clause, rc == HCCL_SUCCESS,
                      what + " returned " + hccl_result_name(rc) +
                          "; allowed: 0, or HCCL_E_PARA for an unsupported "
                          "data type or op"))
            continue;
        ++accepted;
        const ReduceCase want = reduce_case(*k.type, k.op, k.index, kCount, kExtra);
        const std::string bad = reduce_mismatch(*k.type, got[k.index], want.want);
        ev.check(clause, bad.empty(),
                 what + ": " + bad + " (dst = dst op src over count elements, the " + std::to_string(kExtra) +
                     " after them unchanged)");
    }
    if (accepted == 0)
        ev.unsupported(clause, std::string(call) + " refused every data type and op with HCCL_E_PARA");
    std::string list;
    for (const std::string &r : refused)
        list += (list.empty() ? "" : ", ") + r;
    ev.check("API.RED.5", refused.empty(),
             std::string(call) + " refused " + std::to_string(refused.size()) + " of " + std::to_string(all.size()) +
                 " combinations with HCCL_E_PARA (" + list +
                 "); the reference reduces INT8..UINT64, FP16, FP32, FP64 and BFP16 with SUM, PROD, MAX and MIN");
}

void put_operands(const Device &dev, std::byte *dst_base, std::byte *src_base, const std::vector<Combo> &all)
{
    for (const Combo &k : all) {
        const ReduceCase rc = reduce_case(*k.type, k.op, k.index, kCount, kExtra);
        if (dst_base != nullptr)
            dev.put(dst_base + k.index * kSlot, rc.dst);
        if (src_base != nullptr)
            dev.put(src_base + k.index * kSlot, rc.src);
    }
}

std::vector<std::vector<std::byte>> get_results(const Device &dev, const std::byte *dst_base,
                                                const std::vector<Combo> &all)
{
    std::vector<std::vector<std::byte>> out;
    for (const Combo &k : all)
        out.push_back(dev.get(dst_base + k.index * kSlot, (kCount + kExtra) * k.type->size));
    return out;
}

std::vector<int32_t> rcs_from(const Script &s, size_t first, size_t n)
{
    std::vector<int32_t> out;
    for (size_t i = 0; i < n; ++i)
        out.push_back(s.rc(first + i));
    return out;
}

} // namespace

// Rank 0 reduces locally, into rank 1's memory, and from rank 1's memory, one
// call per (data type, op) each on its own buffers, in one program.
HCTS_CASE(Reduce, EveryTypeAndOp, clauses("API.RED.1", "API.RED.2", "API.RED.3", "API.RED.5"),
          needs(Feature::LocalReduce, Feature::WriteReduce, Feature::ReadReduce, Feature::DeviceThreads))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const std::vector<Combo> all = combos();
    const uint64_t area = all.size() * kSlot;
    // Rank 0: local reduce dst | local reduce src | read-reduce dst, in its scratch;
    // write-reduce src in its outbox. Rank 1: write-reduce dst in its inbox lane
    // for rank 0, read-reduce src in its outbox.
    std::byte *const local_dst = w.scratch();
    std::byte *const local_src = w.scratch() + area;
    std::byte *const read_dst = w.scratch() + 2 * area;
    if (w.rank == 0) {
        put_operands(dev, local_dst, local_src, all);
        put_operands(dev, read_dst, w.outbox(), all);
    }
    if (w.rank == 1) {
        put_operands(dev, w.inbox(0), nullptr, all);
        put_operands(dev, nullptr, w.outbox(), all);
    }
    mpi::phase_barrier("reduce operands placed");
    if (w.rank == 0) {
        std::byte *const remote_outbox = w.peers.at(1).remote_base + w.layout.outbox();
        Script s;
        for (const Combo &k : all)
            s.local_reduce(w.thread(), local_dst + k.index * kSlot, local_src + k.index * kSlot, kCount, k.type->type,
                           k.op);
        for (const Combo &k : all)
            s.write_reduce(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + k.index * kSlot,
                           w.outbox() + k.index * kSlot, kCount, k.type->type, k.op);
        for (const Combo &k : all)
            s.read_reduce(w.thread(), w.channel_to(1), read_dst + k.index * kSlot, remote_outbox + k.index * kSlot,
                          kCount, k.type->type, k.op);
        const LaunchResult r = c.run(s);
        judge_launch(r, "API.RED.1", "the program of reductions", ev());
        judge_launch(r, "API.RED.2", "the program of reductions", ev());
        judge_launch(r, "API.RED.3", "the program of reductions", ev());
        judge_combos(all, rcs_from(s, 0, all.size()), get_results(dev, local_dst, all), "HcommLocalReduceOnThread",
                     "API.RED.1", ev());
        judge_combos(all, rcs_from(s, 2 * all.size(), all.size()), get_results(dev, read_dst, all),
                     "HcommReadReduceOnThread", "API.RED.3", ev());
        std::vector<int32_t> write_rc = rcs_from(s, all.size(), all.size());
        mpi::broadcast(std::as_writable_bytes(std::span(write_rc)), 0, "write-reduce return codes");
    } else if (w.rank == 1) {
        std::vector<int32_t> write_rc(all.size());
        mpi::broadcast(std::as_writable_bytes(std::span(write_rc)), 0, "write-reduce return codes");
        judge_combos(all, write_rc, get_results(dev, w.inbox(0), all), "HcommWriteReduceOnThread", "API.RED.2", ev());
    } else {
        std::vector<int32_t> write_rc(all.size());
        mpi::broadcast(std::as_writable_bytes(std::span(write_rc)), 0, "write-reduce return codes");
    }
    mpi::phase_barrier("reductions judged");
}

// Rank 0 write-reduces into rank 1 with a notify per (data type, op); rank 1
// waits for each and copies dst on its stream at once: the reduced result must
// be there (as a write with notify's payload is at its wait, WWN.VIS.1).
HCTS_CASE(Reduce, WithNotifyVisibleAtWait, clauses("API.RED.4", "API.RED.5"),
          needs(Feature::WriteReduceWithNotify, Feature::NotifyWait, Feature::NotifyRecord, Feature::LocalCopy,
                Feature::DeviceThreads))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const std::vector<Combo> all = combos(); // 48 < World::kNotifyNum: one index each
    const uint64_t area = all.size() * kSlot;
    std::byte *const snap = w.scratch();
    if (w.rank == 0)
        put_operands(dev, nullptr, w.outbox(), all);
    if (w.rank == 1) {
        put_operands(dev, w.inbox(0), nullptr, all);
        dev.poison(snap, area);
    }
    mpi::phase_barrier("reduce-with-notify operands placed");
    Script s;
    // A refused call raises no notify: a plain record stands in for it, so the
    // receiver's wait ends at once instead of timing out (and stopping its thread).
    if (w.rank == 0)
        for (const Combo &k : all) {
            s.write_reduce_notify(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + k.index * kSlot,
                                  w.outbox() + k.index * kSlot, kCount, k.type->type, k.op, k.index);
            s.record(w.thread(), w.channel_to(1), k.index).only_if_previous_failed();
        }
    if (w.rank == 1)
        for (const Combo &k : all) {
            s.wait(w.thread(), w.channel_to(0), k.index, w.ok_timeout());
            s.copy(w.thread(), snap + k.index * kSlot, w.inbox(0) + k.index * kSlot, (kCount + kExtra) * k.type->size)
                .only_if_previous_ok();
        }
    const LaunchResult r = c.run(s);
    std::vector<int32_t> rcs(all.size());
    if (w.rank == 0)
        for (const Combo &k : all)
            rcs[k.index] = s.rc(2 * k.index);
    mpi::broadcast(std::as_writable_bytes(std::span(rcs)), 0, "write-reduce-with-notify return codes");
    if (w.rank == 1) {
        std::vector<bool> unseen(all.size(), false);
        bool refused_before = false; // its stand-in record may have failed too, and the wait stopped the thread
        for (const Combo &k : all) {
            if (rcs[k.index] != HCCL_SUCCESS) {
                refused_before = true;
                continue;
            }
            const int32_t wait_rc = s.rc(2 * k.index), copy_rc = s.rc(2 * k.index + 1);
            if (wait_rc == HCCL_SUCCESS && copy_rc == HCCL_SUCCESS)
                continue;
            unseen[k.index] = true;
            const std::string what = "HcommWriteReduceWithNotifyOnThread " + k.name() + ": the wait on notify " +
                                     std::to_string(k.index) + " returned " + hccl_result_name(wait_rc) +
                                     ", the snapshot after it " + hccl_result_name(copy_rc) + " (" + r.describe() + ")";
            if (wait_rc == HCCL_SUCCESS) // the wait held; only the view right after it is missing
                ev().unsupported("API.RED.4", what + ": no snapshot right after the wait");
            else if (refused_before)
                ev().unsupported("API.RED.4", what + ", after an earlier refused call's wait stopped the thread");
            else
                ev().check("API.RED.4", false, what);
        }
        judge_combos(all, rcs, get_results(dev, snap, all),
                     "HcommWriteReduceWithNotifyOnThread (snapshot right after the wait)", "API.RED.4", ev(), unseen);
    }
    if (w.rank <= 1)
        judge_launch(r, "API.RED.4", w.rank == 0 ? "the sender's program" : "the receiver's program", ev());
}

// API.RED.8 (STRICT): results that do not fit the type round as the reference
// chose, to nearest with ties to even for FP16, BFP16, FP32 and FP64 (overflow to
// infinity, subnormals kept) and modulo 2^bits for the integers. The operands come
// from the run's seed (rounding_case: sums whose exponents are apart by every
// amount up to the precision and beyond, products across the whole range, full-range
// integers), so each run probes other bits against the rounding point; the exact
// model is reduce_data.cpp's, not the reference's code. Rank 0 reduces locally and
// into rank 1's memory in one program; a combination refused with HCCL_E_PARA is
// API.RED.5's business, not judged here.
HCTS_CASE(Reduce, RoundingEveryType, clauses("API.RED.8", "API.RED.1", "API.RED.2"),
          needs(Feature::LocalReduce, Feature::WriteReduce, Feature::DeviceThreads))
{
    constexpr uint64_t kRoundCount = 96;
    constexpr uint64_t kRoundSlot = kRoundCount * 8;
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const std::vector<Combo> all = combos();
    const uint64_t area = all.size() * kRoundSlot;
    std::byte *const local_dst = w.scratch();
    std::byte *const local_src = w.scratch() + area;
    std::vector<ReduceCase> cases;
    for (const Combo &k : all)
        cases.push_back(rounding_case(*k.type, k.op, kRoundCount, c.seed));
    if (w.rank == 0)
        for (const Combo &k : all) {
            dev.put(local_dst + k.index * kRoundSlot, cases[k.index].dst);
            dev.put(local_src + k.index * kRoundSlot, cases[k.index].src);
            dev.put(w.outbox() + k.index * kRoundSlot, cases[k.index].src);
        }
    if (w.rank == 1)
        for (const Combo &k : all)
            dev.put(w.inbox(0) + k.index * kRoundSlot, cases[k.index].dst);
    mpi::phase_barrier("rounding operands placed");
    std::vector<int32_t> write_rc(all.size(), HCCL_SUCCESS);
    const std::string seed = " (seed " + std::to_string(c.seed) + ")";
    // `must`: the MUST clause of the call, which a result the type holds exactly and that
    // is still wrong breaks (its full-range operands reach past what EveryTypeAndOp's small
    // ones do: a high bit in MAX/MIN, 64-bit sums beyond double's 53 bits, floating results
    // with every significant bit of the type in use).
    const auto judge = [&](const char *call, const char *must, const std::vector<int32_t> &rcs, const std::byte *base) {
        size_t judged = 0;
        for (const Combo &k : all) {
            if (rcs[k.index] == HCCL_E_PARA)
                continue; // an unsupported combination: API.RED.5
            const std::string what = std::string(call) + " " + k.name() + seed;
            if (!ev().check("API.RED.8", rcs[k.index] == HCCL_SUCCESS,
                            what + " returned " + hccl_result_name(rcs[k.index]) + ", expected 0"))
                continue;
            ++judged;
            const std::vector<std::byte> got = dev.get(base + k.index * kRoundSlot, kRoundCount * k.type->size);
            const std::string bad = reduce_mismatch(*k.type, got, cases[k.index].want);
            const std::string wrong = exact_result_mismatch(*k.type, k.op, cases[k.index], got);
            ev().check(must, wrong.empty(), what + ": " + wrong);
            ev().check("API.RED.8", bad.empty(),
                       what + ": " + bad +
                           " (the exact result rounded once to nearest, ties to even; integers modulo 2^bits)");
        }
        if (judged == 0)
            ev().unsupported("API.RED.8", std::string(call) + " refused every data type and op with HCCL_E_PARA");
    };
    if (w.rank == 0) {
        Script s;
        for (const Combo &k : all)
            s.local_reduce(w.thread(), local_dst + k.index * kRoundSlot, local_src + k.index * kRoundSlot, kRoundCount,
                           k.type->type, k.op);
        for (const Combo &k : all)
            s.write_reduce(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + k.index * kRoundSlot,
                           w.outbox() + k.index * kRoundSlot, kRoundCount, k.type->type, k.op);
        const LaunchResult r = c.run(s);
        judge_launch(r, "API.RED.8", "the program of reductions", ev());
        judge("HcommLocalReduceOnThread", "API.RED.1", rcs_from(s, 0, all.size()), local_dst);
        write_rc = rcs_from(s, all.size(), all.size());
    }
    mpi::broadcast(std::as_writable_bytes(std::span(write_rc)), 0, "rounding write-reduce return codes");
    if (w.rank == 1)
        judge("HcommWriteReduceOnThread", "API.RED.2", write_rc, w.inbox(0));
    mpi::phase_barrier("rounding judged");
}

} // namespace hcts::cases_reduce

namespace hcts::cases_reduce {
namespace {

// A (data type, op) the reference does not reduce: reserved values of both enums
// (api §4.5), and INT128, HIF8 and the FP8 types (the vendor's A5 path accepts
// them, so only the reserved ops are a MUST).
struct Invalid {
    uint32_t type;
    uint32_t op;
    bool reserved; // true: a reserved op (API.RED.6 for the call with notify)
    std::string name() const { return "dataType " + std::to_string(type) + " / reduceOp " + std::to_string(op); }
};

const std::vector<Invalid> &invalids()
{
    static const std::vector<Invalid> kInvalid{
        {HCOMM_DATA_TYPE_INT32, 4, true},
        {HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_RESERVED, true},
        // Not with notify's MUST: the vendor sizes dst by dataType before checking it
        // (SIZE_TABLE[dataType]), so an unknown type is undefined there.
        {13, HCOMM_REDUCE_SUM, false}, // 13 is unused by HcommDataType
        {HCOMM_DATA_TYPE_RESERVED, HCOMM_REDUCE_SUM, false},
        {HCOMM_DATA_TYPE_INT128, HCOMM_REDUCE_SUM, false},
        {HCOMM_DATA_TYPE_HIF8, HCOMM_REDUCE_SUM, false},
        {HCOMM_DATA_TYPE_FP8E4M3, HCOMM_REDUCE_MAX, false},
        {HCOMM_DATA_TYPE_FP8E5M2, HCOMM_REDUCE_SUM, false},
        {HCOMM_DATA_TYPE_FP8E8M0, HCOMM_REDUCE_MIN, false},
    };
    return kInvalid;
}

constexpr uint64_t kBadCount = 8;
constexpr uint64_t kRegion = 1024; // one call's destination (512 bytes checked)
constexpr uint32_t kFirstQuiet = 30;

} // namespace

// Rank 0 makes every call with an invalid (type, op), each aimed at its own
// poisoned region (rank 1's inbox lane for the writes, its own scratch for the
// local and read reductions) and, with notify, at its own index.
HCTS_CASE(Reduce, InvalidTypeOrOpRefused, clauses("API.RED.6", "API.RED.7"),
          needs(Feature::LocalReduce, Feature::WriteReduce, Feature::ReadReduce, Feature::WriteReduceWithNotify,
                Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy, Feature::DeviceThreads))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    struct Call {
        uint32_t kind;
        Invalid bad;
        uint64_t region; // inbox regions (writes) or scratch regions (local, read)
        uint32_t idx;
        std::string clause() const
        {
            return kind == HCTS_OP_WRITE_REDUCE_WITH_NOTIFY && bad.reserved ? "API.RED.6" : "API.RED.7";
        }
    };
    std::vector<Call> calls;
    uint64_t inbox_regions = 0, local_regions = 0;
    uint32_t idx = kFirstQuiet;
    for (const Invalid &b : invalids())
        calls.push_back({HCTS_OP_WRITE_REDUCE_WITH_NOTIFY, b, inbox_regions++, idx++});
    for (const Invalid &b : invalids())
        calls.push_back({HCTS_OP_WRITE_REDUCE, b, inbox_regions++, 0});
    for (const Invalid &b : invalids())
        calls.push_back({HCTS_OP_LOCAL_REDUCE, b, local_regions++, 0});
    for (const Invalid &b : invalids())
        calls.push_back({HCTS_OP_READ_REDUCE, b, local_regions++, 0});
    std::map<std::string, std::vector<Untouched>> untouched;
    std::map<std::string, std::vector<uint32_t>> quiet;
    for (const Call &k : calls)
        if (k.kind == HCTS_OP_WRITE_REDUCE_WITH_NOTIFY || k.kind == HCTS_OP_WRITE_REDUCE) {
            untouched[k.clause()].push_back({8192 + k.region * kRegion, 512});
            if (k.kind == HCTS_OP_WRITE_REDUCE_WITH_NOTIFY)
                quiet[k.clause()].push_back(k.idx);
        }
    std::vector<Untouched> all_inbox;
    for (const auto &[clause, regions] : untouched)
        all_inbox.insert(all_inbox.end(), regions.begin(), regions.end());
    prepare_targets(c, 0, 1, all_inbox, 4096, StampKey{22, 1, 0});
    if (w.rank == 0) {
        dev.poison(w.scratch(), local_regions * kRegion);
        std::byte *const remote_outbox = w.peers.at(1).remote_base + w.layout.outbox();
        Script s;
        for (const Call &k : calls) {
            std::byte *const remote_dst = w.remote_inbox(1, 0) + 8192 + k.region * kRegion;
            std::byte *const local_dst = w.scratch() + k.region * kRegion;
            switch (k.kind) {
            case HCTS_OP_WRITE_REDUCE_WITH_NOTIFY:
                s.write_reduce_notify(w.thread(), w.channel_to(1), remote_dst, w.outbox(), kBadCount, k.bad.type,
                                      k.bad.op, k.idx);
                break;
            case HCTS_OP_WRITE_REDUCE:
                s.write_reduce(w.thread(), w.channel_to(1), remote_dst, w.outbox(), kBadCount, k.bad.type, k.bad.op);
                break;
            case HCTS_OP_LOCAL_REDUCE:
                s.local_reduce(w.thread(), local_dst, w.outbox(), kBadCount, k.bad.type, k.bad.op);
                break;
            default:
                s.read_reduce(w.thread(), w.channel_to(1), local_dst, remote_outbox, kBadCount, k.bad.type, k.bad.op);
                break;
            }
        }
        const LaunchResult r = c.run(s, 30000);
        static const std::map<uint32_t, const char *> kCall{
            {HCTS_OP_WRITE_REDUCE_WITH_NOTIFY, "HcommWriteReduceWithNotifyOnThread"},
            {HCTS_OP_WRITE_REDUCE, "HcommWriteReduceOnThread"},
            {HCTS_OP_LOCAL_REDUCE, "HcommLocalReduceOnThread"},
            {HCTS_OP_READ_REDUCE, "HcommReadReduceOnThread"}};
        for (size_t i = 0; i < calls.size(); ++i) {
            const Call &k = calls[i];
            const std::string what = std::string(kCall.at(k.kind)) + " with " + k.bad.name();
            ev().check(k.clause(), s.rc(i) == HCCL_E_PARA,
                       what + " returned " + hccl_result_name(s.rc(i)) + ", expected HCCL_E_PARA (" + r.describe() +
                           ")");
            if (k.kind == HCTS_OP_LOCAL_REDUCE || k.kind == HCTS_OP_READ_REDUCE) {
                size_t first = 0;
                const size_t bad =
                    count_not_pattern(dev.get(w.scratch() + k.region * kRegion, 512), kPoisonWord, &first);
                ev().check(k.clause(), bad == 0,
                           what + ": " + std::to_string(bad) + " bytes of its local dst changed (first at +" +
                               std::to_string(first) + ")");
            }
        }
    }
    uint32_t probe = kFirstQuiet + static_cast<uint32_t>(invalids().size());
    for (const char *clause : {"API.RED.6", "API.RED.7"})
        prove_no_effect(c, 0, 1, 0, 0, probe++, untouched[clause], quiet[clause], clause);
}

} // namespace hcts::cases_reduce
