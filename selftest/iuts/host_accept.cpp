// Wrong IUT: a host-side call is accepted. It returns success (and does nothing)
// where Atlas 350 allows the call only in a device program.
#include "shim_common.h"

HCTS_SHIM_EXPORT int32_t HcommWriteWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                                      const void *src, uint64_t len, uint32_t idx)
{
    static const auto wwn = real<decltype(&HcommWriteWithNotifyOnThread)>("HcommWriteWithNotifyOnThread");
    if (HcommRefIsDeviceSide() == 0)
        return HCCL_SUCCESS;
    return wwn(thread, channel, dst, src, len, idx);
}
