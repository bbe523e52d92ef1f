// The AICPU kernel of HcclBroadcastRead. It only queues tasks on its AICPU_TS thread and
// returns; the thread runs them in order (the launch ends when they ran).
//
// Protocol: the root's HCCL buffer has two slots. The root copies chunk k of buf into slot
// k % 2 and records READY + slot at every other rank; each rank waits for it, reads the slot
// into its buf with HcommReadOnThread and records DONE + slot at the root. The root refills a
// slot (chunk k + 2) only once every rank's DONE for chunk k came, and waits for the DONEs of
// the last two chunks before it ends, so no notify is left set for the next launch. Each
// notify index has at most one record outstanding (notifies are binary).
#include <cstdio>

#include "broadcast_args.h"
#include "hcomm/hcomm_primitives.h"

namespace {

using broadcast_read::KernelArgs;

#define BC_CHECK(call)                                                                                                 \
    do {                                                                                                               \
        const int32_t rc_ = (call);                                                                                    \
        if (rc_ != 0) {                                                                                                \
            std::fprintf(stderr, "broadcast kernel (rank %u): %s returned %d\n", a.rank, #call,                        \
                         static_cast<int>(rc_));                                                                       \
            return rc_;                                                                                                \
        }                                                                                                              \
    } while (0)

void *at(uint64_t base, uint64_t offset) { return reinterpret_cast<void *>(base + offset); }

int32_t run_root(const KernelArgs &a, uint64_t chunks)
{
    auto length = [&](uint64_t k) { return k + 1 < chunks ? a.slotBytes : a.bytes - k * a.slotBytes; };
    auto wait_done = [&](uint64_t k) -> int32_t {
        for (uint32_t r = 0; r < a.rankSize; ++r) {
            if (r != a.root)
                BC_CHECK(HcommChannelNotifyWaitOnThread(a.thread, a.channels[r],
                                                        broadcast_read::kNotifyDone + static_cast<uint32_t>(k & 1),
                                                        a.waitTimeout));
        }
        return 0;
    };
    for (uint64_t k = 0; k < chunks; ++k) {
        const uint32_t s = static_cast<uint32_t>(k & 1);
        if (k >= 2)
            BC_CHECK(wait_done(k - 2));
        BC_CHECK(
            HcommLocalCopyOnThread(a.thread, at(a.rootBuffer, s * a.slotBytes), at(a.buf, k * a.slotBytes), length(k)));
        for (uint32_t r = 0; r < a.rankSize; ++r) {
            if (r != a.root)
                BC_CHECK(HcommChannelNotifyRecordOnThread(a.thread, a.channels[r], broadcast_read::kNotifyReady + s));
        }
    }
    for (uint64_t k = chunks >= 2 ? chunks - 2 : 0; k < chunks; ++k)
        BC_CHECK(wait_done(k));
    return 0;
}

int32_t run_leaf(const KernelArgs &a, uint64_t chunks)
{
    const ChannelHandle channel = a.channels[a.root];
    for (uint64_t k = 0; k < chunks; ++k) {
        const uint32_t s = static_cast<uint32_t>(k & 1);
        const uint64_t len = k + 1 < chunks ? a.slotBytes : a.bytes - k * a.slotBytes;
        BC_CHECK(HcommChannelNotifyWaitOnThread(a.thread, channel, broadcast_read::kNotifyReady + s, a.waitTimeout));
        BC_CHECK(
            HcommReadOnThread(a.thread, channel, at(a.buf, k * a.slotBytes), at(a.rootBuffer, s * a.slotBytes), len));
        BC_CHECK(HcommChannelNotifyRecordOnThread(a.thread, channel, broadcast_read::kNotifyDone + s));
    }
    return 0;
}

} // namespace

extern "C" __attribute__((visibility("default"))) uint32_t BroadcastReadKernel(void *raw)
{
    const auto *args = static_cast<const KernelArgs *>(raw);
    if (args == nullptr || args->rankSize == 0 || args->rankSize > broadcast_read::kMaxRanks ||
        args->rank >= args->rankSize || args->root >= args->rankSize || args->bytes == 0 || args->slotBytes == 0) {
        std::fprintf(stderr, "broadcast kernel: bad arguments\n");
        return 1;
    }
    if (args->rankSize == 1)
        return 0;
    if (HcommAcquireComm(args->commName) != 0) {
        std::fprintf(stderr, "broadcast kernel: HcommAcquireComm(%s) failed\n", args->commName);
        return 2;
    }
    const uint64_t chunks = (args->bytes + args->slotBytes - 1) / args->slotBytes;
    const int32_t rc = args->rank == args->root ? run_root(*args, chunks) : run_leaf(*args, chunks);
    if (HcommReleaseComm(args->commName) != 0)
        return 3;
    return rc == 0 ? 0 : 100 + static_cast<uint32_t>(rc);
}
