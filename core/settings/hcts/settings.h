// Settings declared once: every environment variable a component reads is
// one row of that component's table (name, type, default, allowed values, one-line doc),
// and is read only through the parse functions here, one per type. `hcts env`
// (tools/hcts_env.cpp) lists every table with the current values, as `ucx_info -c` does.
//
// Header-only and standard C++ only, so every component may use it, softverbs and the
// reference included (the interface target hcts::settings, beside hcts::mutant). A table
// is plain constant data: listing it initialises nothing.
//
// The facility decides what a value means; the component decides what a bad value does
// (warn and use the default, refuse the call, ...): a lookup returns the default with an
// error that names the variable, the value and what is allowed, and the component logs it
// through its own logger with its own consequence ("; using s", "; ignored").
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace hcts::settings {

enum class Type {
    boolean,     // 0 or 1
    integer,     // a whole number, maybe negative, in [min, max]
    uint,        // a whole number in [min, max]
    size,        // a byte count in [min, max]
    enumeration, // one of `allowed` ("a|b|c"); read as the index of the value
    string,      // any text
    path,        // a file or directory name
};

inline const char *type_name(Type type)
{
    switch (type) {
    case Type::boolean: return "bool";
    case Type::integer: return "int";
    case Type::uint: return "uint";
    case Type::size: return "size";
    case Type::enumeration: return "enum";
    case Type::string: return "string";
    case Type::path: return "path";
    }
    return "?";
}

// One variable. An empty value counts as unset, as everywhere in the suite.
struct Setting {
    const char *name;
    Type type;
    // The value when unset, as a user would write it; "" = none (the doc says what that means).
    const char *default_text;
    // One line: what the variable does.
    const char *doc;
    // Enumerations: the values, '|'-separated. Others: free text shown beside the type
    // ("" = anything of the type; numbers show their range instead).
    const char *allowed = "";
    // Integers: the range. For Type::integer min is signed; max is read as signed too.
    int64_t min = 0;
    uint64_t max = UINT64_MAX;
    // When the default or the allowed values are data (the product table), not text.
    std::string (*default_fn)() = nullptr;
    std::string (*allowed_fn)() = nullptr;

    std::string default_value() const { return default_fn != nullptr ? default_fn() : std::string(default_text); }
    std::string allowed_values() const { return allowed_fn != nullptr ? allowed_fn() : std::string(allowed); }
};

// A component's table: every variable it reads.
struct Table {
    const char *component; // "reference_impl"
    const char *reads;     // who reads them: "libhcomm.so (the reference hcomm)"
    std::span<const Setting *const> settings;
};

// The raw value: nullopt when unset or empty.
inline std::optional<std::string_view> raw(const Setting &s)
{
    const char *v = std::getenv(s.name);
    if (v == nullptr || *v == '\0')
        return std::nullopt;
    return std::string_view(v);
}

// The raw value even when empty: nullopt only when unset. For the few variables whose mere
// presence counts (HCTS_EXHAUSTIVE, HCTS_MPI_LOG_DIR), as they always have.
inline std::optional<std::string_view> raw_any(const Setting &s)
{
    const char *v = std::getenv(s.name);
    if (v == nullptr)
        return std::nullopt;
    return std::string_view(v);
}
inline bool present(const Setting &s) { return raw_any(s).has_value(); }

// What the type and range allow, for messages and for `hcts env`.
inline std::string describe_allowed(const Setting &s)
{
    switch (s.type) {
    case Type::boolean: return "0 or 1";
    case Type::integer: {
        const auto hi = static_cast<int64_t>(s.max > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : s.max);
        return "a whole number in [" + std::to_string(s.min) + ", " + std::to_string(hi) + "]";
    }
    case Type::uint:
    case Type::size:
        return std::string(s.type == Type::size ? "a byte count" : "a whole number") + " in [" +
               std::to_string(static_cast<uint64_t>(s.min < 0 ? 0 : s.min)) + ", " + std::to_string(s.max) + "]";
    case Type::enumeration: return "one of " + s.allowed_values();
    case Type::string:
    case Type::path: {
        const std::string a = s.allowed_values();
        return a.empty() ? std::string("any ") + type_name(s.type) : a;
    }
    }
    return "?";
}

// The outcome of reading one variable: the value (the default when unset or bad), whether
// the environment set it, and when it was bad, why: "NAME='text' is not <allowed>".
template <class T>
struct Value {
    T value{};
    bool set = false;
    std::string error; // empty when the value (or the default) was used as given

    bool bad() const { return !error.empty(); }
};

// The error text of a bad value; the component adds what it does about it.
inline std::string bad_value(const Setting &s, std::string_view text)
{
    std::string m(s.name);
    m += "='";
    m += text;
    m += "' is not ";
    m += describe_allowed(s);
    return m;
}

// ---- one parse function per type: text -> value, nullopt when not allowed ----

inline std::optional<uint64_t> parse_uint(const Setting &s, std::string_view text)
{
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    if (v < static_cast<uint64_t>(s.min < 0 ? 0 : s.min) || v > s.max)
        return std::nullopt;
    return v;
}

inline std::optional<int64_t> parse_int(const Setting &s, std::string_view text)
{
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    if (v < s.min || (v >= 0 && static_cast<uint64_t>(v) > s.max))
        return std::nullopt;
    return v;
}

inline std::optional<uint64_t> parse_size(const Setting &s, std::string_view text) { return parse_uint(s, text); }

inline std::optional<bool> parse_bool(const Setting &, std::string_view text)
{
    if (text == "0")
        return false;
    if (text == "1")
        return true;
    return std::nullopt;
}

// The index of `text` among the '|'-separated allowed values.
inline std::optional<size_t> parse_enum(const Setting &s, std::string_view text)
{
    const std::string all = s.allowed_values();
    std::string_view rest(all);
    for (size_t index = 0;; ++index) {
        const size_t bar = rest.find('|');
        if (rest.substr(0, bar) == text)
            return index;
        if (bar == std::string_view::npos)
            return std::nullopt;
        rest.remove_prefix(bar + 1);
    }
}

// Whether `text` is a value of the setting's type (for `hcts env` and the tests).
inline bool valid(const Setting &s, std::string_view text)
{
    switch (s.type) {
    case Type::boolean: return parse_bool(s, text).has_value();
    case Type::integer: return parse_int(s, text).has_value();
    case Type::uint: return parse_uint(s, text).has_value();
    case Type::size: return parse_size(s, text).has_value();
    case Type::enumeration: return parse_enum(s, text).has_value();
    case Type::string:
    case Type::path: return true;
    }
    return false;
}

namespace detail {
template <class T, class Parse>
Value<T> read(const Setting &s, Parse parse, T fallback)
{
    Value<T> out;
    const auto text = raw(s);
    const std::string def = s.default_value();
    if (!def.empty())
        if (const auto d = parse(s, def))
            fallback = *d;
    out.value = fallback;
    if (!text)
        return out;
    out.set = true;
    if (const auto v = parse(s, *text))
        out.value = *v;
    else
        out.error = bad_value(s, *text);
    return out;
}
} // namespace detail

// ---- lookups: the environment's value through the type's parser ----
// Unset (or empty): the default (`fallback` when the default is "" = none).
// Bad: the default, with the error set.

inline Value<uint64_t> get_uint(const Setting &s, uint64_t fallback = 0)
{
    return detail::read<uint64_t>(s, parse_uint, fallback);
}
inline Value<uint64_t> get_size(const Setting &s, uint64_t fallback = 0)
{
    return detail::read<uint64_t>(s, parse_size, fallback);
}
inline Value<int64_t> get_int(const Setting &s, int64_t fallback = 0)
{
    return detail::read<int64_t>(s, parse_int, fallback);
}
inline Value<bool> get_bool(const Setting &s, bool fallback = false)
{
    return detail::read<bool>(s, parse_bool, fallback);
}
// The index of the value among the allowed ones.
inline Value<size_t> get_enum(const Setting &s, size_t fallback = 0)
{
    return detail::read<size_t>(s, parse_enum, fallback);
}
inline Value<std::string> get_string(const Setting &s)
{
    Value<std::string> out;
    const auto text = raw(s);
    out.set = text.has_value();
    out.value = text ? std::string(*text) : s.default_value();
    return out;
}
inline Value<std::string> get_path(const Setting &s) { return get_string(s); }

// The setting of this name in the table, or nullptr.
inline const Setting *find(const Table &t, std::string_view name)
{
    for (const Setting *s : t.settings)
        if (s->name == name)
            return s;
    return nullptr;
}

} // namespace hcts::settings
