#include "verbs_channel.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <sys/random.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <span>
#include <vector>

#include <hcts/mutant.h>

#include "log.h"

namespace hcomm_ref {
namespace {

// RC transport failures put a thread into this error state; a remote key or
// bounds violation is the peer refusing the access.
HcclResult status_to_result(ibv_wc_status status)
{
    switch (status) {
    case IBV_WC_SUCCESS: return HCCL_SUCCESS;
    case IBV_WC_REM_ACCESS_ERR:
    case IBV_WC_REM_INV_REQ_ERR:
    case IBV_WC_REM_OP_ERR: return HCCL_E_REMOTE;
    default: return HCCL_E_ROCE_TRANSFER;
    }
}

// How long one posted operation may take before the task gives up. RC retries end
// in an error completion long before this; it only guards against a lost one.
constexpr auto kOpDeadline = std::chrono::seconds(120);

} // namespace

namespace {

// softverbs' private hook (absent on real providers): the secret a QP presents to its
// peer and requires from it. Without it, softverbs uses a per-process random secret
// that ranks started apart from each other would not share.
void bind_qp_secret(ibv_qp *qp, std::span<const uint8_t> secret, uint32_t rank)
{
    using SetSecret = int (*)(ibv_qp *, const void *, size_t);
    static const auto set = reinterpret_cast<SetSecret>(dlsym(RTLD_DEFAULT, "softverbs_set_qp_secret"));
    if (set != nullptr && !secret.empty() && set(qp, secret.data(), secret.size()) != 0)
        HREF_LOG_WARN(rank, "softverbs_set_qp_secret refused the job token");
}

} // namespace

std::unique_ptr<RcLink> RcLink::create(VerbsDevice &device, ImmHandler on_imm, uint64_t max_write,
                                       std::span<const uint8_t> secret)
{
    std::unique_ptr<RcLink> link(new RcLink(device, std::move(on_imm), max_write));
    link->send_depth_ = std::min<uint32_t>(128, device.max_qp_wr());
    link->recv_depth_ = std::min<uint32_t>(128, device.max_qp_wr());
    link->free_slots_ = link->send_depth_;
    link->cq_ = device.create_cq(static_cast<int>(link->send_depth_ + link->recv_depth_ + 8), link.get());
    if (link->cq_ == nullptr) {
        HREF_LOG_ERROR(device.rank(), "ibv_create_cq failed: ", std::strerror(errno));
        return nullptr;
    }
    ibv_qp_init_attr init{};
    init.send_cq = link->cq_;
    init.recv_cq = link->cq_;
    init.qp_type = IBV_QPT_RC;
    init.sq_sig_all = 0;
    init.cap.max_send_wr = link->send_depth_;
    init.cap.max_recv_wr = link->recv_depth_;
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    link->qp_ = ibv_create_qp(device.pd(), &init);
    if (link->qp_ == nullptr) {
        HREF_LOG_ERROR(device.rank(), "ibv_create_qp failed: ", std::strerror(errno));
        return nullptr;
    }
    bind_qp_secret(link->qp_, secret, device.rank());
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_INIT;
    attr.pkey_index = 0;
    attr.port_num = device.port_num();
    attr.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    if (ibv_modify_qp(link->qp_, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) != 0) {
        HREF_LOG_ERROR(device.rank(), "QP to INIT failed: ", std::strerror(errno));
        return nullptr;
    }
    for (uint32_t i = 0; i < link->recv_depth_; ++i) {
        if (!link->post_recv()) {
            HREF_LOG_ERROR(device.rank(), "posting RECV ", i, " failed");
            return nullptr;
        }
    }
    uint32_t psn = 0;
    if (getrandom(&psn, sizeof(psn), 0) != sizeof(psn))
        psn = 0x1234;
    link->local_.qpn = link->qp_->qp_num;
    link->local_.psn = psn & 0xffffffU;
    link->local_.lid = device.port().lid;
    std::memcpy(link->local_.gid, device.gid().raw, sizeof(link->local_.gid));
    return link;
}

RcLink::~RcLink()
{
    cancel_all();
    std::lock_guard dispatch(device_.dispatch_mutex());
    if (cq_ != nullptr)
        device_.forget_locked(cq_);
    if (qp_ != nullptr)
        ibv_destroy_qp(qp_);
    if (cq_ != nullptr)
        ibv_destroy_cq(cq_);
}

bool RcLink::post_recv()
{
    // Zero-length RECVs: a WRITE WITH IMM carries no payload into them.
    ibv_recv_wr wr{};
    wr.wr_id = 0;
    wr.num_sge = 0;
    ibv_recv_wr *bad = nullptr;
    return ibv_post_recv(qp_, &wr, &bad) == 0;
}

HcclResult RcLink::connect(const QpEndpoint &remote)
{
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_RTR;
    attr.path_mtu = device_.port().active_mtu;
    attr.dest_qp_num = remote.qpn;
    attr.rq_psn = remote.psn;
    attr.max_dest_rd_atomic = device_.max_rd_atomic();
    attr.min_rnr_timer = 12;
    attr.ah_attr.dlid = remote.lid;
    attr.ah_attr.port_num = device_.port_num();
    attr.ah_attr.is_global = 1;
    std::memcpy(attr.ah_attr.grh.dgid.raw, remote.gid, sizeof(remote.gid));
    attr.ah_attr.grh.sgid_index = static_cast<uint8_t>(device_.gid_index());
    attr.ah_attr.grh.hop_limit = 64;
    if (ibv_modify_qp(qp_, &attr,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                          IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) != 0) {
        HREF_LOG_ERROR(device_.rank(), "QP ", local_.qpn, " to RTR failed: ", std::strerror(errno));
        return HCCL_E_ROCE_CONNECT;
    }
    attr = {};
    attr.qp_state = IBV_QPS_RTS;
    attr.timeout = 14;
    attr.retry_cnt = 7;
    attr.rnr_retry = 7; // infinite: a receiver that is replenishing RECVs is never an error
    attr.sq_psn = local_.psn;
    attr.max_rd_atomic = device_.max_rd_atomic();
    if (ibv_modify_qp(qp_, &attr,
                      IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                          IBV_QP_MAX_QP_RD_ATOMIC) != 0) {
        HREF_LOG_ERROR(device_.rank(), "QP ", local_.qpn, " to RTS failed: ", std::strerror(errno));
        return HCCL_E_ROCE_CONNECT;
    }
    return HCCL_SUCCESS;
}

HcclResult RcLink::run(ibv_send_wr *first, uint32_t count, const std::atomic<bool> &cancel, bool await,
                       TaskQueue::Retire retire)
{
    await = await && !retire; // an op with a retire is never awaited: its completion calls it
    // A failure before the op is in flight: the task returns it, and `retire` hears it too.
    const auto fail = [&](HcclResult rc) {
        if (retire)
            retire(rc);
        return rc;
    };
    uint64_t id = 0;
    {
        std::unique_lock lock(mutex_);
        // Bounded in flight: the QP's send depth. A waiter here is woken by completions.
        changed_.wait(lock, [&] { return free_slots_ >= count || broken_ || cancel.load(); });
        // The comm's destruction (cancel) breaks the link too: it is reported as what
        // it is, the interruption (HCCL_E_INTERNAL, as every call it interrupts).
        if (cancel.load() || broken_) {
            lock.unlock();
            return fail(cancel.load() ? HCCL_E_INTERNAL : HCCL_E_ROCE_TRANSFER);
        }
        free_slots_ -= count;
        id = next_op_++;
        ops_[id] = Op{false, HCCL_SUCCESS, count, !await, std::move(retire)};
        for (ibv_send_wr *wr = first; wr != nullptr; wr = wr->next)
            wr->wr_id = id;
        ibv_send_wr *bad = nullptr;
        const int rc = ibv_post_send(qp_, first, &bad);
        if (rc != 0) {
            free_slots_ += count;
            TaskQueue::Retire unposted = std::move(ops_[id].retire);
            ops_.erase(id);
            lock.unlock();
            HREF_LOG_ERROR(device_.rank(), "ibv_post_send on QP ", local_.qpn, " failed: ", std::strerror(rc));
            if (unposted)
                unposted(HCCL_E_ROCE_TRANSFER);
            return HCCL_E_ROCE_TRANSFER;
        }
        if (!await)
            return HCCL_SUCCESS; // the doorbell rang; on_completion retires the op
    }
    std::unique_lock lock(mutex_);
    const bool finished =
        changed_.wait_until(lock, Clock::now() + kOpDeadline, [&] { return ops_.at(id).done || cancel.load(); });
    if (const Op &op = ops_.at(id); op.done) {
        const HcclResult status = op.status;
        ops_.erase(id);
        return status != HCCL_SUCCESS && cancel.load() ? HCCL_E_INTERNAL : status;
    }
    // Still in flight: leave the record for its completion to retire, report the task failed.
    HREF_LOG_ERROR(device_.rank(), "operation on QP ", local_.qpn, finished ? " cancelled" : " timed out");
    return finished ? HCCL_E_INTERNAL : HCCL_E_TIMEOUT;
}

HcclResult RcLink::write(Span local, Span remote, uint64_t len, std::optional<uint32_t> imm,
                         const std::atomic<bool> &cancel, bool await_last, TaskQueue::Retire retire)
{
    const bool await = await_last && !retire; // before retire is moved into the call
    return transfer(IBV_WR_RDMA_WRITE, local, remote, len, std::max<uint32_t>(1, send_depth_ / 2), imm, cancel, await,
                    std::move(retire));
}

HcclResult RcLink::read(Span local, Span remote, uint64_t len, const std::atomic<bool> &cancel)
{
    // Every READ in a batch is outstanding at once: the device bounds how many.
    const uint32_t batch_limit = std::max<uint32_t>(1, std::min<uint32_t>(send_depth_ / 2, device_.max_rd_atomic()));
    return transfer(IBV_WR_RDMA_READ, local, remote, len, batch_limit, std::nullopt, cancel);
}

HcclResult RcLink::transfer(ibv_wr_opcode opcode, Span local, Span remote, uint64_t len, uint32_t batch_limit,
                            std::optional<uint32_t> imm, const std::atomic<bool> &cancel, bool await_last,
                            TaskQueue::Retire retire)
{
    // A chain of up to kInlineChain WRs (a small write is two) is built on the stack: two
    // vectors per write were two allocations and frees on every message's path.
    constexpr size_t kInlineChain = 4;
    std::array<ibv_send_wr, kInlineChain> inline_wrs{};
    std::array<ibv_sge, kInlineChain> inline_sges{};
    std::vector<ibv_send_wr> heap_wrs;
    std::vector<ibv_sge> heap_sges;
    uint64_t done = 0;
    do {
        const uint64_t chain_start = done;
        // Mutant: a READ of more than one chain places each later chain's segments
        // from the start of dst again (the local offset counts within the chain).
        const bool misplaced = opcode == IBV_WR_RDMA_READ && hcts::mutant("ref_read_later_chains_misplaced");
        // As many as this chain takes, not batch_limit: reserving 64 made every write
        // allocate ~9 KiB.
        const uint64_t segments = (len - done + max_write_ - 1) / max_write_;
        const size_t chain = static_cast<size_t>(std::min<uint64_t>(batch_limit, segments + (imm ? 1 : 0)));
        std::span<ibv_send_wr> wr_room(inline_wrs);
        std::span<ibv_sge> sge_room(inline_sges);
        if (chain > kInlineChain) {
            heap_wrs.resize(chain);
            heap_sges.resize(chain);
            wr_room = heap_wrs;
            sge_room = heap_sges;
        }
        size_t n = 0;
        // A batch keeps room for the WRITE WITH IMM, which must share the last chain.
        while (done < len && n + (imm ? 1 : 0) < batch_limit && n < chain) {
            if (hcts::mutant("ref_segment_tail_dropped") && done > 0 && len - done < max_write_) {
                // Mutant: the segment count is len / max_write, so a short tail
                // behind whole segments is never sent.
                done = len;
                break;
            }
            const uint64_t chunk = std::min(max_write_, len - done);
            sge_room[n] = {local.addr + (misplaced ? done - chain_start : done), static_cast<uint32_t>(chunk),
                           local.key};
            ibv_send_wr wr{};
            wr.opcode = opcode;
            wr.num_sge = 1;
            wr.wr.rdma.remote_addr = remote.addr + done;
            wr.wr.rdma.rkey = remote.key;
            wr_room[n++] = wr;
            done += chunk;
        }
        const bool last = done == len;
        if (last && imm) {
            ibv_send_wr wr{};
            wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
            wr.num_sge = 0;
            wr.imm_data = htonl(*imm);
            wr.wr.rdma.remote_addr = remote.addr;
            wr.wr.rdma.rkey = remote.key;
            wr_room[n++] = wr;
        }
        if (n == 0)
            break;
        const std::span<ibv_send_wr> wrs = wr_room.first(n);
        for (size_t i = 0; i < wrs.size(); ++i) {
            wrs[i].sg_list = wrs[i].num_sge > 0 ? &sge_room[i] : nullptr;
            wrs[i].next = i + 1 < wrs.size() ? &wrs[i + 1] : nullptr;
        }
        wrs.back().send_flags = IBV_SEND_SIGNALED;
        // Only the last chain is left in flight; earlier chains of a long transfer are waited for.
        const HcclResult rc =
            last ? run(wrs.data(), static_cast<uint32_t>(wrs.size()), cancel, await_last, std::move(retire))
                 : run(wrs.data(), static_cast<uint32_t>(wrs.size()), cancel, true);
        if (rc != HCCL_SUCCESS) {
            if (!last && retire)
                retire(rc);
            return rc;
        }
        if (last)
            return HCCL_SUCCESS;
    } while (true);
    if (retire)
        retire(HCCL_SUCCESS); // nothing was posted (cannot happen for a write: len > 0 or an imm)
    return HCCL_SUCCESS;
}

void RcLink::cancel_all(HcclResult why)
{
    std::vector<TaskQueue::Retire> retired;
    {
        std::lock_guard lock(mutex_);
        broken_ = true;
        for (auto it = ops_.begin(); it != ops_.end();) {
            if (it->second.retire) {
                retired.push_back(std::move(it->second.retire));
                it = ops_.erase(it); // its late completion finds no op and is dropped
                continue;
            }
            if (!it->second.done) {
                it->second.done = true;
                it->second.status = HCCL_E_ROCE_TRANSFER;
            }
            ++it;
        }
    }
    changed_.notify_all();
    for (auto &retire : retired)
        retire(why);
}

void RcLink::end_polling(bool about_to_sleep)
{
    --pollers_;
    if (!about_to_sleep)
        return; // the progress thread arms the CQ within a few ms if it was left unarmed
    std::lock_guard dispatch(device_.dispatch_mutex());
    device_.arm_locked(cq_, this);
}

bool RcLink::progress_here()
{
    std::unique_lock dispatch(device_.dispatch_mutex(), std::try_to_lock);
    if (!dispatch.owns_lock())
        return false; // the progress thread is dispatching: what it finds is seen soon
    return VerbsDevice::poll_batch(cq_, this) > 0;
}

void RcLink::on_completion(const ibv_wc &wc)
{
    if (wc.wr_id == 0) { // a RECV
        if (wc.status != IBV_WC_SUCCESS) {
            if (wc.status != IBV_WC_WR_FLUSH_ERR) {
                HREF_LOG_ERROR(device_.rank(), "RECV on QP ", local_.qpn, " failed: ", ibv_wc_status_str(wc.status));
            }
            return;
        }
        if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && (wc.wc_flags & IBV_WC_WITH_IMM) != 0) {
            on_imm_(ntohl(wc.imm_data));
        } else {
            HREF_LOG_ERROR(device_.rank(), "unexpected receive completion (opcode ", static_cast<int>(wc.opcode),
                           ") on QP ", local_.qpn, ": only WRITE WITH IMM may raise a notify");
        }
        // Mutant: receives are replenished only for the QP's first 128 completions (a
        // ring index that stops at the queue's depth): the 257th notify finds none.
        if (hcts::mutant("ref_recv_not_reposted_after_128") && ++recvs_completed_ > 128)
            return;
        if (!post_recv()) {
            HREF_LOG_ERROR(device_.rank(), "replenishing a RECV on QP ", local_.qpn, " failed");
        }
        return;
    }
    TaskQueue::Retire retire;
    HcclResult status = HCCL_SUCCESS;
    {
        std::lock_guard lock(mutex_);
        if (wc.status != IBV_WC_SUCCESS) {
            if (!broken_) {
                HREF_LOG_ERROR(device_.rank(), "work request on QP ", local_.qpn,
                               " failed: ", ibv_wc_status_str(wc.status));
            }
            broken_ = true; // an RC QP in error stays in error
        }
        auto it = ops_.find(wc.wr_id);
        if (it == ops_.end() || it->second.done) {
            return; // a flushed WR of an operation already retired
        }
        it->second.done = true;
        it->second.status = status_to_result(wc.status);
        free_slots_ += it->second.slots;
        if (it->second.detached) {
            // Posted at the doorbell, nobody waits: a failure is in broken_, and in
            // the thread that left it in flight.
            retire = std::move(it->second.retire);
            status = it->second.status;
            ops_.erase(it);
        }
    }
    changed_.notify_all();
    if (retire)
        retire(status);
}

} // namespace hcomm_ref
