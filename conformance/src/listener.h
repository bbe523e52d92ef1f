// The GoogleTest listener that gathers every rank's per-clause findings of each
// case to rank 0, which writes them to results.json. Agreement on the case
// verdict, the per-case watchdog, crash handling and rank-0-only output come
// from mpi_harness/ (hcts::mpi::Harness); its TIMEOUT/CRASH reach results.json
// through record_abnormal().
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "results.h"

namespace hcts {

// Installs the listener. `results` is null on ranks other than 0.
void install_listener(Results *results);

} // namespace hcts
