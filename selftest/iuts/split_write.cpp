// Legal variant: a write with notify of len bytes is a plain write of the first
// len - 1 bytes and a one-byte write with notify of the last one, both on the
// caller's thread and channel (a len of 1 is the write with notify alone). The
// vendor's own models of the call look like this (api §9.6: WWN-Nbi as Write
// then NotifyRecord; the host RoCE path slices a payload into N-1 WRITEs and a
// final WRITE_WITH_IMM). It is correct: the thread issues the two in order on
// one RC queue pair, which delivers them in order, so the notify still follows
// every byte. What differs is a refused call: the plain write may already have
// landed when the one-byte write with notify is refused (an out-of-range index,
// a last byte outside the peer's memory), which only the reference's STRICT
// "a refused call has no effect" forbids. Everything else is the reference.
#include "shim_common.h"

HCTS_SHIM_EXPORT int32_t HcommWriteWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                                      const void *src, uint64_t len, uint32_t idx)
{
    static const auto wwn = real<decltype(&HcommWriteWithNotifyOnThread)>("HcommWriteWithNotifyOnThread");
    static const auto write = real<decltype(&HcommWriteOnThread)>("HcommWriteOnThread");
    // NULL pointers keep the reference's codes and order; len 0 and 1 have nothing to split.
    if (len <= 1 || dst == nullptr || src == nullptr)
        return wwn(thread, channel, dst, src, len, idx);
    const uint64_t head = len - 1;
    if (const int32_t rc = write(thread, channel, dst, src, head); rc != HCCL_SUCCESS)
        return rc;
    return wwn(thread, channel, static_cast<char *>(dst) + head, static_cast<const char *>(src) + head, 1, idx);
}
