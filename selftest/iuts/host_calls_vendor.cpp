// Legal variant of the host calls of custom operators (catalogue/host-calls.yaml):
// where the vendor's documents leave room, what its code or another topology does.
//   - A two-layer topology, as an 8-card server in a cluster reports it: layer 0
//     holds pairs of ranks {2k, 2k+1} (1DMESH), with links only inside a pair;
//     layer 1 holds every rank (CLOS), with links between every two ranks.
//   - HcclEngineCtxCopy of a tag never created: HCCL_E_PARA, as the vendor's legacy
//     (A2/A3) path answers (the STRICT API.HC.4 wants the 950 path's HCCL_E_NOT_FOUND).
//   - HcclDfxRegOpInfoByCommId leaves beginTime alone, as the vendor's 910B and device
//     paths do (the STRICT API.HC.9 wants the 950 host path's stamp).
//   - HcclCommMemReg hands out handles of its own (indices into a table, not the
//     reference's pointers) and translates them in HcclChannelAcquire's memHandles:
//     a handle is opaque, and nothing may depend on what it points to.
// Never use it for anything else.
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "hccl/hccl_channel.h"
#include "hccl/hccl_diag.h"
#include "hccl/hccl_rank_graph.h"
#include "hccl/hccl_res.h"
#include "shim_common.h"

namespace {

constexpr uint32_t kLayers[] = {0, 1};

std::mutex g_mutex;
std::vector<std::vector<uint32_t>> g_lists; // every list handed out, kept for the process's life

uint32_t *keep(std::vector<uint32_t> list)
{
    std::lock_guard lock(g_mutex);
    g_lists.push_back(std::move(list));
    return g_lists.back().data();
}

// The comm's rank and size; false for a comm the reference refuses.
bool shape(HcclComm comm, uint32_t &me, uint32_t &size)
{
    return HcclGetRankId(comm, &me) == HCCL_SUCCESS && HcclGetRankSize(comm, &size) == HCCL_SUCCESS;
}

std::vector<uint32_t> layer_ranks(uint32_t layer, uint32_t me, uint32_t size)
{
    std::vector<uint32_t> ranks;
    for (uint32_t r = 0; r < size; ++r)
        if (layer == 1 || r / 2 == me / 2)
            ranks.push_back(r);
    return ranks;
}

// The null checks and the comm go to the reference (layer 0 is one it knows).
template <typename Call>
HcclResult layer_call(HcclComm comm, uint32_t netLayer, bool outputs_given, Call answer)
{
    uint32_t me = 0, size = 0;
    if (comm == nullptr || !outputs_given || !shape(comm, me, size))
        return comm == nullptr || !outputs_given ? HCCL_E_PTR : HCCL_E_PARA;
    if (netLayer > 1)
        return HCCL_E_PARA;
    return answer(me, size);
}

} // namespace

HCTS_SHIM_EXPORT HcclResult HcclRankGraphGetLayers(HcclComm comm, uint32_t **netLayers, uint32_t *netLayerNum)
{
    static const auto next = real<decltype(&HcclRankGraphGetLayers)>("HcclRankGraphGetLayers");
    const HcclResult rc = next(comm, netLayers, netLayerNum);
    if (rc == HCCL_SUCCESS) {
        *netLayers = keep({kLayers[0], kLayers[1]});
        *netLayerNum = 2;
    }
    return rc;
}

HCTS_SHIM_EXPORT HcclResult HcclRankGraphGetRanksByLayer(HcclComm comm, uint32_t netLayer, uint32_t **ranks,
                                                         uint32_t *rankNum)
{
    return layer_call(comm, netLayer, ranks != nullptr && rankNum != nullptr, [&](uint32_t me, uint32_t size) {
        const auto list = layer_ranks(netLayer, me, size);
        *rankNum = static_cast<uint32_t>(list.size());
        *ranks = keep(list);
        return HCCL_SUCCESS;
    });
}

HCTS_SHIM_EXPORT HcclResult HcclRankGraphGetRankSizeByLayer(HcclComm comm, uint32_t netLayer, uint32_t *rankNum)
{
    return layer_call(comm, netLayer, rankNum != nullptr, [&](uint32_t me, uint32_t size) {
        *rankNum = static_cast<uint32_t>(layer_ranks(netLayer, me, size).size());
        return HCCL_SUCCESS;
    });
}

HCTS_SHIM_EXPORT HcclResult HcclRankGraphGetInstSizeListByLayer(HcclComm comm, uint32_t netLayer,
                                                                uint32_t **instSizeList, uint32_t *listSize)
{
    return layer_call(comm, netLayer, instSizeList != nullptr && listSize != nullptr, [&](uint32_t, uint32_t size) {
        std::vector<uint32_t> sizes;
        if (netLayer == 1)
            sizes.push_back(size);
        else
            for (uint32_t first = 0; first < size; first += 2)
                sizes.push_back(first + 1 < size ? 2 : 1);
        *listSize = static_cast<uint32_t>(sizes.size());
        *instSizeList = keep(sizes);
        return HCCL_SUCCESS;
    });
}

