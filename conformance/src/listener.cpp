#include "listener.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <thread>

#include "mpi_glue.h"
#include "options.h"

namespace hcts {

namespace {

using Clock = std::chrono::steady_clock;

// Turns a case that outlives its deadline into TIMEOUT: rank 0 records it and
// ends the job (mpirun then stops every rank); no hang survives a case.
class Watchdog {
  public:
    explicit Watchdog(Results *results) : results_(results), thread_([this] { loop(); }) {}
    ~Watchdog()
    {
        {
            std::lock_guard lock(mu_);
            stop_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    void arm(const CaseInfo *info)
    {
        std::lock_guard lock(mu_);
        info_ = info;
        started_ = Clock::now();
        deadline_ = started_ + std::chrono::seconds(options().case_timeout_s);
        cv_.notify_all();
    }
    void disarm()
    {
        std::lock_guard lock(mu_);
        info_ = nullptr;
    }
    // Called from a fatal signal on rank 0: best effort, the process is dying anyway.
    void crash(int sig)
    {
        if (results_ != nullptr && info_ != nullptr) {
            results_->add_broken_case(*info_, Verdict::Crash, "signal " + std::to_string(sig) + " during the case",
                                      0);
            results_->finish("aborted");
        }
    }

  private:
    void loop()
    {
        std::unique_lock lock(mu_);
        while (!stop_) {
            if (info_ == nullptr) {
                cv_.wait(lock);
                continue;
            }
            if (cv_.wait_until(lock, deadline_) == std::cv_status::timeout && info_ != nullptr &&
                Clock::now() >= deadline_) {
                const double ms = std::chrono::duration<double, std::milli>(Clock::now() - started_).count();
                std::fprintf(stderr, "hcts[rank %d]: case %s passed its %u s deadline; ending the run\n",
                             ranks::rank(), info_->name.c_str(), options().case_timeout_s);
                if (results_ != nullptr) {
                    results_->add_broken_case(*info_, Verdict::Timeout,
                                              "no verdict within " + std::to_string(options().case_timeout_s) +
                                                  " s (watchdog)",
                                              ms);
                    results_->finish("aborted");
                } else {
                    // Give rank 0 the chance to record the timeout first.
                    std::this_thread::sleep_for(std::chrono::seconds(3));
                }
                std::_Exit(3);
            }
        }
    }
    Results *results_;
    std::mutex mu_;
    std::condition_variable cv_;
    const CaseInfo *info_ = nullptr;
    Clock::time_point started_{}, deadline_{};
    bool stop_ = false;
    std::thread thread_;
};

Watchdog *g_watchdog = nullptr;

void on_fatal_signal(int sig)
{
    if (g_watchdog != nullptr)
        g_watchdog->crash(sig);
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

class Listener : public testing::EmptyTestEventListener {
  public:
    explicit Listener(Results *results) : results_(results), watchdog_(results) { g_watchdog = &watchdog_; }
    ~Listener() override { g_watchdog = nullptr; }

    void OnTestStart(const testing::TestInfo &t) override
    {
        const std::string name = std::string(t.test_suite_name()) + "." + t.name();
        info_ = find_case(name);
        if (info_ == nullptr) {
            fallback_ = CaseInfo{name, {}};
            info_ = &fallback_;
        }
        Case::begin(*info_);
        started_ = Clock::now();
        watchdog_.arm(info_);
    }

    void OnTestEnd(const testing::TestInfo &t) override
    {
        const testing::TestResult &r = *t.result();
        std::string first_failure;
        for (int i = 0; i < r.total_part_count(); ++i)
            if (r.GetTestPartResult(i).failed()) {
                first_failure = r.GetTestPartResult(i).summary();
                break;
            }
        if (auto nl = first_failure.find('\n'); nl != std::string::npos)
            first_failure.resize(nl);
        const auto mine = Case::current().to_json(r.Failed(), first_failure).dump();
        Case::end();
        const auto all = ranks::gather(mine);
        watchdog_.disarm();
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - started_).count();
        if (results_ != nullptr) {
            std::vector<nlohmann::json> per_rank;
            for (const auto &s : all)
                per_rank.push_back(nlohmann::json::parse(s));
            const auto [verdict, reason] = results_->add_case(*info_, per_rank, ms);
            std::printf("hcts: %-13s %s (%.0f ms)%s%s\n", verdict.c_str(), info_->name.c_str(), ms,
                        reason.empty() ? "" : " - ", reason.c_str());
            std::fflush(stdout);
        }
    }

  private:
    Results *results_;
    Watchdog watchdog_;
    const CaseInfo *info_ = nullptr;
    CaseInfo fallback_;
    Clock::time_point started_{};
};

} // namespace

void install_listener(Results *results)
{
    auto &listeners = testing::UnitTest::GetInstance()->listeners();
    // One line per case from rank 0 (below) replaces GoogleTest's printer on
    // every rank; failure details are in results.json with the rank that saw them.
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new Listener(results));
    if (results != nullptr)
        for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
            std::signal(sig, on_fatal_signal);
}

} // namespace hcts
