#include "hcts/core/cli.h"

namespace hcts {

std::string shell_quote(const std::string &s)
{
    if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,@+") ==
                          std::string::npos)
        return s;
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string command_line(int argc, const char *const *argv)
{
    std::string out;
    for (int i = 0; i < argc; ++i)
        out += (i != 0 ? " " : "") + shell_quote(argv[i]);
    return out;
}

} // namespace hcts
