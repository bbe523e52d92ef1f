// The AICPU kernel of HcclAllGatherWwn. It only queues tasks on its AICPU_TS threads and
// returns; the threads run them in order (the launch ends when they all ran).
//
// Protocol, for each peer p, on the thread serving p (pairs are independent, so no pair waits
// for another): each rank's HCCL buffer has two slots per source rank. This rank writes its
// chunks into its slots at p with HcommWriteWithNotifyOnThread, chunk k into slot k % 2,
// raising DATA + slot at p. It writes chunk k + 2 only after p's CREDIT + slot for chunk k,
// raised once p copied chunk k out of that slot. Receiving is the mirror image: wait for
// DATA + slot, copy the slot out to recvBuf, record CREDIT + slot. Each notify index has at
// most one record outstanding (notifies are binary), and the credits of the last two chunks
// are waited for before the kernel ends, so no notify is left set for the next launch.
//
// Built with ALLGATHER_WWN_BROKEN_CREDITS (tests only) it skips the credit waits: the sender
// then overwrites slots the receiver has not copied out yet, which the test main must catch.
#include <cstdio>

#include "allgather_wwn_args.h"
#include "hcomm/hcomm_primitives.h"

namespace {

using allgather_wwn::KernelArgs;

// Each call's result, with where it failed.
#define AG_CHECK(call)                                                                                                 \
    do {                                                                                                               \
        const int32_t rc_ = (call);                                                                                    \
        if (rc_ != 0) {                                                                                                \
            std::fprintf(stderr, "allgather_wwn kernel (rank %u): %s returned %d\n", a.rank, #call,                    \
                         static_cast<int>(rc_));                                                                       \
            return rc_;                                                                                                \
        }                                                                                                              \
    } while (0)

void *at(uint64_t base, uint64_t offset) { return reinterpret_cast<void *>(base + offset); }

int32_t exchange_with(const KernelArgs &a, uint32_t peer)
{
    const ThreadHandle thread = a.threads[peer];
    const ChannelHandle channel = a.channels[peer];
    const uint64_t slot = a.slotBytes;
    const uint64_t chunks = (a.bytes + slot - 1) / slot;
    const uint64_t my_slots_at_peer = a.remoteBuffers[peer] + 2ULL * slot * a.rank;
    const uint64_t peer_slots_here = a.localBuffer + 2ULL * slot * peer;
    auto length = [&](uint64_t k) { return k + 1 < chunks ? slot : a.bytes - k * slot; };
    auto send = [&](uint64_t k) {
        const uint32_t s = static_cast<uint32_t>(k & 1);
        return HcommWriteWithNotifyOnThread(thread, channel, at(my_slots_at_peer, s * slot), at(a.sendBuf, k * slot),
                                            length(k), allgather_wwn::kNotifyData + s);
    };
    for (uint64_t k = 0; k < chunks && k < 2; ++k)
        AG_CHECK(send(k));
    for (uint64_t k = 0; k < chunks; ++k) {
        const uint32_t s = static_cast<uint32_t>(k & 1);
        AG_CHECK(HcommChannelNotifyWaitOnThread(thread, channel, allgather_wwn::kNotifyData + s, a.waitTimeout));
        AG_CHECK(HcommLocalCopyOnThread(thread, at(a.recvBuf, peer * a.bytes + k * slot), at(peer_slots_here, s * slot),
                                        length(k)));
        AG_CHECK(HcommChannelNotifyRecordOnThread(thread, channel, allgather_wwn::kNotifyCredit + s));
        if (k + 2 < chunks) {
#ifndef ALLGATHER_WWN_BROKEN_CREDITS
            AG_CHECK(HcommChannelNotifyWaitOnThread(thread, channel, allgather_wwn::kNotifyCredit + s, a.waitTimeout));
#endif
            AG_CHECK(send(k + 2));
        }
    }
#ifndef ALLGATHER_WWN_BROKEN_CREDITS
    // The credits for the last two chunks: the peer is done with this rank's slots.
    for (uint64_t k = chunks >= 2 ? chunks - 2 : 0; k < chunks; ++k) {
        const uint32_t s = static_cast<uint32_t>(k & 1);
        AG_CHECK(HcommChannelNotifyWaitOnThread(thread, channel, allgather_wwn::kNotifyCredit + s, a.waitTimeout));
    }
#endif
    return 0;
}

int32_t run(const KernelArgs &a)
{
    AG_CHECK(HcommLocalCopyOnThread(a.threads[a.rank], at(a.recvBuf, a.rank * a.bytes), at(a.sendBuf, 0), a.bytes));
    for (uint32_t peer = 0; peer < a.rankSize; ++peer) {
        if (peer != a.rank)
            AG_CHECK(exchange_with(a, peer));
    }
    return 0;
}

} // namespace

extern "C" __attribute__((visibility("default"))) uint32_t AllGatherWwnKernel(void *raw)
{
    const auto *args = static_cast<const KernelArgs *>(raw);
    if (args == nullptr || args->rankSize == 0 || args->rankSize > allgather_wwn::kMaxRanks ||
        args->rank >= args->rankSize || args->bytes == 0 || args->slotBytes == 0) {
        std::fprintf(stderr, "allgather_wwn kernel: bad arguments\n");
        return 1;
    }
    if (HcommAcquireComm(args->commName) != 0) {
        std::fprintf(stderr, "allgather_wwn kernel: HcommAcquireComm(%s) failed\n", args->commName);
        return 2;
    }
    const int32_t rc = run(*args);
    if (HcommReleaseComm(args->commName) != 0)
        return 3;
    return rc == 0 ? 0 : 100 + static_cast<uint32_t>(rc);
}
