// Console lines of rank 0, in GoogleTest's style so people and tools read them
// the same way.
#pragma once

#include "hcts/mpi_harness.h"

#include <string>

namespace hcts::mpi::detail {

CaseResult make_result(const struct CaseState &cs, Verdict verdict, double duration_ms);
std::string format_case_end(const CaseResult &r);

} // namespace hcts::mpi::detail
