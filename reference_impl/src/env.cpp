#include "env.h"

#include <charconv>
#include <cstdlib>
#include <string_view>

#include <hcts/mutant.h>

#include "hccl/hccl_types.h"
#include "log.h"

namespace hcomm_ref::env {
namespace {

std::string_view get(const char *name)
{
    const char *value = std::getenv(name);
    return value == nullptr ? std::string_view() : std::string_view(value);
}

std::optional<uint64_t> parse_u64(std::string_view text)
{
    uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
        return std::nullopt;
    }
    return value;
}

bool parse_unit_ms()
{
    const std::string_view unit = get("HCOMM_REF_TIMEOUT_UNIT");
    if (unit.empty() || unit == "s") {
        return false;
    }
    if (unit == "ms") {
        return true;
    }
    HREF_LOG_WARN(-1, "HCOMM_REF_TIMEOUT_UNIT='", unit, "' is not s or ms; using s");
    return false;
}

bool parse_counting()
{
    const std::string_view mode = get("HCOMM_REF_NOTIFY");
    if (mode.empty() || mode == "binary") {
        return false;
    }
    if (mode == "counting") {
        return true;
    }
    HREF_LOG_WARN(-1, "HCOMM_REF_NOTIFY='", mode, "' is not binary or counting; using binary");
    return false;
}

} // namespace

std::optional<uint64_t> hccl_buffsize_mb()
{
    const std::string_view text = get("HCCL_BUFFSIZE");
    if (text.empty()) {
        return HCCL_COMM_DEFAULT_BUFFSIZE;
    }
    const auto value = parse_u64(text);
    if (!value || *value == 0 || *value > (1U << 20)) {
        HREF_LOG_ERROR(-1, "HCCL_BUFFSIZE='", text, "' is not a whole number of MB in [1, 1048576]");
        return std::nullopt;
    }
    return value;
}

bool timeout_unit_is_ms()
{
    static const bool is_ms = parse_unit_ms();
    return is_ms;
}

std::chrono::milliseconds timeout_to_duration(uint64_t timeout)
{
    // Mutant: the timeout converted to milliseconds in 32 bits, so a long one wraps
    // (4294968 s becomes 704 ms, 2^31 s 0 ms).
    if (hcts::mutant("ref_timeout_ms_u32_wrap"))
        return std::chrono::milliseconds(static_cast<uint32_t>(timeout_unit_is_ms() ? timeout : timeout * 1000));
    return timeout_unit_is_ms() ? std::chrono::milliseconds(timeout) : std::chrono::milliseconds(timeout * 1000);
}

std::string bootstrap_interface() { return std::string(get("HCOMM_REF_BOOTSTRAP_IF")); }

std::chrono::milliseconds bootstrap_timeout()
{
    const std::string_view text = get("HCOMM_REF_BOOTSTRAP_TIMEOUT_S");
    if (!text.empty()) {
        if (const auto value = parse_u64(text); value && *value > 0 && *value < 86400) {
            return std::chrono::seconds(*value);
        }
        HREF_LOG_WARN(-1, "HCOMM_REF_BOOTSTRAP_TIMEOUT_S='", text, "' is not in [1, 86399]; using 120");
    }
    return std::chrono::seconds(120);
}

uint64_t max_write_cap()
{
    const std::string_view text = get("HCOMM_REF_MAX_WRITE");
    if (text.empty()) {
        return 0;
    }
    if (const auto value = parse_u64(text); value && *value > 0) {
        return *value;
    }
    HREF_LOG_WARN(-1, "HCOMM_REF_MAX_WRITE='", text, "' is not a positive byte count; ignored");
    return 0;
}

bool counting_notifies()
{
    static const bool counting = parse_counting();
    return counting;
}

std::string ib_device_name() { return std::string(get("HCOMM_REF_IB_DEV")); }

namespace {
// A small whole number knob: 0 when unset; warned and 0 when malformed or above `max`.
uint64_t small_knob(const char *name, uint64_t max)
{
    const std::string_view text = get(name);
    if (text.empty())
        return 0;
    if (const auto value = parse_u64(text); value && *value <= max)
        return *value;
    HREF_LOG_WARN(-1, name, "='", text, "' is not a whole number in [0, ", max, "]; ignored");
    return 0;
}
} // namespace

bool doorbell_completion()
{
    static const bool on = small_knob("HCOMM_REF_DOORBELL_COMPLETION", 1) != 0;
    return on;
}

std::chrono::microseconds poll_budget()
{
    static const uint64_t us = get("HCOMM_REF_POLL_US").empty() ? 200 : small_knob("HCOMM_REF_POLL_US", 10000);
    return std::chrono::microseconds(us);
}

std::chrono::milliseconds notify_delay()
{
    static const uint64_t ms = small_knob("HCOMM_REF_NOTIFY_DELAY_MS", 10000);
    return std::chrono::milliseconds(ms);
}

namespace {

// A knob with two values: false for `off` (also when unset), true for `on`; anything
// else is logged and read as `off`.
bool binary_knob(const char *name, std::string_view off, std::string_view on)
{
    const std::string_view value = get(name);
    if (value.empty() || value == off)
        return false;
    if (value == on)
        return true;
    HREF_LOG_WARN(-1, name, "='", value, "' is not ", off, " or ", on, "; using ", off);
    return false;
}

} // namespace

uint32_t split_reordered()
{
    static const auto pieces = static_cast<uint32_t>(small_knob("HCOMM_REF_SPLIT_REORDERED", 64));
    return pieces;
}

bool wwn_refusal_is_ptr()
{
    static const bool is_ptr = binary_knob("HCOMM_REF_WWN_REFUSAL", "not_support", "ptr");
    return is_ptr;
}

bool local_unregistered_warn()
{
    static const bool warn = binary_knob("HCOMM_REF_LOCAL_UNREGISTERED", "refuse", "warn");
    return warn;
}

bool batch_reads_fenced()
{
    static const bool fenced = binary_knob("HCOMM_REF_BATCH_READS", "ordered", "fenced");
    return fenced;
}

bool reduce_reverse()
{
    static const bool reverse = binary_knob("HCOMM_REF_REDUCE_ORDER", "forward", "reverse");
    return reverse;
}

std::string wait_report_dir()
{
    static const std::string dir(get("HCOMM_REF_WAIT_REPORT"));
    return dir;
}

} // namespace hcomm_ref::env
