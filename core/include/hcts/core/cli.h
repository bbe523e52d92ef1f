// CLI11, the command-line parser of every hcts program, included once here.
// GCC 12's -Wnull-dereference fires inside libstdc++'s std::string when CLI11's
// header-only string splitting is inlined: a path in library code, not in hcts
// code, and CI builds with -Werror. Silenced for CLI11's header alone.
#pragma once

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>
#pragma GCC diagnostic pop

#include <string>

#include "hcts/core/command.h"

namespace hcts {
// The program's command line, each word shell-quoted: what reruns it.
std::string command_line(int argc, const char *const *argv);
} // namespace hcts
