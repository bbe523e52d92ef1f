// The suite's own use of MPI: phase synchronisation and gathering results, never
// through the implementation under test. Kept in one file so it can be replaced
// by mpi_harness/ when that lands. Without mpirun the suite runs as one rank.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hcts::ranks {

void init(int *argc, char ***argv);
void finalize();
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
