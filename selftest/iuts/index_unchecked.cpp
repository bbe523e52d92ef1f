// Legal variant (PROFILE WWN.IDX.6 "accepted-no-notify", the vendor's unchecked
// index): remoteNotifyIdx >= notifyNum is accepted; the payload is written and no
// notify of the channel is raised. The STRICT clauses WWN.IDX.2/IDX.3 (the
// reference's rejection) fail; the default gate passes.
#include <map>
#include <mutex>

#include "notify_num_tracker.h"

HCTS_SHIM_EXPORT int32_t HcommWriteWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                                      const void *src, uint64_t len, uint32_t idx)
{
    static const auto wwn = real<decltype(&HcommWriteWithNotifyOnThread)>("HcommWriteWithNotifyOnThread");
    static const auto write = real<decltype(&HcommWriteOnThread)>("HcommWriteOnThread");
    const uint32_t bound = channel_notify_num(channel);
    // The notify would land past the channel's notifies: nothing a wait can see.
    if (bound != 0 && idx >= bound && len != 0)
        return write(thread, channel, dst, src, len); // checks every other argument
    return wwn(thread, channel, dst, src, len, idx);
}
