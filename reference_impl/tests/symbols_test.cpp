// Acceptance: every function declared in include/ (hccl/, hcomm/, hcomm_ref/) is a
// dynamic symbol of libhcomm.so, unmangled, and the library exports nothing else.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include <hcts/testing/symbols.h>

namespace {

std::set<std::string> declared_functions()
{
    static const std::regex declaration(R"re(extern\s+[^;{}()"]*?\b([A-Za-z_]\w*)\s*\()re");
    const std::filesystem::path include(HCTS_INCLUDE_DIR);
    return hcts::testing::declared_functions({include / "hccl", include / "hcomm", include / "hcomm_ref"}, declaration,
                                             false);
}

std::set<std::string> exported_functions() { return hcts::testing::exported_functions(HCTS_LIBHCOMM); }

} // namespace

TEST(Symbols, EveryDeclaredFunctionIsExported)
{
    const auto declared = declared_functions();
    ASSERT_GE(declared.size(), 60U) << "the header parse found too few declarations";
    EXPECT_TRUE(declared.count("HcommWriteWithNotifyOnThread"));
    EXPECT_TRUE(declared.count("HcommRefDeviceLaunch"));
    const auto exported = exported_functions();
    ASSERT_FALSE(exported.empty()) << "nm -D found no symbols in " << HCTS_LIBHCOMM;
    for (const auto &name : declared) {
        EXPECT_TRUE(exported.count(name)) << name << " is declared in include/ but not exported";
    }
    for (const auto &name : exported) {
        EXPECT_TRUE(declared.count(name)) << name << " is exported but declared nowhere in include/";
    }
}
