// Wrong libraries for the host calls of custom operators (API.HC.*,
// catalogue/host-calls.yaml): each breaks one behaviour, chosen by
// HCTS_HOST_CALLS_BREAK (one shim, several catalogue entries):
//   name_null_accepted        HcclGetCommName(comm, NULL) returns HCCL_SUCCESS        (API.HC.1)
//   name_per_rank             each rank's name ends in "-r<rank>"                      (API.HC.2)
//   ctx_copy_offset_ignored   a copy that fits lands at offset 0                       (API.HC.3)
//   ctx_copy_overflow_ok      a copy past the context's end: HCCL_SUCCESS, nothing copied (API.HC.4)
//   ranks_without_caller      the caller's rank missing from its layer's rank list      (API.HC.5)
//   links_header_zero         links returned with a zero CommLink header               (API.HC.6)
//   layer_unchecked           any layer answered as layer 0                            (API.HC.7)
//   dfx_unknown_accepted      a name of no comm registers (HCCL_SUCCESS)               (API.HC.8)
//   dfx_no_stamp              beginTime left as the caller passed it                   (API.HC.9)
//   memreg_size0_accepted     HcclCommMemReg of 0 bytes: HCCL_SUCCESS and a handle      (API.MR.1)
// Everything else forwards to the reference. Never use it for anything else.
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "hccl/hccl_diag.h"
#include "hccl/hccl_rank_graph.h"
#include "hccl/hccl_res.h"
#include "shim_common.h"

namespace {

bool breaks(std::string_view what)
{
    static const std::string mode = [] {
        const char *m = std::getenv("HCTS_HOST_CALLS_BREAK");
        return std::string(m != nullptr ? m : "");
    }();
    return mode == what;
}

// Lists this shim hands out instead of the reference's (kept for the process's life).
std::mutex g_mutex;
std::vector<std::vector<uint32_t>> g_rank_lists;
std::vector<std::vector<CommLink>> g_link_lists;

} // namespace

HCTS_SHIM_EXPORT HcclResult HcclGetCommName(HcclComm comm, char *commName)
{
    static const auto next = real<decltype(&HcclGetCommName)>("HcclGetCommName");
    if (breaks("name_null_accepted") && comm != nullptr && commName == nullptr)
        return HCCL_SUCCESS;
    const HcclResult rc = next(comm, commName);
    uint32_t rank = 0;
    if (breaks("name_per_rank") && rc == HCCL_SUCCESS && HcclGetRankId(comm, &rank) == HCCL_SUCCESS) {
        const std::string suffix = "-r" + std::to_string(rank);
        std::strncat(commName, suffix.c_str(), 127 - std::strlen(commName));
    }
    return rc;
}

HCTS_SHIM_EXPORT HcclResult HcclDfxRegOpInfoByCommId(char *commId, void *hcclDfxOpInfo)
{
    static const auto next = real<decltype(&HcclDfxRegOpInfoByCommId)>("HcclDfxRegOpInfoByCommId");
    std::string id = commId != nullptr ? commId : "";
    if (breaks("name_per_rank") && commId != nullptr) { // the shim's own names still register
        const size_t at = id.rfind("-r");
        if (at != std::string::npos && at + 2 < id.size() &&
            id.find_first_not_of("0123456789", at + 2) == std::string::npos)
            id.resize(at);
    }
    uint64_t begin = 0;
    if (hcclDfxOpInfo != nullptr)
        std::memcpy(&begin, static_cast<char *>(hcclDfxOpInfo) + offsetof(HcclDfxOpInfo, beginTime), sizeof(begin));
    const HcclResult rc = next(commId != nullptr ? id.data() : nullptr, hcclDfxOpInfo);
    if (breaks("dfx_unknown_accepted") && rc == HCCL_E_NOT_FOUND)
        return HCCL_SUCCESS;
    if (breaks("dfx_no_stamp") && rc == HCCL_SUCCESS)
        std::memcpy(static_cast<char *>(hcclDfxOpInfo) + offsetof(HcclDfxOpInfo, beginTime), &begin, sizeof(begin));
    return rc;
}

