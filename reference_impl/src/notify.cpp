#include "notify.h"

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
        if (!env::counting_notifies())
            state_[index] = 1;
        else if (state_[index] < UINT16_MAX)
            ++state_[index];
    }
    changed_.notify_all();
    return fresh;
}

NotifyBank::WaitResult NotifyBank::wait(uint32_t index, std::optional<Deadline> deadline,
                                        const std::atomic<bool> &cancel)
{
    std::unique_lock lock(mutex_);
    const auto ready = [&] { return state_.at(index) != 0 || cancel.load(); };
    if (deadline) {
        if (!changed_.wait_until(lock, *deadline, ready)) {
            return WaitResult::timed_out;
        }
    } else {
        changed_.wait(lock, ready);
    }
    if (state_[index] == 0) {
        return WaitResult::cancelled;
    }
    state_[index] = env::counting_notifies() ? static_cast<uint16_t>(state_[index] - 1) : uint16_t{0};
    return WaitResult::consumed;
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
