// A connection's byte FIFO (src/byte_queue.h) on its own: bytes come out in the
// order they went in, whether the queue slides its live bytes down or grows into a
// new buffer while partly consumed. Over TCP only the timing of the peer's frames
// decides which of these paths a message takes, so the conformance suite cannot
// reach each one on demand; these tests do.
#include "byte_queue.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>
#include <vector>

using sv::ByteQueue;

namespace {

// Bytes numbered from `first`, so a byte out of place names where it came from.
std::vector<uint8_t> numbered(size_t n, size_t first)
{
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = static_cast<uint8_t>((first + i) * 131u >> 3);
    return v;
}

// The first position where the queue's live bytes differ from `want`, or -1.
long first_difference(const ByteQueue &q, const std::deque<uint8_t> &want)
{
    if (q.size() != want.size())
        return static_cast<long>(std::min(q.size(), want.size()));
    for (size_t i = 0; i < want.size(); ++i)
        if (q.data()[i] != want[i])
            return static_cast<long>(i);
    return -1;
}

} // namespace

TEST(ByteQueue, GrowingWhilePartlyConsumedKeepsTheLiveBytes)
{
    ByteQueue q;
    const auto a = numbered(3000, 0);
    q.append(a.data(), a.size());
    q.consume(1000);                      // 2000 live bytes, not at the buffer's start
    const auto b = numbered(10000, 3000); // more than the buffer holds: it grows
    q.append(b.data(), b.size());
    ASSERT_GE(q.capacity(), 12000u);
    std::deque<uint8_t> want(a.begin() + 1000, a.end());
    want.insert(want.end(), b.begin(), b.end());
    EXPECT_EQ(first_difference(q, want), -1) << "after growing with 2000 live bytes at offset 1000";
}

TEST(ByteQueue, SlidingWhilePartlyConsumedKeepsTheLiveBytes)
{
    ByteQueue q;
    const auto a = numbered(4000, 0);
    q.append(a.data(), a.size());
    const size_t cap = q.capacity();
    q.consume(3000);                     // 1000 live bytes near the end
    const auto b = numbered(2000, 4000); // fits only once the live bytes slide down
    q.append(b.data(), b.size());
    EXPECT_EQ(q.capacity(), cap) << "room was there in total: no new buffer";
    std::deque<uint8_t> want(a.begin() + 3000, a.end());
    want.insert(want.end(), b.begin(), b.end());
    EXPECT_EQ(first_difference(q, want), -1) << "after sliding 1000 live bytes from offset 3000";
}

TEST(ByteQueue, EmptyingResetsAndTrimGivesMemoryBack)
{
    ByteQueue q;
    const auto a = numbered(1 << 20, 0);
    q.append(a.data(), a.size());
    q.trim(4096); // not empty: keeps everything
    EXPECT_EQ(q.size(), a.size());
    q.consume(a.size());
    EXPECT_TRUE(q.empty());
    q.trim(4096);
    EXPECT_EQ(q.capacity(), 0u);
    const auto b = numbered(10, 7);
    q.append(b.data(), b.size());
    EXPECT_EQ(first_difference(q, std::deque<uint8_t>(b.begin(), b.end())), -1);
}

// Random appends (through append, and reserve + a partial commit as a socket read
// does) and consumes, against a deque: every path in every order.
TEST(ByteQueue, MatchesAFifoUnderRandomUse)
{
    const char *given = std::getenv("BYTE_QUEUE_SEED");
    const uint32_t seed =
        given && *given ? static_cast<uint32_t>(std::strtoul(given, nullptr, 0)) : std::random_device{}();
    std::printf("seed %u; reproduce: BYTE_QUEUE_SEED=%u softverbs_byte_queue_test "
                "--gtest_filter=ByteQueue.MatchesAFifoUnderRandomUse\n",
                seed, seed);
    std::mt19937 rng(seed);
    ByteQueue q;
    std::deque<uint8_t> want;
    size_t counter = 0;
    for (int step = 0; step < 4000; ++step) {
        const unsigned what = rng() % 3;
        if (what == 0) {
            const auto v = numbered(rng() % 9000, counter);
            counter += v.size();
            q.append(v.data(), v.size());
            want.insert(want.end(), v.begin(), v.end());
        } else if (what == 1) {
            const size_t asked = 1 + rng() % 9000, used = rng() % (asked + 1);
            const auto v = numbered(used, counter);
            counter += used;
            std::copy(v.begin(), v.end(), q.reserve(asked));
            q.commit(used);
            want.insert(want.end(), v.begin(), v.end());
        } else if (!want.empty()) {
            const size_t n = 1 + rng() % want.size();
            q.consume(n);
            want.erase(want.begin(), want.begin() + static_cast<long>(n));
        }
        ASSERT_EQ(first_difference(q, want), -1) << "step " << step << ", seed " << seed;
    }
}
