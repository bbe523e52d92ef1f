#include "notify.h"

#include <algorithm>
#include <cstddef>

#include <hcts/mutant.h>

#include "env.h"

namespace hcomm_ref {

bool NotifyBank::record(uint32_t index)
{
    bool fresh = false;
    {
        std::lock_guard lock(mutex_);
        fresh = state_.at(index) == 0;
        // Counting (HCOMM_REF_NOTIFY=counting) keeps every record for a wait of its
        // own, up to the counter's range; binary coalesces them.
        if (!env::counting_notifies()) {
            // Mutant: a record on a notify already set lands on the next index instead
            // of coalescing (an overrun spills into its neighbour).
            if (!fresh && hcts::mutant("ref_notify_overrun_spills_next") && index + 1 < state_.size()) {
                set_.fetch_add(state_[index + 1] == 0 ? 1 : 0, std::memory_order_release);
                state_[index + 1] = 1;
            }
            state_[index] = 1;
        } else if (state_[index] < UINT16_MAX)
            ++state_[index];
        if (fresh)
            set_.fetch_add(1, std::memory_order_release);
    }
    changed_.notify_all();
    return fresh;
}

bool NotifyBank::ready_locked(uint32_t index, bool any_lower, const std::atomic<bool> &cancel) const
{
    if (any_lower && index < state_.size())
        return std::any_of(state_.begin(), state_.begin() + static_cast<std::ptrdiff_t>(index) + 1,
                           [](uint16_t v) { return v != 0; }) ||
               cancel.load();
    return state_.at(index) != 0 || cancel.load();
}

NotifyBank::WaitResult NotifyBank::finish_locked(uint32_t index, bool any_lower, const std::atomic<bool> &cancel)
{
    if (state_[index] == 0 && !(any_lower && !cancel.load())) {
        return WaitResult::cancelled;
    }
    state_[index] = env::counting_notifies() ? static_cast<uint16_t>(state_[index] - 1) : uint16_t{0};
    if (state_[index] == 0)
        set_.fetch_sub(1, std::memory_order_relaxed);
    return WaitResult::consumed;
}

NotifyBank::WaitResult NotifyBank::wait(uint32_t index, std::optional<Deadline> deadline,
                                        const std::atomic<bool> &cancel)
{
    if (deadline && *deadline <= Clock::now())
        return poll(index, cancel); // no sleep, no syscall
    std::unique_lock lock(mutex_);
    // Mutant: a find-first-set over the bits up to `index` instead of bit `index`
    // itself, so a lower set notify satisfies the wait (which consumes its own).
    const bool any_lower = hcts::mutant("ref_notify_wait_scans_lower");
    const auto ready = [&] { return ready_locked(index, any_lower, cancel); };
    if (deadline) {
        if (!changed_.wait_until(lock, *deadline, ready)) {
            return WaitResult::timed_out;
        }
    } else {
        changed_.wait(lock, ready);
    }
    return finish_locked(index, any_lower, cancel);
}

NotifyBank::WaitResult NotifyBank::poll(uint32_t index, const std::atomic<bool> &cancel)
{
    if (set_.load(std::memory_order_acquire) == 0 && !cancel.load())
        return WaitResult::timed_out; // nothing set, not even below `index`
    std::lock_guard lock(mutex_);
    const bool any_lower = hcts::mutant("ref_notify_wait_scans_lower"); // as in wait()
    if (!ready_locked(index, any_lower, cancel))
        return WaitResult::timed_out;
    return finish_locked(index, any_lower, cancel);
}

bool NotifyBank::peek(uint32_t index) const
{
    std::lock_guard lock(mutex_);
    return state_.at(index) != 0;
}

void NotifyBank::wake_all()
{
    {
        std::lock_guard lock(mutex_);
    }
    changed_.notify_all();
}

} // namespace hcomm_ref
