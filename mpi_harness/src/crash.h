// Fatal signals of a rank (a crash in the code under test) become a CRASH
// verdict instead of a silent death.
#pragma once

namespace hcts::mpi::detail {

// Installs the handlers (after MPI_Init, so they run before Open MPI's own,
// which they then hand over to). Keeps an alternate stack for stack overflows.
void install_crash_handlers();

} // namespace hcts::mpi::detail
