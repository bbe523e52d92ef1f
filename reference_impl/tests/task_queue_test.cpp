// The thread's task queue on its own (task_queue.h), reached through the library's
// objects: when wait_done's callers are woken, and what a transfer left in flight
// means for them. Every wait has a deadline.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "task_queue.h"

using namespace hcomm_ref;
using namespace std::chrono_literals;

namespace {

constexpr auto kPatience = 10s; // far beyond what any step here takes

Deadline in(std::chrono::milliseconds d) { return Clock::now() + d; }

// Polls `cond` until it holds or kPatience passes.
template <typename Cond>
bool eventually(Cond cond)
{
    const auto until = Clock::now() + kPatience;
    while (!cond()) {
        if (Clock::now() > until)
            return false;
        std::this_thread::sleep_for(1ms);
    }
    return true;
}

// A task that blocks its queue until open() (or kPatience), so tests can line up
// waiters and tasks behind it first.
class Gate {
  public:
    TaskQueue::Task task()
    {
        return [f = opened_.get_future().share()] {
            return f.wait_for(kPatience) == std::future_status::ready ? HCCL_SUCCESS : HCCL_E_TIMEOUT;
        };
    }
    void open() { opened_.set_value(); }

  private:
    std::promise<void> opened_;
};

} // namespace

// Decision 8: a waiter sleeps until its target is reached, and is not
// woken by every task before it.
TEST(TaskQueue, WaiterIsWokenOnceWhenItsTargetIsReached)
{
    TaskQueue q(0, "test", {});
    Gate gate;
    q.enqueue(gate.task());
    std::atomic<int> ran{0};
    uint64_t last = 0;
    for (int i = 0; i < 64; ++i)
        last = q.enqueue([&] {
            ++ran;
            return HCCL_SUCCESS;
        });
    auto waiter = std::async(std::launch::async, [&] { return q.wait_done(last, in(kPatience)); });
    ASSERT_TRUE(eventually([&] { return q.waiters() == 1; })) << "the waiter never started waiting";
    gate.open();
    ASSERT_EQ(waiter.wait_for(kPatience), std::future_status::ready);
    EXPECT_TRUE(waiter.get());
    EXPECT_EQ(ran.load(), 64);
    EXPECT_EQ(q.waiter_wakeups(), 1u) << "65 tasks ran while the waiter slept; it must be woken once, at the last";
}

// Two waiters with different targets: each reached target wakes them once.
TEST(TaskQueue, EachReachedTargetWakesOnce)
{
    TaskQueue q(0, "test", {});
    Gate first, second;
    const uint64_t near = q.enqueue(first.task());
    for (int i = 0; i < 16; ++i)
        q.enqueue([] { return HCCL_SUCCESS; });
    const uint64_t far = q.enqueue(second.task());
    auto near_waiter = std::async(std::launch::async, [&] { return q.wait_done(near, in(kPatience)); });
    auto far_waiter = std::async(std::launch::async, [&] { return q.wait_done(far, in(kPatience)); });
    ASSERT_TRUE(eventually([&] { return q.waiters() == 2; }));
    first.open();
    ASSERT_EQ(near_waiter.wait_for(kPatience), std::future_status::ready);
    EXPECT_TRUE(near_waiter.get());
    // The far waiter went back to sleep; the 16 tasks up to the second gate woke nobody.
    ASSERT_TRUE(eventually([&] { return q.waiters() == 1; }));
    std::this_thread::sleep_for(20ms);
    EXPECT_EQ(q.waiter_wakeups(), 1u);
    second.open();
    ASSERT_EQ(far_waiter.wait_for(kPatience), std::future_status::ready);
    EXPECT_TRUE(far_waiter.get());
    EXPECT_EQ(q.waiter_wakeups(), 2u);
}

