// Diagnostics to stderr, one line per message, prefixed with the rank.
// Level from HCOMM_REF_LOG = error|warn|info|debug (default warn).
#pragma once

#include <atomic>
#include <cstdint>
#include <sstream>
#include <string_view>
#include <thread>

namespace hcomm_ref {

enum class LogLevel { error = 0, warn = 1, info = 2, debug = 3 };

LogLevel log_level();
void log_line(LogLevel level, int64_t rank, std::string_view message);

// rank < 0: not tied to a rank (process-wide messages). The parts are streamed
// one after the other, so values are printed with their own operator<<.
template <typename... Parts>
void log(LogLevel level, int64_t rank, const Parts &...parts)
{
    if (level > log_level()) {
        return;
    }
    std::ostringstream out;
    (out << ... << parts);
    log_line(level, rank, out.str());
}

// For a message a retry loop would otherwise print on every pass: true at most once a
// second per `last_said` (the caller's own static, initialised to -1).
bool once_a_second(std::atomic<int64_t> &last_said) noexcept;

// Joins `thread` if it can be joined from here; a destructor's join never throws (a
// failed join is said on stderr and the thread left alone).
void join_quietly(std::thread &thread, const char *what) noexcept;

// Runs a library thread's body: an exception (std::bad_alloc, std::system_error) ends the
// body, said on stderr, instead of the process. False when one did.
bool body_failed(const char *what) noexcept; // in a catch block: says what was caught
template <typename Body>
bool run_quietly(const char *what, Body &&body) noexcept
{
    try {
        body();
        return true;
    } catch (...) {
        return body_failed(what);
    }
}

} // namespace hcomm_ref

#define HREF_LOG_ERROR(rank, ...) ::hcomm_ref::log(::hcomm_ref::LogLevel::error, (rank), __VA_ARGS__)
#define HREF_LOG_WARN(rank, ...) ::hcomm_ref::log(::hcomm_ref::LogLevel::warn, (rank), __VA_ARGS__)
#define HREF_LOG_INFO(rank, ...) ::hcomm_ref::log(::hcomm_ref::LogLevel::info, (rank), __VA_ARGS__)
#define HREF_LOG_DEBUG(rank, ...) ::hcomm_ref::log(::hcomm_ref::LogLevel::debug, (rank), __VA_ARGS__)
