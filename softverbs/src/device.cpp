// The one softverbs device: discovery, contexts, device/port/GID queries, PDs
// and asynchronous events.
#include "sv.h"

#include <atomic>

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace sv {

void fill_cq_ops(ibv_context_ops *ops);
void fill_qp_ops(ibv_context_ops *ops);
ibv_cq_ex *create_cq_ex(ibv_context *ctx, ibv_cq_init_attr_ex *a);
ibv_qp *create_qp_ex(ibv_context *ctx, ibv_qp_init_attr_ex *a);

namespace {

ibv_device *the_device()
{
    static ibv_device dev = [] {
        ibv_device d{};
        d.node_type = IBV_NODE_CA;
        d.transport_type = IBV_TRANSPORT_IB;
        std::snprintf(d.name, sizeof d.name, "softverbs0");
        std::snprintf(d.dev_name, sizeof d.dev_name, "uverbs0");
        // Under softverbs-run these exist: softverbs' own tree (softverbs/sysfs/), mounted
        // over /sys/class in a private namespace or named by $SYSFS_PATH (README, "System paths").
        const char *sys = ibv_get_sysfs_path();
        std::snprintf(d.dev_path, sizeof d.dev_path, "%s/class/infiniband_verbs/uverbs0", sys);
        std::snprintf(d.ibdev_path, sizeof d.ibdev_path, "%s/class/infiniband/softverbs0", sys);
        return d;
    }();
    return &dev;
}

constexpr uint64_t kGuid = 0x0200'5eff'fe00'0001ULL;

void fill_device_attr(ibv_device_attr *a)
{
    std::memset(a, 0, sizeof *a);
    std::snprintf(a->fw_ver, sizeof a->fw_ver, "softverbs-1.0");
    a->node_guid = htobe64(kGuid);
    a->sys_image_guid = htobe64(kGuid);
    a->max_mr_size = kMaxMrSize;
    a->page_size_cap = 0xfffff000;
    a->vendor_id = 0x1af4;
    a->vendor_part_id = 1;
    a->hw_ver = 1;
    a->max_qp = 1 << 16;
    a->max_qp_wr = kMaxQpWr;
    a->device_cap_flags =
        IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_PORT_ACTIVE_EVENT | IBV_DEVICE_CHANGE_PHY_PORT | IBV_DEVICE_SRQ_RESIZE;
    a->max_sge = kMaxSge;
    a->max_sge_rd = kMaxSge;
    a->max_cq = 1 << 16;
    a->max_cqe = kMaxCqe;
    a->max_mr = kMaxMr - 1;
    a->max_pd = 1 << 16;
    a->max_qp_rd_atom = 16;
    a->max_ee_rd_atom = 0;
    a->max_res_rd_atom = 1 << 16;
    a->max_qp_init_rd_atom = 16;
    a->atomic_cap = IBV_ATOMIC_HCA;
    a->max_srq = 1 << 16;
    a->max_srq_wr = kMaxQpWr;
    a->max_srq_sge = kMaxSge;
    a->max_pkeys = 1;
    a->local_ca_ack_delay = 15;
    a->phys_port_cnt = 1;
}

int query_port_impl(uint8_t port, ibv_port_attr *a)
{
    if (port != 1)
        return EINVAL;
    std::memset(a, 0, sizeof *a);
    a->state = IBV_PORT_ACTIVE;
    a->max_mtu = IBV_MTU_4096;
    a->active_mtu = IBV_MTU_4096;
    a->gid_tbl_len = 1;
    a->port_cap_flags = IBV_PORT_CM_SUP;
    a->max_msg_sz = kMaxMsg;
    a->pkey_tbl_len = 1;
    // LID: unused on Ethernet, but a program that skips the GRH still finds us through it.
    a->lid = identity().port;
    a->active_width = 2;  // 4x
    a->active_speed = 32; // 25 Gb/s-class
    a->phys_state = 5;    // LinkUp
    a->link_layer = IBV_LINK_LAYER_ETHERNET;
    return 0;
}

int vctx_query_port(ibv_context *, uint8_t port, ibv_port_attr *attr, size_t len)
{
    ibv_port_attr a;
    int rc = query_port_impl(port, &a);
    if (rc)
        return rc;
    std::memcpy(attr, &a, std::min(len, sizeof a));
    return 0;
}

int vctx_query_device_ex(ibv_context *, const ibv_query_device_ex_input *input, ibv_device_attr_ex *attr, size_t size)
{
    if (input && input->comp_mask)
        return EINVAL;
    ibv_device_attr_ex a{};
    fill_device_attr(&a.orig_attr);
    a.max_dm_size = 0;
    a.phys_port_cnt_ex = a.orig_attr.phys_port_cnt;
    std::memcpy(attr, &a, std::min(size, sizeof a));
    return 0;
}

} // namespace

Context *to_ctx(ibv_context *c)
{
    return reinterpret_cast<Context *>(reinterpret_cast<char *>(c) - offsetof(verbs_context, context));
}

void post_async_locked(Context *ctx, const ibv_async_event &ev)
{
    if (!ctx)
        return;
    ctx->async_q.push_back(ev);
    uint64_t one = 1;
    if (write(ctx->async_efd, &one, sizeof one) != sizeof one)
        log(1, "async eventfd write failed");
}

void fill_context_ops(Context *c)
{
    verbs_context &v = c->vctx;
    fill_cq_ops(&v.context.ops);
    fill_qp_ops(&v.context.ops);
    fill_srq_ops(&v.context.ops);
    v.query_port = vctx_query_port;
    v.query_device_ex = vctx_query_device_ex;
    v.create_cq_ex = create_cq_ex;
    v.create_qp_ex = create_qp_ex;
    v.create_srq_ex = create_srq_ex;
    v.sz = sizeof(verbs_context);
    v.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
}

} // namespace sv

