#include "runtime.h"

#include "backtrace.h"
#include "hcts/core/settings.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace hcts::mpi::detail {
namespace {

Runtime *g_current = nullptr;

std::chrono::milliseconds deadline_from_env()
{
    // A decimal number: parsed here (strtod), the only such setting.
    const std::string s(settings::raw(suite_settings::case_deadline_s).value_or(""));
    if (s.empty())
        return std::chrono::seconds(120);
    char *end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (*end != '\0' || !(v > 0) || v > 86400) {
        throw std::invalid_argument(std::string("HCTS_CASE_DEADLINE_S='") + s +
                                    "' is not a number of seconds in (0, 86400]");
    }
    return std::chrono::milliseconds(static_cast<long long>(v * 1000));
}

std::string hostname()
{
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0)
        return "?";
    return buf;
}

} // namespace

Runtime *Runtime::current() { return g_current; }

Runtime::Runtime(Options options, int rank, int size)
    : options_(std::move(options)), rank_(rank), size_(size), host_(hostname())
{
    if (options_.case_deadline.count() <= 0)
        options_.case_deadline = deadline_from_env();
    if (options_.log_dir.empty()) {
        options_.log_dir = settings::get_path(suite_settings::mpi_log_dir).value;
    }
    std::filesystem::create_directories(options_.log_dir);
    log_path_ = options_.log_dir + "/rank-" + std::to_string(rank_) + ".log";
    log_ = std::fopen(log_path_.c_str(), "w");
    if (!log_)
        throw std::runtime_error("cannot open the rank log '" + log_path_ + "' for writing");
    if (rank_ != 0 && options_.quiet_other_ranks) {
        std::fflush(stdout);
        ::dup2(::fileno(log_), STDOUT_FILENO);
    }
    // A private communicator keeps the harness's messages apart from the test's,
    // and errors on it come back as codes instead of killing the rank outright.
    MPI_Comm_dup(MPI_COMM_WORLD, &ctl_);
    MPI_Comm_set_errhandler(ctl_, MPI_ERRORS_RETURN);
    install_backtrace_handler();
    diagnostics_path().copy(crash_path_, sizeof crash_path_ - 1);
    g_current = this;
    watchdog_ = std::thread([this] { watchdog_loop(); });
    signals_ = std::thread([this] { signal_loop(); });
}

Runtime::~Runtime()
{
    {
        std::lock_guard lk(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    watchdog_.join();
    stopping_signals_ = true;
    ::pthread_kill(signals_.native_handle(), SIGTERM);
    signals_.join();
    g_current = nullptr;
    if (ctl_ != MPI_COMM_NULL)
        MPI_Comm_free(&ctl_);
    if (log_)
        std::fclose(log_);
}

void Runtime::log(std::string_view line)
{
    std::fprintf(log_, "%.*s\n", static_cast<int>(line.size()), line.data());
    std::fflush(log_);
}

void Runtime::say(std::string_view line)
{
    if (rank_ == 0) {
        std::fprintf(stdout, "%.*s\n", static_cast<int>(line.size()), line.data());
        std::fflush(stdout);
    }
    log(line);
}

void Runtime::open_case(std::string name, int index, int total)
{
    {
        std::lock_guard lk(mu_);
        case_ = CaseState{};
        case_.open = true;
        case_.name = std::move(name);
        case_.index = index;
        case_.total = total;
        case_.start = Clock::now();
        case_.deadline = case_.start + options_.case_deadline;
        case_.reports.assign(static_cast<size_t>(size_), RankReport{});
    }
    cv_.notify_all();
}

void Runtime::set_deadline(std::chrono::milliseconds from_start)
{
    {
        std::lock_guard lk(mu_);
        if (!case_.open)
            return;
        case_.deadline = case_.start + from_start;
    }
    cv_.notify_all();
}

void Runtime::add_own_message(RankMessage m)
{
    std::lock_guard lk(mu_);
    case_.own_messages.push_back(std::move(m));
}

bool Runtime::close_case()
{
    {
        std::lock_guard lk(mu_);
        if (expired_)
            return false;
        case_.open = false;
    }
    cv_.notify_all();
    return true;
}

void Runtime::claim_end()
{
    {
        std::lock_guard lk(mu_);
        if (!expired_) {
            expired_ = true;
            return;
        }
    }
    park();
}

void Runtime::record_report(int from, RankReport report, std::vector<RankMessage> messages)
{
    std::lock_guard lk(mu_);
    report.received = true;
    case_.reports.at(static_cast<size_t>(from)) = report;
    for (auto &m : messages)
        case_.peer_messages.push_back(std::move(m));
}

CaseState Runtime::snapshot()
{
    std::lock_guard lk(mu_);
    return case_;
}

void Runtime::watchdog_loop()
{
    std::unique_lock lk(mu_);
    while (!stop_) {
        if (!case_.open) {
            cv_.wait(lk);
            continue;
        }
        const auto deadline = case_.deadline;
        if (Clock::now() < deadline) {
            cv_.wait_until(lk, deadline);
            continue;
        }
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - case_.start);
        std::string reason = "watchdog: case deadline of " + std::to_string(ms.count()) + " ms expired";
        if (expired_)
            return;      // someone else ends the job
        expired_ = true; // claimed under the lock: the case cannot close now
        lk.unlock();
        finish_expired(reason, kExitTimeout);
    }
}

namespace {

sigset_t termination_signals()
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGHUP);
    return s;
}

} // namespace

void Runtime::block_termination_signals()
{
    const sigset_t s = termination_signals();
    ::pthread_sigmask(SIG_BLOCK, &s, nullptr);
}

void Runtime::signal_loop()
{
    const sigset_t s = termination_signals();
    for (;;) {
        int sig = 0;
        if (::sigwait(&s, &sig) != 0)
            continue;
        if (stopping_signals_)
            return;
        terminated(sig);
    }
}

void Runtime::park()
{
    for (;;)
        std::this_thread::sleep_for(std::chrono::seconds(1));
}

} // namespace hcts::mpi::detail
