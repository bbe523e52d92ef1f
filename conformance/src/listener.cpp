#include "listener.h"

#include <chrono>
#include <cstdio>

#include "mpi_glue.h"
#include "options.h"

namespace hcts {

namespace {

using Clock = std::chrono::steady_clock;

class Listener : public testing::EmptyTestEventListener {
  public:
    explicit Listener(Results *results) : results_(results) {}

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
    const CaseInfo *info_ = nullptr;
    CaseInfo fallback_;
    Clock::time_point started_{};
};

} // namespace

void install_listener(Results *results)
{
    auto &listeners = testing::UnitTest::GetInstance()->listeners();
    listeners.Append(new Listener(results));
}

} // namespace hcts
