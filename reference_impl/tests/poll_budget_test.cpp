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

TEST(PollBudget, ANotifyMissedWithinTheMaximumDoublesItUpToTheMaximum)
{
    PollBudget b(200us, 1ms);
    expect_steps(b, {{true, 350us, 400us},
                     {true, 1ms, 800us}, // the edge still counts: a larger budget would have caught it
                     {true, 900us, 1ms},
                     {true, 1ms, 1ms}});
}

// A wait as long as a transfer of 1 MiB over TCP (about 1.1 ms one way) is many times the
// configured budget: it still teaches the channel to poll through it.
TEST(PollBudget, ANotifyManyBudgetsLateButWithinTheMaximumStillGrowsIt)
{
    PollBudget b(200us, 4ms);
    expect_steps(b, {{true, 2200us, 400us},
                     {true, 2200us, 800us},
                     {true, 2200us, 1600us},
                     {true, 2200us, 3200us},
                     {false, 2200us, 3200us}});
}

TEST(PollBudget, ALongSleepOrATimeoutHalvesItDownToTheConfiguredBudget)
{
    PollBudget b(200us, 1ms);
    expect_steps(b, {{true, 300us, 400us}, {true, 300us, 800us}, {true, 300us, 1ms}});
    expect_steps(
        b, {{true, 1ms + 1us, 500us}, {true, std::nullopt, 250us}, {true, std::nullopt, 200us}, {true, 10s, 200us}});
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
