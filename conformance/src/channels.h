// Channels with other parameters than the world's (another notifyNum, a second
// channel to the same peer): on the product's alternate protocol, since
// implementations key channels by (engine, peer, protocol), and destroyed at
// scope end so the next case may acquire them with other parameters.
#pragma once

#include <span>
#include <vector>

#include "hccl/hccl_channel.h"
#include "hccl/hccl_types.h"
#include "hcomm/hcomm_res_defs.h"

namespace hcts {

class World;

class ScopedChannels {
  public:
    // Acquired by every rank together (collective).
    // `mem_handles`: memory registered with HcclCommMemReg, named in every descriptor.
    ScopedChannels(const World &w, uint32_t notify_num, std::span<const HcclMemHandle> mem_handles = {});
    ~ScopedChannels();
    ScopedChannels(const ScopedChannels &) = delete;
    ScopedChannels &operator=(const ScopedChannels &) = delete;
    HcclResult rc() const { return rc_; }
    // This rank's channel to `rank`, 0 when acquisition failed on any rank. A plan
    // names both ends: a sender passes to(receiver) and a receiver to(sender).
    ChannelHandle to(int rank) const { return ok_ ? by_rank_.at(static_cast<size_t>(rank)) : 0; }
    // Whether every rank got, to every peer, a handle other than the world's channel.
    bool distinct_from_default() const { return ok_ && distinct_; }

  private:
    const World &w_;
    HcclResult rc_ = HCCL_SUCCESS;
    bool ok_ = false;
    bool distinct_ = false;
    std::vector<ChannelHandle> by_rank_;
};

} // namespace hcts
