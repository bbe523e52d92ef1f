// What one rank's process spent: CPU time (user + system, every thread) and
// context switches (voluntary + involuntary), from getrusage(RUSAGE_SELF).
// Per operation they stay meaningful on a loaded machine, where wall time does not.
#pragma once

namespace hcts::bench {

struct Usage {
    double cpu_s = 0;
    double switches = 0;
};

Usage usage_now();
Usage operator-(const Usage &a, const Usage &b);

} // namespace hcts::bench
