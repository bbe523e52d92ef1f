// Binary notifies: a record sets, a wait consumes. A record on a set notify
// coalesces (as on the vendor's hardware) and is counted as an overrun.
// HCOMM_REF_NOTIFY=counting (a legal variant) keeps one wait per record instead.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "socket.h"

namespace hcomm_ref {

class NotifyBank {
  public:
    explicit NotifyBank(uint32_t count) : state_(count, 0) {}

    uint32_t size() const { return static_cast<uint32_t>(state_.size()); }
    // Sets notify `index`; false when it was already set (an overrun).
    bool record(uint32_t index);
    enum class WaitResult { consumed, timed_out, cancelled };
    // Blocks until `index` is set, then clears it. No deadline = forever.
    WaitResult wait(uint32_t index, std::optional<Deadline> deadline, const std::atomic<bool> &cancel);
    // Clears `index` if it is set, without waiting or reading the clock (wait() with a
    // deadline already passed): a waiter that polls its CQ itself calls this at every turn.
    WaitResult poll(uint32_t index, const std::atomic<bool> &cancel);
    bool peek(uint32_t index) const;
    // Wakes every waiter so it re-checks its cancel flag.
    void wake_all();

  private:
    // With mutex_ held: whether the wait may end (`index` set, or cancelled).
    bool ready_locked(uint32_t index, bool any_lower, const std::atomic<bool> &cancel) const;
    // With mutex_ held, once ready_locked: consumes `index`, or says the wait was cancelled.
    WaitResult finish_locked(uint32_t index, bool any_lower, const std::atomic<bool> &cancel);
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<uint16_t> state_; // 0/1 (binary) or the records not yet waited for (counting)
    // How many entries of state_ are not 0 (changed under mutex_): a poll that finds
    // none set returns without the lock, which the recording thread also takes.
    std::atomic<uint32_t> set_{0};
};

} // namespace hcomm_ref
