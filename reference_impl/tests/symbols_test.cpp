// Acceptance: every function declared in include/ (hccl/, hcomm/, hcomm_ref/) is a
// dynamic symbol of libhcomm.so, unmangled, and the library exports nothing else.
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
    const std::regex declaration(R"re(extern\s+[^;{}()"]*?\b([A-Za-z_]\w*)\s*\()re");
    for (const char *dir : {"hccl", "hcomm", "hcomm_ref"}) {
        for (const auto &entry : std::filesystem::directory_iterator(std::filesystem::path(HCTS_INCLUDE_DIR) / dir)) {
            if (entry.path().extension() != ".h")
                continue;
            std::ifstream in(entry.path());
            std::stringstream text;
            text << in.rdbuf();
            const std::string s = text.str();
            for (std::sregex_iterator it(s.begin(), s.end(), declaration), end; it != end; ++it) {
                names.insert((*it)[1]);
            }
        }
    }
    return names;
}

std::set<std::string> exported_functions()
{
    std::set<std::string> names;
    const std::string command = std::string("nm -D --defined-only ") + HCTS_LIBHCOMM;
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
