#include "poll_budget.h"

#include <algorithm>

namespace hcomm_ref {

namespace {
uint32_t clamp_us(std::chrono::microseconds d)
{
    return static_cast<uint32_t>(std::clamp<int64_t>(d.count(), 0, UINT32_MAX));
}
} // namespace

PollBudget::PollBudget(std::chrono::microseconds base, std::chrono::microseconds max)
    : base_us_(clamp_us(base)), max_us_(std::max(base_us_, clamp_us(max))), us_(base_us_)
{
}

std::chrono::microseconds PollBudget::current() const
{
    return std::chrono::microseconds(us_.load(std::memory_order_relaxed));
}

void PollBudget::observe(bool slept, std::optional<std::chrono::microseconds> waited)
{
    if (!slept || base_us_ == 0)
        return;
    const uint32_t now = us_.load(std::memory_order_relaxed);
    // Judged against the maximum, not against a few budgets: a notify 1.1 ms after the
    // wait's start (1 MiB over TCP) was never "just missed" by a 200 us budget, so the
    // budget never grew and every such wait slept.
    const bool catchable = waited && waited->count() <= int64_t{max_us_};
    const uint32_t next = catchable ? std::min<uint64_t>(max_us_, uint64_t{now} * 2) : std::max(base_us_, now / 2);
    us_.store(next, std::memory_order_relaxed);
}

} // namespace hcomm_ref
