// The comparison matrix of several runs ("passed by k of n implementations").
#pragma once

#include <span>
#include <string>
#include <vector>

#include "results_io.h"

namespace hcts::report {

struct ComparisonRow {
    std::string clause_id, title, kind;
    std::vector<std::string> verdicts; // one per run; "" when the run has no such clause
    int passed = 0;                    // runs with PASS or PROFILE (an allowed behaviour observed)
    int present = 0;                   // runs that have the clause at all
};

// Clauses in order of first appearance across the runs.
std::vector<ComparisonRow> compare(std::span<const Run> runs);

bool counts_as_passed(std::string_view verdict);

} // namespace hcts::report