HCTS_SHIM_EXPORT HcclResult HcclEngineCtxCopy(HcclComm comm, CommEngine engine, const char *ctxTag, const void *srcCtx,
                                              uint64_t size, uint64_t dstCtxOffset)
{
    static const auto next = real<decltype(&HcclEngineCtxCopy)>("HcclEngineCtxCopy");
    void *ctx = nullptr;
    uint64_t held = 0;
    const bool known = comm != nullptr && ctxTag != nullptr && srcCtx != nullptr && size != 0 &&
                       HcclEngineCtxGet(comm, ctxTag, engine, &ctx, &held) == HCCL_SUCCESS;
    const bool fits = known && dstCtxOffset <= held && size <= held - dstCtxOffset;
    if (breaks("ctx_copy_offset_ignored") && fits)
        return next(comm, engine, ctxTag, srcCtx, size, 0);
    if (breaks("ctx_copy_overflow_ok") && known && !fits)
        return HCCL_SUCCESS;
    return next(comm, engine, ctxTag, srcCtx, size, dstCtxOffset);
}

HCTS_SHIM_EXPORT HcclResult HcclRankGraphGetRanksByLayer(HcclComm comm, uint32_t netLayer, uint32_t **ranks,
                                                         uint32_t *rankNum)
{
    static const auto next = real<decltype(&HcclRankGraphGetRanksByLayer)>("HcclRankGraphGetRanksByLayer");
    const HcclResult rc = next(comm, breaks("layer_unchecked") ? 0 : netLayer, ranks, rankNum);
    uint32_t me = 0;
    if (breaks("ranks_without_caller") && rc == HCCL_SUCCESS && HcclGetRankId(comm, &me) == HCCL_SUCCESS) {
        std::vector<uint32_t> kept;
        for (uint32_t i = 0; i < *rankNum; ++i)
            if ((*ranks)[i] != me)
                kept.push_back((*ranks)[i]);
        std::lock_guard lock(g_mutex);
        g_rank_lists.push_back(std::move(kept));
        *ranks = g_rank_lists.back().data();
        *rankNum = static_cast<uint32_t>(g_rank_lists.back().size());
    }
    return rc;
}

HCTS_SHIM_EXPORT HcclResult HcclRankGraphGetRankSizeByLayer(HcclComm comm, uint32_t netLayer, uint32_t *rankNum)
{
    static const auto next = real<decltype(&HcclRankGraphGetRankSizeByLayer)>("HcclRankGraphGetRankSizeByLayer");
    return next(comm, breaks("layer_unchecked") ? 0 : netLayer, rankNum);
}

HCTS_SHIM_EXPORT HcclResult HcclRankGraphGetInstSizeListByLayer(HcclComm comm, uint32_t netLayer,
                                                                uint32_t **instSizeList, uint32_t *listSize)
{
    static const auto next =
        real<decltype(&HcclRankGraphGetInstSizeListByLayer)>("HcclRankGraphGetInstSizeListByLayer");
    return next(comm, breaks("layer_unchecked") ? 0 : netLayer, instSizeList, listSize);
}

HCTS_SHIM_EXPORT HcclResult HcclRankGraphGetTopoTypeByLayer(HcclComm comm, uint32_t netLayer, CommTopo *topoType)
{
    static const auto next = real<decltype(&HcclRankGraphGetTopoTypeByLayer)>("HcclRankGraphGetTopoTypeByLayer");
    return next(comm, breaks("layer_unchecked") ? 0 : netLayer, topoType);
}

HCTS_SHIM_EXPORT HcclResult HcclRankGraphGetLinks(HcclComm comm, uint32_t netLayer, uint32_t srcRank, uint32_t dstRank,
                                                  CommLink **links, uint32_t *linkNum)
{
    static const auto next = real<decltype(&HcclRankGraphGetLinks)>("HcclRankGraphGetLinks");
    const HcclResult rc = next(comm, breaks("layer_unchecked") ? 0 : netLayer, srcRank, dstRank, links, linkNum);
    if (breaks("links_header_zero") && rc == HCCL_SUCCESS && *linkNum > 0) {
        std::vector<CommLink> copy(*links, *links + *linkNum);
        for (CommLink &l : copy)
            std::memset(&l.header, 0, sizeof(l.header));
        std::lock_guard lock(g_mutex);
        g_link_lists.push_back(std::move(copy));
        *links = g_link_lists.back().data();
    }
    return rc;
}

HCTS_SHIM_EXPORT HcclResult HcclCommMemReg(HcclComm comm, const char *memTag, const CommMem *mem,
                                           HcclMemHandle *memHandle)
{
    static const auto next = real<decltype(&HcclCommMemReg)>("HcclCommMemReg");
    // A handle no channel will ever find: what an implementation that skips the size check hands out.
    static char zero_size_registration;
    if (breaks("memreg_size0_accepted") && comm != nullptr && memTag != nullptr && mem != nullptr &&
        memHandle != nullptr && mem->size == 0) {
        *memHandle = &zero_size_registration;
        return HCCL_SUCCESS;
    }
    return next(comm, memTag, mem, memHandle);
}
