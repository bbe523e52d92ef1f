#include "log.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace hcomm_ref {
namespace {

LogLevel parse_level()
{
    const char *value = std::getenv("HCOMM_REF_LOG");
    if (value == nullptr || *value == '\0') {
        return LogLevel::warn;
    }
    const std::string_view text(value);
    if (text == "error")
        return LogLevel::error;
    if (text == "warn")
        return LogLevel::warn;
    if (text == "info")
        return LogLevel::info;
    if (text == "debug")
        return LogLevel::debug;
    std::fprintf(stderr, "[hcomm_ref] warn: HCOMM_REF_LOG='%s' is not one of error|warn|info|debug; using warn\n",
                 value);
    return LogLevel::warn;
}

const char *level_name(LogLevel level)
{
    switch (level) {
    case LogLevel::error: return "error";
    case LogLevel::warn: return "warn";
    case LogLevel::info: return "info";
    case LogLevel::debug: return "debug";
    }
    return "?";
}

} // namespace

LogLevel log_level()
{
    static const LogLevel level = parse_level();
    return level;
}

void log_line(LogLevel level, int64_t rank, std::string_view message)
{
    // One formatted buffer and one write, so lines of concurrent ranks do not interleave.
    std::string line = rank >= 0 ? "[hcomm_ref rank " + std::to_string(rank) + "] " : std::string("[hcomm_ref] ");
    line += level_name(level);
    line += ": ";
    line += message;
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stderr);
}

} // namespace hcomm_ref
