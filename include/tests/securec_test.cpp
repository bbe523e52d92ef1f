// securec.h: each function does its job within bounds and refuses what does not fit,
// leaving nothing written past the destination it was given.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>

#include "securec.h"

namespace {

// A destination of `N` bytes inside a guarded buffer: the guards must survive every call.
template <size_t N>
struct Guarded {
    std::array<char, N + 16> raw{};
    Guarded() { raw.fill('#'); }
    char *dst() { return raw.data() + 8; }
    bool guards_intact() const
    {
        for (size_t i = 0; i < 8; ++i)
            if (raw[i] != '#' || raw[N + 8 + i] != '#')
                return false;
        return true;
    }
};

TEST(Securec, MemcpyCopiesWhatFitsAndRefusesMore)
{
    Guarded<8> g;
    EXPECT_EQ(memcpy_s(g.dst(), 8, "abcdefgh", 8), EOK);
    EXPECT_EQ(std::memcmp(g.dst(), "abcdefgh", 8), 0);
    EXPECT_EQ(memcpy_s(g.dst(), 8, "0123456789", 9), ERANGE_AND_RESET);
    EXPECT_EQ(std::string(g.dst(), 8), std::string(8, '\0')); // cleared, not partly copied
    EXPECT_EQ(memcpy_s(g.dst(), 8, nullptr, 1), EINVAL_AND_RESET);
    EXPECT_EQ(memcpy_s(nullptr, 8, "a", 1), EINVAL);
    EXPECT_EQ(memcpy_s(g.dst(), 0, "a", 1), EINVAL);
    EXPECT_EQ(memcpy_s(g.dst(), 8, g.dst() + 2, 4), EOVERLAP_AND_RESET);
    EXPECT_TRUE(g.guards_intact());
}

TEST(Securec, MemmoveAndMemset)
{
    Guarded<8> g;
    std::memcpy(g.dst(), "abcdefgh", 8);
    EXPECT_EQ(memmove_s(g.dst(), 8, g.dst() + 2, 4), EOK);
    EXPECT_EQ(std::string(g.dst(), 8), "cdefefgh");
    EXPECT_EQ(memset_s(g.dst(), 8, 'z', 3), EOK);
    EXPECT_EQ(std::string(g.dst(), 8), "zzzfefgh");
    EXPECT_EQ(memset_s(g.dst(), 8, 'y', 9), ERANGE_AND_RESET); // fills what fits, no more
    EXPECT_EQ(std::string(g.dst(), 8), "yyyyyyyy");
    EXPECT_TRUE(g.guards_intact());
}

TEST(Securec, StringCopiesKeepTheTerminator)
{
    Guarded<6> g;
    EXPECT_EQ(strcpy_s(g.dst(), 6, "hello"), EOK);
    EXPECT_STREQ(g.dst(), "hello");
    EXPECT_EQ(strcpy_s(g.dst(), 6, "hello!"), ERANGE_AND_RESET); // 6 characters need 7 bytes
    EXPECT_STREQ(g.dst(), "");
    EXPECT_EQ(strncpy_s(g.dst(), 6, "hello world", 3), EOK);
    EXPECT_STREQ(g.dst(), "hel");
    EXPECT_EQ(strcat_s(g.dst(), 6, "lo"), EOK);
    EXPECT_STREQ(g.dst(), "hello");
    EXPECT_NE(strcat_s(g.dst(), 6, "!"), EOK);
    EXPECT_STREQ(g.dst(), "");
    EXPECT_EQ(strcpy_s(g.dst(), 6, nullptr), EINVAL_AND_RESET);
    EXPECT_TRUE(g.guards_intact());
}

TEST(Securec, SprintfReturnsLengthOrMinusOne)
{
    Guarded<12> g;
    EXPECT_EQ(sprintf_s(g.dst(), 12, "rank %d of %d", 3, 4), 11);
    EXPECT_STREQ(g.dst(), "rank 3 of 4");
    EXPECT_EQ(sprintf_s(g.dst(), 12, "rank %d of %d", 13, 14), -1); // 13 characters do not fit
    EXPECT_STREQ(g.dst(), "");
    EXPECT_EQ(snprintf_s(g.dst(), 12, 4, "%s", "truncated"), -1); // asked to truncate at 4
    EXPECT_STREQ(g.dst(), "trun");
    EXPECT_EQ(snprintf_s(g.dst(), 12, 11, "%s", "fits"), 4);
    EXPECT_EQ(sprintf_s(nullptr, 12, "x"), -1);
    EXPECT_TRUE(g.guards_intact());
}

} // namespace
