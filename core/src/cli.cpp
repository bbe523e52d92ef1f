#include "hcts/core/cli.h"

namespace hcts {

std::string command_line(int argc, const char *const *argv)
{
    std::string out;
    for (int i = 0; i < argc; ++i)
        out += (i != 0 ? " " : "") + shell_quote(argv[i]);
    return out;
}

} // namespace hcts
