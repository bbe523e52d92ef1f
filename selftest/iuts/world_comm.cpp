#include "world_comm.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "shim_common.h"

namespace {
std::mutex g_mutex;
std::vector<HcclComm> g_live; // in creation order
} // namespace

HcclComm world_comm()
{
    const std::lock_guard lock(g_mutex);
    return g_live.empty() ? nullptr : g_live.front();
}

HCTS_SHIM_EXPORT HcclResult HcclCommInitRootInfo(uint32_t n, const HcclRootInfo *root, uint32_t rank, HcclComm *comm)
{
    static const auto fn = real<decltype(&HcclCommInitRootInfo)>("HcclCommInitRootInfo");
    const HcclResult rc = fn(n, root, rank, comm);
    if (rc == HCCL_SUCCESS) {
        const std::lock_guard lock(g_mutex);
        g_live.push_back(*comm);
    }
    return rc;
}

HCTS_SHIM_EXPORT HcclResult HcclCommDestroy(HcclComm comm)
{
    static const auto fn = real<decltype(&HcclCommDestroy)>("HcclCommDestroy");
    const HcclResult rc = fn(comm);
    if (rc == HCCL_SUCCESS) {
        const std::lock_guard lock(g_mutex);
        std::erase(g_live, comm);
    }
    return rc;
}
