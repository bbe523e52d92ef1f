// PollBudget: how long a channel wait polls before it sleeps, learnt per channel.
#include <gtest/gtest.h>

#include <chrono>
#include <initializer_list>
#include <optional>

#include "poll_budget.h"

using namespace hcomm_ref;
using namespace std::chrono_literals;

namespace {

// One wait as the budget hears of it, and the budget it must leave.
struct Step {
    bool slept;
    std::optional<std::chrono::microseconds> waited; // nullopt: timed out or cancelled
    std::chrono::microseconds expected;
};

void expect_steps(PollBudget &budget, std::initializer_list<Step> steps)
{
    int i = 0;
    for (const Step &s : steps) {
        budget.observe(s.slept, s.waited);
        EXPECT_EQ(budget.current(), s.expected) << "after step " << i;
        ++i;
    }
}

} // namespace

TEST(PollBudget, StartsAtTheConfiguredBudget) { EXPECT_EQ(PollBudget(200us, 1ms).current(), 200us); }

TEST(PollBudget, ANotifyFoundWhilePollingChangesNothing)
{
    PollBudget b(200us, 1ms);
    expect_steps(b, {{false, 100us, 200us}});
}

TEST(PollBudget, ANotifyJustMissedDoublesItUpToTheMaximum)
{
    PollBudget b(200us, 1ms);
    expect_steps(b, {{true, 350us, 400us},
                     {true, PollBudget::kMissFactor * 400us, 800us}, // the edge still counts as missed
                     {true, 900us, 1ms},
                     {true, 1100us, 1ms}});
}

TEST(PollBudget, ALongSleepOrATimeoutHalvesItDownToTheConfiguredBudget)
{
    PollBudget b(200us, 1ms);
    expect_steps(b, {{true, 300us, 400us}, {true, 300us, 800us}, {true, 300us, 1ms}});
    expect_steps(b, {{true, PollBudget::kMissFactor * 1ms + 1us, 500us},
                     {true, std::nullopt, 250us},
                     {true, std::nullopt, 200us},
                     {true, 10s, 200us}});
}

TEST(PollBudget, ZeroTurnsPollingOffForGood)
{
    PollBudget b(0us, 1ms);
    expect_steps(b, {{true, 1us, 0us}});
}

TEST(PollBudget, AMaximumBelowTheBaseKeepsTheBase)
{
    PollBudget b(5ms, 1ms);
    expect_steps(b, {{true, 6ms, 5ms}});
}
