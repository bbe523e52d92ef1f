// Backtraces of every thread of this process, for the watchdog's diagnostics.
#pragma once

namespace hcts::mpi::detail {

// Installs the signal handler the dump uses; call once, early, from one thread.
void install_backtrace_handler();

// Writes a symbolised backtrace of each thread of the process to fd. Threads
// that block the signal or do not answer within a short time are listed as such.
void dump_all_backtraces(int fd);

// The calling thread's stack only; async-signal-safe once the handler is installed.
void dump_own_backtrace(int fd);

} // namespace hcts::mpi::detail
