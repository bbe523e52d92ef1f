// focus.h: the cases a focused mutant run needs.
//
// In CI (--focus) a mutant with declared clauses runs only the suite's cases that
// name one of them, instead of the whole suite: the run still proves each declared
// kill, and every other clause those cases judge must still PASS, but a clause no
// chosen case judges is not looked at. `./hcts selftest` runs every case, so a
// new case that also kills an old mutant is still noticed there.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "catalogue.h"

namespace hcts::selftest {

struct CaseClauses {
    std::string name; // GoogleTest's Suite.Case
    std::vector<std::string> clauses;
};

// Reads `hcts-conformance --list-cases` ("Suite.Case ID,ID" per line). Throws
// std::runtime_error naming the line when one is not of that form.
std::vector<CaseClauses> parse_case_list(std::string_view text);

// The clauses a focused run of `e` must judge: fails, not_supported, errors and may_fail.
std::vector<std::string> focus_clauses(const Entry &e);

// The GoogleTest filter of the cases naming any of `e`'s focus clauses, in the
// suite's order; empty when `e` declares none or no case names them (the whole
// suite runs then).
std::string focus_filter(const Entry &e, const std::vector<CaseClauses> &cases);

// The names of a ':'-separated list of cases (an entry's focus_cases) that are not
// in `cases`, comma-separated; empty when every one is.
std::string unknown_cases(std::string_view names, const std::vector<CaseClauses> &cases);

} // namespace hcts::selftest
