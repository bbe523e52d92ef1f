// The console summary of a results.json: counts by verdict, the clauses that
// did not pass with one-line reasons, the gate. Used by `./hcts run`.
#pragma once

#include <string>

namespace hcts {
// Prints the summary; returns 0 when the gate passed, 1 when it failed, 2 when
// the file is unreadable or not a complete run.
int print_summary(const std::string &path);
} // namespace hcts
