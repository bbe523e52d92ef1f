#include "text.h"

#include <algorithm>
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

std::string text_or(const std::optional<std::string> &value, std::string_view fallback)
{
    return value ? *value : std::string(fallback);
}
std::string text_or(const std::optional<int64_t> &value, std::string_view fallback)
{
    return value ? std::to_string(*value) : std::string(fallback);
}
std::string text_or(const std::optional<uint64_t> &value, std::string_view fallback)
{
    return value ? std::to_string(*value) : std::string(fallback); // 64-bit seeds
}
std::string text_or(const std::optional<double> &value, std::string_view fallback)
{
    return value ? format_fixed(*value, 3) : std::string(fallback);
}
std::string text_or(const std::optional<Verdict> &value, std::string_view fallback)
{
    return value ? name_of(*value) : std::string(fallback);
}
std::string text_or(const std::optional<GateMode> &value, std::string_view fallback)
{
    return value ? std::string(gate_mode_name(*value)) : std::string(fallback);
}
std::string name_of(Verdict v) { return std::string(verdict_name(v)); }
std::string name_of(ClauseKind k) { return std::string(clause_kind_name(k)); }

std::string joined(std::span<const std::string> items)
{
    std::string out;
    for (const auto &v : items)
        out += (out.empty() ? "" : ", ") + v;
    return out;
}

std::string joined(std::span<const double> items)
{
    std::string out;
    for (const double v : items)
        out += (out.empty() ? "" : ", ") + nlohmann::json(v).dump();
    return out;
}

std::vector<FunctionCoverage> function_coverage(const results::Document &doc)
{
    std::map<std::string, FunctionCoverage> by_name;
    for (const auto &cl : doc.clauses)
        for (const auto &f : cl.functions) {
            auto &row = by_name[f];
            row.function = f;
            row.clauses.emplace_back(cl.id, text_or(cl.verdict, "NOT RUN"));
        }
    std::vector<FunctionCoverage> out;
    for (auto &[name, row] : by_name)
        out.push_back(std::move(row));
    return out;
}

const results::Case *deciding_case(const results::Document &doc, const results::Clause &clause)
{
    if (!clause.verdict)
        return nullptr;
    for (const auto &name : clause.cases)
        for (const auto &c : doc.cases)
            if (c.name == name && c.verdict == *clause.verdict)
                return &c;
    return nullptr;
}

std::string clause_reason(const results::Document &doc, const results::Clause &clause)
{
    if (clause.reason && !clause.reason->empty())
        return *clause.reason;
    const auto *c = deciding_case(doc, clause);
    if (!c || !c->reason || c->reason->empty())
        return {};
    return c->name + ": " + *c->reason;
}

const results::Waiver *clause_waiver(const results::Document &doc, const results::Clause &clause)
{
    if (clause.waiver)
        return &*clause.waiver;
    const auto *c = deciding_case(doc, clause);
    return c && c->waiver ? &*c->waiver : nullptr;
}

std::vector<std::string> gate_failures(const results::Document &doc)
{
    std::vector<std::string> out;
    if (doc.run.status != "complete")
        out.push_back("the run is " + doc.run.status + ", not complete");
    for (const auto &c : doc.configurations)
        if (c.status != "complete")
            out.push_back("configuration " + c.name + " is " + c.status + ", not complete" +
                          (text_or(c.error).empty() ? "" : ": " + *c.error));
    if (const auto n = doc.summary ? doc.summary->not_run.size() : 0)
        out.push_back(std::to_string(n) + " clause(s) not decided by any case");
    // The clauses that gate this run (MUST; STRICT too under the strict gate), by kind, then verdict.
    const GateMode mode = doc.run.gate_mode();
    std::map<ClauseKind, std::map<std::string, int>> bad;
    int xpass = 0;
    for (const auto &cl : doc.clauses) {
        const auto v = text_or(cl.verdict, "NOT RUN");
        if (gates_on(cl.kind, mode) && v != "PASS" && v != "WAIVED")
            ++bad[cl.kind][v];
        xpass += v == "XPASS";
    }
    for (const auto kind : {ClauseKind::Must, ClauseKind::Strict}) {
        if (!bad.contains(kind))
            continue;
        int total = 0;
        std::string detail;
        for (const auto &[v, n] : bad[kind]) {
            total += n;
            detail += (detail.empty() ? "" : ", ") + std::to_string(n) + " " + v;
        }
        out.push_back(std::to_string(total) + " " + name_of(kind) + " clause(s) neither PASS nor WAIVED (" + detail +
                      ")");
    }
    if (xpass)
        out.push_back(std::to_string(xpass) + " unexpected pass(es): stale expectations");
    // Properties and litmus tests count as the gate counts them (hcts::item_gates): a
    // counterexample by the kind of the clause it breaks, else by the clauses checked.
    std::map<std::string, ClauseKind> kind_of;
    for (const auto &cl : doc.clauses)
        kind_of[cl.id] = cl.kind;
    const auto only_strict = [&kind_of](const std::vector<std::string> &ids) {
        return !ids.empty() && std::all_of(ids.begin(), ids.end(), [&kind_of](const std::string &id) {
            const auto it = kind_of.find(id);
            return it != kind_of.end() && it->second == ClauseKind::Strict;
        });
    };
    const auto gated_failure = [&](Verdict v, const results::FailedClause *failed,
                                   const std::vector<std::string> &clauses) {
        const bool with_clause = v == Verdict::Fail && failed != nullptr && !failed->kind.empty();
        return fails_gate(v) && item_gates(with_clause, failed ? failed->kind : "", only_strict(clauses), mode);
    };
    int props = 0, litmus = 0;
    std::string departed;
    for (const auto &p : doc.properties) {
        props += gated_failure(p.verdict, p.failed_clause ? &*p.failed_clause : nullptr, p.clauses);
        for (const auto &d : p.departures)
            if (gates_on(d.kind, mode, /*unknown_gates=*/true))
                departed += (departed.empty() ? "" : ", ") + p.name + " from " + d.clause;
    }
    for (const auto &l : doc.litmus)
        litmus += gated_failure(l.verdict, nullptr, l.clauses);
    if (props)
        out.push_back(std::to_string(props) + " propert" + (props == 1 ? "y" : "ies") + " falsified");
    if (litmus)
        out.push_back(std::to_string(litmus) + " litmus test(s) failed");
    if (!departed.empty())
        out.push_back("departures from gating clauses: " + departed);
    std::string ratios;
    if (doc.bench && doc.bench->baseline)
        for (const auto &c : doc.bench->baseline->checks)
            if (!c.held)
                ratios += (ratios.empty() ? "" : ", ") + c.id;
    if (!ratios.empty())
        out.push_back("bench baseline ratio(s) out of bounds: " + ratios);
    return out;
}

std::vector<std::string> gate_failures(const nlohmann::json &doc) { return gate_failures(results::read_document(doc)); }

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
