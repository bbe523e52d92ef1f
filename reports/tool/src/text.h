// Small text helpers shared by the renderers: escaping and tolerant access to
// optional fields of a results document (a reader ignores what it lacks).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace hcts::report {

std::string html_escape(std::string_view text); // also valid for XML attribute and text
std::string md_escape(std::string_view text);   // for Markdown table cells: | and newlines

// obj[key] as text: strings as they are, numbers and booleans printed, anything else `fallback`.
std::string field(const nlohmann::json &obj, std::string_view key, std::string_view fallback = "");
// A value from a list in a document as text: a string as it is, anything else as JSON.
std::string text_of(const nlohmann::json &value);
// The elements of an array as text_of() gives them, joined by ", ".
std::string joined(const nlohmann::json &array);
// obj[key] when it is an object / array, else an empty one.
const nlohmann::json &object_at(const nlohmann::json &obj, std::string_view key);
const nlohmann::json &array_at(const nlohmann::json &obj, std::string_view key);

// The case of `clause` (in `doc`) that decided its verdict: the first listed
// case whose verdict equals the clause's; null if none (a clause-level verdict).
const nlohmann::json *deciding_case(const nlohmann::json &doc, const nlohmann::json &clause);
// One line on why a clause has its verdict: its own reason, else "case: reason"
// of the deciding case, else "".
std::string clause_reason(const nlohmann::json &doc, const nlohmann::json &clause);
// The waiver that made a clause WAIVED or XPASS: its own, else its deciding case's.
const nlohmann::json &clause_waiver(const nlohmann::json &doc, const nlohmann::json &clause);

// The coverage table: for each function some clause names (field `functions`),
// the clauses naming it with their verdicts ("NOT RUN" when undecided), by
// function name, clauses in document order.
struct FunctionCoverage {
    std::string function;
    std::vector<std::pair<std::string, std::string>> clauses; // clause id, verdict
};
std::vector<FunctionCoverage> function_coverage(const nlohmann::json &doc);

// Why a run's gate fails, one short phrase per reason (empty when it passes),
// following the rule in reports/schema/README.md.
std::vector<std::string> gate_failures(const nlohmann::json &doc);

// The time renderings and bundles state: SOURCE_DATE_EPOCH when it is set (the
// reproducible-builds.org convention, for byte-identical output), else `fallback`.
// Throws std::runtime_error naming the value when it is not a whole number >= 0.
long long source_date_epoch_or(long long fallback);
std::string format_utc(long long seconds_since_1970); // "2026-11-29T09:00:00Z"

std::string format_seconds(double seconds); // "0.012 s", "3.4 s", "2 min 5 s"
std::string format_fixed(double value, int decimals);

} // namespace hcts::report
