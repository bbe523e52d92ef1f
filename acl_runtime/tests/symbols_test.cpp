// Acceptance: libascendcl.so exports exactly the functions declared in include/acl/
// and acl_ref/acl_ref.h (a call outside the subset is absent, not a stub), and
// the headers build in C and C++ together with the HCCL ones, in either order.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

std::set<std::string> declared_functions()
{
    std::set<std::string> names;
    const std::regex declaration(R"re((?:^|\n)ACL_FUNC_VISIBILITY\s+[^;{}()"]*?\b([A-Za-z_]\w*)\s*\()re");
    for (const char *dir : {HCTS_ACL_INCLUDE_DIR, HCTS_ACL_REF_INCLUDE_DIR}) {
        for (const auto &entry : std::filesystem::recursive_directory_iterator(dir)) {
            if (entry.path().extension() != ".h")
                continue;
            std::ifstream in(entry.path());
            std::stringstream text;
            text << in.rdbuf();
            const std::string s = text.str();
            for (std::sregex_iterator it(s.begin(), s.end(), declaration), end; it != end; ++it)
                names.insert((*it)[1]);
        }
    }
    return names;
}

std::set<std::string> exported_functions()
{
    std::set<std::string> names;
    const std::string command = std::string("nm -D --defined-only ") + HCTS_LIBASCENDCL;
    FILE *pipe = popen(command.c_str(), "r");
    if (pipe == nullptr)
        return names;
    char line[512];
    while (std::fgets(line, sizeof(line), pipe) != nullptr) {
        std::istringstream fields(line);
        std::string address, type, name;
        if (fields >> address >> type >> name && (type == "T" || type == "W"))
            names.insert(name);
    }
    pclose(pipe);
    return names;
}

TEST(Symbols, ExactlyTheDeclaredFunctions)
{
    const auto declared = declared_functions();
    ASSERT_EQ(declared.size(), 27U) << "25 ACL calls and 2 hcts extensions; the header parse found another number";
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
