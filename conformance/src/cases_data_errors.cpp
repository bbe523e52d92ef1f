// Null pointers and zero handles on the data calls beside write with notify:
// reads, local copies and the four reductions refuse them with HCCL_E_PTR and
// have no effect, as the vendor's device path does for every data call (api
// §9.1 checks 1-4, §9.3); the documents do not say so for these calls (STRICT).
#include "case_kit.h"
#include "hcomm/hcomm_primitives.h"

namespace hcts::cases_data_errors {
namespace {

struct DataCall {
    uint32_t kind;
    const char *name;
    bool channel;    // takes a channel
    bool remote_dst; // dst is the peer's (a write); else local
};

const std::vector<DataCall> &data_calls()
{
    static const std::vector<DataCall> kCalls{
        {HCTS_OP_READ, "HcommReadOnThread", true, false},
        {HCTS_OP_LOCAL_COPY, "HcommLocalCopyOnThread", false, false},
        {HCTS_OP_LOCAL_REDUCE, "HcommLocalReduceOnThread", false, false},
        {HCTS_OP_WRITE_REDUCE, "HcommWriteReduceOnThread", true, true},
        {HCTS_OP_WRITE_REDUCE_WITH_NOTIFY, "HcommWriteReduceWithNotifyOnThread", true, true},
        {HCTS_OP_READ_REDUCE, "HcommReadReduceOnThread", true, false},
    };
    return kCalls;
}

enum class Null { Dst, Src, Thread, Channel };
const char *null_name(Null n)
{
    switch (n) {
    case Null::Dst: return "dst NULL";
    case Null::Src: return "src NULL";
    case Null::Thread: return "thread 0";
    case Null::Channel: return "channel 0";
    }
    return "?";
}

constexpr uint64_t kCount = 16; // INT32 elements, or bytes x 4 for the copies
constexpr uint64_t kBytes = kCount * 4;
constexpr uint64_t kRegion = 1024;
constexpr uint32_t kFirstQuiet = 56;

} // namespace

HCTS_CASE(DataPlaneErrors, NullPointersAndZeroHandles, clauses("API.PTR.1"),
          needs(Feature::Read, Feature::LocalCopy, Feature::LocalReduce, Feature::WriteReduce, Feature::ReadReduce,
                Feature::WriteReduceWithNotify, Feature::WriteWithNotify, Feature::NotifyWait, Feature::DeviceThreads))
{
    const Ctx c = ctx();
    const World &w = c.w;
    struct Bad {
        const DataCall *call;
        Null null;
        uint64_t region;
        uint32_t idx;
    };
    std::vector<Bad> bad;
    std::vector<Untouched> inbox;
    std::vector<uint32_t> quiet;
    uint32_t idx = kFirstQuiet;
    uint64_t local_regions = 0;
    for (const DataCall &call : data_calls())
        for (Null n : {Null::Dst, Null::Src, Null::Thread, Null::Channel}) {
            if (n == Null::Channel && !call.channel)
                continue;
            Bad b{&call, n, call.remote_dst ? inbox.size() : local_regions++, 0};
            if (call.remote_dst)
                inbox.push_back({8192 + b.region * kRegion, 512});
            if (call.kind == HCTS_OP_WRITE_REDUCE_WITH_NOTIFY) {
                b.idx = idx++;
                quiet.push_back(b.idx);
            }
            bad.push_back(b);
        }
    prepare_targets(c, 0, 1, inbox, 4096, StampKey{24, 1, 0});
    if (w.rank == 0) {
        w.device().poison(w.scratch(), local_regions * kRegion);
        std::byte *const remote_outbox = w.peers.at(1).remote_base + w.layout.outbox();
        Script s;
        for (const Bad &b : bad) {
            const DataCall &k = *b.call;
            std::byte *dst =
                k.remote_dst ? w.remote_inbox(1, 0) + 8192 + b.region * kRegion : w.scratch() + b.region * kRegion;
            const std::byte *src = !k.channel || k.remote_dst ? w.outbox() : remote_outbox;
            ThreadHandle t = w.thread();
            ChannelHandle ch = w.channel_to(1);
            switch (b.null) {
            case Null::Dst: dst = nullptr; break;
            case Null::Src: src = nullptr; break;
            case Null::Thread: t = 0; break;
            case Null::Channel: ch = 0; break;
            }
            switch (k.kind) {
            case HCTS_OP_READ: s.read(t, ch, dst, src, kBytes); break;
            case HCTS_OP_LOCAL_COPY: s.copy(t, dst, src, kBytes); break;
            case HCTS_OP_LOCAL_REDUCE:
                s.local_reduce(t, dst, src, kCount, HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM);
                break;
            case HCTS_OP_WRITE_REDUCE:
                s.write_reduce(t, ch, dst, src, kCount, HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM);
                break;
            case HCTS_OP_WRITE_REDUCE_WITH_NOTIFY:
                s.write_reduce_notify(t, ch, dst, src, kCount, HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM, b.idx);
                break;
            default: s.read_reduce(t, ch, dst, src, kCount, HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM); break;
            }
        }
        const LaunchResult r = c.run(s, 30000);
        for (size_t i = 0; i < bad.size(); ++i) {
            const Bad &b = bad[i];
            const std::string what = std::string(b.call->name) + " with " + null_name(b.null);
            ev().check("API.PTR.1", s.rc(i) == HCCL_E_PTR,
                       what + " returned " + hccl_result_name(s.rc(i)) + ", expected HCCL_E_PTR (" + r.describe() +
                           ")");
            if (!b.call->remote_dst) {
                size_t first = 0;
                const size_t changed =
                    count_not_pattern(w.device().get(w.scratch() + b.region * kRegion, 512), kPoisonWord, &first);
                ev().check("API.PTR.1", changed == 0,
                           what + ": " + std::to_string(changed) + " bytes of its local dst changed (first at +" +
                               std::to_string(first) + ")");
            }
        }
    }
    prove_no_effect(c, 0, 1, 0, 0, kFirstQuiet + 6, inbox, quiet, "API.PTR.1");
}

} // namespace hcts::cases_data_errors
