// The host calls custom operators make beside the resource calls:
// the comm's name, copying host data into an engine context, the rank graph
// (one layer holding every rank of the comm) and the DFX registration of an
// operator by the comm's name.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <hcts/mutant.h>

#include "api_util.h"
#include "data_path.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_diag.h"
#include "hccl/hccl_rank_graph.h"
#include "hccl/hccl_res.h"
#include "hcomm_ref/hcomm_ref.h"
#include "mem_probe.h"
#include "profile.h"

using namespace hcomm_ref;

namespace {

// The vendor's bound on a comm name with its NUL (HcclGetCommName.md: "最大长度支持128").
constexpr uint32_t kCommNameBytes = 128;
constexpr size_t kMaxTagLen = 255; // HCCL_RES_TAG_MAX_LEN
// An engine parameter outside CommEngine's value range is read as 7 (no engine).
constexpr CommEngine kNoEngine = static_cast<CommEngine>(7);
// The reference's topology: one layer, numbered 0, whose one instance holds every rank.
constexpr uint32_t kLayer = 0;

// What the rank-graph queries returned, per comm (by handle). The answers of a
// comm never change, so each list is made once and stays where it is for the
// comm's life: more than the vendor promises ("a later query may invalidate").
struct GraphAnswers {
    std::vector<uint32_t> layers;
    std::vector<uint32_t> ranks;
    std::vector<uint32_t> inst_sizes;
    std::map<std::pair<uint32_t, uint32_t>, std::vector<CommLink>> links; // (src, dst)
};

// Names HcclGetCommName gave out, with the comms they name: several ranks of one
// job in one process share a name.
struct SideTables {
    std::mutex mutex;
    std::map<const void *, GraphAnswers> graphs;
    std::map<std::string, std::set<const void *>> names;
    // HcclDfxRegOpInfoByCommId's registrations per name: how many, and the last one.
    std::map<std::string, std::pair<uint64_t, HcclDfxOpInfo>> dfx;
};

SideTables &tables()
{
    static SideTables *t = new SideTables; // never destroyed: calls may come during exit
    return *t;
}

// Drops what belongs to comms no longer live (called with the tables locked).
void prune_dead(SideTables &t)
{
    for (auto it = t.graphs.begin(); it != t.graphs.end();)
        it = registry::pin_comm(it->first) == nullptr ? t.graphs.erase(it) : std::next(it);
    for (auto it = t.names.begin(); it != t.names.end();) {
        for (auto h = it->second.begin(); h != it->second.end();)
            h = registry::pin_comm(*h) == nullptr ? it->second.erase(h) : std::next(h);
        it = it->second.empty() ? t.names.erase(it) : std::next(it);
    }
}

// The protocols a channel of this product may use, over every engine it offers.
std::vector<CommProtocol> product_protocols()
{
    std::vector<CommProtocol> out;
    for (int32_t p = COMM_PROTOCOL_HCCS; p <= COMM_PROTOCOL_UB_RTP; ++p) {
        bool any = false;
        for (int32_t e = COMM_ENGINE_CPU; e <= COMM_ENGINE_CCU; ++e)
            any = any || (profile_has_engine(static_cast<CommEngine>(e)) &&
                          profile_allows_protocol(static_cast<CommEngine>(e), static_cast<CommProtocol>(p)));
        if (any)
            out.push_back(static_cast<CommProtocol>(p));
    }
    return out;
}

// An endpoint of `rank`: the rank's id as its address, a device location whose
// physical and super-device ids are the rank, server and pod 0.
void fill_endpoint(EndpointDesc &ep, CommProtocol protocol, uint32_t rank)
{
    ep.protocol = protocol;
    std::memset(ep.commAddr.raws, 0, sizeof(ep.commAddr.raws));
    ep.commAddr.type = COMM_ADDR_TYPE_ID;
    ep.commAddr.id = rank;
    std::memset(ep.loc.raws, 0, sizeof(ep.loc.raws));
    ep.loc.locType = ENDPOINT_LOC_TYPE_DEVICE;
    ep.loc.device.devPhyId = rank;
    ep.loc.device.superDevId = rank;
}

std::vector<CommLink> make_links(uint32_t src, uint32_t dst)
{
    std::vector<CommLink> links;
    for (CommProtocol protocol : product_protocols()) {
        CommLink link;
        (void)CommLinkInit(&link, 1);
        fill_endpoint(link.srcEndpointDesc, protocol, src);
        fill_endpoint(link.dstEndpointDesc, protocol, dst);
        link.linkAttr.linkProtocol = protocol;
        link.linkAttr.hop = 1;
        links.push_back(link);
    }
    return links;
}

// The null checks, then the comm; every rank-graph query starts so.
HcclResult graph_comm(const char *api, HcclComm comm, bool outputs_given, registry::CommRef &live)
{
    if (comm == nullptr || !outputs_given) {
        return refuse(nullptr, api, HCCL_E_PTR, "comm and every output must not be NULL");
    }
    return live_comm(api, comm, live);
}

HcclResult check_layer(const char *api, Comm *live, uint32_t netLayer)
{
    if (netLayer != kLayer) {
        return refuse(live, api, HCCL_E_PARA, "netLayer ", netLayer, ": the reference's topology has layer 0 only");
    }
    return HCCL_SUCCESS;
}

} // namespace

