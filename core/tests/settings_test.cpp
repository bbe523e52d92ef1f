// hcts/settings.h: one parse function per type, lookups with defaults, error texts that
// name the variable, the value and what is allowed.
#include <hcts/settings.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>

namespace hs = hcts::settings;
using hs::Setting;
using hs::Type;

namespace {

constinit const Setting kUnit{"HCTS_SETTINGS_TEST_UNIT", Type::enumeration, "s", "unit", "s|ms"};
constinit const Setting kCount{"HCTS_SETTINGS_TEST_COUNT", Type::uint, "120", "count", "", 1, 86399};
constinit const Setting kCap{"HCTS_SETTINGS_TEST_CAP", Type::size, "", "cap", "", 1, UINT64_MAX};
constinit const Setting kFlag{"HCTS_SETTINGS_TEST_FLAG", Type::boolean, "0", "flag"};
constinit const Setting kOffset{"HCTS_SETTINGS_TEST_OFFSET", Type::integer, "-3", "offset", "", -10, 10};
constinit const Setting kDir{"HCTS_SETTINGS_TEST_DIR", Type::path, "/tmp", "dir", "a directory"};

std::string dynamic_default() { return "b"; }
std::string dynamic_allowed() { return "a|b|c"; }
constinit const Setting kDynamic{"HCTS_SETTINGS_TEST_DYN", Type::enumeration, "", "dyn", "", 0, UINT64_MAX,
                                 dynamic_default,          dynamic_allowed};

// Sets (or, with nullptr, unsets) a variable for one test.
struct Env {
    const char *name;
    Env(const char *n, const char *value) : name(n)
    {
        if (value != nullptr)
            setenv(n, value, 1);
        else
            unsetenv(n);
    }
    ~Env() { unsetenv(name); }
};

} // namespace

TEST(Settings, ParseUintHonoursTheRange)
{
    EXPECT_EQ(hs::parse_uint(kCount, "1"), 1U);
    EXPECT_EQ(hs::parse_uint(kCount, "86399"), 86399U);
    EXPECT_FALSE(hs::parse_uint(kCount, "0"));
    EXPECT_FALSE(hs::parse_uint(kCount, "86400"));
    EXPECT_FALSE(hs::parse_uint(kCount, "12x"));
    EXPECT_FALSE(hs::parse_uint(kCount, "-1"));
    EXPECT_FALSE(hs::parse_uint(kCount, " 1"));
    EXPECT_FALSE(hs::parse_uint(kCount, ""));
    EXPECT_FALSE(hs::parse_uint(kCap, "18446744073709551616")); // 2^64
    EXPECT_EQ(hs::parse_size(kCap, "18446744073709551615"), UINT64_MAX);
}

TEST(Settings, ParseIntTakesNegatives)
{
    EXPECT_EQ(hs::parse_int(kOffset, "-10"), -10);
    EXPECT_EQ(hs::parse_int(kOffset, "10"), 10);
    EXPECT_FALSE(hs::parse_int(kOffset, "-11"));
    EXPECT_FALSE(hs::parse_int(kOffset, "11"));
}

TEST(Settings, ParseBoolIsZeroOrOne)
{
    EXPECT_EQ(hs::parse_bool(kFlag, "0"), false);
    EXPECT_EQ(hs::parse_bool(kFlag, "1"), true);
    EXPECT_FALSE(hs::parse_bool(kFlag, "yes"));
    EXPECT_FALSE(hs::parse_bool(kFlag, "2"));
}

TEST(Settings, ParseEnumGivesTheIndex)
{
    EXPECT_EQ(hs::parse_enum(kUnit, "s"), 0U);
    EXPECT_EQ(hs::parse_enum(kUnit, "ms"), 1U);
    EXPECT_FALSE(hs::parse_enum(kUnit, "m"));
    EXPECT_FALSE(hs::parse_enum(kUnit, "s|ms"));
    EXPECT_FALSE(hs::parse_enum(kUnit, ""));
    EXPECT_EQ(hs::parse_enum(kDynamic, "c"), 2U);
}

