// The suite's own MPI traffic on MPI_COMM_WORLD: phase synchronisation and
// gathering per-clause findings, never through the implementation under test.
// MPI itself is initialised and finalised by hcts::mpi::Harness (mpi_harness/).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hcts::ranks {

int rank();
int size();
void barrier();
void broadcast(void *data, size_t bytes, int root = 0);
// Logical and/or across ranks (used to agree on decisions before a sync point).
bool all(bool mine);
bool any(bool mine);
int max(int mine);
// Every rank's string, on rank 0 (empty vector elsewhere).
std::vector<std::string> gather(const std::string &mine);
std::vector<std::string> hostnames();
[[noreturn]] void abort(int code);

} // namespace hcts::ranks