HCOMM_EXPORT HcclResult HcclGetCommName(HcclComm comm, char *commName)
{
    return guarded("HcclGetCommName", [&]() -> HcclResult {
        const char *api = "HcclGetCommName";
        if (comm == nullptr || commName == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "comm and commName must not be NULL");
        }
        registry::CommRef live;
        if (const HcclResult rc = live_comm(api, comm, live); rc != HCCL_SUCCESS)
            return rc;
        if (live->name().size() >= kCommNameBytes) { // cannot happen: "hcomm_ref_" and 32 hex digits
            return refuse(live, api, HCCL_E_INTERNAL, "the comm's name is longer than 127 characters");
        }
        if (!range_accessible(commName, live->name().size() + 1, Access::write)) {
            return refuse(live, api, HCCL_E_PARA, "commName ", static_cast<void *>(commName), " is not ",
                          live->name().size() + 1, " writable bytes");
        }
        // The reference extension gives the same name (bounded by the vendor's 128 bytes).
        if (const HcclResult rc = HcommRefGetCommName(comm, commName, kCommNameBytes); rc != HCCL_SUCCESS)
            return rc;
        SideTables &t = tables();
        std::lock_guard lock(t.mutex);
        prune_dead(t);
        t.names[live->name()].insert(live->handle());
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclEngineCtxCopy(HcclComm comm, CommEngine engine_arg, const char *ctxTag, const void *srcCtx,
                                          uint64_t size, uint64_t dstCtxOffset)
{
    return guarded("HcclEngineCtxCopy", [&]() -> HcclResult {
        const CommEngine engine = enum_or(engine_arg, -8, 7, kNoEngine);
        const char *api = "HcclEngineCtxCopy";
        if (comm == nullptr || ctxTag == nullptr || srcCtx == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "comm, ctxTag and srcCtx must not be NULL");
        }
        if (is_device_side()) {
            return refuse(nullptr, api, HCCL_E_NOT_SUPPORT, "engine contexts are filled on the host");
        }
        registry::CommRef live;
        if (const HcclResult rc = live_comm(api, comm, live); rc != HCCL_SUCCESS)
            return rc;
        const std::optional<size_t> tag_len = readable_strnlen(ctxTag, kMaxTagLen + 1);
        if (!engine_is_valid(engine) || size == 0 || !tag_len || *tag_len == 0 || *tag_len > kMaxTagLen) {
            return refuse(live, api, HCCL_E_PARA, "engine ", static_cast<int>(engine), ", size ", size,
                          ": engine must be 0..5, size at least 1, ctxTag readable, of 1..255 characters");
        }
        if (!range_accessible(srcCtx, size, Access::read)) {
            return refuse(live, api, HCCL_E_PARA, "srcCtx ", srcCtx, " is not readable for ", size, " bytes");
        }
        std::lock_guard lock(live->ctx_mutex);
        const auto it = live->engine_ctx.find(std::make_pair(std::string(ctxTag), static_cast<int>(engine)));
        if (it == live->engine_ctx.end()) {
            return refuse(live, api, HCCL_E_NOT_FOUND, "no context '", ctxTag, "' for engine ",
                          static_cast<int>(engine));
        }
        const uint64_t held = it->second.size();
        if (dstCtxOffset > held || size > held - dstCtxOffset) {
            return refuse(live, api, HCCL_E_PARA, "offset ", dstCtxOffset, " + size ", size, " exceeds the context's ",
                          held, " bytes");
        }
        std::memcpy(it->second.data() + dstCtxOffset, srcCtx, size);
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclRankGraphGetLayers(HcclComm comm, uint32_t **netLayers, uint32_t *netLayerNum)
{
    return guarded("HcclRankGraphGetLayers", [&]() -> HcclResult {
        const char *api = "HcclRankGraphGetLayers";
        registry::CommRef live;
        if (const HcclResult rc = graph_comm(api, comm, netLayers != nullptr && netLayerNum != nullptr, live);
            rc != HCCL_SUCCESS)
            return rc;
        SideTables &t = tables();
        std::lock_guard lock(t.mutex);
        GraphAnswers &g = t.graphs[live->handle()];
        if (g.layers.empty())
            g.layers = {kLayer};
        *netLayers = g.layers.data();
        *netLayerNum = static_cast<uint32_t>(g.layers.size());
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclRankGraphGetRanksByLayer(HcclComm comm, uint32_t netLayer, uint32_t **ranks,
                                                     uint32_t *rankNum)
{
    return guarded("HcclRankGraphGetRanksByLayer", [&]() -> HcclResult {
        const char *api = "HcclRankGraphGetRanksByLayer";
        registry::CommRef live;
        if (HcclResult rc = graph_comm(api, comm, ranks != nullptr && rankNum != nullptr, live);
            rc != HCCL_SUCCESS || (rc = check_layer(api, live, netLayer)) != HCCL_SUCCESS)
            return rc;
        SideTables &t = tables();
        std::lock_guard lock(t.mutex);
        GraphAnswers &g = t.graphs[live->handle()];
        if (g.ranks.empty())
            for (uint32_t r = 0; r < live->size(); ++r)
                g.ranks.push_back(r);
        *ranks = g.ranks.data();
        *rankNum = static_cast<uint32_t>(g.ranks.size());
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclRankGraphGetRankSizeByLayer(HcclComm comm, uint32_t netLayer, uint32_t *rankNum)
{
    return guarded("HcclRankGraphGetRankSizeByLayer", [&]() -> HcclResult {
        const char *api = "HcclRankGraphGetRankSizeByLayer";
        registry::CommRef live;
        if (HcclResult rc = graph_comm(api, comm, rankNum != nullptr, live);
            rc != HCCL_SUCCESS || (rc = check_layer(api, live, netLayer)) != HCCL_SUCCESS)
            return rc;
        *rankNum = live->size();
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclRankGraphGetTopoTypeByLayer(HcclComm comm, uint32_t netLayer, CommTopo *topoType)
{
    return guarded("HcclRankGraphGetTopoTypeByLayer", [&]() -> HcclResult {
        const char *api = "HcclRankGraphGetTopoTypeByLayer";
        registry::CommRef live;
        if (HcclResult rc = graph_comm(api, comm, topoType != nullptr, live);
            rc != HCCL_SUCCESS || (rc = check_layer(api, live, netLayer)) != HCCL_SUCCESS)
            return rc;
        // Every pair of ranks is one hop apart through the verbs fabric.
        *topoType = COMM_TOPO_CLOS;
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclRankGraphGetInstSizeListByLayer(HcclComm comm, uint32_t netLayer, uint32_t **instSizeList,
                                                            uint32_t *listSize)
{
    return guarded("HcclRankGraphGetInstSizeListByLayer", [&]() -> HcclResult {
        const char *api = "HcclRankGraphGetInstSizeListByLayer";
        registry::CommRef live;
        if (HcclResult rc = graph_comm(api, comm, instSizeList != nullptr && listSize != nullptr, live);
            rc != HCCL_SUCCESS || (rc = check_layer(api, live, netLayer)) != HCCL_SUCCESS)
            return rc;
        SideTables &t = tables();
        std::lock_guard lock(t.mutex);
        GraphAnswers &g = t.graphs[live->handle()];
        if (g.inst_sizes.empty())
            g.inst_sizes = {live->size()};
        *instSizeList = g.inst_sizes.data();
        *listSize = static_cast<uint32_t>(g.inst_sizes.size());
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclRankGraphGetLinks(HcclComm comm, uint32_t netLayer, uint32_t srcRank, uint32_t dstRank,
                                              CommLink **links, uint32_t *linkNum)
{
    return guarded("HcclRankGraphGetLinks", [&]() -> HcclResult {
        const char *api = "HcclRankGraphGetLinks";
        registry::CommRef live;
        if (HcclResult rc = graph_comm(api, comm, links != nullptr && linkNum != nullptr, live);
            rc != HCCL_SUCCESS || (rc = check_layer(api, live, netLayer)) != HCCL_SUCCESS)
            return rc;
        if (srcRank == dstRank || srcRank >= live->size() || dstRank >= live->size()) {
            return refuse(live, api, HCCL_E_PARA, "srcRank ", srcRank, ", dstRank ", dstRank,
                          ": two different ranks below the comm's size ", live->size());
        }
        SideTables &t = tables();
        std::lock_guard lock(t.mutex);
        prune_dead(t);
        GraphAnswers &g = t.graphs[live->handle()];
        // Mutant: links cached per unordered pair (the reverse query gets the forward answer).
        const bool unordered = hcts::mutant("ref_rank_graph_links_per_pair");
        auto [it, made] =
            g.links.try_emplace(unordered ? std::pair{std::min(srcRank, dstRank), std::max(srcRank, dstRank)}
                                          : std::pair{srcRank, dstRank});
        if (made)
            it->second = make_links(srcRank, dstRank);
        *links = it->second.empty() ? nullptr : it->second.data();
        *linkNum = static_cast<uint32_t>(it->second.size());
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclGetHeterogMode(HcclComm comm, HcclHeterogMode *mode)
{
    return guarded("HcclGetHeterogMode", [&]() -> HcclResult {
        const char *api = "HcclGetHeterogMode";
        registry::CommRef live;
        if (const HcclResult rc = graph_comm(api, comm, mode != nullptr, live); rc != HCCL_SUCCESS)
            return rc;
        *mode = HCCL_HETEROG_MODE_HOMOGENEOUS; // one product per process
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclDfxRegOpInfoByCommId(char *commId, void *hcclDfxOpInfo)
{
    return guarded("HcclDfxRegOpInfoByCommId", [&]() -> HcclResult {
        const char *api = "HcclDfxRegOpInfoByCommId";
        if (commId == nullptr || hcclDfxOpInfo == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "commId and hcclDfxOpInfo must not be NULL");
        }
        // The caller's structure is read as a whole: it must be there. Its header is not
        // checked (the vendor's operators pass `HcclDfxOpInfo info{}`, header zero).
        if (!range_accessible(hcclDfxOpInfo, sizeof(HcclDfxOpInfo), Access::write)) {
            return refuse(nullptr, api, HCCL_E_PARA, "hcclDfxOpInfo ", hcclDfxOpInfo, " is not ", sizeof(HcclDfxOpInfo),
                          " writable bytes");
        }
        const std::optional<size_t> id_len = readable_strnlen(commId, kCommNameBytes);
        if (!id_len) {
            return refuse(nullptr, api, HCCL_E_PARA, "commId ", static_cast<void *>(commId),
                          " is not a readable string");
        }
        const size_t len = *id_len;
        const std::string name(commId, std::min<size_t>(len, kCommNameBytes));
        bool known = false;
        const void *comm = nullptr;
        SideTables &t = tables();
        std::unique_lock lock(t.mutex);
        if (LaunchRecord *launch = current_launch(); launch != nullptr && launch->comm_name == name) {
            known = true; // the device program's comm
            comm = launch->comm;
        } else if (len < kCommNameBytes) {
            prune_dead(t);
            const auto it = t.names.find(name);
            known = it != t.names.end() && !it->second.empty();
            comm = known ? *it->second.begin() : nullptr;
        }
        if (!known) {
            lock.unlock();
            return refuse(nullptr, api, HCCL_E_NOT_FOUND, "'", name,
                          "' names no live comm (a name comes from HcclGetCommName)");
        }
        auto *info = static_cast<HcclDfxOpInfo *>(hcclDfxOpInfo);
        // As the vendor's host path does: the registration stamps the operator's start.
        if (!is_device_side())
            info->beginTime = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                        std::chrono::steady_clock::now().time_since_epoch())
                                                        .count());
        auto &[count, last] = t.dfx[name];
        ++count;
        std::memcpy(&last, info, sizeof(last));
        lock.unlock();
        HREF_LOG_INFO(-1, api, ": operator registered on '", name, "' (", count, " so far, comm ", comm, ", opType ",
                      info->opType, ", engine ", static_cast<int>(info->engine), ")");
        return HCCL_SUCCESS;
    });
}
