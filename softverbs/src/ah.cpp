// Address handles: ibv_create_ah/ibv_destroy_ah, and the reply address built from a
// received datagram's GRH (ibv_init_ah_from_wc, ibv_create_ah_from_wc).
#include "ud.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>

namespace sv {

static_assert(offsetof(Ah, ah) == 0);
Ah *to_ah(ibv_ah *ah) { return reinterpret_cast<Ah *>(ah); }

namespace {

bool same_gid(const ibv_gid &a, const ibv_gid &b) { return std::memcmp(a.raw, b.raw, sizeof a.raw) == 0; }

} // namespace

} // namespace sv

using namespace sv;

extern "C" {

ibv_ah *ibv_create_ah(ibv_pd *pd, ibv_ah_attr *attr)
{
    return guard_null("ibv_create_ah", [&]() -> ibv_ah * {
        if (!pd || !attr) {
            errno = EINVAL;
            return nullptr;
        }
        if (attr->port_num != 1) {
            log(1, "create_ah: port_num %u; the device has port 1 only", attr->port_num);
            errno = EINVAL;
            return nullptr;
        }
        auto a = std::make_unique<Ah>();
        if (attr->is_global) {
            if (attr->grh.sgid_index != 0) {
                log(1, "create_ah: sgid_index %u; the GID table has index 0 only", attr->grh.sgid_index);
                errno = EINVAL;
                return nullptr;
            }
            // Any GID is accepted, as hardware accepts an address it cannot reach; datagrams to
            // one that is not a softverbs GID are dropped when sent.
            a->routable = decode_gid(attr->grh.dgid, &a->ip, &a->port, &a->salt);
        } else {
            // RoCE needs a GRH. As at RTR, a LID alone (our listener port, on our own address)
            // is taken for programs that address by LID only (qperf); LID 0 addresses nothing.
            if (attr->dlid == 0) {
                log(1, "create_ah: no GRH (is_global 0) and dlid 0: a RoCE address needs the GRH's dgid");
                errno = EINVAL;
                return nullptr;
            }
            a->routable = true;
            a->ip = listen_ip();
            a->port = attr->dlid;
        }
        a->attr = *attr;
        a->ah.context = pd->context;
        a->ah.pd = pd;
        static std::atomic<uint32_t> next{1};
        a->ah.handle = next.fetch_add(1, std::memory_order_relaxed);
        return &a.release()->ah;
    });
}

int ibv_destroy_ah(ibv_ah *ah)
{
    return guard_rc("ibv_destroy_ah", [&]() -> int {
        if (ah && fork_inherited(ah->context))
            return EPERM;
        if (!ah)
            return EINVAL;
        std::unique_ptr<Ah> owned(to_ah(ah));
        return 0;
    });
}

int ibv_init_ah_from_wc(ibv_context *ctx, uint8_t port_num, ibv_wc *wc, ibv_grh *grh, ibv_ah_attr *ah_attr)
{
    if (!ctx || !wc || !ah_attr || port_num != 1) {
        errno = EINVAL;
        return -1;
    }
    std::memset(ah_attr, 0, sizeof *ah_attr);
    ah_attr->dlid = wc->slid;
    ah_attr->sl = wc->sl;
    ah_attr->src_path_bits = wc->dlid_path_bits;
    ah_attr->port_num = port_num;
    // RoCE: the way back is the GRH's source GID; without a GRH there is none.
    if (!(wc->wc_flags & IBV_WC_GRH) || !grh) {
        log(1, "init_ah_from_wc: the completion has no GRH; a RoCE reply address needs one");
        errno = EINVAL;
        return -1;
    }
    ibv_gid own;
    make_gid(&own);
    if (!same_gid(grh->dgid, own)) {
        log(1, "init_ah_from_wc: the GRH's dgid is not this port's GID (index 0)");
        errno = ENOENT;
        return -1;
    }
    uint32_t vtf = be32toh(grh->version_tclass_flow);
    ah_attr->is_global = 1;
    ah_attr->grh.dgid = grh->sgid;
    ah_attr->grh.sgid_index = 0;
    ah_attr->grh.flow_label = vtf & 0xfffff;
    ah_attr->grh.traffic_class = static_cast<uint8_t>(vtf >> 20);
    ah_attr->grh.hop_limit = 0xff;
    return 0;
}

ibv_ah *ibv_create_ah_from_wc(ibv_pd *pd, ibv_wc *wc, ibv_grh *grh, uint8_t port_num)
{
    return guard_null("ibv_create_ah_from_wc", [&]() -> ibv_ah * {
        ibv_ah_attr attr;
        if (!pd || ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr) != 0)
            return nullptr;
        return ibv_create_ah(pd, &attr);
    });
}

} // extern "C"
