// The one harness instance of a process: options, the private control
// communicator, the running case and the watchdog. Internal to the library.
#pragma once

#include "hcts/mpi_harness.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace hcts::mpi::detail {

using Clock = std::chrono::steady_clock;

// What rank 0 knows about one rank's end of a case.
struct RankReport {
    bool received = false;
    Verdict verdict = Verdict::Pass;
    double elapsed_ms = 0;
    std::string payload;
};

struct CaseState {
    bool open = false;
    std::string name;
    int index = 0;
    int total = 0;
    Clock::time_point start{};
    Clock::time_point deadline{};
    std::vector<RankMessage> own_messages;  // this rank's failures and skips
    std::vector<RankReport> reports;        // rank 0: per rank, as received
    std::vector<RankMessage> peer_messages; // rank 0: from the other ranks
};

class Runtime {
  public:
    // Blocks the termination signals in the calling thread, so that every thread
    // created afterwards (MPI's too) leaves them to the runtime's signal thread.
    // Call before MPI_Init.
    static void block_termination_signals();

    Runtime(Options options, int rank, int size);
    ~Runtime();
    Runtime(const Runtime &) = delete;
    Runtime &operator=(const Runtime &) = delete;

    static Runtime *current();

    const Options &options() const { return options_; }
    int rank() const { return rank_; }
    int size() const { return size_; }
    MPI_Comm ctl() const { return ctl_; }
    const std::string &host() const { return host_; }
    const std::string &log_path() const { return log_path_; }

    // This rank's log file (every rank), one line each, flushed.
    void log(std::string_view line);
    // Rank 0 only: the console (stdout), flushed; other ranks: the log only.
    void say(std::string_view line);

    // Case lifecycle, driven by the listener on the main thread.
    void open_case(std::string name, int index, int total);
    void set_deadline(std::chrono::milliseconds from_start);
    void add_own_message(RankMessage m);
    // False if the case already ended by expiry (then the caller must not report it).
    [[nodiscard]] bool close_case();
    std::chrono::milliseconds default_deadline() const { return options_.case_deadline; }
    void set_default_deadline(std::chrono::milliseconds d) { options_.case_deadline = d; }

    // Rank 0 while agreeing: record one rank's report.
    void record_report(int from, RankReport report, std::vector<RankMessage> messages);

    // Takes a snapshot of the running case (under the lock).
    CaseState snapshot();

    bool expired() const { return expired_.load(); }
    // Deadline missed (or the harness's own MPI traffic failed): write diagnostics,
    // let rank 0 record TIMEOUT, abort the job with exit_status. Only the first
    // caller proceeds; a later caller parks until the job ends.
    [[noreturn]] void expire(const std::string &reason, int exit_status = kExitTimeout);
    // The launcher is terminating the job (signal sig): rank 0 records the running
    // case as CRASH, every rank leaves diagnostics, then exits with 128 + sig.
    [[noreturn]] void terminated(int sig);
    // A fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) on this rank, from
    // its handler: writes the crashing thread's stack to the diagnostics file and,
    // on rank 0, records the case as CRASH, best effort (an alarm bounds it should
    // the process state be too broken). Returns so the signal's previous handling
    // (Open MPI's, a sanitizer's, or the default) follows.
    void crashed(int sig) noexcept;
    std::string diagnostics_path() const;
    [[noreturn]] static void park();

    // Diagnostics providers (see DiagnosticsRegistration); process-wide, usable
    // before and after the Runtime exists.
    static int add_provider(std::string title, DiagnosticsProvider provider);
    static void remove_provider(int id);

  private:
    void watchdog_loop();
    // Claims the end of the job under the lock, so that the watchdog, a phase
    // barrier, a signal and the normal end of a case never report one case twice.
    // Parks a caller that comes second.
    void claim_end();
    [[noreturn]] void finish_expired(const std::string &reason, int exit_status);
    void write_diagnostics(const std::string &reason, const CaseState &cs);
    void record_end(const std::string &reason, const CaseState &cs, Verdict verdict, int exit_status);
    void signal_loop();

    Options options_;
    int rank_;
    int size_;
    MPI_Comm ctl_ = MPI_COMM_NULL;
    std::string host_;
    std::string log_path_;
    char crash_path_[4096] = {}; // diagnostics_path(), usable from a signal handler
    std::FILE *log_ = nullptr;

    std::mutex mu_;
    std::condition_variable cv_;
    CaseState case_;
    bool stop_ = false;
    std::atomic<bool> expired_{false};

    std::thread watchdog_;
    std::atomic<bool> stopping_signals_{false};
    std::thread signals_;
};

} // namespace hcts::mpi::detail
