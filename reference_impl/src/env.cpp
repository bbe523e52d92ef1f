#include "env.h"

#include <hcts/mutant.h>

#include "hccl/hccl_types.h"
#include "log.h"
#include "settings.h"

namespace hcomm_ref::env {
namespace {

namespace hs = hcts::settings;

// A bad value is logged as a warning naming the variable, the value, what is allowed
// and what the reference does instead (`consequence`); the value is then the default.
template <class T>
T warned(const hs::Value<T> &v, std::string_view consequence)
{
    if (v.bad())
        HREF_LOG_WARN(-1, v.error, "; ", consequence);
    return v.value;
}

// A knob with two values (an enumeration "off|on"): false for the first (also when
// unset), true for the second; anything else is logged and read as the default.
bool binary_knob(const hs::Setting &s) { return warned(hs::get_enum(s), std::string("using ") + s.default_text) == 1; }

// A small whole number knob: its default when unset; warned and 0 when malformed or out of range.
uint64_t small_knob(const hs::Setting &s)
{
    const auto v = hs::get_uint(s);
    return v.bad() ? warned(hs::Value<uint64_t>{0, true, v.error}, "ignored") : v.value;
}

} // namespace

std::optional<uint64_t> hccl_buffsize_mb()
{
    const auto v = hs::get_uint(settings::hccl_buffsize);
    if (v.bad()) {
        HREF_LOG_ERROR(-1, v.error, " (MB)");
        return std::nullopt;
    }
    return v.value;
}

bool timeout_unit_is_ms()
{
    static const bool is_ms = binary_knob(settings::timeout_unit);
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

std::string bootstrap_interface() { return hs::get_string(settings::bootstrap_if).value; }

std::chrono::milliseconds bootstrap_timeout()
{
    return std::chrono::seconds(warned(hs::get_uint(settings::bootstrap_timeout_s), "using 120"));
}

uint64_t max_write_cap() { return warned(hs::get_size(settings::max_write), "ignored"); }

bool counting_notifies()
{
    static const bool counting = binary_knob(settings::notify);
    return counting;
}

std::string ib_device_name() { return hs::get_string(settings::ib_dev).value; }

bool doorbell_completion()
{
    static const bool on = warned(hs::get_bool(settings::doorbell_completion), "ignored");
    return on;
}

std::chrono::microseconds poll_budget()
{
    static const uint64_t us = small_knob(settings::poll_us);
    return std::chrono::microseconds(us);
}

std::chrono::milliseconds notify_delay()
{
    static const uint64_t ms = small_knob(settings::notify_delay_ms);
    return std::chrono::milliseconds(ms);
}

uint32_t split_reordered()
{
    static const auto pieces = static_cast<uint32_t>(small_knob(settings::split_reordered));
    return pieces;
}

bool wwn_refusal_is_ptr()
{
    static const bool is_ptr = binary_knob(settings::wwn_refusal);
    return is_ptr;
}

bool local_unregistered_warn()
{
    static const bool warn = binary_knob(settings::local_unregistered);
    return warn;
}

bool batch_reads_fenced()
{
    static const bool fenced = binary_knob(settings::batch_reads);
    return fenced;
}

bool reduce_reverse()
{
    static const bool reverse = binary_knob(settings::reduce_order);
    return reverse;
}

std::string wait_report_dir()
{
    static const std::string dir = hs::get_path(settings::wait_report).value;
    return dir;
}

} // namespace hcomm_ref::env
