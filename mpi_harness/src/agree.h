// Agreement on one case's verdict: every rank reports to rank 0, rank 0 takes
// the worst verdict and sends it back, so all ranks count the same failures.
#pragma once

#include "hcts/mpi_harness.h"
#include "wire.h"

namespace hcts::mpi::detail {

class Runtime;

// Collective over the runtime's ranks. On rank 0 fills *result (may be null
// elsewhere). A rank whose peers never answer is ended by the watchdog.
Verdict agree(Runtime &rt, const Report &mine, CaseResult *result);

} // namespace hcts::mpi::detail
