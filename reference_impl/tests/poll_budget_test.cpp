// PollBudget: how long a channel wait polls before it sleeps, learnt per channel.
#include <gtest/gtest.h>

#include <chrono>

#include "poll_budget.h"

using namespace hcomm_ref;
using namespace std::chrono_literals;

TEST(PollBudget, StartsAtTheConfiguredBudget) { EXPECT_EQ(PollBudget(200us, 1ms).current(), 200us); }

TEST(PollBudget, ANotifyFoundWhilePollingChangesNothing)
{
    PollBudget b(200us, 1ms);
    b.observe(false, 100us);
    EXPECT_EQ(b.current(), 200us);
}

TEST(PollBudget, ANotifyJustMissedDoublesItUpToTheMaximum)
{
    PollBudget b(200us, 1ms);
    b.observe(true, 350us);
    EXPECT_EQ(b.current(), 400us);
    b.observe(true, PollBudget::kMissFactor * 400us); // the edge still counts as missed
    EXPECT_EQ(b.current(), 800us);
    b.observe(true, 900us);
    EXPECT_EQ(b.current(), 1ms);
    b.observe(true, 1100us);
    EXPECT_EQ(b.current(), 1ms);
}

TEST(PollBudget, ALongSleepOrATimeoutHalvesItDownToTheConfiguredBudget)
{
    PollBudget b(200us, 1ms);
    for (int i = 0; i < 3; ++i)
        b.observe(true, 300us);
    ASSERT_EQ(b.current(), 1ms);
    b.observe(true, PollBudget::kMissFactor * 1ms + 1us);
    EXPECT_EQ(b.current(), 500us);
    b.observe(true, std::nullopt); // timed out or cancelled
    EXPECT_EQ(b.current(), 250us);
    b.observe(true, std::nullopt);
    EXPECT_EQ(b.current(), 200us);
    b.observe(true, 10s);
    EXPECT_EQ(b.current(), 200us);
}

TEST(PollBudget, ZeroTurnsPollingOffForGood)
{
    PollBudget b(0us, 1ms);
    b.observe(true, 1us);
    EXPECT_EQ(b.current(), 0us);
}

TEST(PollBudget, AMaximumBelowTheBaseKeepsTheBase)
{
    PollBudget b(5ms, 1ms);
    b.observe(true, 6ms);
    EXPECT_EQ(b.current(), 5ms);
}