// A transfer left in flight (decision 5): its task has returned, but it is done
// only once the transfer completed; a failed completion fails the queue (decision 6).
TEST(TaskQueue, TaskIsDoneOnlyWhenItsTransferCompleted)
{
    TaskQueue q(0, "test", {});
    std::promise<TaskQueue::Completion> registered;
    const int link = 0; // stands for the RcLink the transfer went to
    const uint64_t writer = q.enqueue(
        [&] {
            registered.set_value(TaskQueue::in_flight(&link));
            return HCCL_SUCCESS;
        },
        &link);
    auto retire_future = registered.get_future();
    ASSERT_EQ(retire_future.wait_for(kPatience), std::future_status::ready);
    TaskQueue::Completion retire = retire_future.get();
    ASSERT_TRUE(retire) << "on its worker, in_flight() must register the transfer";
    EXPECT_FALSE(q.wait_done(writer, in(50ms))) << "done before its transfer completed";
    auto waiter = std::async(std::launch::async, [&] { return q.wait_done(writer, in(kPatience)); });
    ASSERT_TRUE(eventually([&] { return q.waiters() == 1; }));
    retire(HCCL_E_REMOTE);
    ASSERT_EQ(waiter.wait_for(kPatience), std::future_status::ready);
    EXPECT_TRUE(waiter.get());
    EXPECT_EQ(q.error(), HCCL_E_REMOTE);
    // A later task is skipped, never run.
    std::atomic<bool> ran{false};
    const uint64_t later = q.enqueue([&] {
        ran = true;
        return HCCL_SUCCESS;
    });
    EXPECT_TRUE(q.wait_done(later, in(kPatience)));
    EXPECT_FALSE(ran.load());
}

// Off a worker there is nothing to register: the caller waits for its transfer itself.
TEST(TaskQueue, InFlightOffAWorkerIsEmpty)
{
    const int link = 0;
    EXPECT_FALSE(TaskQueue::in_flight(&link));
}

namespace {

// What a queue's Linger and before_sleep hooks saw.
struct LingerLog {
    std::atomic<int> begins{0}, polls{0}, ends{0}, sleeps{0};
    WorkerLinger linger(std::chrono::microseconds time)
    {
        return {time, [this] { ++begins; }, [this] { ++polls; }, [this] { ++ends; }};
    }
    std::function<void()> before_sleep()
    {
        return [this] { ++sleeps; };
    }
};

} // namespace

// A worker out of tasks keeps polling for its linger time, and a task that
// comes meanwhile runs without the worker going to sleep (no wake-up needed). A
// queue's destruction ends a linger at once.
TEST(TaskQueue, LingeringWorkerTakesTheNextTaskWithoutSleeping)
{
    LingerLog log;
    auto q = std::make_unique<TaskQueue>(0, "test", TaskQueue::ErrorHook{}, log.before_sleep(), log.linger(60s));
    const auto trivial = [] { return HCCL_SUCCESS; };
    ASSERT_TRUE(q->wait_done(q->enqueue(trivial), in(kPatience)));
    // The worker may have lingered once before the task, at its start: count from here.
    const int polls = log.polls.load();
    ASSERT_TRUE(eventually([&] { return log.polls.load() > polls + 100; })) << "the idle worker does not poll";
    const int lingers = log.begins.load(); // it lingers now
    ASSERT_EQ(log.ends.load(), lingers - 1);
    ASSERT_TRUE(q->wait_done(q->enqueue(trivial), in(kPatience)));
    ASSERT_TRUE(eventually([&] { return log.begins.load() == lingers + 1; })) << "the worker did not linger again";
    EXPECT_EQ(log.ends.load(), lingers) << "the second task ends the linger it came in";
    EXPECT_EQ(log.sleeps.load(), 0) << "the worker slept although its tasks came within its linger";
    const auto destroyed_at = Clock::now();
    q.reset();
    EXPECT_LT(Clock::now() - destroyed_at, kPatience) << "the 60 s linger held up the queue's destruction";
    EXPECT_EQ(log.ends.load(), lingers + 1);
}

// After its linger time the worker gives up polling and sleeps (arming what it left
// unarmed), and the next task wakes it as before.
TEST(TaskQueue, WorkerSleepsAfterItsLinger)
{
    LingerLog log;
    TaskQueue q(0, "test", {}, log.before_sleep(), log.linger(2ms));
    const auto trivial = [] { return HCCL_SUCCESS; };
    ASSERT_TRUE(q.wait_done(q.enqueue(trivial), in(kPatience)));
    // The linger after the task ends in a sleep (one at the worker's start may have
    // ended with the task instead).
    ASSERT_TRUE(eventually([&] {
        const int lingers = log.begins.load();
        return lingers > 0 && log.ends.load() == lingers && log.sleeps.load() >= 1;
    })) << "the worker never went to sleep";
    EXPECT_GT(log.polls.load(), 0);
    ASSERT_TRUE(q.wait_done(q.enqueue(trivial), in(kPatience))) << "a sleeping worker was not woken by a task";
}
