// The kinds of clause of the catalogue (conformance/spec/clauses.yaml, results-v1
// clauses[].kind) and the gate rule: which kinds gate a run. The one statement of
// that rule; the gate (gate.cpp), the report's gate explanation (reports/tool) and
// the self-test's judge (selftest/runner) all call it.
#pragma once

#include <optional>
#include <string_view>

namespace hcts {

enum class ClauseKind {
    Must,    // any conforming implementation shows it; a violation fails
    Profile, // the documents leave it open: observed and reported, never gates
    Strict,  // the reference's stricter choice: gates only under the strict gate
};

// Which clauses gate a run (results-v1 run.gate / summary.gate_mode).
enum class GateMode {
    Default, // MUST clauses
    Strict,  // MUST and STRICT clauses
};

constexpr std::string_view clause_kind_name(ClauseKind k)
{
    switch (k) {
    case ClauseKind::Must: return "MUST";
    case ClauseKind::Profile: return "PROFILE";
    case ClauseKind::Strict: return "STRICT";
    }
    return "MUST";
}
std::optional<ClauseKind> parse_clause_kind(std::string_view name);
inline constexpr std::string_view kClauseKindNames = "MUST, PROFILE, STRICT";

constexpr std::string_view gate_mode_name(GateMode m) { return m == GateMode::Strict ? "strict" : "default"; }
std::optional<GateMode> parse_gate_mode(std::string_view name);
inline constexpr std::string_view kGateModeNames = "default, strict";

// The gate rule: a clause of this kind gates a run: MUST always, STRICT under the
// strict gate, PROFILE never.
constexpr bool gates_on(ClauseKind kind, GateMode mode)
{
    return kind == ClauseKind::Must || (kind == ClauseKind::Strict && mode == GateMode::Strict);
}
// The same for a kind spelled as text. A clause's kind that is not one of the three
// gates nothing (`unknown_gates` false); a kind a property names for the rule it
// broke (failed_clause, departures) that is not one of them gates (`unknown_gates` true):
// a broken rule of unknown standing is not waved through.
bool gates_on(std::string_view kind, GateMode mode, bool unknown_gates = false);

// Whether a property's or litmus test's verdict counts for the gate. A FAIL that names the
// clause its counterexample breaks (failed_clause) counts as that clause's kind gates;
// otherwise it counts unless every clause it checks is STRICT (`only_strict_clauses`),
// which count only under the strict gate.
bool item_gates(bool fail_with_failed_clause, std::string_view failed_kind, bool only_strict_clauses, GateMode mode);

} // namespace hcts
