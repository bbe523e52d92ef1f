// One verbs device context per communicator: protection domain, one completion
// channel for every CQ of the comm, and a progress thread that sleeps on the
// completion channel's fd (never spins) and hands each completion to its CQ's sink.
#pragma once

#include <infiniband/verbs.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "hccl/hccl_types.h"
#include "socket.h"

namespace hcomm_ref {

class CompletionSink {
  public:
    virtual void on_completion(const ibv_wc &wc) = 0;
    // True while a waiter polls this sink's CQ itself: the progress thread then
    // leaves the CQ unarmed (re-arming would wake it, and softverbs would end the
    // poller's lease, at every completion) and arms it once the polling stops.
    virtual bool polled() const { return false; }

  protected:
    ~CompletionSink() = default;
};

class VerbsDevice {
  public:
    // nullptr and `error` set when no usable device exists (e.g. no RDMA and no softverbs).
    static std::unique_ptr<VerbsDevice> open(int64_t rank, HcclResult &error);
    ~VerbsDevice();
    VerbsDevice(const VerbsDevice &) = delete;
    VerbsDevice &operator=(const VerbsDevice &) = delete;

    ibv_context *context() const { return context_; }
    ibv_pd *pd() const { return pd_; }
    uint8_t port_num() const { return 1; }
    const ibv_port_attr &port() const { return port_; }
    const ibv_gid &gid() const { return gid_; }
    int gid_index() const { return 0; }
    uint64_t max_message() const { return max_message_; }
    uint32_t max_qp_wr() const { return max_qp_wr_; }
    uint8_t max_rd_atomic() const { return max_rd_atomic_; }
    int64_t rank() const { return rank_; }

    // A CQ whose completions go to `sink`; armed and served by the progress thread.
    ibv_cq *create_cq(int entries, CompletionSink *sink);
    // Taken by the progress thread while it dispatches; hold it to destroy a CQ or a
    // sink safely.
    std::mutex &dispatch_mutex() { return dispatch_; }
    // Under dispatch_mutex(): arms `cq` if the progress thread left it unarmed for a
    // poller, and hands what it holds to `sink` (a poller about to sleep calls it).
    // forget() drops the CQ before it is destroyed.
    void arm_locked(ibv_cq *cq, CompletionSink *sink);
    // Under dispatch_mutex(): hands up to 16 completions of `cq` to `sink`; how many.
    static int poll_batch(ibv_cq *cq, CompletionSink *sink);
    void forget_locked(ibv_cq *cq);
    // Arms every CQ left unarmed that nobody polls now: a worker about to sleep
    // while its transfers are in flight calls it, so their completions need not
    // wait for the progress thread's next look. True if there were any.
    bool arm_unpolled();
    // A worker with nothing to run keeps polling for a while before it sleeps, so the
    // completions of its last transfers, and its next tasks, need no thread hand-off
    // (each costs a wake-up: ~15 us on the 2-vCPU machines we run on). Between
    // begin_idle_polling() and end_idle_polling() every CQ counts as polled (the
    // progress thread leaves it unarmed); idle_poll() polls each CQ once on the
    // calling thread, unless the progress thread dispatches. True if it found any.
    void begin_idle_polling() { ++idle_pollers_; }
    void end_idle_polling() { --idle_pollers_; }
    bool idle_poll();

  private:
    explicit VerbsDevice(int64_t rank) : rank_(rank) {}
    void progress();

    int64_t rank_;
    ibv_context *context_ = nullptr;
    ibv_pd *pd_ = nullptr;
    ibv_comp_channel *channel_ = nullptr;
    ibv_port_attr port_{};
    ibv_gid gid_{};
    uint64_t max_message_ = 0;
    uint32_t max_qp_wr_ = 0;
    uint8_t max_rd_atomic_ = 1;
    bool arm_unpolled_locked();
    bool polled(const CompletionSink *sink) const { return idle_pollers_.load() > 0 || sink->polled(); }
    // Under dispatch_: drains `cq` into `sink`.
    static void drain(ibv_cq *cq, CompletionSink *sink);
    Fd stop_;
    std::mutex dispatch_;
    // CQs left unarmed while a waiter polled them (under dispatch_): the progress
    // thread arms each once nobody polls it, looking every kRearmInterval.
    std::vector<std::pair<ibv_cq *, CompletionSink *>> unarmed_;
    // Every CQ of the comm and its sink (under dispatch_), for idle_poll().
    std::vector<std::pair<ibv_cq *, CompletionSink *>> cqs_;
    std::atomic<uint32_t> idle_pollers_{0};
    std::thread progress_;
};

} // namespace hcomm_ref
