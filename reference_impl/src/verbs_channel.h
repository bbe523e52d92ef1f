// One RC queue pair to one peer: the data path of a channel. An operation is
// posted and then waited for (its last WR is signaled), or, for a task on a
// thread, left in flight with a Retire that its completion calls (the thread
// counts it until then: TaskQueue). The QP's send depth bounds what is in flight. A notify
// is the immediate of an RDMA WRITE WITH IMM behind the data on the same QP; the
// receiver keeps RECVs posted, replenishes them, and turns each immediate into a
// notify record. Nothing else raises a notify.
#pragma once

#include <infiniband/verbs.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

#include "hccl/hccl_types.h"
#include "task_queue.h"
#include "verbs_device.h"

namespace hcomm_ref {

// What a peer needs to reach this QP (exchanged over the bootstrap mesh).
struct QpEndpoint {
    uint32_t qpn;
    uint32_t psn;
    uint16_t lid;
    uint8_t reserved[6];
    uint8_t gid[16];
};

// Immediate values: a tag byte, so stray immediates are recognised, then the index.
constexpr uint32_t kImmNotifyTag = 0x4e000000U;
constexpr uint32_t kImmTagMask = 0xff000000U;

class RcLink final : public CompletionSink {
  public:
    using ImmHandler = std::function<void(uint32_t imm)>;

    // `secret`: the job token, handed to a verbs provider that authenticates connections
    // with it (softverbs); other providers ignore it.
    static std::unique_ptr<RcLink> create(VerbsDevice &device, ImmHandler on_imm, uint64_t max_write,
                                          std::span<const uint8_t> secret);
    ~RcLink();
    RcLink(const RcLink &) = delete;
    RcLink &operator=(const RcLink &) = delete;

    QpEndpoint local() const { return local_; }
    // INIT happened in create (RECVs are posted before the peer learns our QPN).
    HcclResult connect(const QpEndpoint &remote);

    struct Span {
        uint64_t addr;
        uint32_t key;
    };
    // RDMA WRITE(s) of `len` bytes split at the max write size, then, when `imm` is
    // given, a zero-length WRITE WITH IMM on the same QP. len may be 0 with an imm.
    // `await_last` false (HCOMM_REF_DOORBELL_COMPLETION): the last chain is only
    // posted, its completion retires it later (an error then breaks the link).
    // `retire` given: the last chain is only posted, and its completion (or its
    // cancellation, or a failed post) calls retire with the status, exactly once.
    HcclResult write(Span local, Span remote, uint64_t len, std::optional<uint32_t> imm,
                     const std::atomic<bool> &cancel, bool await_last = true, TaskQueue::Retire retire = {});
    HcclResult read(Span local, Span remote, uint64_t len, const std::atomic<bool> &cancel);
    // Fails every operation in flight: `why` for those left in flight by a task
    // (HCCL_E_INTERNAL when the comm is closing).
    void cancel_all(HcclResult why = HCCL_E_ROCE_TRANSFER);
    // A waiter polling the CQ itself: between begin_polling() and end_polling(),
    // progress_here() polls the CQ on the calling thread and hands what it finds to
    // on_completion, as the progress thread would (skipped while that one
    // dispatches), so the waiter sees its completion without a thread hand-off.
    // end_polling(true): the caller sleeps next, so the CQ is armed again now.
    void begin_polling() { ++pollers_; }
    void end_polling(bool about_to_sleep);
    bool progress_here();
    bool polled() const override { return pollers_.load() > 0; }
    uint64_t max_write() const { return max_write_; }

    void on_completion(const ibv_wc &wc) override;

  private:
    RcLink(VerbsDevice &device, ImmHandler on_imm, uint64_t max_write)
        : device_(device), on_imm_(std::move(on_imm)), max_write_(max_write)
    {
    }
    bool post_recv();
    // `len` bytes as `opcode` WRs of at most max_write_ bytes, in chains of at most
    // `batch_limit` WRs, each posted and waited for; then, when `imm` is given, a
    // zero-length WRITE WITH IMM in the last chain.
    HcclResult transfer(ibv_wr_opcode opcode, Span local, Span remote, uint64_t len, uint32_t batch_limit,
                        std::optional<uint32_t> imm, const std::atomic<bool> &cancel, bool await_last = true,
                        TaskQueue::Retire retire = {});
    // Posts `wrs` (linked, last one signaled) as one operation and waits for it
    // (only posts it when `await` is false; `retire` then hears of its end).
    HcclResult run(ibv_send_wr *first, uint32_t count, const std::atomic<bool> &cancel, bool await = true,
                   TaskQueue::Retire retire = {});

    struct Op {
        bool done = false;
        HcclResult status = HCCL_SUCCESS;
        uint32_t slots = 0;
        bool detached = false;    // nobody waits for it: its completion erases it
        TaskQueue::Retire retire; // a detached op's thread, told of its end
    };

    VerbsDevice &device_;
    ImmHandler on_imm_;
    uint64_t max_write_;
    uint32_t send_depth_ = 0;
    uint32_t recv_depth_ = 0;
    uint64_t recvs_completed_ = 0; // only mutant ref_recv_not_reposted_after_128 counts them
    ibv_cq *cq_ = nullptr;
    ibv_qp *qp_ = nullptr;
    QpEndpoint local_{};
    std::mutex mutex_;
    std::condition_variable changed_;
    uint32_t free_slots_ = 0;
    uint64_t next_op_ = 1;
    std::map<uint64_t, Op> ops_;
    bool broken_ = false;
    std::atomic<uint32_t> pollers_{0};
};

} // namespace hcomm_ref
