// For shims that judge notify indices themselves: overrides HcclChannelAcquire to
// remember each acquired channel's notifyNum. Include in one source per shim.
#pragma once

#include <map>
#include <mutex>

#include "shim_common.h"

namespace {
std::mutex g_notify_num_mu;
std::map<ChannelHandle, uint32_t> g_notify_num;

// The notifyNum the channel was acquired with; 0 for a channel this shim never saw.
uint32_t channel_notify_num(ChannelHandle channel)
{
    std::lock_guard lock(g_notify_num_mu);
    const auto it = g_notify_num.find(channel);
    return it != g_notify_num.end() ? it->second : 0;
}
} // namespace

HCTS_SHIM_EXPORT HcclResult HcclChannelAcquire(HcclComm comm, CommEngine engine, const HcclChannelDesc *descs,
                                               uint32_t n, ChannelHandle *channels)
{
    static const auto fn = real<decltype(&HcclChannelAcquire)>("HcclChannelAcquire");
    const HcclResult rc = fn(comm, engine, descs, n, channels);
    if (rc == HCCL_SUCCESS) {
        std::lock_guard lock(g_notify_num_mu);
        for (uint32_t i = 0; i < n; ++i)
            g_notify_num[channels[i]] = descs[i].notifyNum;
    }
    return rc;
}
