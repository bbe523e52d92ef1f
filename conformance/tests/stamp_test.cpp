// The stamp classifier must tell every outcome class apart, or the suite's
// visibility verdicts mean nothing.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "stamp.h"

using namespace hcts;

namespace {
std::vector<std::byte> payload(size_t len, StampKey k)
{
    std::vector<std::byte> v(len);
    fill_payload(v, k);
    return v;
}
} // namespace

TEST(Stamp, RoundTripsEveryField)
{
    const StampKey k{4095, 4095, 63};
    StampKey got;
    uint64_t idx = 0;
    ASSERT_TRUE(decode_stamp(stamp_word(k, 12345), got, idx));
    EXPECT_EQ(got.run, 4095U);
    EXPECT_EQ(got.iteration, 4095U);
    EXPECT_EQ(got.sender, 63U);
    EXPECT_EQ(idx, 12345U);
}

TEST(Stamp, PoisonAndGuardAreNotStamps)
{
    StampKey k;
    uint64_t idx = 0;
    EXPECT_FALSE(decode_stamp(kPoisonWord, k, idx));
    EXPECT_FALSE(decode_stamp(kGuardWord, k, idx));
}

TEST(Stamp, ClassifiesNewStaleForeignTornAbsent)
{
    const StampKey k{1, 5, 2};
    auto good = payload(100, k);
    EXPECT_TRUE(check_payload(good, k).ok());

    auto stale = payload(100, StampKey{1, 4, 2});
    auto r = check_payload(stale, k);
    EXPECT_EQ(r.stale, 12U); // 12 full words; the 4-byte tail is "torn or garbage"
    EXPECT_EQ(r.overall(), Outcome::Torn);
    EXPECT_NE(r.first_bad.find("stale, iteration 4"), std::string::npos) << r.first_bad;

    auto foreign = payload(96, StampKey{1, 5, 3});
    EXPECT_EQ(check_payload(foreign, k).overall(), Outcome::Foreign);

    std::vector<std::byte> absent(100);
    fill_pattern(absent, kPoisonWord);
    EXPECT_EQ(check_payload(absent, k).overall(), Outcome::Absent);

    auto torn = good;
    torn[40] = std::byte{0};
    auto t = check_payload(torn, k);
    EXPECT_EQ(t.torn, 1U);
    EXPECT_EQ(t.new_words, t.words - 1);
    EXPECT_EQ(t.overall(), Outcome::Torn);
}

TEST(Stamp, OneByteAndPartialWords)
{
    const StampKey k{2, 1, 0};
    auto one = payload(1, k);
    EXPECT_TRUE(check_payload(one, k).ok());
    std::vector<std::byte> p(1);
    fill_pattern(p, kPoisonWord);
    EXPECT_EQ(check_payload(p, k).absent, 1U);
}

TEST(Stamp, GuardCounting)
{
    std::vector<std::byte> g(64);
    fill_pattern(g, kGuardWord);
    EXPECT_EQ(count_not_pattern(g, kGuardWord), 0U);
    g[63] = std::byte{1};
    size_t first = 0;
    EXPECT_EQ(count_not_pattern(g, kGuardWord, &first), 1U);
    EXPECT_EQ(first, 63U);
}