HCTS_SHIM_EXPORT HcclResult HcclRankGraphGetTopoTypeByLayer(HcclComm comm, uint32_t netLayer, CommTopo *topoType)
{
    return layer_call(comm, netLayer, topoType != nullptr, [&](uint32_t, uint32_t) {
        *topoType = netLayer == 0 ? COMM_TOPO_1DMESH : COMM_TOPO_CLOS;
        return HCCL_SUCCESS;
    });
}

HCTS_SHIM_EXPORT HcclResult HcclRankGraphGetLinks(HcclComm comm, uint32_t netLayer, uint32_t srcRank, uint32_t dstRank,
                                                  CommLink **links, uint32_t *linkNum)
{
    static const auto next = real<decltype(&HcclRankGraphGetLinks)>("HcclRankGraphGetLinks");
    if (netLayer > 1 && comm != nullptr && links != nullptr && linkNum != nullptr)
        return HCCL_E_PARA;
    // The reference's links (its layer 0 joins every pair) and its checks of the ranks.
    const HcclResult rc = next(comm, 0, srcRank, dstRank, links, linkNum);
    if (rc == HCCL_SUCCESS && netLayer == 0 && srcRank / 2 != dstRank / 2) {
        *links = nullptr;
        *linkNum = 0;
    }
    return rc;
}

HCTS_SHIM_EXPORT HcclResult HcclEngineCtxCopy(HcclComm comm, CommEngine engine, const char *ctxTag, const void *srcCtx,
                                              uint64_t size, uint64_t dstCtxOffset)
{
    static const auto next = real<decltype(&HcclEngineCtxCopy)>("HcclEngineCtxCopy");
    const HcclResult rc = next(comm, engine, ctxTag, srcCtx, size, dstCtxOffset);
    return rc == HCCL_E_NOT_FOUND ? HCCL_E_PARA : rc;
}

HCTS_SHIM_EXPORT HcclResult HcclDfxRegOpInfoByCommId(char *commId, void *hcclDfxOpInfo)
{
    static const auto next = real<decltype(&HcclDfxRegOpInfoByCommId)>("HcclDfxRegOpInfoByCommId");
    uint64_t begin = 0;
    if (hcclDfxOpInfo != nullptr)
        std::memcpy(&begin, static_cast<char *>(hcclDfxOpInfo) + offsetof(HcclDfxOpInfo, beginTime), sizeof(begin));
    const HcclResult rc = next(commId, hcclDfxOpInfo);
    if (rc == HCCL_SUCCESS)
        std::memcpy(static_cast<char *>(hcclDfxOpInfo) + offsetof(HcclDfxOpInfo, beginTime), &begin, sizeof(begin));
    return rc;
}

namespace {

// Opaque handles: 0x4d520000 + index into g_real_handles; the same real handle gets the same one.
std::vector<HcclMemHandle> g_real_handles;
std::map<HcclMemHandle, HcclMemHandle> g_opaque_of;
constexpr uintptr_t kHandleBase = 0x4d520000;

} // namespace

HCTS_SHIM_EXPORT HcclResult HcclCommMemReg(HcclComm comm, const char *memTag, const CommMem *mem,
                                           HcclMemHandle *memHandle)
{
    static const auto next = real<decltype(&HcclCommMemReg)>("HcclCommMemReg");
    HcclMemHandle got = nullptr;
    const HcclResult rc = next(comm, memTag, mem, memHandle != nullptr ? &got : nullptr);
    if (rc != HCCL_SUCCESS || memHandle == nullptr)
        return rc;
    std::lock_guard lock(g_mutex);
    auto [it, fresh] = g_opaque_of.try_emplace(got, nullptr);
    if (fresh) {
        it->second = reinterpret_cast<HcclMemHandle>(kHandleBase + g_real_handles.size());
        g_real_handles.push_back(got);
    }
    *memHandle = it->second;
    return rc;
}

HCTS_SHIM_EXPORT HcclResult HcclChannelAcquire(HcclComm comm, CommEngine engine, const HcclChannelDesc *channelDescs,
                                               uint32_t channelNum, ChannelHandle *channels)
{
    static const auto next = real<decltype(&HcclChannelAcquire)>("HcclChannelAcquire");
    if (channelDescs == nullptr || channelNum == 0 || channelNum > 4096)
        return next(comm, engine, channelDescs, channelNum, channels);
    // Copies of the descriptors whose memHandles are this shim's, pointing at the real ones.
    std::vector<HcclChannelDesc> descs(channelDescs, channelDescs + channelNum);
    std::vector<std::vector<HcclMemHandle>> translated(channelNum);
    {
        std::lock_guard lock(g_mutex);
        for (uint32_t i = 0; i < channelNum; ++i) {
            if (descs[i].memHandles == nullptr || descs[i].memHandleNum == 0 || descs[i].memHandleNum > 256)
                continue;
            for (uint32_t k = 0; k < descs[i].memHandleNum; ++k) {
                const auto v = reinterpret_cast<uintptr_t>(descs[i].memHandles[k]);
                const bool ours = v >= kHandleBase && v - kHandleBase < g_real_handles.size();
                // Not one of ours: passed on as it is, for the reference to judge.
                translated[i].push_back(ours ? g_real_handles[v - kHandleBase] : descs[i].memHandles[k]);
            }
            descs[i].memHandles = translated[i].data();
        }
    }
    return next(comm, engine, descs.data(), channelNum, channels);
}
