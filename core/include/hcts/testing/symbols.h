// For tests that hold a library to its headers: the functions the headers
// declare and the functions the library exports, each as a set of names.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace hcts::testing {

// Every name captured by group 1 of `declaration` in the .h files of `dirs`
// (recursively when `recursive`).
inline std::set<std::string> declared_functions(const std::vector<std::filesystem::path> &dirs,
                                                const std::regex &declaration, bool recursive)
{
    std::set<std::string> names;
    const auto scan = [&](const std::filesystem::path &file) {
        if (file.extension() != ".h")
            return;
        std::ifstream in(file);
        std::stringstream text;
        text << in.rdbuf();
        const std::string s = text.str();
        for (std::sregex_iterator it(s.begin(), s.end(), declaration), end; it != end; ++it)
            names.insert((*it)[1]);
    };
    for (const auto &dir : dirs) {
        if (recursive)
            for (const auto &entry : std::filesystem::recursive_directory_iterator(dir))
                scan(entry.path());
        else
            for (const auto &entry : std::filesystem::directory_iterator(dir))
                scan(entry.path());
    }
    return names;
}

// The functions `library` defines in its dynamic symbol table (nm -D: T and W);
// empty when nm cannot run.
inline std::set<std::string> exported_functions(const std::string &library)
{
    std::set<std::string> names;
    const std::string command = "nm -D --defined-only " + library;
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

} // namespace hcts::testing
