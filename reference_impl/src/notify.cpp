#include "notify.h"

namespace hcomm_ref {

bool NotifyBank::record(uint32_t index)
{
    bool fresh = false;
    {
        std::lock_guard lock(mutex_);
        fresh = state_.at(index) == 0;
        state_[index] = 1;
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
    state_[index] = 0;
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
