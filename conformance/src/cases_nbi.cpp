// The Nbi calls (HcommWriteNbi, HcommWriteWithNotifyNbi, HcommReadNbi and their
// *OnThread forms) exist only on the host CPU engine (api §8): on the device side
// (AICPU) the vendor null-checks dst and src, then returns HCCL_E_NOT_SUPPORT
// (api §9.3); a host call on an AICPU_TS thread or channel is refused too
// (reference, as the vendor's AICPU-TS channels do, api §9.4).
#include "case_kit.h"

namespace hcts::cases_nbi {
namespace {

struct NbiCall {
    uint32_t kind;
    const char *name;
    bool write;
    bool notify;
};

const std::vector<NbiCall> &nbi_calls()
{
    static const std::vector<NbiCall> kCalls{
        {HCTS_OP_WRITE_NBI_ON_THREAD, "HcommWriteNbiOnThread", true, false},
        {HCTS_OP_WRITE_NBI, "HcommWriteNbi", true, false},
        {HCTS_OP_WRITE_WITH_NOTIFY_NBI_ON_THREAD, "HcommWriteWithNotifyNbiOnThread", true, true},
        {HCTS_OP_WRITE_WITH_NOTIFY_NBI, "HcommWriteWithNotifyNbi", true, true},
        {HCTS_OP_READ_NBI_ON_THREAD, "HcommReadNbiOnThread", false, false},
        {HCTS_OP_READ_NBI, "HcommReadNbi", false, false},
    };
    return kCalls;
}

constexpr uint64_t kLen = 256;
constexpr uint64_t kRegion = 4096;

// Where call k aims: a region of rank 1's inbox lane (writes) or of rank 0's
// scratch (reads), and a notify index of its own (`first_idx` + k).
struct Aim {
    std::vector<Untouched> inbox;
    std::vector<uint32_t> quiet;
};

Aim aims(uint64_t base, uint32_t first_idx)
{
    Aim a;
    for (size_t k = 0; k < nbi_calls().size(); ++k)
        if (nbi_calls()[k].write) {
            a.inbox.push_back({base + k * kRegion, kLen});
            if (nbi_calls()[k].notify)
                a.quiet.push_back(first_idx + static_cast<uint32_t>(k));
        }
    return a;
}

// Rank 0: the local dst of every read left as poisoned.
void judge_reads_untouched(const World &w, uint64_t base, const std::string &clause, Evidence &ev)
{
    for (size_t k = 0; k < nbi_calls().size(); ++k)
        if (!nbi_calls()[k].write) {
            size_t first = 0;
            const size_t bad =
                count_not_pattern(w.device().get(w.scratch() + base + k * kRegion, kLen), kPoisonWord, &first);
            ev.check(clause, bad == 0,
                     std::string(nbi_calls()[k].name) + ": " + std::to_string(bad) +
                         " bytes of the refused read's local dst changed (first at +" + std::to_string(first) + ")");
        }
}

} // namespace

// Each Nbi call from the device program, on the world's AICPU_TS thread and
// channel: with dst NULL and with src NULL (HCCL_E_PTR), then with valid
// arguments (HCCL_E_NOT_SUPPORT); nothing written, read or notified.
HCTS_CASE(NbiCalls, DeviceSideRefused, clauses("API.NBI.1"),
          needs(Feature::Nbi, Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy,
                Feature::DeviceThreads))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const uint64_t base = 8192;
    const uint32_t first_idx = 40;
    const Aim aim = aims(base, first_idx);
    prepare_targets(c, 0, 1, aim.inbox, kLen, StampKey{23, 1, 0});
    if (w.rank == 0) {
        w.device().poison(w.scratch() + base, nbi_calls().size() * kRegion);
        std::byte *const remote_outbox = w.peers.at(1).remote_base + w.layout.outbox();
        Script s;
        for (size_t k = 0; k < nbi_calls().size(); ++k) {
            const NbiCall &n = nbi_calls()[k];
            std::byte *const dst =
                n.write ? w.remote_inbox(1, 0) + base + k * kRegion : w.scratch() + base + k * kRegion;
            const void *const src = n.write ? static_cast<const void *>(w.outbox()) : remote_outbox;
            const uint32_t idx = first_idx + static_cast<uint32_t>(k);
            s.nbi(n.kind, w.thread(), w.channel_to(1), nullptr, src, kLen, idx);
            s.nbi(n.kind, w.thread(), w.channel_to(1), dst, nullptr, kLen, idx);
            s.nbi(n.kind, w.thread(), w.channel_to(1), dst, src, kLen, idx);
        }
        const LaunchResult r = c.run(s, 30000);
        for (size_t k = 0; k < nbi_calls().size(); ++k) {
            const std::string call = nbi_calls()[k].name;
            const std::string after = " on the device side (" + r.describe() + ")";
            ev().check("API.NBI.1", s.rc(3 * k) == HCCL_E_PTR,
                       call + " with dst NULL returned " + hccl_result_name(s.rc(3 * k)) + after +
                           ", expected HCCL_E_PTR (null check first, api §9.3)");
            ev().check("API.NBI.1", s.rc(3 * k + 1) == HCCL_E_PTR,
                       call + " with src NULL returned " + hccl_result_name(s.rc(3 * k + 1)) + after +
                           ", expected HCCL_E_PTR (null check first, api §9.3)");
            ev().check("API.NBI.1", s.rc(3 * k + 2) == HCCL_E_NOT_SUPPORT,
                       call + " with valid arguments returned " + hccl_result_name(s.rc(3 * k + 2)) + after +
                           ", expected HCCL_E_NOT_SUPPORT (Nbi calls are host CPU only, api §8, §9.3)");
        }
        judge_reads_untouched(w, base, "API.NBI.1", ev());
    }
    prove_no_effect(c, 0, 1, 0, 0, first_idx + static_cast<uint32_t>(nbi_calls().size()), aim.inbox, aim.quiet,
                    "API.NBI.1");
}

