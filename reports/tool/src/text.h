// Small text helpers shared by the renderers: escaping, the typed results
// document's optional fields as text (a reader shows what it lacks as a fallback),
// and what the renderers derive from a document.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "hcts/core/results_model.h"

namespace hcts::report {

std::string html_escape(std::string_view text); // also valid for XML attribute and text
std::string md_escape(std::string_view text);   // for Markdown table cells: | and newlines

// An optional field as text, `fallback` when it is absent or null: strings as they
// are, integers printed, numbers with 3 decimals, verdicts by name.
std::string text_or(const std::optional<std::string> &value, std::string_view fallback = "");
std::string text_or(const std::optional<int64_t> &value, std::string_view fallback = "");
std::string text_or(const std::optional<uint64_t> &value, std::string_view fallback = "");
std::string text_or(const std::optional<double> &value, std::string_view fallback = "");
std::string text_or(const std::optional<Verdict> &value, std::string_view fallback = "");
std::string text_or(const std::optional<GateMode> &value, std::string_view fallback = "");
std::string name_of(Verdict v);
std::string name_of(ClauseKind k);
// Joined by ", "; numbers as JSON writes them.
std::string joined(std::span<const std::string> items);
std::string joined(std::span<const double> items);

// The case of `clause` (in `doc`) that decided its verdict: the first listed
// case whose verdict equals the clause's; null if none (a clause-level verdict).
const results::Case *deciding_case(const results::Document &doc, const results::Clause &clause);
// One line on why a clause has its verdict: its own reason, else "case: reason"
// of the deciding case, else "".
std::string clause_reason(const results::Document &doc, const results::Clause &clause);
// The waiver that made a clause WAIVED or XPASS: its own, else its deciding case's; null if none.
const results::Waiver *clause_waiver(const results::Document &doc, const results::Clause &clause);

// The coverage table: for each function some clause names (field `functions`),
// the clauses naming it with their verdicts ("NOT RUN" when undecided), by
// function name, clauses in document order.
struct FunctionCoverage {
    std::string function;
    std::vector<std::pair<std::string, std::string>> clauses; // clause id, verdict
};
std::vector<FunctionCoverage> function_coverage(const results::Document &doc);

// Why a run's gate fails, one short phrase per reason (empty when it passes),
// following the rule in reports/schema/README.md (the gate rule of clause_kind.h).
std::vector<std::string> gate_failures(const results::Document &doc);
std::vector<std::string> gate_failures(const nlohmann::json &doc);

// The time renderings and bundles state: SOURCE_DATE_EPOCH when it is set (the
// reproducible-builds.org convention, for byte-identical output), else `fallback`.
// Throws std::runtime_error naming the value when it is not a whole number >= 0.
long long source_date_epoch_or(long long fallback);
std::string format_utc(long long seconds_since_1970); // "2026-11-29T09:00:00Z"

std::string format_seconds(double seconds); // "0.012 s", "3.4 s", "2 min 5 s"
std::string format_fixed(double value, int decimals);

} // namespace hcts::report
