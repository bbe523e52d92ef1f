// Running one program of the self-test (a conformance launch, a ctest, a results
// check) to a deadline, with nothing of it left behind: the runner's only fork/exec.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace hcts::selftest {

// A program and the environment words it gets on top of the runner's own.
struct Command {
    std::vector<std::pair<std::string, std::string>> env;
    std::vector<std::string> argv; // argv[0]: a path, not looked up in PATH
    // As a shell would take it (quoted): the reproducer printed for an entry.
    std::string text() const;
};

struct SpawnResult {
    enum class End {
        Exited,     // ended by itself (any status) before the deadline
        TimedOut,   // the deadline passed: it and everything it started were killed
        NotStarted, // no command, or fork failed
    };
    End end = End::NotStarted;
    int exit_code = 0; // its status; 128+signal when a signal ended it; 127 when exec failed
    std::string note;  // why it did not start, or the deadline it passed
};

// Runs `c` in a process group of its own with stdout and stderr in `log`; at the
// deadline the group gets SIGTERM (mpirun then stops its ranks itself), then SIGKILL
// after a 10 s grace, and so does every process it started in groups of their own
// (MPI ranks). Safe to call from several threads at once: the child only makes
// async-signal-safe calls between fork and exec.
SpawnResult spawn_and_wait(const Command &c, const std::string &log, std::chrono::seconds deadline);

} // namespace hcts::selftest
