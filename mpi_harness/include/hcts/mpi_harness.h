// hcts MPI harness: run a GoogleTest program under mpirun with one verdict per
// case agreed by all ranks, a per-case watchdog, deadline-bounded phase barriers
// and rank-0-only console output. Everything a test program needs is here.
//
// Contract with the ranks: every rank runs the same cases in the same order (same
// binary, same --gtest_filter). Phase synchronisation goes over MPI, never
// through the implementation under test.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "hcts/core/verdict.h"

#include <chrono>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace hcts::mpi {

// Exit statuses of a harness-run program (mpirun passes the first non-zero one
// through). A case failure is 1, like plain GoogleTest.
inline constexpr int kExitPass = 0;
inline constexpr int kExitFail = 1;
inline constexpr int kExitUsage = 2;      // bad harness environment or options
inline constexpr int kExitTimeout = 124;  // a watchdog or phase-barrier deadline expired (MPI_Abort)
inline constexpr int kExitInternal = 125; // MPI itself failed inside the harness (e.g. a rank was lost)
// A rank terminated by SIGTERM/SIGINT/SIGHUP exits with 128 + the signal number
// after recording; mpirun then usually reports the first rank's death instead.

// A case's agreed verdict is one of the suite's verdicts (hcts/core/verdict.h):
// PASS, NOT_SUPPORTED (GoogleTest skipped it), FAIL, TIMEOUT, or CRASH (the job
// ended while the case ran: rank 0 got a fatal signal, or the launcher's SIGTERM
// after another rank died or an interrupt; rank 0 records it before it exits).
using hcts::Verdict;

struct RankMessage {
    int rank;
    std::string text; // "file:line: message" as GoogleTest reported it on that rank
};

// One finished case as rank 0 sees it after agreement.
struct CaseResult {
    std::string name;                  // "Suite.Case", "Prefix/Suite.Case/3"
    Verdict verdict;                   // worst over ranks: Crash > Timeout > Fail > NotSupported > Pass
    double duration_ms;                // longest test-body time over the ranks that reported
    std::vector<RankMessage> messages; // every rank's failure/skip messages, rank order
    std::vector<int> silent_ranks;     // ranks that never reported (only with Timeout, Crash)
    // What Options::case_payload returned on each rank, by rank ("" if none or
    // the rank never reported): e.g. each rank's observations as JSON.
    std::vector<std::string> payloads;
    int index; // 1-based position in this run
    int total; // cases selected to run
};

struct Options {
    // Deadline of each case, from its start until every rank agreed on its verdict.
    // Default: $HCTS_CASE_DEADLINE_S seconds if set, else 120 s.
    std::chrono::milliseconds case_deadline{0};
    // After a watchdog expiry, ranks other than 0 wait this long for rank 0 to
    // record the TIMEOUT and abort the job before aborting it themselves.
    std::chrono::milliseconds abort_grace{3000};
    // Per-rank logs (rank-R.log) and watchdog diagnostics (rank-R.diagnostics.txt).
    // Default: $HCTS_MPI_LOG_DIR if set, else "hcts-mpi-logs" in the working directory.
    std::string log_dir;
    // Send the stdout of ranks other than 0 to their log file (stderr is kept).
    bool quiet_other_ranks = true;
    // Every rank, at the end of each case before the agreement: a string that is
    // carried to rank 0 and shows up in CaseResult::payloads (observations, stamps
    // seen, the case's own verdict detail). Runs on the main thread.
    std::function<std::string(const testing::TestInfo &)> case_payload;
    // Rank 0 only, called on the main thread after each agreed case, or on the
    // watchdog thread for a TIMEOUT (then on_abort follows and the job ends).
    std::function<void(const CaseResult &)> on_case;
    // Rank 0 only, just before the harness aborts the job; reason is one line.
    std::function<void(std::string_view reason)> on_abort;
};

// Owns MPI (MPI_Init_thread with MPI_THREAD_MULTIPLE, MPI_Finalize) and GoogleTest
// initialisation. Construct it first in main; between construction and run() the
// program may use MPI (e.g. bootstrap its communicator over MPI_COMM_WORLD).
class Harness {
  public:
    Harness(int &argc, char **&argv, Options options = {});
    ~Harness();
    Harness(const Harness &) = delete;
    Harness &operator=(const Harness &) = delete;

    // Runs the selected cases with the MPI listener and watchdog; returns the exit
    // status, the same on every rank (kExitFail if any agreed verdict was FAIL).
    int run();

    int rank() const;
    int size() const;
};

// The whole main of a test program: `return hcts::mpi::run_main(argc, argv);`.
int run_main(int &argc, char **&argv, Options options = {});

// --- For use inside a running case. Without a Harness: rank() and size() ask MPI
// (0 and 1 before MPI_Init), the others do nothing. ---

int rank();
int size();
// The communicator for the test's own MPI traffic (MPI_COMM_WORLD). The harness's
// agreement traffic runs on a private duplicate, so the two never mix.
MPI_Comm comm();
// The host name of every rank, by rank, gathered when the Harness started
// (for results.json's environment.hosts). Empty without a Harness.
const std::vector<std::string> &hosts();

// Overrides the running case's deadline, counted from the case's start.
void set_case_deadline(std::chrono::milliseconds deadline);
// Changes the default deadline of the cases that start from now on (e.g. from
// the program's own --case-timeout option, parsed after the Harness started).
// Throws std::invalid_argument unless 0 < deadline <= 24 h.
void set_default_case_deadline(std::chrono::milliseconds deadline);

// Waits until every rank reached the same phase barrier. If that does not happen
// within `timeout` (or, without one, before the case deadline), the case ends as
// TIMEOUT with diagnostics and the job is aborted with kExitTimeout: a rank that
// missed a barrier leaves no way to continue safely. Never busy-waits.
void phase_barrier(std::string_view phase, std::chrono::milliseconds timeout);
void phase_barrier(std::string_view phase);

// Collectives for a case's own decisions and data, on the harness's private
// communicator, each bounded like a phase barrier: by `timeout`, or without one
// by the running case's deadline. A rank that does not arrive ends the case as
// TIMEOUT and aborts the job. Every rank calls them in the same order. Without
// a Harness (a unit test of a checking function) they act for a world of one
// rank: all_ranks(x) == x, gather_to_root(s) == {s}.
bool all_ranks(bool mine, std::string_view what);
bool any_rank(bool mine, std::string_view what);
int64_t max_over_ranks(int64_t mine, std::string_view what);
void broadcast(std::span<std::byte> data, int root, std::string_view what);
// Every rank's string on rank 0, by rank; an empty vector on the others.
std::vector<std::string> gather_to_root(std::string_view mine, std::string_view what);

// Diagnostics for the watchdog: on expiry each rank calls every registered
// provider (on the watchdog thread, while the test thread may be stuck, so a
// provider must not wait for locks the test may hold) and writes what it
// prints, e.g. the last hcomm call with its arguments and the notify states.
using DiagnosticsProvider = std::function<void(std::ostream &)>;

class DiagnosticsRegistration {
  public:
    DiagnosticsRegistration(std::string title, DiagnosticsProvider provider);
    ~DiagnosticsRegistration();
    DiagnosticsRegistration(const DiagnosticsRegistration &) = delete;
    DiagnosticsRegistration &operator=(const DiagnosticsRegistration &) = delete;

  private:
    int id_;
};

} // namespace hcts::mpi
