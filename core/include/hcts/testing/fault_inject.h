// Fault injection for the tests that no exception crosses a library's C ABI:
// linked into a test program (the hcts::fault_inject object library, with the program's
// symbols exported), it replaces operator new and pthread_create for the whole process,
// the libraries under test included. Armed, the n-th allocation from then on throws
// std::bad_alloc (the nothrow forms return null), or the n-th thread creation fails with
// EAGAIN (std::thread then throws std::system_error). Counts every thread of the process.
#pragma once

#include <cstdint>

namespace hcts::fault {

// From now on, the n-th allocation (1-based) fails; 0 disarms.
void fail_nth_allocation(uint64_t n);
// From now on, the n-th pthread_create (1-based) fails; 0 disarms.
void fail_nth_thread(uint64_t n);
// Disarms both; returns whether an armed failure was injected since the last arm.
bool disarm();

} // namespace hcts::fault
