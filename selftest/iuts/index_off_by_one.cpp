// Wrong IUT: the notify index bound is off by one. remoteNotifyIdx == notifyNum
// is accepted: the payload is written and success returned (the notify goes to a
// slot past the end, which no wait can see).
#include <map>
#include <mutex>

#include "notify_num_tracker.h"

HCTS_SHIM_EXPORT int32_t HcommWriteWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                                      const void *src, uint64_t len, uint32_t idx)
{
    static const auto wwn = real<decltype(&HcommWriteWithNotifyOnThread)>("HcommWriteWithNotifyOnThread");
    const uint32_t bound = channel_notify_num(channel);
    if (bound != 0 && idx == bound && dst != nullptr && src != nullptr && thread != 0 && len != 0)
        return HcommWriteOnThread(thread, channel, dst, src, len); // "idx <= notifyNum" instead of "<"
    return wwn(thread, channel, dst, src, len, idx);
}
