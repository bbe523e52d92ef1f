// Shell commands from hcts programs: quoting words and reading what a child printed.
#pragma once

#include <string>

namespace hcts {
// `s` as one word for a POSIX shell (quoted only when it needs to be).
std::string shell_quote(const std::string &s);

// What a shell command printed on its standard output, and how it ended
// (pclose's status: 0 for a clean exit; -1 when it could not be started).
struct CommandOutput {
    int status = -1;
    std::string text;
    bool ok() const { return status == 0; }
};
CommandOutput capture_command(const std::string &command);
} // namespace hcts
