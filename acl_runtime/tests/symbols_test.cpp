// Acceptance: libascendcl.so exports exactly the functions declared in include/acl/
// and acl_ref/acl_ref.h (a call outside the subset is absent, not a stub), and
// the headers build in C and C++ together with the HCCL ones, in either order.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include <hcts/testing/symbols.h>

namespace {

std::set<std::string> declared_functions()
{
    static const std::regex declaration(R"re((?:^|\n)ACL_FUNC_VISIBILITY\s+[^;{}()"]*?\b([A-Za-z_]\w*)\s*\()re");
    return hcts::testing::declared_functions({HCTS_ACL_INCLUDE_DIR, HCTS_ACL_REF_INCLUDE_DIR}, declaration, true);
}

std::set<std::string> exported_functions() { return hcts::testing::exported_functions(HCTS_LIBASCENDCL); }

TEST(Symbols, ExactlyTheDeclaredFunctions)
{
    const auto declared = declared_functions();
    ASSERT_EQ(declared.size(), 44U) << "38 ACL calls and 6 hcts extensions; the header parse found another number";
    EXPECT_TRUE(declared.count("aclrtStreamWaitEvent"));
    EXPECT_TRUE(declared.count("aclrtWaitAndResetNotify"));
    EXPECT_TRUE(declared.count("aclrtLaunchKernelWithConfig"));
    EXPECT_TRUE(declared.count("aclrtGetSocName"));
    const auto exported = exported_functions();
    ASSERT_FALSE(exported.empty()) << "nm -D found no symbols in " << HCTS_LIBASCENDCL;
    for (const auto &name : declared)
        EXPECT_TRUE(exported.count(name)) << name << " is declared but not exported";
    for (const auto &name : exported)
        EXPECT_TRUE(declared.count(name)) << name << " is exported but declared nowhere";
}

} // namespace
