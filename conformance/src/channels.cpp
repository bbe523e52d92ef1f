#include "channels.h"

#include "hcts/mpi_harness.h"
#include "world.h"

namespace hcts {

ScopedChannels::ScopedChannels(const World &w, uint32_t notify_num, std::span<const HcclMemHandle> mem_handles) : w_(w)
{
    by_rank_ = w.acquire_channels(notify_num, rc_, true, mem_handles);
    ok_ = mpi::all_ranks(rc_ == HCCL_SUCCESS, "scoped channel acquisition");
    bool mine = rc_ == HCCL_SUCCESS;
    for (int r = 0; r < w.size; ++r)
        if (r != w.rank)
            mine = mine && by_rank_[static_cast<size_t>(r)] != 0 && by_rank_[static_cast<size_t>(r)] != w.channel_to(r);
    distinct_ = mpi::all_ranks(mine, "scoped channels distinct");
}

ScopedChannels::~ScopedChannels()
{
    mpi::phase_barrier("scoped channels: every rank is done with them");
    if (rc_ == HCCL_SUCCESS)
        (void)w_.destroy_channels(by_rank_); // best effort: a library that cannot destroy them keeps them
    mpi::phase_barrier("scoped channels destroyed");
}

} // namespace hcts
