#include "text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <stdexcept>

namespace hcts::report {

std::string html_escape(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default:
            // Control characters other than tab and newline are not allowed in XML 1.0.
            if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
                out += "\xEF\xBF\xBD";
            else
                out += c;
        }
    }
    return out;
}

std::string md_escape(std::string_view text)
{
    std::string out;
    for (const char c : text) {
        if (c == '|')
            out += "\\|";
        else if (c == '\n' || c == '\r')
            out += ' ';
        else if (c == '<')
            out += "&lt;";
        else
            out += c;
    }
    return out;
}

std::string field(const nlohmann::json &obj, std::string_view key, std::string_view fallback)
{
    if (!obj.is_object())
        return std::string(fallback);
    const auto it = obj.find(key);
    if (it == obj.end())
        return std::string(fallback);
    if (it->is_string())
        return it->get<std::string>();
    if (it->is_number_unsigned())
        return std::to_string(it->get<unsigned long long>()); // 64-bit seeds
    if (it->is_number_integer())
        return std::to_string(it->get<long long>());
    if (it->is_number())
        return format_fixed(it->get<double>(), 3);
    if (it->is_boolean())
        return it->get<bool>() ? "true" : "false";
    return std::string(fallback);
}

std::string text_of(const nlohmann::json &value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

std::string joined(const nlohmann::json &array)
{
    std::string out;
    for (const auto &v : array)
        out += (out.empty() ? "" : ", ") + text_of(v);
    return out;
}

namespace {
// obj[key] when obj is an object and that member is of the kind `is_kind` tests, else `empty`.
const nlohmann::json &member_of_kind(const nlohmann::json &obj, std::string_view key,
                                     bool (nlohmann::json::*is_kind)() const noexcept, const nlohmann::json &empty)
{
    if (!obj.is_object())
        return empty;
    const auto it = obj.find(key);
    return it != obj.end() && ((*it).*is_kind)() ? *it : empty;
}
} // namespace

const nlohmann::json &object_at(const nlohmann::json &obj, std::string_view key)
{
    static const nlohmann::json empty = nlohmann::json::object();
    return member_of_kind(obj, key, &nlohmann::json::is_object, empty);
}

const nlohmann::json &array_at(const nlohmann::json &obj, std::string_view key)
{
    static const nlohmann::json empty = nlohmann::json::array();
    return member_of_kind(obj, key, &nlohmann::json::is_array, empty);
}

std::vector<FunctionCoverage> function_coverage(const nlohmann::json &doc)
{
    std::map<std::string, FunctionCoverage> by_name;
    for (const auto &cl : array_at(doc, "clauses"))
        for (const auto &f : array_at(cl, "functions")) {
            auto &row = by_name[text_of(f)];
            row.function = text_of(f);
            row.clauses.emplace_back(field(cl, "id"), field(cl, "verdict", "NOT RUN"));
        }
    std::vector<FunctionCoverage> out;
    for (auto &[name, row] : by_name)
        out.push_back(std::move(row));
    return out;
}

const nlohmann::json *deciding_case(const nlohmann::json &doc, const nlohmann::json &clause)
{
    const auto verdict = field(clause, "verdict");
    for (const auto &name : array_at(clause, "cases")) {
        if (!name.is_string())
            continue;
        for (const auto &c : array_at(doc, "cases"))
            if (field(c, "name") == name.get<std::string>() && field(c, "verdict") == verdict)
                return &c;
    }
    return nullptr;
}

std::string clause_reason(const nlohmann::json &doc, const nlohmann::json &clause)
{
    if (auto own = field(clause, "reason"); !own.empty())
        return own;
    const auto *c = deciding_case(doc, clause);
    if (!c)
        return {};
    const auto reason = field(*c, "reason");
    return reason.empty() ? std::string() : field(*c, "name") + ": " + reason;
}

const nlohmann::json &clause_waiver(const nlohmann::json &doc, const nlohmann::json &clause)
{
    if (const auto &own = object_at(clause, "waiver"); !own.empty())
        return own;
    const auto *c = deciding_case(doc, clause);
    return c ? object_at(*c, "waiver") : object_at(clause, "waiver");
}

std::vector<std::string> gate_failures(const nlohmann::json &doc)
{
    std::vector<std::string> out;
    const auto status = field(object_at(doc, "run"), "status", "unknown");
    if (status != "complete")
        out.push_back("the run is " + status + ", not complete");
    for (const auto &c : array_at(doc, "configurations"))
        if (const auto st = field(c, "status", "unknown"); st != "complete")
            out.push_back("configuration " + field(c, "name") + " is " + st + ", not complete" +
                          (field(c, "error").empty() ? "" : ": " + field(c, "error")));
    if (const auto n = array_at(object_at(doc, "summary"), "not_run").size())
        out.push_back(std::to_string(n) + " clause(s) not decided by any case");
    std::map<std::string, int> bad_must;
    int xpass = 0;
    for (const auto &cl : array_at(doc, "clauses")) {
        const auto v = field(cl, "verdict", "NOT RUN");
        if (field(cl, "kind") == "MUST" && v != "PASS" && v != "WAIVED")
            ++bad_must[v];
        xpass += v == "XPASS";
    }
    if (!bad_must.empty()) {
        int total = 0;
        std::string detail;
        for (const auto &[v, n] : bad_must) {
            total += n;
            detail += (detail.empty() ? "" : ", ") + std::to_string(n) + " " + v;
        }
        out.push_back(std::to_string(total) + " MUST clause(s) neither PASS nor WAIVED (" + detail + ")");
    }
    if (xpass)
        out.push_back(std::to_string(xpass) + " unexpected pass(es): stale expectations");
    int props = 0, litmus = 0;
    auto bad = [](const std::string &v) { return v == "FAIL" || v == "TIMEOUT" || v == "CRASH" || v == "XPASS"; };
    for (const auto &p : array_at(doc, "properties"))
        props += bad(field(p, "verdict"));
    for (const auto &l : array_at(doc, "litmus"))
        litmus += bad(field(l, "verdict"));
    if (props)
        out.push_back(std::to_string(props) + " propert" + (props == 1 ? "y" : "ies") + " falsified");
    if (litmus)
        out.push_back(std::to_string(litmus) + " litmus test(s) failed");
    std::string ratios;
    for (const auto &c : array_at(object_at(object_at(doc, "bench"), "baseline"), "checks"))
        if (field(c, "held") == "false")
            ratios += (ratios.empty() ? "" : ", ") + field(c, "id");
    if (!ratios.empty())
        out.push_back("bench baseline ratio(s) out of bounds: " + ratios);
    return out;
}

std::string format_fixed(double value, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    return buf;
}

long long source_date_epoch_or(long long fallback)
{
    const char *env = std::getenv("SOURCE_DATE_EPOCH");
    if (!env || !*env)
        return fallback;
    const std::string_view text(env);
    long long value = -1;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 0)
        throw std::runtime_error("SOURCE_DATE_EPOCH is '" + std::string(text) +
                                 "'; allowed: a whole number of seconds since 1970-01-01 UTC, 0 or more");
    return value;
}

std::string format_utc(long long seconds_since_1970)
{
    const auto t = static_cast<std::time_t>(seconds_since_1970);
    std::tm tm{};
    if (!gmtime_r(&t, &tm))
        throw std::runtime_error("time " + std::to_string(seconds_since_1970) + " is out of range");
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string format_seconds(double seconds)
{
    if (seconds < 10)
        return format_fixed(seconds, 3) + " s";
    if (seconds < 120)
        return format_fixed(seconds, 1) + " s";
    const auto whole = static_cast<long long>(std::llround(seconds));
    return std::to_string(whole / 60) + " min " + std::to_string(whole % 60) + " s";
}

} // namespace hcts::report
