// mpi_driver.h: lockstep execution under MPI (mpi_harness/launch), one rank per process.
//
// Rank 0 runs RapidCheck with an MpiDriver: every Driver call is broadcast to
// all processes, the process owning the op's rank executes it on its local
// driver, and the result comes back to rank 0, which judges it with the model.
// Shrinking reruns whole cases, so every replay runs on all ranks too. The
// other processes run serve_mpi_driver() until rank 0 finishes. MPI carries only
// this control traffic, never the data under test.
#pragma once

#include <memory>

#include "driver/driver.h"

namespace hcts::prop {

// On rank 0: wraps `local` (which owns rank 0) so that ops of other ranks run
// on their processes.
std::unique_ptr<Driver> make_mpi_driver(Driver &local);
// On ranks > 0: executes what rank 0 sends until it says stop.
void serve_mpi_driver(Driver &local);
// On rank 0, when done: releases the servers.
void stop_mpi_servers();

} // namespace hcts::prop