using namespace sv;

extern "C" {

// malloc'd, as rdma-core's list is: some programs (qperf) release it with free().
ibv_device **ibv_get_device_list(int *num)
{
    // The device is made on the first call (its sysfs paths allocate): an allocation
    // failing there is ENOMEM, not an exception out of the C ABI.
    return guard_null("ibv_get_device_list", [&]() -> ibv_device ** {
        ibv_device *dev = the_device();
        auto **list = static_cast<ibv_device **>(std::calloc(2, sizeof(ibv_device *)));
        if (!list) {
            errno = ENOMEM;
            return nullptr;
        }
        list[0] = dev;
        if (num)
            *num = 1;
        return list;
    });
}

void ibv_free_device_list(ibv_device **list) { std::free(list); }

const char *ibv_get_device_name(ibv_device *d) { return d ? d->name : nullptr; }
__be64 ibv_get_device_guid(ibv_device *) { return htobe64(kGuid); }
int ibv_get_device_index(ibv_device *) { return 0; }

ibv_context *ibv_open_device(ibv_device *dev)
{
    return guard_null("ibv_open_device", [&]() -> ibv_context * {
        if (dev != the_device()) {
            errno = ENODEV;
            return nullptr;
        }
        if (!transport_start())
            return nullptr; // errno set
        auto c = std::make_unique<Context>();
        c->async_efd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
        int cmd = eventfd(0, EFD_CLOEXEC);
        if (c->async_efd < 0 || cmd < 0) {
            const int err = errno;
            std::fprintf(stderr, "softverbs: cannot open the device: eventfd: %s\n", std::strerror(err));
            if (c->async_efd >= 0)
                close(c->async_efd);
            if (cmd >= 0)
                close(cmd);
            errno = err;
            return nullptr;
        }
        ibv_context &ctx = c->vctx.context;
        ctx.device = dev;
        ctx.cmd_fd = cmd;
        ctx.async_fd = c->async_efd;
        ctx.num_comp_vectors = 1;
        pthread_mutex_init(&ctx.mutex, nullptr);
        fill_context_ops(c.get());
        return &c.release()->vctx.context;
    });
}

int ibv_close_device(ibv_context *ctx)
{
    return guard_rc("ibv_close_device", [&]() -> int {
        if (fork_inherited(ctx))
            return EPERM; // the parent's: its descriptors are closed here, nothing else is touched
        if (!ctx)
            return EINVAL;
        std::unique_ptr<Context> c(to_ctx(ctx));
        close(c->async_efd);
        close(ctx->cmd_fd);
        pthread_mutex_destroy(&ctx->mutex);
        return 0;
    });
}

int ibv_query_device(ibv_context *, ibv_device_attr *attr)
{
    fill_device_attr(attr);
    return 0;
}

#undef ibv_query_port
// The exported (compat) form: rdma-core's _compat_ibv_port_attr is the prefix of ibv_port_attr
// up to link_layer; copy only that much.
int ibv_query_port(ibv_context *, uint8_t port, _compat_ibv_port_attr *attr)
{
    ibv_port_attr a;
    int rc = query_port_impl(port, &a);
    if (rc)
        return rc;
    std::memcpy(static_cast<void *>(attr), &a, offsetof(ibv_port_attr, flags));
    return 0;
}

int ibv_query_gid(ibv_context *, uint8_t port, int index, ibv_gid *gid)
{
    if (port != 1 || index != 0) {
        errno = EINVAL;
        return -1;
    }
    make_gid(gid);
    return 0;
}

int _ibv_query_gid_ex(ibv_context *ctx, uint32_t port, uint32_t index, ibv_gid_entry *e, uint32_t flags, size_t sz)
{
    if (port != 1 || index != 0 || flags || sz < sizeof(ibv_gid_entry))
        return EINVAL;
    std::memset(e, 0, sz);
    make_gid(&e->gid);
    e->gid_index = 0;
    e->port_num = 1;
    e->gid_type = IBV_GID_TYPE_ROCE_V2;
    e->ndev_ifindex = 0;
    (void)ctx;
    return 0;
}

ssize_t _ibv_query_gid_table(ibv_context *ctx, ibv_gid_entry *entries, size_t max, uint32_t flags, size_t sz)
{
    if (max < 1)
        return -EINVAL;
    int rc = _ibv_query_gid_ex(ctx, 1, 0, entries, flags, sz);
    return rc ? -rc : 1;
}

// Provider-private in rdma-core, but ibv_devinfo imports it: 1 = RoCE v2.
int ibv_query_gid_type(ibv_context *, uint8_t port, unsigned int index, int *type)
{
    if (port != 1 || index != 0)
        return -1;
    *type = 1;
    return 0;
}

int ibv_query_pkey(ibv_context *, uint8_t port, int index, __be16 *pkey)
{
    if (port != 1 || index != 0)
        return -1;
    *pkey = htobe16(0xffff);
    return 0;
}

int ibv_get_pkey_index(ibv_context *, uint8_t port, __be16 pkey)
{
    return port == 1 && pkey == htobe16(0xffff) ? 0 : -1;
}

ibv_pd *ibv_alloc_pd(ibv_context *ctx)
{
    return guard_null("ibv_alloc_pd", [&]() -> ibv_pd * {
        auto pd = std::make_unique<ibv_pd>();
        pd->context = ctx;
        // Unique within the process (never reused): MRs and QPs are matched by it, so an
        // rkey of one PD is refused on a QP of another.
        static std::atomic<uint32_t> next{1};
        pd->handle = next.fetch_add(1, std::memory_order_relaxed);
        return pd.release();
    });
}

int ibv_dealloc_pd(ibv_pd *pd)
{
    if (pd && fork_inherited(pd->context))
        return EPERM;
    std::unique_ptr<ibv_pd> owned(pd);
    return 0;
}

int ibv_get_async_event(ibv_context *ctx, ibv_async_event *ev)
{
    return guard_minus1("ibv_get_async_event", [&]() -> int {
        if (fork_inherited(ctx))
            return -1;
        Context *c = to_ctx(ctx);
        uint64_t v;
        if (read(c->async_efd, &v, sizeof v) != sizeof v)
            return -1;
        std::lock_guard lk(G().mu);
        if (c->async_q.empty()) {
            errno = EAGAIN;
            return -1;
        }
        *ev = c->async_q.front();
        c->async_q.pop_front();
        return 0;
    });
}

void ibv_ack_async_event(ibv_async_event *) {}

} // extern "C"
