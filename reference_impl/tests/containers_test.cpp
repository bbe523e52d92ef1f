// InlineFunction and Fifo: the allocation-free holders of a thread's tasks and of
// its transfers' completions (task_queue.h).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

#include "fifo.h"
#include "inline_function.h"

using namespace hcomm_ref;

namespace {

// Counts the instances alive, so that a leak or a double destruction shows.
struct Tracked {
    explicit Tracked(int *alive) : alive_(alive) { ++*alive_; }
    Tracked(const Tracked &other) : alive_(other.alive_) { ++*alive_; }
    Tracked(Tracked &&other) noexcept : alive_(other.alive_) { ++*alive_; }
    Tracked &operator=(const Tracked &) = delete;
    ~Tracked() { --*alive_; }
    int *alive_;
};

using Small = InlineFunction<int(int), 48>;

} // namespace

TEST(InlineFunction, ACallableThatFitsIsKeptInsideAndCalled)
{
    const std::array<int64_t, 5> capture{1, 2, 3, 4, 5}; // 40 bytes
    Small f = [capture](int x) { return x + static_cast<int>(capture[4]); };
    ASSERT_TRUE(f);
    EXPECT_FALSE(f.on_heap());
    EXPECT_EQ(f(10), 15);
}

TEST(InlineFunction, ALargerCallableGoesToTheHeapAndStillWorks)
{
    std::array<int64_t, 16> capture{};
    capture[15] = 7;
    Small f = [capture](int x) { return x * static_cast<int>(capture[15]); };
    ASSERT_TRUE(f);
    EXPECT_TRUE(f.on_heap());
    EXPECT_EQ(f(3), 21);
    static_assert(!Small::kFitsInline<decltype(capture)>);
}

TEST(InlineFunction, AMutableCallableKeepsItsStateBetweenCalls)
{
    Small f = [n = 0](int x) mutable { return n += x; };
    f(2);
    f(3);
    EXPECT_EQ(f(4), 9);
}

TEST(InlineFunction, MovingLeavesTheSourceEmptyAndEachCallableIsDestroyedOnce)
{
    int alive = 0;
    {
        Small inside = [t = Tracked(&alive)](int x) { return x; };
        std::array<char, 100> big{};
        Small heap = [t = Tracked(&alive), big](int x) { return x + big[0]; };
        ASSERT_EQ(alive, 2);
        ASSERT_FALSE(inside.on_heap());
        ASSERT_TRUE(heap.on_heap());

        Small moved_inside = std::move(inside);
        Small moved_heap = std::move(heap);
        EXPECT_FALSE(inside); // NOLINT(bugprone-use-after-move): the moved-from state is the point
        EXPECT_FALSE(heap);   // NOLINT(bugprone-use-after-move)
        EXPECT_EQ(alive, 2);
        EXPECT_EQ(moved_inside(4), 4);
        EXPECT_EQ(moved_heap(4), 4);

        moved_inside = std::move(moved_heap); // the old callable goes, the other one moves in
        EXPECT_EQ(alive, 1);
        EXPECT_TRUE(moved_inside.on_heap());
        moved_inside = nullptr;
        EXPECT_EQ(alive, 0);
        EXPECT_FALSE(moved_inside);
    }
    EXPECT_EQ(alive, 0);
}

TEST(InlineFunction, CallingAnEmptyOneThrowsAsStdFunctionDoes)
{
    const Small f;
    EXPECT_FALSE(f);
    EXPECT_THROW(f(1), std::bad_function_call);
}

TEST(Fifo, KeepsTheOrderWhenItWrapsAroundAndGrows)
{
    Fifo<int> q;
    int next_in = 0;
    int next_out = 0;
    // Fill part of the first ring, drain most of it so that the head moves, then push
    // past the capacity with the contents wrapped around the end.
    for (int i = 0; i < 10; ++i)
        q.push_back(next_in++);
    for (int i = 0; i < 7; ++i) {
        ASSERT_EQ(q.front(), next_out++);
        q.pop_front();
    }
    const size_t first_capacity = q.capacity();
    while (q.size() <= first_capacity)
        q.push_back(next_in++);
    EXPECT_GT(q.capacity(), first_capacity);
    while (!q.empty()) {
        ASSERT_EQ(q.front(), next_out++);
        q.pop_front();
    }
    EXPECT_EQ(next_out, next_in);
}

TEST(Fifo, KeepsItsStorageOnceGrown)
{
    Fifo<int> q;
    for (int i = 0; i < 40; ++i)
        q.push_back(i);
    const size_t capacity = q.capacity();
    for (int round = 0; round < 100; ++round) {
        while (!q.empty())
            q.pop_front();
        for (int i = 0; i < 40; ++i)
            q.push_back(i);
    }
    EXPECT_EQ(q.capacity(), capacity);
}

TEST(Fifo, PopReleasesTheElementAtOnce)
{
    Fifo<std::shared_ptr<int>> q;
    auto held = std::make_shared<int>(1);
    q.push_back(held);
    q.push_back(std::make_shared<int>(2));
    EXPECT_EQ(held.use_count(), 2);
    q.pop_front();
    EXPECT_EQ(held.use_count(), 1) << "a popped element must not linger in its slot";
    EXPECT_EQ(*q.front(), 2);
}