// Each Nbi call made on the host with the world's AICPU_TS thread and channel
// (valid arguments otherwise): HCCL_E_NOT_SUPPORT, and no effect.
HCTS_CASE(NbiCalls, HostSideAicpuTsRefused, clauses("API.NBI.2"),
          needs(Feature::Nbi, Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy,
                Feature::DeviceThreads))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const HcommApi &api = iut().api();
    const uint64_t base = 8192 + nbi_calls().size() * kRegion;
    const uint32_t first_idx = 50;
    const Aim aim = aims(base, first_idx);
    prepare_targets(c, 0, 1, aim.inbox, kLen, StampKey{23, 2, 0});
    if (w.rank == 0) {
        w.device().poison(w.scratch() + base, nbi_calls().size() * kRegion);
        std::byte *const remote_outbox = w.peers.at(1).remote_base + w.layout.outbox();
        const ThreadHandle t = w.thread();
        const ChannelHandle ch = w.channel_to(1);
        for (size_t k = 0; k < nbi_calls().size(); ++k) {
            const NbiCall &n = nbi_calls()[k];
            std::byte *const dst =
                n.write ? w.remote_inbox(1, 0) + base + k * kRegion : w.scratch() + base + k * kRegion;
            const uint32_t idx = first_idx + static_cast<uint32_t>(k);
            int32_t rc = 0;
            switch (n.kind) {
            case HCTS_OP_WRITE_NBI_ON_THREAD: rc = api.HcommWriteNbiOnThread(t, ch, dst, w.outbox(), kLen); break;
            case HCTS_OP_WRITE_NBI: rc = api.HcommWriteNbi(ch, dst, w.outbox(), kLen); break;
            case HCTS_OP_WRITE_WITH_NOTIFY_NBI_ON_THREAD:
                rc = api.HcommWriteWithNotifyNbiOnThread(t, ch, dst, w.outbox(), kLen, idx);
                break;
            case HCTS_OP_WRITE_WITH_NOTIFY_NBI: rc = api.HcommWriteWithNotifyNbi(ch, dst, w.outbox(), kLen, idx); break;
            case HCTS_OP_READ_NBI_ON_THREAD: rc = api.HcommReadNbiOnThread(t, ch, dst, remote_outbox, kLen); break;
            default: rc = api.HcommReadNbi(ch, dst, remote_outbox, kLen); break;
            }
            ev().check("API.NBI.2", rc == HCCL_E_NOT_SUPPORT,
                       std::string(n.name) + " on the host with an AICPU_TS thread/channel returned " +
                           hccl_result_name(rc) + ", expected HCCL_E_NOT_SUPPORT (Nbi needs the host CPU engine)");
        }
    }
    // Anything a wrongly accepted call queued on the thread runs before the probe write.
    prove_no_effect(c, 0, 1, 0, 0, first_idx + static_cast<uint32_t>(nbi_calls().size()), aim.inbox, aim.quiet,
                    "API.NBI.2");
    if (w.rank == 0)
        judge_reads_untouched(w, base, "API.NBI.2", ev());
}

} // namespace hcts::cases_nbi
