// The host calls custom operators make beside the resource calls (API.HC.*):
// the comm's name, copying host data into an engine context, the rank graph's
// layers and links, and the DFX registration of an operator by the comm's name.
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <tuple>

#include "case_kit.h"
#include "hccl/hccl_diag.h"
#include "hccl/hccl_rank_graph.h"
#include "host_memory.h"

namespace hcts::cases_host_calls {
HCTS_SUITE(HostCalls);

namespace {

constexpr uint32_t kNameBytes = 128; // HcclGetCommName.md: at most 128 with the NUL
constexpr uint32_t kLinkVersion = 1;
constexpr uint32_t kLinkMagic = 0x0f0e0f0f;
constexpr uint32_t kNoLayer = 1000; // a layer no query listed (checked against the list)

std::string rc_is(HcclResult got, HcclResult want)
{
    return "returned " + hccl_result_name(got) + ", expected " + hccl_result_name(want);
}

// A name NUL-terminated within kNameBytes - 1 characters, non-empty.
bool well_formed_name(const char (&buf)[kNameBytes + 8])
{
    const size_t len = ::strnlen(buf, sizeof(buf));
    return len > 0 && len < kNameBytes;
}

bool valid_protocol(int32_t p) { return p >= COMM_PROTOCOL_HCCS && p <= COMM_PROTOCOL_UB_RTP; }

// The engine context's bytes as the host sees them: device memory through the
// adapter for a device engine, else the host pointer itself.
std::vector<std::byte> ctx_bytes(const Device &dev, CommEngine engine, const void *ctx, size_t len)
{
    if (engine == COMM_ENGINE_AICPU || engine == COMM_ENGINE_AICPU_TS || engine == COMM_ENGINE_AIV)
        return dev.get(ctx, len);
    const auto *p = static_cast<const std::byte *>(ctx);
    return {p, p + len};
}

// A second communicator of every rank, destroyed at once: its handle is stale.
HcclComm stale_comm(const World &w)
{
    const auto &api = w.iut().api();
    struct {
        int32_t rc;
        HcclRootInfo root;
    } boot{};
    if (w.rank == 0)
        boot.rc = api.HcclGetRootInfo(&boot.root);
    mpi::broadcast(std::as_writable_bytes(std::span(&boot, 1)), 0, "a root info for a stale comm");
    HcclComm c = nullptr;
    const HcclResult irc = boot.rc != HCCL_SUCCESS ? static_cast<HcclResult>(boot.rc)
                                                   : api.HcclCommInitRootInfo(static_cast<uint32_t>(w.size), &boot.root,
                                                                              static_cast<uint32_t>(w.rank), &c);
    if (!mpi::all_ranks(irc == HCCL_SUCCESS && c != nullptr, "a comm to destroy made")) {
        if (irc == HCCL_SUCCESS && c != nullptr)
            (void)api.HcclCommDestroy(c);
        return nullptr;
    }
    const HcclResult drc = api.HcclCommDestroy(c);
    return mpi::all_ranks(drc == HCCL_SUCCESS, "the comm destroyed") ? c : nullptr;
}

} // namespace

HCTS_CASE(HostCalls, CommName, clauses("API.HC.1", "API.HC.2"), needs())
{
    const World &w = world();
    const auto &api = iut().api();
    if (const std::string m = missing_symbols(iut(), {"HcclGetCommName"}); !m.empty()) {
        ev().case_not_supported("the IUT has no " + m);
        return;
    }
    char name[kNameBytes + 8];
    std::memset(name, 0x7f, sizeof(name));
    HcclResult rc = api.HcclGetCommName(w.comm, name);
    const bool ok = ev().check("API.HC.1", rc == HCCL_SUCCESS && well_formed_name(name),
                               "HcclGetCommName " + rc_is(rc, HCCL_SUCCESS) +
                                   " with a name that must be NUL-terminated within 127 characters and not empty");
    char again[kNameBytes + 8];
    std::memset(again, 0x7f, sizeof(again));
    rc = api.HcclGetCommName(w.comm, again);
    if (ok)
        ev().check("API.HC.1", rc == HCCL_SUCCESS && std::strcmp(name, again) == 0,
                   "a second HcclGetCommName " + rc_is(rc, HCCL_SUCCESS) + " with '" +
                       std::string(again, ::strnlen(again, sizeof(again))) + "'; the first gave '" + name + "'");
    rc = api.HcclGetCommName(nullptr, again);
    ev().check("API.HC.1", rc == HCCL_E_PTR, "HcclGetCommName(NULL comm) " + rc_is(rc, HCCL_E_PTR));
    rc = api.HcclGetCommName(w.comm, nullptr);
    ev().check("API.HC.1", rc == HCCL_E_PTR, "HcclGetCommName(commName NULL) " + rc_is(rc, HCCL_E_PTR));

    // Every rank sees rank 0's name.
    char root_name[kNameBytes + 8];
    std::memcpy(root_name, name, sizeof(root_name));
    root_name[kNameBytes - 1] = '\0';
    mpi::broadcast(std::as_writable_bytes(std::span(root_name)), 0, "rank 0's comm name");
    if (ok)
        ev().check("API.HC.2", std::strcmp(root_name, name) == 0,
                   "this rank's comm name '" + std::string(name) + "' differs from rank 0's '" + root_name + "'");

    // A destroyed comm's handle.
    const HcclComm stale = stale_comm(w);
    if (stale == nullptr) {
        ev().error("API.HC.2", "a second communicator could not be made and destroyed on every rank");
        return;
    }
    rc = api.HcclGetCommName(stale, again);
    ev().check("API.HC.2", rc == HCCL_E_PARA, "HcclGetCommName of a destroyed comm " + rc_is(rc, HCCL_E_PARA));
}

HCTS_CASE(HostCalls, EngineCtxCopy, clauses("API.HC.3", "API.HC.4"), needs())
{
    const World &w = world();
    const auto &api = iut().api();
    if (const std::string m = missing_symbols(iut(), {"HcclEngineCtxCopy"}); !m.empty()) {
        ev().case_not_supported("the IUT has no " + m);
        return;
    }
    const CommEngine e = w.setup_engine;
    constexpr uint64_t kCtx = 256, kLen = 64, kOff = 32;
    const std::string tag = "hcts-ctx-copy-" + std::to_string(w.rank);
    void *ctx = nullptr;
    HcclResult rc = api.HcclEngineCtxCreate(w.comm, tag.c_str(), e, kCtx, &ctx);
    if (rc != HCCL_SUCCESS || ctx == nullptr) {
        ev().error("API.HC.3", "HcclEngineCtxCreate('" + tag + "', 256) returned " + hccl_result_name(rc) +
                                   ": no context to copy into");
        ev().error("API.HC.4", "no context (HcclEngineCtxCreate failed)");
        return;
    }
    // What the context should hold, updated with each accepted copy.
    std::vector<std::byte> want = ctx_bytes(device(), e, ctx, kCtx);
    const auto judge = [&](const char *clause, const std::string &after, const std::vector<std::byte> &expected) {
        const auto got = ctx_bytes(device(), e, ctx, kCtx);
        size_t bad = 0;
        while (bad < kCtx && got[bad] == expected[bad])
            ++bad;
        return ev().check(clause, bad == kCtx,
                          "after " + after + " the context's byte " + std::to_string(bad) +
                              " is not what it should be");
    };
    std::vector<std::byte> src(kLen);
    for (size_t i = 0; i < kLen; ++i)
        src[i] = static_cast<std::byte>(0xA0 + i);
    rc = api.HcclEngineCtxCopy(w.comm, e, tag.c_str(), src.data(), kLen, kOff);
    ev().check("API.HC.3", rc == HCCL_SUCCESS, "HcclEngineCtxCopy(64 bytes at offset 32) " + rc_is(rc, HCCL_SUCCESS));
    if (rc == HCCL_SUCCESS)
        std::copy(src.begin(), src.end(), want.begin() + kOff);
    judge("API.HC.3", "a copy of 64 bytes at offset 32", want);
    for (auto &b : src)
        b = ~b;
    rc = api.HcclEngineCtxCopy(w.comm, e, tag.c_str(), src.data(), 16, 0);
    ev().check("API.HC.3", rc == HCCL_SUCCESS, "HcclEngineCtxCopy(16 bytes at offset 0) " + rc_is(rc, HCCL_SUCCESS));
    if (rc == HCCL_SUCCESS)
        std::copy(src.begin(), src.begin() + 16, want.begin());
    judge("API.HC.3", "a copy of 16 bytes at offset 0", want);

    // Refusals: each must leave the context alone. The documented ones first, judged
    // before the copies past the end (API.HC.4) are tried.
    const std::string long_tag(HCCL_RES_TAG_MAX_LEN + 1, 't');
    const std::string unknown = tag + "-never-created";
    const auto judge_calls = [&](const char *clause,
                                 const std::vector<std::tuple<std::string, HcclResult, HcclResult>> &calls) {
        for (const auto &[what, code, got] : calls) {
            const bool held = code == HCCL_SUCCESS ? got != HCCL_SUCCESS : got == code;
            ev().check(clause, held,
                       "HcclEngineCtxCopy with " + what + " " +
                           (code == HCCL_SUCCESS ? "returned HCCL_SUCCESS; it must be refused" : rc_is(got, code)));
        }
    };
    judge_calls(
        "API.HC.3",
        {
            {"comm NULL", HCCL_E_PTR, api.HcclEngineCtxCopy(nullptr, e, tag.c_str(), src.data(), 8, 0)},
            {"srcCtx NULL", HCCL_E_PTR, api.HcclEngineCtxCopy(w.comm, e, tag.c_str(), nullptr, 8, 0)},
            {"size 0", HCCL_E_PARA, api.HcclEngineCtxCopy(w.comm, e, tag.c_str(), src.data(), 0, 0)},
            {"a 256-character tag", HCCL_E_PARA, api.HcclEngineCtxCopy(w.comm, e, long_tag.c_str(), src.data(), 8, 0)},
            {"a tag never created", HCCL_SUCCESS, api.HcclEngineCtxCopy(w.comm, e, unknown.c_str(), src.data(), 8, 0)},
        });
    judge("API.HC.3", "the refused copies (comm/src NULL, size 0, long or unknown tag)", want);
    // API.HC.4 judges its own refusals against what the context holds now.
    const std::vector<std::byte> held = ctx_bytes(device(), e, ctx, kCtx);
    const std::vector<std::byte> big(kCtx + 1, std::byte{0x5A});
    judge_calls("API.HC.4", {
                                {"a tag never created", HCCL_E_NOT_FOUND,
                                 api.HcclEngineCtxCopy(w.comm, e, unknown.c_str(), src.data(), 8, 0)},
                                {"offset 250 + 8 bytes into 256", HCCL_E_PARA,
                                 api.HcclEngineCtxCopy(w.comm, e, tag.c_str(), src.data(), 8, kCtx - 6)},
                                {"offset 0 + 257 bytes into 256", HCCL_E_PARA,
                                 api.HcclEngineCtxCopy(w.comm, e, tag.c_str(), big.data(), kCtx + 1, 0)},
                                {"an offset that wraps (2^64 - 4) + 8 bytes", HCCL_E_PARA,
                                 api.HcclEngineCtxCopy(w.comm, e, tag.c_str(), src.data(), 8, UINT64_MAX - 3)},
                            });
    judge("API.HC.4", "the refused copies past the context's end", held);
}

HCTS_CASE(HostCalls, RankGraphLayers, clauses("API.HC.5", "API.HC.7"), needs())
{
    const World &w = world();
    const auto &api = iut().api();
    if (const std::string m = missing_symbols(
            iut(), {"HcclRankGraphGetLayers", "HcclRankGraphGetRanksByLayer", "HcclRankGraphGetRankSizeByLayer",
                    "HcclRankGraphGetInstSizeListByLayer", "HcclRankGraphGetTopoTypeByLayer", "HcclGetHeterogMode"});
        !m.empty()) {
        ev().case_not_supported("the IUT has no " + m);
        return;
    }
    const auto size = static_cast<uint32_t>(w.size), me = static_cast<uint32_t>(w.rank);
    uint32_t *lp = nullptr, ln = 0;
    HcclResult rc = api.HcclRankGraphGetLayers(w.comm, &lp, &ln);
    if (!ev().check("API.HC.5", rc == HCCL_SUCCESS && ln > 0 && lp != nullptr,
                    "HcclRankGraphGetLayers " + rc_is(rc, HCCL_SUCCESS) + " with " + std::to_string(ln) +
                        " layers; at least one layer must hold this rank")) {
        ev().error("API.HC.7", "no layers to judge the others against");
        return;
    }
    const std::vector<uint32_t> layers(lp, lp + ln); // copied: a later query may invalidate the list
    for (const uint32_t layer : layers) {
        const std::string at = " of layer " + std::to_string(layer);
        uint32_t *rp = nullptr, rn = 0, count = 0;
        rc = api.HcclRankGraphGetRanksByLayer(w.comm, layer, &rp, &rn);
        std::vector<uint32_t> ranks;
        if (rc == HCCL_SUCCESS && rp != nullptr)
            ranks.assign(rp, rp + rn);
        const std::set<uint32_t> distinct(ranks.begin(), ranks.end());
        ev().check("API.HC.5",
                   rc == HCCL_SUCCESS && !ranks.empty() && distinct.size() == ranks.size() && distinct.count(me) == 1 &&
                       *distinct.rbegin() < size,
                   "HcclRankGraphGetRanksByLayer" + at + " " + rc_is(rc, HCCL_SUCCESS) + " with " +
                       std::to_string(ranks.size()) + " ranks (" + std::to_string(distinct.size()) +
                       " distinct); they must include rank " + std::to_string(me) + " and be below " +
                       std::to_string(size));
        rc = api.HcclRankGraphGetRankSizeByLayer(w.comm, layer, &count);
        ev().check("API.HC.5", rc == HCCL_SUCCESS && count == ranks.size(),
                   "HcclRankGraphGetRankSizeByLayer" + at + " " + rc_is(rc, HCCL_SUCCESS) + " and " +
                       std::to_string(count) + "; the layer's rank list has " + std::to_string(ranks.size()));
        uint32_t *sp = nullptr, sn = 0;
        rc = api.HcclRankGraphGetInstSizeListByLayer(w.comm, layer, &sp, &sn);
        uint64_t sum = 0;
        bool has_mine = false;
        for (uint32_t i = 0; rc == HCCL_SUCCESS && sp != nullptr && i < sn; ++i)
            sum += sp[i], has_mine = has_mine || sp[i] == count;
        ev().check("API.HC.5", rc == HCCL_SUCCESS && sum == size && has_mine,
                   "HcclRankGraphGetInstSizeListByLayer" + at + " " + rc_is(rc, HCCL_SUCCESS) + " with " +
                       std::to_string(sn) + " instances of " + std::to_string(sum) +
                       " ranks in all; they must add up to " + std::to_string(size) + " and include " +
                       std::to_string(count));
        CommTopo topo = COMM_TOPO_RESERVED;
        rc = api.HcclRankGraphGetTopoTypeByLayer(w.comm, layer, &topo);
        ev().check("API.HC.5", rc == HCCL_SUCCESS && topo >= COMM_TOPO_CLOS && topo <= COMM_TOPO_CUSTOM,
                   "HcclRankGraphGetTopoTypeByLayer" + at + " " + rc_is(rc, HCCL_SUCCESS) + " and topology " +
                       std::to_string(static_cast<int>(topo)));
    }
    HcclHeterogMode mode = HCCL_HETEROG_MODE_INVALID;
    rc = api.HcclGetHeterogMode(w.comm, &mode);
    ev().check("API.HC.5", rc == HCCL_SUCCESS && mode >= HCCL_HETEROG_MODE_HOMOGENEOUS,
               "HcclGetHeterogMode " + rc_is(rc, HCCL_SUCCESS) + " and mode " + std::to_string(static_cast<int>(mode)));

    // NULL comm and outputs.
    uint32_t *p = nullptr, n = 0;
    CommTopo topo = COMM_TOPO_RESERVED;
    const uint32_t l0 = layers.front();
    const std::vector<std::pair<std::string, HcclResult>> nulls = {
        {"GetLayers(NULL comm)", api.HcclRankGraphGetLayers(nullptr, &p, &n)},
        {"GetLayers(netLayers NULL)", api.HcclRankGraphGetLayers(w.comm, nullptr, &n)},
        {"GetLayers(netLayerNum NULL)", api.HcclRankGraphGetLayers(w.comm, &p, nullptr)},
        {"GetRanksByLayer(NULL comm)", api.HcclRankGraphGetRanksByLayer(nullptr, l0, &p, &n)},
        {"GetRanksByLayer(ranks NULL)", api.HcclRankGraphGetRanksByLayer(w.comm, l0, nullptr, &n)},
        {"GetRankSizeByLayer(rankNum NULL)", api.HcclRankGraphGetRankSizeByLayer(w.comm, l0, nullptr)},
        {"GetInstSizeListByLayer(listSize NULL)", api.HcclRankGraphGetInstSizeListByLayer(w.comm, l0, &p, nullptr)},
        {"GetTopoTypeByLayer(topoType NULL)", api.HcclRankGraphGetTopoTypeByLayer(w.comm, l0, nullptr)},
        {"GetTopoTypeByLayer(NULL comm)", api.HcclRankGraphGetTopoTypeByLayer(nullptr, l0, &topo)},
        {"HcclGetHeterogMode(mode NULL)", api.HcclGetHeterogMode(w.comm, nullptr)},
    };
    for (const auto &[what, got] : nulls)
        ev().check("API.HC.5", got == HCCL_E_PTR, "HcclRankGraph" + what + " " + rc_is(got, HCCL_E_PTR));

    // A layer the list does not hold.
    uint32_t absent = kNoLayer;
    while (std::find(layers.begin(), layers.end(), absent) != layers.end())
        ++absent;
    const std::string al = "(layer " + std::to_string(absent) + ", not listed)";
    const std::vector<std::pair<std::string, HcclResult>> layer_calls = {
        {"GetRanksByLayer" + al, api.HcclRankGraphGetRanksByLayer(w.comm, absent, &p, &n)},
        {"GetRankSizeByLayer" + al, api.HcclRankGraphGetRankSizeByLayer(w.comm, absent, &n)},
        {"GetInstSizeListByLayer" + al, api.HcclRankGraphGetInstSizeListByLayer(w.comm, absent, &p, &n)},
        {"GetTopoTypeByLayer" + al, api.HcclRankGraphGetTopoTypeByLayer(w.comm, absent, &topo)},
    };
    for (const auto &[what, got] : layer_calls)
        ev().check("API.HC.7", got == HCCL_E_PARA, "HcclRankGraph" + what + " " + rc_is(got, HCCL_E_PARA));
}

// The links of one direction of a pair on every layer, those of `protocol` only (copied: the
// library's array may be reused by the next query).
std::vector<CommLink> links_of(const hcts::HcommApi &api, HcclComm comm, const std::vector<uint32_t> &layers,
                               uint32_t src, uint32_t dst, int32_t protocol)
{
    std::vector<CommLink> out;
    for (const uint32_t layer : layers) {
        CommLink *links = nullptr;
        uint32_t n = 0;
        if (api.HcclRankGraphGetLinks(comm, layer, src, dst, &links, &n) != HCCL_SUCCESS || links == nullptr)
            continue;
        for (uint32_t i = 0; i < n; ++i)
            if (links[i].linkAttr.linkProtocol == protocol)
                out.push_back(links[i]);
    }
    return out;
}

bool same_addr(const CommAddr &a, const CommAddr &b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// HcclRankGraphGetLinks(peer -> me) after (me -> peer): a link's srcEndpointDesc is its source
// rank's (communicator_impl.cc InsertInnerLink: CommLinkInit with the endpoints of srcRank and
// dstRank), so each reversed link runs from the forward links' far end to their near end.
// `there`: the forward links of `protocol` the caller already has.
void check_reversed_links(const hcts::HcommApi &api, HcclComm comm, const std::vector<uint32_t> &layers, uint32_t me,
                          uint32_t peer, int32_t protocol, const std::vector<CommLink> &there, Evidence &ev)
{
    const std::vector<CommLink> back = links_of(api, comm, layers, peer, me, protocol);
    if (there.empty())
        return; // judged above: no link of the suite's protocol
    const std::string pair = "HcclRankGraphGetLinks from rank " + std::to_string(peer) + " to " + std::to_string(me) +
                             ", asked after the way from " + std::to_string(me) + " to " + std::to_string(peer);
    if (!ev.check("API.HC.6", !back.empty(), pair + " returned no link of protocol " + std::to_string(protocol)))
        return;
    for (const CommLink &b : back) {
        const bool mirrored = std::any_of(there.begin(), there.end(), [&](const CommLink &t) {
            return same_addr(b.srcEndpointDesc.commAddr, t.dstEndpointDesc.commAddr) &&
                   same_addr(b.dstEndpointDesc.commAddr, t.srcEndpointDesc.commAddr);
        });
        ev.check("API.HC.6", mirrored,
                 pair + ": a link whose source endpoint is not any forward link's destination endpoint (or whose "
                        "destination is not its source): the endpoints of the reverse query must be swapped");
    }
}

HCTS_CASE(HostCalls, RankGraphLinks, clauses("API.HC.6", "API.HC.7"), needs())
{
    const World &w = world();
    const auto &api = iut().api();
    if (const std::string m = missing_symbols(iut(), {"HcclRankGraphGetLayers", "HcclRankGraphGetLinks"}); !m.empty()) {
        ev().case_not_supported("the IUT has no " + m);
        return;
    }
    const auto size = static_cast<uint32_t>(w.size), me = static_cast<uint32_t>(w.rank);
    uint32_t *lp = nullptr, ln = 0;
    HcclResult rc = api.HcclRankGraphGetLayers(w.comm, &lp, &ln);
    if (rc != HCCL_SUCCESS || lp == nullptr || ln == 0) {
        ev().error("API.HC.6", "HcclRankGraphGetLayers returned " + hccl_result_name(rc) + " with " +
                                   std::to_string(ln) + " layers: no layer to ask for links (API.HC.5 judges it)");
        ev().error("API.HC.7", "no layers");
        return;
    }
    const std::vector<uint32_t> layers(lp, lp + ln);
    std::optional<CommLink> to_partner; // ranks 0 and 1: a link of the suite's protocol to the other
    for (uint32_t peer = 0; peer < size; ++peer) {
        if (peer == me)
            continue;
        const std::string pair = " from rank " + std::to_string(me) + " to " + std::to_string(peer);
        uint32_t total = 0;
        std::set<int32_t> protocols;
        std::vector<CommLink> of_protocol; // the forward links of the suite's protocol
        for (const uint32_t layer : layers) {
            CommLink *links = nullptr;
            uint32_t n = 0;
            rc = api.HcclRankGraphGetLinks(w.comm, layer, me, peer, &links, &n);
            const std::string at = "HcclRankGraphGetLinks(layer " + std::to_string(layer) + ")" + pair;
            if (!ev().check("API.HC.6", rc == HCCL_SUCCESS && (n == 0 || links != nullptr),
                            at + " " + rc_is(rc, HCCL_SUCCESS) + " with " + std::to_string(n) + " links at " +
                                hex(reinterpret_cast<uint64_t>(links))))
                continue;
            const std::vector<CommLink> copy(links, links + n);
            for (uint32_t i = 0; i < n; ++i) {
                const CommLink &l = copy[i];
                const int32_t p = l.linkAttr.linkProtocol;
                ev().check("API.HC.6",
                           l.header.version == kLinkVersion && l.header.magicWord == kLinkMagic &&
                               l.header.size == sizeof(CommLink) && valid_protocol(p) &&
                               l.srcEndpointDesc.protocol == p && l.dstEndpointDesc.protocol == p,
                           at + ": link " + std::to_string(i) + " has version " + std::to_string(l.header.version) +
                               ", magic " + hex(l.header.magicWord) + ", size " + std::to_string(l.header.size) +
                               ", protocol " + std::to_string(p) + ", endpoint protocols " +
                               std::to_string(static_cast<int>(l.srcEndpointDesc.protocol)) + "/" +
                               std::to_string(static_cast<int>(l.dstEndpointDesc.protocol)) +
                               "; expected version 1, magic 0x0f0e0f0f, size 464, endpoints of the link's protocol");
                protocols.insert(p);
                if (p == w.protocol)
                    of_protocol.push_back(l);
                if (me < 2 && peer == 1 - me && p == w.protocol && !to_partner)
                    to_partner = l;
            }
            total += n;
        }
        ev().check("API.HC.6", total > 0, "no layer has a link" + pair);
        // The same pair asked the other way round (a library may cache per pair): each link of the
        // suite's protocol from `peer` to this rank starts where one from this rank to `peer` ends.
        check_reversed_links(api, w.comm, layers, me, peer, w.protocol, of_protocol, ev());
        ev().check("API.HC.6", protocols.count(w.protocol) == 1,
                   "the suite's channels" + pair + " use protocol " + std::to_string(static_cast<int>(w.protocol)) +
                       ", which no link" + pair + " offers (" + std::to_string(protocols.size()) +
                       " protocols among the links)");
    }
    // Ranks 0 and 1 acquire a channel to each other from that link, as HCCL's 950
    // sample does (examples/04_custom_ops_p2p/op_host/utils.cc), with the world's
    // engine and notifyNum: the same key as the world's channel, so a library that
    // reuses channels by key may return that one.
    if (me < 2 && to_partner) {
        HcclChannelDesc desc;
        (void)HcclChannelDescInit(&desc, 1);
        desc.remoteRank = 1 - me;
        desc.notifyNum = World::kNotifyNum;
        desc.channelProtocol = to_partner->linkAttr.linkProtocol;
        desc.localEndpoint.protocol = to_partner->srcEndpointDesc.protocol;
        desc.localEndpoint.commAddr = to_partner->srcEndpointDesc.commAddr;
        desc.localEndpoint.loc = to_partner->srcEndpointDesc.loc;
        desc.remoteEndpoint.protocol = to_partner->dstEndpointDesc.protocol;
        desc.remoteEndpoint.commAddr = to_partner->dstEndpointDesc.commAddr;
        desc.remoteEndpoint.loc = to_partner->dstEndpointDesc.loc;
        ChannelHandle ch = 0;
        rc = api.HcclChannelAcquire(w.comm, w.setup_engine, &desc, 1, &ch);
        ev().check("API.HC.6", rc == HCCL_SUCCESS && ch != 0,
                   "HcclChannelAcquire from the link to rank " + std::to_string(1 - me) +
                       " (filled as HCCL's sample "
                       "does) " +
                       rc_is(rc, HCCL_SUCCESS) + " with channel " + hex(ch));
        if (rc == HCCL_SUCCESS && ch != 0 && ch != w.channel_to(static_cast<int>(1 - me)) &&
            api.HcclChannelDestroy != nullptr)
            (void)api.HcclChannelDestroy(w.comm, &ch, 1);
    }
    CommLink *links = nullptr;
    uint32_t n = 0;
    const uint32_t l0 = layers.front(), other = me == 0 ? 1 : 0;
    const std::vector<std::tuple<const char *, std::string, HcclResult, HcclResult>> bad = {
        {"API.HC.6", "srcRank == dstRank", HCCL_E_PARA, api.HcclRankGraphGetLinks(w.comm, l0, me, me, &links, &n)},
        {"API.HC.6", "NULL comm", HCCL_E_PTR, api.HcclRankGraphGetLinks(nullptr, l0, me, other, &links, &n)},
        {"API.HC.6", "links NULL", HCCL_E_PTR, api.HcclRankGraphGetLinks(w.comm, l0, me, other, nullptr, &n)},
        {"API.HC.6", "linkNum NULL", HCCL_E_PTR, api.HcclRankGraphGetLinks(w.comm, l0, me, other, &links, nullptr)},
        {"API.HC.7", "dstRank " + std::to_string(size) + " (the comm's size)", HCCL_E_PARA,
         api.HcclRankGraphGetLinks(w.comm, l0, me, size, &links, &n)},
        {"API.HC.7", "srcRank UINT32_MAX", HCCL_E_PARA,
         api.HcclRankGraphGetLinks(w.comm, l0, UINT32_MAX, other, &links, &n)},
    };
    for (const auto &[clause, what, want, got] : bad)
        ev().check(clause, got == want, "HcclRankGraphGetLinks with " + what + " " + rc_is(got, want));
    uint32_t absent = kNoLayer;
    while (std::find(layers.begin(), layers.end(), absent) != layers.end())
        ++absent;
    rc = api.HcclRankGraphGetLinks(w.comm, absent, me, other, &links, &n);
    ev().check("API.HC.7", rc == HCCL_E_PARA,
               "HcclRankGraphGetLinks(layer " + std::to_string(absent) + ", not listed) " + rc_is(rc, HCCL_E_PARA));
}

HCTS_CASE(HostCalls, DfxRegistration, clauses("API.HC.8", "API.HC.9"), needs())
{
    const World &w = world();
    const auto &api = iut().api();
    if (const std::string m = missing_symbols(iut(), {"HcclGetCommName", "HcclDfxRegOpInfoByCommId"}); !m.empty()) {
        ev().case_not_supported("the IUT has no " + m);
        return;
    }
    char name[kNameBytes + 8] = {};
    HcclResult rc = api.HcclGetCommName(w.comm, name);
    if (rc != HCCL_SUCCESS || !well_formed_name(name)) {
        ev().error("API.HC.8", "HcclGetCommName returned " + hccl_result_name(rc) + ": no name to register with");
        ev().error("API.HC.9", "no comm name");
        return;
    }
    // As HCCL's custom operators do: value-initialised, header zero.
    HcclDfxOpInfo info{};
    info.opType = 7;
    info.dataCount = 4096;
    std::snprintf(info.algTag, sizeof(info.algTag), "hcts-host-calls-%d", w.rank);
    HcclDfxOpInfo before;
    std::memcpy(&before, &info, sizeof(info));
    rc = api.HcclDfxRegOpInfoByCommId(name, &info);
    const bool ok =
        ev().check("API.HC.8", rc == HCCL_SUCCESS,
                   "HcclDfxRegOpInfoByCommId('" + std::string(name) + "', HcclDfxOpInfo{}) " + rc_is(rc, HCCL_SUCCESS));
    if (ok) {
        ev().check("API.HC.9", info.beginTime != 0, "the registration left beginTime 0");
        HcclDfxOpInfo stamped;
        std::memcpy(&stamped, &info, sizeof(info));
        stamped.beginTime = before.beginTime;
        ev().check("API.HC.9", std::memcmp(&stamped, &before, sizeof(before)) == 0,
                   "the registration changed a byte of HcclDfxOpInfo other than beginTime");
    } else {
        ev().error("API.HC.9", "the registration was refused: nothing to judge");
    }
    HcclDfxOpInfo other{};
    char unknown[] = "hcts-no-such-comm";
    char longer[kNameBytes + 8];
    std::memcpy(longer, name, sizeof(longer));
    std::strncat(longer, "-x", sizeof(longer) - ::strnlen(longer, sizeof(longer)) - 1);
    const std::vector<std::pair<std::string, std::pair<HcclResult, HcclResult>>> bad = {
        {"commId NULL", {HCCL_E_PTR, api.HcclDfxRegOpInfoByCommId(nullptr, &other)}},
        {"hcclDfxOpInfo NULL", {HCCL_E_PTR, api.HcclDfxRegOpInfoByCommId(name, nullptr)}},
        {"commId 'hcts-no-such-comm'", {HCCL_E_NOT_FOUND, api.HcclDfxRegOpInfoByCommId(unknown, &other)}},
        {"the comm's name with '-x' appended", {HCCL_E_NOT_FOUND, api.HcclDfxRegOpInfoByCommId(longer, &other)}},
    };
    for (const auto &[what, r] : bad)
        ev().check("API.HC.8", r.second == r.first,
                   "HcclDfxRegOpInfoByCommId with " + what + " " + rc_is(r.second, r.first));
}

// HcclCommMemReg on one rank (API.MR.1): host memory of the case registered under a
// tag, the same registration answered with the same handle, and the refusals that
// keep nothing (the reference's decisions: the header promises none of them).
HCTS_CASE(HostCalls, CommMemReg, clauses("API.MR.1"), needs())
{
    const World &w = world();
    const auto &api = iut().api();
    if (const std::string m = missing_symbols(iut(), {"HcclCommMemReg"}); !m.empty()) {
        ev().case_not_supported("the IUT has no " + m);
        return;
    }
    constexpr size_t kBytes = 1 << 16;
    std::byte *mem = kept_host_memory(kBytes, std::byte{0});
    std::byte *other = kept_host_memory(kBytes, std::byte{0});
    const std::string tag = "hcts-mr-" + std::to_string(w.rank);
    const CommMem good{COMM_MEM_TYPE_HOST, mem, kBytes};
    HcclMemHandle h = nullptr;
    HcclResult rc = api.HcclCommMemReg(w.comm, tag.c_str(), &good, &h);
    ev().check("API.MR.1", rc == HCCL_SUCCESS && h != nullptr,
               "HcclCommMemReg of 64 KiB of host memory " + rc_is(rc, HCCL_SUCCESS) +
                   (h == nullptr ? " (no handle)" : ""));
    HcclMemHandle again = nullptr;
    rc = api.HcclCommMemReg(w.comm, tag.c_str(), &good, &again);
    ev().check("API.MR.1", rc == HCCL_SUCCESS && again == h,
               "a second HcclCommMemReg of the same tag and memory " + rc_is(rc, HCCL_SUCCESS) +
                   (again == h ? "" : " with another handle than the first"));
    const auto sentinel = reinterpret_cast<HcclMemHandle>(0x5eed);
    const CommMem elsewhere{COMM_MEM_TYPE_HOST, other, kBytes};
    const CommMem empty{COMM_MEM_TYPE_HOST, mem, 0};
    const CommMem hccl{COMM_MEM_TYPE_DEVICE, w.local_base, kBytes};
    const std::string long_tag(HCCL_RES_TAG_MAX_LEN + 1, 't');
    const std::string fresh = tag + "-refused";
    HcclMemHandle out = sentinel;
    const std::vector<std::tuple<std::string, HcclResult, HcclResult>> calls{
        {"comm NULL", HCCL_E_PTR, api.HcclCommMemReg(nullptr, fresh.c_str(), &good, &out)},
        {"memTag NULL", HCCL_E_PTR, api.HcclCommMemReg(w.comm, nullptr, &good, &out)},
        {"mem NULL", HCCL_E_PTR, api.HcclCommMemReg(w.comm, fresh.c_str(), nullptr, &out)},
        {"memHandle NULL", HCCL_E_PTR, api.HcclCommMemReg(w.comm, fresh.c_str(), &good, nullptr)},
        {"size 0", HCCL_E_PARA, api.HcclCommMemReg(w.comm, fresh.c_str(), &empty, &out)},
        {"a 256-character tag", HCCL_E_PARA, api.HcclCommMemReg(w.comm, long_tag.c_str(), &good, &out)},
        {"the registered tag over other memory", HCCL_E_PARA,
         api.HcclCommMemReg(w.comm, tag.c_str(), &elsewhere, &out)},
        {"the communication memory's first 64 KiB", HCCL_E_PARA,
         api.HcclCommMemReg(w.comm, fresh.c_str(), &hccl, &out)},
    };
    for (const auto &[what, code, got] : calls)
        ev().check("API.MR.1", got == code, "HcclCommMemReg with " + what + " " + rc_is(got, code));
    ev().check("API.MR.1", out == sentinel, "a refused HcclCommMemReg wrote a handle");
    // Nothing of the refusals was kept: the refused tag is free for other memory.
    rc = api.HcclCommMemReg(w.comm, fresh.c_str(), &elsewhere, &out);
    ev().check("API.MR.1", rc == HCCL_SUCCESS && out != sentinel && out != h,
               "HcclCommMemReg of a tag whose earlier calls were refused " + rc_is(rc, HCCL_SUCCESS));
}

// Registered memory across a channel (API.MR.2): every rank registers 64 KiB of host
// memory and names it in the memHandles of a channel to each peer; the peer's
// HcclChannelGetRemoteMems lists it (address, size, tag), and a write with notify from
// rank 0's registered memory into rank 1's lands there by the wait. What custom
// operators do with their aclrtMalloc'd input and output.
HCTS_CASE(HostCalls, RegisteredMemoryAcrossChannel, clauses("API.MR.2"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const auto &api = iut().api();
    if (const std::string m = missing_symbols(iut(), {"HcclCommMemReg", "HcclChannelGetRemoteMems"}); !m.empty()) {
        ev().case_not_supported("the IUT has no " + m);
        return;
    }
    // Past a megabyte and ending 64 bytes short of the registration's end: a transport that
    // moves a large write into private memory in pieces (process_vm_writev on softverbs, where
    // the communication memory is mapped and written directly) must place every piece, up to
    // the tail of the registration.
    constexpr size_t kBytes = (2u << 20) + 4096;
    constexpr uint64_t kLen = (1u << 20) + 4096 + 123, kAt = kBytes - kLen - 64;
    constexpr uint32_t kIdx = 5;
    std::byte *mem = kept_host_memory(kBytes, std::byte{0x5a});
    const std::string tag = "hcts-mr2-" + std::to_string(w.rank);
    const CommMem mine{COMM_MEM_TYPE_HOST, mem, kBytes};
    HcclMemHandle h = nullptr;
    const HcclResult reg = api.HcclCommMemReg(w.comm, tag.c_str(), &mine, &h);
    if (!mpi::all_ranks(reg == HCCL_SUCCESS && h != nullptr, "registered memory: HcclCommMemReg")) {
        ev().check("API.MR.2", reg == HCCL_SUCCESS && h != nullptr,
                   "HcclCommMemReg of " + std::to_string(kBytes) + " bytes of host memory " + rc_is(reg, HCCL_SUCCESS));
        return;
    }
    const std::vector<HcclMemHandle> handles{h};
    const ScopedChannels ch(w, World::kNotifyNum, handles);
    if (!ch.distinct_from_default()) {
        ev().check("API.MR.2", ch.rc() == HCCL_SUCCESS,
                   "HcclChannelAcquire with one registered memory in memHandles " + rc_is(ch.rc(), HCCL_SUCCESS));
        if (ch.rc() == HCCL_SUCCESS)
            ev().unsupported("API.MR.2",
                             "a second channel to the same peer could not be acquired as a distinct handle");
        return;
    }
    // Where each rank's memory is, to check the peer's list against.
    std::vector<uint64_t> where(static_cast<size_t>(w.size), 0);
    for (int r = 0; r < w.size; ++r) {
        uint64_t a = r == w.rank ? reinterpret_cast<uint64_t>(mem) : 0;
        mpi::broadcast(std::as_writable_bytes(std::span(&a, 1)), r, "registered memory: addresses");
        where[static_cast<size_t>(r)] = a;
    }
    for (int peer = 0; peer < w.size; ++peer) {
        if (peer == w.rank)
            continue;
        uint32_t num = 0;
        CommMem *mems = nullptr;
        char **tags = nullptr;
        const HcclResult rc = api.HcclChannelGetRemoteMems(w.comm, ch.to(peer), &num, &mems, &tags);
        const std::string peer_tag = "hcts-mr2-" + std::to_string(peer);
        bool listed = false;
        for (uint32_t i = 0; rc == HCCL_SUCCESS && mems != nullptr && i < num; ++i)
            listed = listed || (reinterpret_cast<uint64_t>(mems[i].addr) == where[static_cast<size_t>(peer)] &&
                                mems[i].size == kBytes && tags != nullptr && tags[i] != nullptr && peer_tag == tags[i]);
        ev().check("API.MR.2", rc == HCCL_SUCCESS && listed,
                   "HcclChannelGetRemoteMems on the channel to rank " + std::to_string(peer) + " " +
                       rc_is(rc, HCCL_SUCCESS) + " with " + std::to_string(num) +
                       " memories; expected among them the peer's registration (tag " + peer_tag + ", " +
                       std::to_string(kBytes) + " bytes at 0x" + hex(where[static_cast<size_t>(peer)]) + ")" +
                       (listed ? "" : ": not listed"));
    }
    std::vector<std::byte> payload(kLen);
    fill_payload(payload, StampKey{40, 0, 0});
    Script s;
    if (w.rank == 0) {
        std::memcpy(mem, payload.data(), kLen);
        s.wwn(w.thread(), ch.to(1), reinterpret_cast<std::byte *>(where[1]) + kAt, mem, kLen, kIdx);
    } else if (w.rank == 1) {
        s.wait(w.thread(), ch.to(0), kIdx, w.short_timeout() * 10);
    }
    mpi::phase_barrier("registered memory: memory ready");
    const LaunchResult r = c.run(s, 20000);
    mpi::phase_barrier("registered memory: transfer done");
    if (w.rank > 1)
        return;
    if (s.first_unsupported()) {
        ev().unsupported("API.MR.2", "the " + std::string(w.rank == 0 ? "write with notify" : "wait") +
                                         " was refused with HCCL_E_NOT_SUPPORT (" + r.describe() + ")");
        return;
    }
    if (!ev().check("API.MR.2", s.rc(0) == 0,
                    std::string(w.rank == 0 ? "the write with notify from registered memory into the peer's"
                                            : "the wait for it") +
                        " returned " + hccl_result_name(s.rc(0)) + " (" + r.describe() + ")"))
        return;
    if (w.rank == 1) {
        const bool same = std::memcmp(mem + kAt, payload.data(), kLen) == 0;
        size_t first_bad = 0;
        while (!same && first_bad < kLen && mem[kAt + first_bad] == payload[first_bad])
            ++first_bad;
        ev().check("API.MR.2", same,
                   "after the wait, the registered memory holds the payload (" + std::to_string(kLen) +
                       " bytes at offset " + std::to_string(kAt) + ")" +
                       (same ? "" : ": first wrong byte at " + std::to_string(first_bad)));
        const bool guard_ok =
            std::all_of(mem + kAt - 40, mem + kAt, [](std::byte b) { return b == std::byte{0x5a}; }) &&
            std::all_of(mem + kAt + kLen, mem + kAt + kLen + 64, [](std::byte b) { return b == std::byte{0x5a}; });
        ev().check("API.MR.2", guard_ok, "the bytes around the payload in the registered memory were changed");
    }
}

// Registered memory as the local side (API.MR.3): rank 0 registers 64 KiB of host memory
// with HcclCommMemReg (named in no channel's memHandles: the local side needs no
// exchange) and writes with notify from it into rank 1's communication memory over the
// suite's channel; rank 1 waits and copies what arrived; then rank 0 reads it back into
// another place of its registered memory. The vendor's custom operators use their
// operator memory as the local side of their transfers this way.
HCTS_CASE(HostCalls, RegisteredMemoryAsLocalSide, clauses("API.MR.3"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy, Feature::Read))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const char *cl = "API.MR.3";
    if (const std::string m = missing_symbols(iut(), {"HcclCommMemReg"}); !m.empty()) {
        ev().case_not_supported("the IUT has no " + m);
        return;
    }
    constexpr size_t kBytes = 1 << 16;
    constexpr uint64_t kLen = 8192 + 77, kAt = 4096 + 24;
    constexpr uint32_t kIdx = 7;
    std::vector<std::byte> payload(kLen);
    fill_payload(payload, StampKey{41, 0, 0});
    std::byte *mem = nullptr;
    HcclResult reg = HCCL_SUCCESS;
    if (w.rank == 0) {
        mem = kept_host_memory(kBytes, std::byte{0x5a});
        std::memcpy(mem + kAt, payload.data(), kLen);
        const CommMem mine{COMM_MEM_TYPE_HOST, mem, kBytes};
        HcclMemHandle h = nullptr;
        // The longest tag the header allows (HCCL_RES_TAG_MAX_LEN characters and the NUL).
        std::string tag = "hcts-mr3-";
        tag.resize(HCCL_RES_TAG_MAX_LEN, 't');
        reg = iut().api().HcclCommMemReg(w.comm, tag.c_str(), &mine, &h);
    }
    if (!mpi::all_ranks(reg == HCCL_SUCCESS, "registered local side: HcclCommMemReg")) {
        if (w.rank == 0)
            ev().check(cl, false,
                       "HcclCommMemReg of 64 KiB of host memory under a tag of HCCL_RES_TAG_MAX_LEN (255) characters " +
                           rc_is(reg, HCCL_SUCCESS));
        return;
    }
    std::byte *snap = w.scratch();
    if (w.rank == 1) {
        dev.poison(w.inbox(0), kLen);
        dev.poison(snap, kLen);
    }
    mpi::phase_barrier("registered local side: ready");
    Script s;
    if (w.rank == 0) {
        s.wwn(w.thread(), w.channel_to(1), w.remote_inbox(1, 0), mem + kAt, kLen, kIdx);
    } else if (w.rank == 1) {
        s.wait(w.thread(), w.channel_to(0), kIdx, w.timeout_of(8));
        s.copy(w.thread(), snap, w.inbox(0), kLen).only_if_previous_ok();
    }
    const LaunchResult r = c.run(s, 20000);
    mpi::phase_barrier("registered local side: done");
    if (w.rank > 1) {
        // no part in the write
    } else if (s.first_unsupported()) {
        ev().unsupported(cl, "the " + std::string(w.rank == 0 ? "write with notify" : "wait or copy") +
                                 " was refused with HCCL_E_NOT_SUPPORT (" + r.describe() + ")");
    } else if (w.rank == 0) {
        ev().check(cl, s.rc(0) == 0 && r.ok(),
                   "the write with notify from registered memory into the peer's communication memory returned " +
                       hccl_result_name(s.rc(0)) + " (" + r.describe() + ")");
    } else if (s.rc(0) != 0 || s.rc(1) != 0) {
        ev().check(cl, false,
                   "the wait for a write with notify from the peer's registered memory returned " +
                       hccl_result_name(s.rc(0)) + ", the copy after it " + hccl_result_name(s.rc(1)) + " (" +
                       r.describe() + ")");
    } else {
        const PayloadCheck seen = check_payload(dev.get(snap, kLen), StampKey{41, 0, 0});
        ev().check(cl, seen.ok(),
                   "after the wait, the payload written from the peer's registered memory is not in place: " +
                       describe(seen));
    }
    // And as the destination of a read: rank 0 reads the payload back from rank 1's
    // communication memory into another place of its registered memory (the vendor's
    // sample reads into its operator's output memory).
    constexpr uint64_t kReadAt = kAt + kLen + 4096;
    Script back;
    if (w.rank == 0)
        back.read(w.thread(), w.channel_to(1), mem + kReadAt, w.remote_inbox(1, 0), kLen);
    const LaunchResult rr = c.run(back, 20000);
    mpi::phase_barrier("registered local side: read back");
    if (w.rank != 0 || !r.ok() || s.rc(0) != 0)
        return;
    if (back.first_unsupported()) {
        ev().unsupported(cl, "the read into registered memory was refused with HCCL_E_NOT_SUPPORT");
        return;
    }
    const PayloadCheck got = check_payload(std::span<const std::byte>(mem + kReadAt, kLen), StampKey{41, 0, 0});
    ev().check(cl, back.rc(0) == 0 && rr.ok() && got.ok(),
               "a read from the peer's communication memory into registered memory returned " +
                   hccl_result_name(back.rc(0)) + " (" + rr.describe() + "), and the bytes read " +
                   (got.ok() ? "are the payload" : "are not the payload: " + describe(got)));
}

} // namespace hcts::cases_host_calls
