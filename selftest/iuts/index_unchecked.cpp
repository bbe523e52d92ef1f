// Legal variant (PROFILE WWN.IDX.6 "accepted-no-notify", the vendor's unchecked
// index): remoteNotifyIdx >= notifyNum is accepted; the payload is written and no
// notify of the channel is raised. The STRICT clauses WWN.IDX.2/IDX.3 (the
// reference's rejection) fail; the default gate passes.
#include <map>
#include <mutex>

#include "shim_common.h"

namespace {
std::mutex g_mu;
std::map<ChannelHandle, uint32_t> g_notify_num;
} // namespace

HCTS_SHIM_EXPORT HcclResult HcclChannelAcquire(HcclComm comm, CommEngine engine, const HcclChannelDesc *descs,
                                               uint32_t n, ChannelHandle *channels)
{
    static const auto fn = real<decltype(&HcclChannelAcquire)>("HcclChannelAcquire");
    const HcclResult rc = fn(comm, engine, descs, n, channels);
    if (rc == HCCL_SUCCESS) {
        std::lock_guard lock(g_mu);
        for (uint32_t i = 0; i < n; ++i)
            g_notify_num[channels[i]] = descs[i].notifyNum;
    }
    return rc;
}

HCTS_SHIM_EXPORT int32_t HcommWriteWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                                      const void *src, uint64_t len, uint32_t idx)
{
    static const auto wwn = real<decltype(&HcommWriteWithNotifyOnThread)>("HcommWriteWithNotifyOnThread");
    static const auto write = real<decltype(&HcommWriteOnThread)>("HcommWriteOnThread");
    uint32_t bound = 0;
    {
        std::lock_guard lock(g_mu);
        auto it = g_notify_num.find(channel);
        bound = it != g_notify_num.end() ? it->second : 0;
    }
    // The notify would land past the channel's notifies: nothing a wait can see.
    if (bound != 0 && idx >= bound && len != 0)
        return write(thread, channel, dst, src, len); // checks every other argument
    return wwn(thread, channel, dst, src, len, idx);
}
