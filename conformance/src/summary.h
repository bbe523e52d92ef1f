// The console summary of a results.json: counts by verdict, the clauses that
// did not pass with one-line reasons, the gate. Used by `./hcts run`.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace hcts {
// Prints the summary; returns 0 when the gate passed, 1 when it failed, 2 when
// the file is unreadable or not a complete run.
int print_summary(const std::string &path);

// The line a conformance run ends with. A whole run: its gate. A subset of the
// cases (summary.not_run is not empty) leaves clauses undecided, so its gate is
// no verdict: it says what it judged instead ("segment: 63 clauses judged, 0
// failing"), and the merged run's gate is the one verdict.
void print_outcome(const nlohmann::json &results, const std::string &configuration, const std::string &path);

// The exit status of a conformance run: 0 when its gate passed, 1 when not. A subset
// (summary.not_run not empty) exits by what it judged (summary.judged): its own gate
// is no verdict, and a status 1 would read as a failure in a run that passes.
int outcome_status(const nlohmann::json &results);
} // namespace hcts
