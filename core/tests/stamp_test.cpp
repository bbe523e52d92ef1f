// The stamp classifier must tell every outcome class apart, or the suite's
// visibility verdicts mean nothing.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "hcts/core/stamp.h"

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
    const StampKey k{255, 4095, 63};
    StampKey got;
    uint64_t idx = 0;
    ASSERT_TRUE(decode_stamp(stamp_word(k, (1ULL << 30) - 1), got, idx));
    EXPECT_EQ(got.run, 255U);
    EXPECT_EQ(got.iteration, 4095U);
    EXPECT_EQ(got.sender, 63U);
    EXPECT_EQ(idx, (1ULL << 30) - 1); // 8 GiB of payload before the index wraps
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

// The property model compares bytes, not words: a stale byte must differ from
// the current one almost everywhere, not only in the check byte.
TEST(Stamp, EveryByteDependsOnEveryField)
{
    const StampKey now{3, 17, 1};
    size_t same = 0, total = 0;
    for (const StampKey other : {StampKey{3, 16, 1}, StampKey{3, 17, 2}, StampKey{4, 17, 1}})
        for (uint64_t off = 0; off < 8 * 1024; ++off, ++total)
            same += stamp_byte(now, off) == stamp_byte(other, off);
    // Chance agreement is 1/256 per byte; structure leaking through would be far more.
    EXPECT_LT(same, total / 64) << same << " of " << total << " bytes equal";
}

TEST(Stamp, OffsetPayloadsMatchTheirPlaceInTheWhole)
{
    const StampKey k{7, 9, 5};
    std::vector<std::byte> whole(100);
    fill_payload(whole, k);
    for (uint64_t first : {0ULL, 1ULL, 7ULL, 8ULL, 13ULL}) {
        std::vector<std::byte> part(40);
        fill_payload(part, k, first);
        for (size_t i = 0; i < part.size(); ++i) {
            ASSERT_EQ(part[i], whole[first + i]) << "first " << first << " byte " << i;
            ASSERT_EQ(std::to_integer<uint8_t>(part[i]), stamp_byte(k, first + i));
        }
    }
}

TEST(Stamp, RandomWordsRarelyDecode)
{
    // A word that is not a stamp passes the 8 check bits about once in 256.
    uint64_t x = 0x1234567;
    size_t decoded = 0;
    for (int i = 0; i < 65536; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        StampKey k;
        uint64_t idx = 0;
        decoded += decode_stamp(x, k, idx);
    }
    EXPECT_GT(decoded, 65536U / 512);
    EXPECT_LT(decoded, 65536U / 128);
}