TEST(Settings, UnsetOrEmptyIsTheDefault)
{
    {
        Env e(kCount.name, nullptr);
        const auto v = hs::get_uint(kCount);
        EXPECT_EQ(v.value, 120U);
        EXPECT_FALSE(v.set);
        EXPECT_FALSE(v.bad());
    }
    {
        Env e(kCount.name, "");
        EXPECT_EQ(hs::get_uint(kCount).value, 120U);
        EXPECT_FALSE(hs::get_uint(kCount).set);
    }
    Env e(kCap.name, nullptr);
    EXPECT_EQ(hs::get_size(kCap).value, 0U); // no default: the caller's fallback
    EXPECT_EQ(hs::get_size(kCap, 7).value, 7U);
    EXPECT_EQ(hs::get_enum(kUnit).value, 0U);
    EXPECT_EQ(hs::get_enum(kDynamic).value, 1U); // default_fn: "b"
    EXPECT_EQ(hs::get_int(kOffset).value, -3);
    EXPECT_EQ(hs::get_bool(kFlag).value, false);
    EXPECT_EQ(hs::get_path(kDir).value, "/tmp");
}

TEST(Settings, SetValuesAreRead)
{
    Env a(kCount.name, "30"), b(kUnit.name, "ms"), c(kFlag.name, "1"), d(kDir.name, "/var"), f(kOffset.name, "-7");
    EXPECT_EQ(hs::get_uint(kCount).value, 30U);
    EXPECT_TRUE(hs::get_uint(kCount).set);
    EXPECT_EQ(hs::get_enum(kUnit).value, 1U);
    EXPECT_TRUE(hs::get_bool(kFlag).value);
    EXPECT_EQ(hs::get_path(kDir).value, "/var");
    EXPECT_EQ(hs::get_int(kOffset).value, -7);
}

TEST(Settings, BadValuesGiveTheDefaultAndSayWhy)
{
    Env a(kCount.name, "0"), b(kUnit.name, "hours"), c(kFlag.name, "yes"), d(kCap.name, "4k");
    const auto count = hs::get_uint(kCount);
    EXPECT_EQ(count.value, 120U);
    EXPECT_TRUE(count.set);
    EXPECT_EQ(count.error, "HCTS_SETTINGS_TEST_COUNT='0' is not a whole number in [1, 86399]");
    EXPECT_EQ(hs::get_enum(kUnit).error, "HCTS_SETTINGS_TEST_UNIT='hours' is not one of s|ms");
    EXPECT_EQ(hs::get_enum(kUnit).value, 0U);
    EXPECT_EQ(hs::get_bool(kFlag).error, "HCTS_SETTINGS_TEST_FLAG='yes' is not 0 or 1");
    EXPECT_EQ(hs::get_size(kCap).error, "HCTS_SETTINGS_TEST_CAP='4k' is not a byte count in [1, 18446744073709551615]");
    EXPECT_EQ(hs::get_size(kCap).value, 0U);
}

TEST(Settings, ValidAndDescribe)
{
    EXPECT_TRUE(hs::valid(kUnit, "ms"));
    EXPECT_FALSE(hs::valid(kUnit, "h"));
    EXPECT_TRUE(hs::valid(kDir, "anything"));
    EXPECT_EQ(hs::describe_allowed(kOffset), "a whole number in [-10, 10]");
    EXPECT_EQ(hs::describe_allowed(kDir), "a directory");
    EXPECT_EQ(hs::describe_allowed(kDynamic), "one of a|b|c");
    EXPECT_STREQ(hs::type_name(Type::size), "size");
}

TEST(Settings, FindInATable)
{
    static const Setting *const all[] = {&kUnit, &kCount};
    const hs::Table t{"test", "this test", all};
    EXPECT_EQ(hs::find(t, "HCTS_SETTINGS_TEST_COUNT"), &kCount);
    EXPECT_EQ(hs::find(t, "HCTS_SETTINGS_TEST_NONE"), nullptr);
}
