// Wrong IUT: the notify index bound is off by one. remoteNotifyIdx == notifyNum
// is accepted: the payload is written and success returned (the notify goes to a
// slot past the end, which no wait can see).
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
    uint32_t bound = 0;
    {
        std::lock_guard lock(g_mu);
        auto it = g_notify_num.find(channel);
        bound = it != g_notify_num.end() ? it->second : 0;
    }
    if (bound != 0 && idx == bound && dst != nullptr && src != nullptr && thread != 0 && len != 0)
        return HcommWriteOnThread(thread, channel, dst, src, len); // "idx <= notifyNum" instead of "<"
    return wwn(thread, channel, dst, src, len, idx);
}
