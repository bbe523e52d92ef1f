// How long a channel wait polls its CQ itself before it sleeps (decision 8), learnt
// per channel. A notify that comes soon after the waiter gave up polling costs two
// thread hand-offs and a wake-up (progress thread, condition variable, worker), and
// in a stream of large writes every wait then ends that way: the budget doubles when
// the notify came after the waiter slept but within the maximum (a larger budget
// would have caught it), and halves back towards the configured one when a wait
// sleeps longer than that or times out. A notify found while polling leaves it as it is.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>

namespace hcomm_ref {

class PollBudget {
  public:
    // `base`: the configured budget (HCOMM_REF_POLL_US; 0 turns polling off for good);
    // the budget never leaves [base, max(base, max)].
    PollBudget(std::chrono::microseconds base, std::chrono::microseconds max);

    std::chrono::microseconds current() const;
    // After a wait that polled `current()`: whether it then slept, and how long after
    // its start the notify was consumed (nullopt: it timed out or was cancelled).
    void observe(bool slept, std::optional<std::chrono::microseconds> waited);

  private:
    const uint32_t base_us_;
    const uint32_t max_us_;
    std::atomic<uint32_t> us_; // a heuristic: concurrent waits may race on it, harmlessly
};

} // namespace hcomm_ref
