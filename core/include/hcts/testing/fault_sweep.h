// The sweep every library's fault-injection test runs (hcts/testing/fault_inject.h): one
// C entry point at a time, its 1st, 2nd, ... allocation (or thread creation) failing, each
// run in a child process under a deadline, until the call no longer reaches the n-th.
// Every run must end with the call returning success or one of its API's error codes: no
// exception across the C ABI, no abort, no hang, and (the child leaves through exit(),
// so under asan LeakSanitizer looks) no leak.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hcts::fault {

enum class Fault { allocation, thread };

// setup and cleanup run unfaulted; call runs with the fault armed and returns the API's code
// (0 for success; a pointer-returning call maps its null result to errno, say).
struct Scenario {
    std::string name;
    std::function<void()> setup;
    std::function<long()> call;
    std::function<void()> cleanup;
};

struct SweepResult {
    uint64_t injected = 0; // runs in which the n-th event was reached and failed
    std::string failure;   // the first run that did not end in a code, said; empty: none
};

// `is_code(rc)`: rc is success or an error code of the API. `limit` bounds n.
SweepResult sweep(const Scenario &s, Fault fault, uint64_t limit, const std::function<bool(long)> &is_code,
                  std::chrono::seconds deadline = std::chrono::seconds(30));

// sweep() of each scenario in turn, a line each on stdout ("NAME: N allocation failures
// injected"); the results in the scenarios' order.
std::vector<SweepResult> sweep_each(const std::vector<Scenario> &scenarios, Fault fault, uint64_t limit,
                                    const std::function<bool(long)> &is_code);

} // namespace hcts::fault
