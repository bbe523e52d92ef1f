// The channel calls themselves (API.CHN.*): HcclChannelAcquire's argument and
// header checks, the notifyNum bound on every descriptor, re-acquisition by key,
// and HcclChannelDestroy on a handle already destroyed. Every rank makes the
// same calls at once, so a call a wrong library accepts finds its peer doing
// the same and cannot hang the handshake. A refused call must leave nothing
// behind: a later acquisition of the same key with another notifyNum succeeds
// only if no channel of that key exists.
#include <algorithm>
#include <cstring>

#include "case_kit.h"

namespace hcts::cases_channels {
HCTS_SUITE(ChannelApi);

namespace {

constexpr uint32_t kBadNotify = 8;    // the notifyNum of descriptors in refused calls
constexpr uint32_t kLaterNotify = 16; // the notifyNum of the acquisition that proves no effect

// One descriptor per peer, made by HcclChannelDescInit and filled as World does.
std::vector<HcclChannelDesc> peer_descs(const World &w, CommProtocol protocol, uint32_t notify_num)
{
    std::vector<HcclChannelDesc> d(static_cast<size_t>(w.size - 1));
    HcclChannelDescInit(d.data(), static_cast<uint32_t>(d.size()));
    size_t i = 0;
    for (int r = 0; r < w.size; ++r)
        if (r != w.rank) {
            d[i].remoteRank = static_cast<uint32_t>(r);
            d[i].channelProtocol = protocol;
            d[i].notifyNum = notify_num;
            ++i;
        }
    return d;
}

HcclResult acquire(const World &w, const std::vector<HcclChannelDesc> &d, std::vector<ChannelHandle> &got)
{
    got.assign(d.size(), 0);
    return w.iut().api().HcclChannelAcquire(w.comm, w.setup_engine, d.data(), static_cast<uint32_t>(d.size()),
                                            got.data());
}

// A call that should have been refused but returned success leaves channels: gone
// before the next call, so later cases start clean (best effort).
void drop_if_accepted(const World &w, HcclResult rc, const std::vector<ChannelHandle> &got)
{
    if (rc == HCCL_SUCCESS && w.iut().api().HcclChannelDestroy != nullptr) {
        std::vector<ChannelHandle> live;
        for (ChannelHandle c : got)
            if (c != 0)
                live.push_back(c);
        if (!live.empty())
            (void)w.iut().api().HcclChannelDestroy(w.comm, live.data(), static_cast<uint32_t>(live.size()));
    }
}

// Proof that refused calls on the alternate protocol left nothing: channels of
// that key with notifyNum kLaterNotify can be acquired (and are destroyed again).
void later_acquire_succeeds(const World &w, Evidence &ev, const std::string &clause, const std::string &after)
{
    const ScopedChannels later(w, kLaterNotify);
    ev.check(clause, later.rc() == HCCL_SUCCESS && later.to(w.peer()) != 0,
             "after " + after + ", HcclChannelAcquire of the same key with notifyNum " + std::to_string(kLaterNotify) +
                 " returned " + hccl_result_name(later.rc()) +
                 " on this rank; it must succeed (the refused calls must leave no channel behind)");
}

std::string rc_text(HcclResult got, HcclResult want)
{
    return "returned " + hccl_result_name(got) + ", expected " + hccl_result_name(want);
}

} // namespace

HCTS_CASE(ChannelApi, AcquireArgumentsChecked, clauses("API.CHN.1"), needs())
{
    const World &w = world();
    const auto &api = iut().api();
    const auto d = peer_descs(w, w.alt_protocol, kBadNotify);
    std::vector<ChannelHandle> got(d.size(), 0);
    const uint32_t n = static_cast<uint32_t>(d.size());
    struct Bad {
        const char *what;
        HcclResult want;
        HcclResult rc;
    };
    std::vector<Bad> bad{
        {"comm NULL", HCCL_E_PTR, api.HcclChannelAcquire(nullptr, w.setup_engine, d.data(), n, got.data())},
        {"channelDescs NULL", HCCL_E_PTR, api.HcclChannelAcquire(w.comm, w.setup_engine, nullptr, n, got.data())},
        {"channels NULL", HCCL_E_PTR, api.HcclChannelAcquire(w.comm, w.setup_engine, d.data(), n, nullptr)},
        {"channelNum 0", HCCL_E_PARA, api.HcclChannelAcquire(w.comm, w.setup_engine, d.data(), 0, got.data())},
        // The array holds n descriptors: a library must judge channelNum before it reads them.
        {"channelNum 2^20 + 1", HCCL_E_PARA,
         api.HcclChannelAcquire(w.comm, w.setup_engine, d.data(), (1U << 20) + 1, got.data())},
    };
    for (const Bad &b : bad) {
        ev().check("API.CHN.1", b.rc == b.want,
                   std::string("HcclChannelAcquire with ") + b.what + " " + rc_text(b.rc, b.want));
        drop_if_accepted(w, b.rc, got);
    }
    mpi::phase_barrier("bad channel acquisitions tried");
    later_acquire_succeeds(w, ev(), "API.CHN.1", "the refused calls");
}

HCTS_CASE(ChannelApi, HeaderChecked, clauses("API.CHN.2"), needs())
{
    const World &w = world();
    // HcclChannelDescInit as the header defines it (api §4.4), field by field.
    HcclChannelDesc desc;
    std::memset(&desc, 0x5A, sizeof desc);
    const HcclResult irc = HcclChannelDescInit(&desc, 1);
    const bool filled = irc == HCCL_SUCCESS && desc.header.version == HCCL_CHANNEL_VERSION &&
                        desc.header.magicWord == 0x0f0f0f0fU && desc.header.size == sizeof(HcclChannelDesc) &&
                        desc.remoteRank == UINT32_MAX && desc.channelProtocol == COMM_PROTOCOL_RESERVED &&
                        desc.notifyNum == 0 && desc.memHandles == nullptr && desc.memHandleNum == 0 &&
                        desc.localEndpoint.protocol == COMM_PROTOCOL_RESERVED &&
                        desc.remoteEndpoint.loc.locType == ENDPOINT_LOC_TYPE_RESERVED;
    ev().check("API.CHN.2", filled,
               "HcclChannelDescInit returned " + hccl_result_name(irc) + " with header {version " +
                   std::to_string(desc.header.version) + ", magic " + hex(desc.header.magicWord) + ", size " +
                   std::to_string(desc.header.size) + "}, remoteRank " + std::to_string(desc.remoteRank) +
                   ", notifyNum " + std::to_string(desc.notifyNum) +
                   "; expected {1, 0x0f0f0f0f, 496}, remoteRank 0xffffffff, protocol and endpoints RESERVED, "
                   "notifyNum 0, no memHandles");
    const HcclResult nrc = HcclChannelDescInit(nullptr, 1);
    ev().check("API.CHN.2", nrc == HCCL_E_PTR, "HcclChannelDescInit(NULL, 1) " + rc_text(nrc, HCCL_E_PTR));

    for (uint32_t magic : {0x0f0f0f0eU, 0U}) {
        auto d = peer_descs(w, w.alt_protocol, kBadNotify);
        for (HcclChannelDesc &e : d)
            e.header.magicWord = magic;
        std::vector<ChannelHandle> got;
        const HcclResult rc = acquire(w, d, got);
        ev().check("API.CHN.2", rc == HCCL_E_PARA,
                   "HcclChannelAcquire with header magic " + hex(magic) + " " + rc_text(rc, HCCL_E_PARA));
        drop_if_accepted(w, rc, got);
        mpi::phase_barrier("bad channel magic tried");
    }
    // The protocol as HcclChannelDescInit left it: RESERVED names no protocol (the vendor's
    // coll_comm_res_c_adpt.cc refuses it), so no default may be chosen for it. Every rank
    // asks at once, so a library that picks one does not wait for a peer; with the world's
    // notifyNum, a library that picks the default protocol hands back the world's own
    // channels, which must stay.
    {
        auto d = peer_descs(w, w.protocol, World::kNotifyNum);
        for (HcclChannelDesc &e : d)
            e.channelProtocol = COMM_PROTOCOL_RESERVED;
        std::vector<ChannelHandle> got;
        const HcclResult rc = acquire(w, d, got);
        ev().check("API.CHN.2", rc == HCCL_E_PARA,
                   "HcclChannelAcquire with channelProtocol left RESERVED by HcclChannelDescInit " +
                       rc_text(rc, HCCL_E_PARA));
        for (const Peer &p : w.peers)
            std::replace(got.begin(), got.end(), p.channel, ChannelHandle{0});
        drop_if_accepted(w, rc, got);
        mpi::phase_barrier("reserved channel protocol tried");
    }
    later_acquire_succeeds(w, ev(), "API.CHN.2", "the refused bad-magic calls");
}

// The world's default channels are destroyed for the case, so that both keys of a
// peer (default and alternate protocol) are free: with the default key still
// held, a library checking only the first descriptor would refuse the second one
// anyway, for re-acquiring a key with another notifyNum. They are acquired again
// at the end.
HCTS_CASE(ChannelApi, NotifyNumOnEveryDescriptor, clauses("API.CHN.3"), needs(Feature::ChannelDestroy))
{
    World &w = world();
    if (!w.channels_refreshable) {
        ev().unsupported("API.CHN.3", "HcclChannelDestroy does not work here, so no channel key can be freed");
        return;
    }
    std::vector<ChannelHandle> defaults;
    for (const Peer &p : w.peers)
        defaults.push_back(p.channel);
    const HcclResult drc = w.destroy_channels(defaults);
    if (!mpi::all_ranks(drc == HCCL_SUCCESS, "default channels destroyed")) {
        ev().unsupported("API.CHN.3", "HcclChannelDestroy of the default channels returned " + hccl_result_name(drc));
    } else {
        // First the legal descriptors (default protocol, notifyNum 8), then one per
        // peer on the alternate protocol with notifyNum 65.
        auto d = peer_descs(w, w.protocol, kBadNotify);
        const auto over = peer_descs(w, w.alt_protocol, World::kNotifyNum + 1);
        d.insert(d.end(), over.begin(), over.end());
        std::vector<ChannelHandle> got;
        const HcclResult rc = acquire(w, d, got);
        ev().check("API.CHN.3", rc == HCCL_E_PARA,
                   "HcclChannelAcquire with notifyNum 8 on the first descriptors and 65 on the later ones " +
                       rc_text(rc, HCCL_E_PARA));
        drop_if_accepted(w, rc, got);
        mpi::phase_barrier("notifyNum 65 on a later descriptor tried");
        // Nothing of the refused call may remain: both keys with notifyNum 16.
        auto both = peer_descs(w, w.protocol, kLaterNotify);
        const auto alt = peer_descs(w, w.alt_protocol, kLaterNotify);
        both.insert(both.end(), alt.begin(), alt.end());
        const HcclResult lrc = acquire(w, both, got);
        ev().check("API.CHN.3", lrc == HCCL_SUCCESS,
                   "after the refused call, HcclChannelAcquire of both keys with notifyNum 16 " +
                       rc_text(lrc, HCCL_SUCCESS) + " (the refused call must leave no channel behind)");
        mpi::phase_barrier("both keys acquired again");
        drop_if_accepted(w, lrc, got);
        mpi::phase_barrier("both keys released");
    }
    // The world's channels back, whatever happened above.
    HcclResult arc = HCCL_SUCCESS;
    const auto fresh = w.acquire_channels(World::kNotifyNum, arc);
    if (!mpi::all_ranks(arc == HCCL_SUCCESS, "default channels acquired again")) {
        ev().error("API.CHN.3", "the default channels could not be acquired again: " + hccl_result_name(arc));
        return;
    }
    for (int r = 0; r < w.size; ++r)
        w.peers[static_cast<size_t>(r)].channel = fresh[static_cast<size_t>(r)];
}

HCTS_CASE(ChannelApi, ReacquireByKey, clauses("API.CHN.4"), needs())
{
    const World &w = world();
    const ScopedChannels first(w, kBadNotify);
    if (first.to(w.peer()) == 0) {
        ev().error("API.CHN.4",
                   "HcclChannelAcquire (alternate protocol, notifyNum 8) returned " + hccl_result_name(first.rc()));
        return;
    }
    // The same key again with the same notifyNum: the same channel (reused by key).
    HcclResult rc = HCCL_SUCCESS;
    const auto same = w.acquire_channels(kBadNotify, rc, true);
    ev().check("API.CHN.4", rc == HCCL_SUCCESS && same.at(static_cast<size_t>(w.peer())) == first.to(w.peer()),
               "re-acquiring the key with the same notifyNum 8 returned " + hccl_result_name(rc) + " and handle " +
                   hex(same.at(static_cast<size_t>(w.peer()))) + "; expected HCCL_SUCCESS and the first handle " +
                   hex(first.to(w.peer())));
    mpi::phase_barrier("key re-acquired with the same notifyNum");
    // With another notifyNum: refused, the channel unchanged.
    const auto other = w.acquire_channels(kLaterNotify, rc, true);
    ev().check("API.CHN.4", rc == HCCL_E_PARA,
               "re-acquiring a live channel's key with notifyNum 16 instead of 8 " + rc_text(rc, HCCL_E_PARA));
    if (rc == HCCL_SUCCESS) {
        std::vector<ChannelHandle> extra;
        for (int r = 0; r < w.size; ++r)
            if (other[static_cast<size_t>(r)] != first.to(r))
                extra.push_back(other[static_cast<size_t>(r)]);
        drop_if_accepted(w, rc, extra);
    }
    mpi::phase_barrier("key re-acquired with another notifyNum");
}

// A key listed twice in one call (each peer twice, on the other protocol): channels are
// reused by key (comm, engine, remoteRank, protocol), so both entries get one handle, and the
// peer, which lists it twice as well, answers one handshake.
HCTS_CASE(ChannelApi, RepeatedKeyInOneCall, clauses("API.CHN.7"), needs(Feature::ChannelDestroy))
{
    const World &w = world();
    std::vector<HcclChannelDesc> descs(2 * static_cast<size_t>(w.size - 1));
    HcclChannelDescInit(descs.data(), static_cast<uint32_t>(descs.size()));
    size_t i = 0;
    for (int r = 0; r < w.size; ++r) {
        if (r == w.rank)
            continue;
        for (int twice = 0; twice < 2; ++twice, ++i) {
            descs[i].remoteRank = static_cast<uint32_t>(r);
            descs[i].channelProtocol = w.alt_protocol;
            descs[i].notifyNum = kBadNotify;
        }
    }
    std::vector<ChannelHandle> got(descs.size(), 0);
    const HcclResult rc = iut().api().HcclChannelAcquire(w.comm, w.setup_engine, descs.data(),
                                                         static_cast<uint32_t>(descs.size()), got.data());
    std::vector<ChannelHandle> unique;
    for (ChannelHandle h : got)
        if (h != 0 && std::find(unique.begin(), unique.end(), h) == unique.end())
            unique.push_back(h);
    if (rc == HCCL_E_NOT_SUPPORT) {
        ev().unsupported("API.CHN.7", "HcclChannelAcquire on the alternate protocol returned HCCL_E_NOT_SUPPORT");
    } else {
        for (size_t k = 0; k + 1 < got.size(); k += 2)
            ev().check("API.CHN.7", rc == HCCL_SUCCESS && got[k] != 0 && got[k] == got[k + 1],
                       "HcclChannelAcquire with rank " + std::to_string(descs[k].remoteRank) +
                           "'s key in two descriptors of one call returned " + hccl_result_name(rc) + " and handles " +
                           hex(got[k]) + " and " + hex(got[k + 1]) +
                           "; expected HCCL_SUCCESS and one handle for both (channels are reused by key)");
    }
    mpi::phase_barrier("repeated key acquired");
    if (!unique.empty())
        (void)iut().api().HcclChannelDestroy(w.comm, unique.data(), static_cast<uint32_t>(unique.size()));
    mpi::phase_barrier("repeated key destroyed");
}

HCTS_CASE(ChannelApi, DestroyTwice, clauses("API.CHN.5"), needs(Feature::ChannelDestroy))
{
    const World &w = world();
    HcclResult arc = HCCL_SUCCESS;
    const auto got = w.acquire_channels(kBadNotify, arc, true);
    if (!mpi::all_ranks(arc == HCCL_SUCCESS, "channels for the double destroy")) {
        ev().error("API.CHN.5", "HcclChannelAcquire (alternate protocol) returned " + hccl_result_name(arc));
        if (arc == HCCL_SUCCESS)
            (void)w.destroy_channels(got);
        return;
    }
    const HcclResult first = w.destroy_channels(got);
    if (!mpi::all_ranks(first == HCCL_SUCCESS, "first destroy")) {
        // The vendor destroys CCU channels only (api §6): nothing to destroy twice.
        ev().unsupported("API.CHN.5", "the first HcclChannelDestroy returned " + hccl_result_name(first));
        return;
    }
    const HcclResult second = w.destroy_channels(got);
    ev().check("API.CHN.5", second == HCCL_E_NOT_FOUND,
               "a second HcclChannelDestroy of the same handles " + rc_text(second, HCCL_E_NOT_FOUND));
    mpi::phase_barrier("channels destroyed twice");
    // The first destroy took effect: the key is free for another notifyNum.
    later_acquire_succeeds(w, ev(), "API.CHN.5", "destroying the channels");
}

} // namespace hcts::cases_channels
