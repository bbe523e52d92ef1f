// Helpers for softverbs tests: RAII verbs objects, connecting two RC QPs from
// exchanged endpoint data, and waiting for completions with a deadline.
#pragma once

#include <infiniband/verbs.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

namespace svt {

[[noreturn]] inline void fail(const std::string &what) { throw std::runtime_error(what); }

struct Endpoint { // what peers exchange out of band, as over MPI
    ibv_gid gid;
    uint32_t qpn;
    uint32_t rkey;
    uint64_t addr;
    uint64_t len;
};

// Memory shared with peers the way the reference allocates it: memfd + MAP_SHARED.
struct Buffer {
    uint8_t *p = nullptr;
    size_t n = 0;
    bool mapped = false;
    Buffer(size_t size, bool memfd) : n(size)
    {
        if (memfd) {
            int fd = memfd_create("svtest", MFD_CLOEXEC);
            if (fd < 0 || ftruncate(fd, static_cast<off_t>(size)) != 0)
                fail("memfd");
            void *m = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            close(fd);
            if (m == MAP_FAILED)
                fail("mmap");
            p = static_cast<uint8_t *>(m);
            mapped = true;
        } else {
            p = static_cast<uint8_t *>(std::aligned_alloc(64, (size + 63) / 64 * 64));
        }
    }
    ~Buffer()
    {
        if (mapped)
            munmap(p, n);
        else
            std::free(p);
    }
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;
};

struct Device {
    ibv_context *ctx = nullptr;
    ibv_pd *pd = nullptr;
    Device()
    {
        int n = 0;
        ibv_device **list = ibv_get_device_list(&n);
        if (!list || n < 1)
            fail("no verbs device");
        ctx = ibv_open_device(list[0]);
        ibv_free_device_list(list);
        if (!ctx)
            fail("ibv_open_device");
        pd = ibv_alloc_pd(ctx);
    }
    ~Device()
    {
        ibv_dealloc_pd(pd);
        ibv_close_device(ctx);
    }
};

struct Mr {
    ibv_mr *mr = nullptr;
    Mr(ibv_pd *pd, void *p, size_t n, int access) : mr(ibv_reg_mr(pd, p, n, access))
    {
        if (!mr)
            fail("ibv_reg_mr: " + std::string(strerror(errno)));
    }
    ~Mr() { ibv_dereg_mr(mr); }
};

constexpr int kAllAccess =
    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

// Send WRs with one SGE; the tests build them directly for what Qp::post cannot
// express (a forged lkey, inline data, chains, atomics).
inline ibv_send_wr one_sge_wr(uint64_t wr_id, ibv_wr_opcode op, ibv_sge *sge, unsigned flags)
{
    ibv_send_wr wr{};
    wr.wr_id = wr_id;
    wr.opcode = op;
    wr.sg_list = sge;
    wr.num_sge = 1;
    wr.send_flags = flags;
    return wr;
}

// A receive WR with one SGE, or none when `sge` is null (a zero-length RECV).
inline ibv_recv_wr one_sge_recv_wr(uint64_t wr_id, ibv_sge *sge)
{
    ibv_recv_wr wr{};
    wr.wr_id = wr_id;
    wr.sg_list = sge;
    wr.num_sge = sge ? 1 : 0;
    return wr;
}

inline ibv_send_wr rdma_wr(uint64_t wr_id, ibv_wr_opcode op, ibv_sge *sge, uint64_t raddr, uint32_t rkey,
                           unsigned flags = IBV_SEND_SIGNALED)
{
    ibv_send_wr wr = one_sge_wr(wr_id, op, sge, flags);
    wr.wr.rdma.remote_addr = raddr;
    wr.wr.rdma.rkey = rkey;
    return wr;
}

inline ibv_send_wr atomic_wr(uint64_t wr_id, ibv_wr_opcode op, ibv_sge *sge, uint64_t raddr, uint32_t rkey,
                             uint64_t compare_add)
{
    ibv_send_wr wr = one_sge_wr(wr_id, op, sge, IBV_SEND_SIGNALED);
    wr.wr.atomic.remote_addr = raddr;
    wr.wr.atomic.rkey = rkey;
    wr.wr.atomic.compare_add = compare_add;
    return wr;
}

struct Qp {
    Device &dev;
    ibv_comp_channel *ch = nullptr;
    ibv_cq *scq = nullptr;
    ibv_cq *rcq = nullptr;
    ibv_qp *qp = nullptr;
    Qp(Device &d, int depth = 64, bool channel = false, uint32_t max_inline = 64) : dev(d)
    {
        if (channel)
            ch = ibv_create_comp_channel(d.ctx);
        scq = ibv_create_cq(d.ctx, depth * 2, nullptr, nullptr, 0);
        rcq = ibv_create_cq(d.ctx, depth * 2, nullptr, ch, 0);
        ibv_qp_init_attr a{};
        a.send_cq = scq;
        a.recv_cq = rcq;
        a.qp_type = IBV_QPT_RC;
        a.cap.max_send_wr = static_cast<uint32_t>(depth);
        a.cap.max_recv_wr = static_cast<uint32_t>(depth);
        a.cap.max_send_sge = 4;
        a.cap.max_recv_sge = 4;
        a.cap.max_inline_data = max_inline;
        qp = ibv_create_qp(d.pd, &a);
        if (!qp)
            fail("ibv_create_qp");
    }
    ~Qp()
    {
        ibv_destroy_qp(qp);
        ibv_destroy_cq(scq);
        ibv_destroy_cq(rcq);
        if (ch)
            ibv_destroy_comp_channel(ch);
    }
    Endpoint endpoint(const ibv_mr *mr = nullptr) const
    {
        Endpoint e{};
        if (ibv_query_gid(dev.ctx, 1, 0, &e.gid))
            fail("ibv_query_gid");
        e.qpn = qp->qp_num;
        if (mr) {
            e.rkey = mr->rkey;
            e.addr = reinterpret_cast<uintptr_t>(mr->addr);
            e.len = mr->length;
        }
        return e;
    }
    int to_init(int access = kAllAccess)
    {
        ibv_qp_attr a{};
        a.qp_state = IBV_QPS_INIT;
        a.port_num = 1;
        a.qp_access_flags = access;
        return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
    }
    int to_rtr(const Endpoint &peer, uint8_t min_rnr_timer = 1)
    {
        ibv_qp_attr a{};
        a.qp_state = IBV_QPS_RTR;
        a.path_mtu = IBV_MTU_4096;
        a.dest_qp_num = peer.qpn;
        a.rq_psn = 0;
        a.max_dest_rd_atomic = 16;
        a.min_rnr_timer = min_rnr_timer;
        a.ah_attr.is_global = 1;
        a.ah_attr.grh.dgid = peer.gid;
        a.ah_attr.grh.hop_limit = 1;
        a.ah_attr.port_num = 1;
        return ibv_modify_qp(qp, &a,
                             IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
    }
    int to_rts(uint8_t rnr_retry = 7)
    {
        ibv_qp_attr a{};
        a.qp_state = IBV_QPS_RTS;
        a.timeout = 14;
        a.retry_cnt = 7;
        a.rnr_retry = rnr_retry;
        a.sq_psn = 0;
        a.max_rd_atomic = 16;
        return ibv_modify_qp(qp, &a,
                             IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                                 IBV_QP_MAX_QP_RD_ATOMIC);
    }
    void connect(const Endpoint &peer, uint8_t rnr_retry = 7, int access = kAllAccess)
    {
        if (to_init(access) || to_rtr(peer) || to_rts(rnr_retry))
            fail("connect: modify_qp failed");
    }
    int post(ibv_wr_opcode op, uint64_t wr_id, const ibv_mr *lmr, uint64_t loff, uint32_t len, uint64_t raddr = 0,
             uint32_t rkey = 0, uint32_t imm = 0, unsigned flags = IBV_SEND_SIGNALED)
    {
        ibv_sge s{reinterpret_cast<uintptr_t>(lmr ? lmr->addr : nullptr) + loff, len, lmr ? lmr->lkey : 0};
        ibv_send_wr wr = rdma_wr(wr_id, op, &s, raddr, rkey, flags);
        wr.num_sge = len || lmr ? 1 : 0;
        wr.imm_data = htonl(imm);
        ibv_send_wr *bad = nullptr;
        return ibv_post_send(qp, &wr, &bad);
    }
    int recv(uint64_t wr_id, const ibv_mr *mr = nullptr, uint64_t off = 0, uint32_t len = 0)
    {
        ibv_sge s{mr ? reinterpret_cast<uintptr_t>(mr->addr) + off : 0, len, mr ? mr->lkey : 0};
        ibv_recv_wr wr = one_sge_recv_wr(wr_id, mr ? &s : nullptr);
        ibv_recv_wr *bad = nullptr;
        return ibv_post_recv(qp, &wr, &bad);
    }
};

// How a Loopback's QPs are made and connected.
struct LoopbackOptions {
    int depth = 64;
    uint8_t rnr_retry = 7; // a's, towards b
    bool channel = false;  // b's receive CQ on a completion channel
};

// Where most single-process cases start: one device, a memfd buffer registered
// with every access, and two RC QPs connected to each other (a first).
struct Loopback {
    Device dev;
    Buffer buf;
    Mr mr;
    Qp a, b;
    explicit Loopback(size_t bytes, LoopbackOptions o = {})
        : buf(bytes, true), mr(dev.pd, buf.p, buf.n, kAllAccess), a(dev, o.depth), b(dev, o.depth, o.channel)
    {
        a.connect(b.endpoint(), o.rnr_retry);
        b.connect(a.endpoint());
    }
};

// Polls until one completion arrives or the deadline passes; backs off instead of spinning.
inline bool wait_wc(ibv_cq *cq, ibv_wc *wc, std::chrono::milliseconds deadline = std::chrono::milliseconds(5000))
{
    auto end = std::chrono::steady_clock::now() + deadline;
    int idle = 0;
    for (;;) {
        int n = ibv_poll_cq(cq, 1, wc);
        if (n < 0)
            fail("ibv_poll_cq failed");
        if (n == 1)
            return true;
        if (std::chrono::steady_clock::now() > end)
            return false;
        if (++idle > 64)
            std::this_thread::sleep_for(std::chrono::microseconds(std::min(idle, 1000)));
        else
            std::this_thread::yield();
    }
}

} // namespace svt
