#include "log.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <utility>

#include "settings.h"

namespace hcomm_ref {
namespace {

// Each level and its name, for HCOMM_REF_LOG and for the log lines alike.
constexpr std::pair<LogLevel, const char *> kLevels[] = {
    {LogLevel::error, "error"}, {LogLevel::warn, "warn"}, {LogLevel::info, "info"}, {LogLevel::debug, "debug"}};

LogLevel parse_level()
{
    // settings::log lists the levels in kLevels' order.
    const auto v = hcts::settings::get_enum(settings::log);
    if (v.bad()) // the logger is not up yet: straight to stderr
        std::fprintf(stderr, "[hcomm_ref] warn: %s; using warn\n", v.error.c_str());
    return v.value < std::size(kLevels) ? kLevels[v.value].first : LogLevel::warn;
}

const char *level_name(LogLevel level)
{
    for (const auto &[known, name] : kLevels)
        if (known == level)
            return name;
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

bool once_a_second(std::atomic<int64_t> &last_said) noexcept
{
    const int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
    return last_said.exchange(now) != now;
}

void join_quietly(std::thread &thread, const char *what) noexcept
{
    if (!thread.joinable())
        return;
    try {
        if (thread.get_id() == std::this_thread::get_id()) {
            thread.detach(); // its own last owner: it ends by itself
            return;
        }
        thread.join();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "[hcomm_ref] error: joining %s failed (%s); the thread is left alone\n", what, e.what());
        // Still joinable: its destructor would end the process. Moved into an owner that is
        // never destroyed (a move does not throw; nothing is freed that may still run).
        new (std::nothrow) std::thread(std::move(thread));
    }
}

bool body_failed(const char *what) noexcept
{
    try {
        throw;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "[hcomm_ref] error: %s stopped: %s\n", what, e.what());
    } catch (...) {
        std::fprintf(stderr, "[hcomm_ref] error: %s stopped: an exception of unknown type\n", what);
    }
    return false;
}

} // namespace hcomm_ref
