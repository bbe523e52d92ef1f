// The interleaved run: for each size and test, sample after sample, every
// method in turn, so a change of machine load touches them all alike.
#pragma once

#include <memory>
#include <vector>

#include "measurement.h"
#include "method.h"
#include "options.h"

namespace hcts::bench {

// Collective. A method that fails on any rank (an exception, agreed over MPI)
// keeps its error and is not sampled again. Progress lines go to stderr on rank 0.
std::vector<Measurement> run_all(const Options &o, std::vector<std::unique_ptr<Method>> &methods, int rank);

} // namespace hcts::bench
