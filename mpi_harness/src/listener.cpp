#include "listener.h"

#include "agree.h"
#include "format.h"
#include "poll.h"
#include "runtime.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace hcts::mpi::detail {
namespace {

std::string full_name(const testing::TestInfo &info) { return std::string(info.test_suite_name()) + "." + info.name(); }

// FNV-1a over the selected case names: ranks with different filters or
// binaries are found before the first case instead of by a confusing timeout.
uint64_t selection_hash(const testing::UnitTest &unit)
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < unit.total_test_suite_count(); ++i) {
        const testing::TestSuite *s = unit.GetTestSuite(i);
        for (int j = 0; j < s->total_test_count(); ++j) {
            const testing::TestInfo *t = s->GetTestInfo(j);
            if (!t->should_run())
                continue;
            for (char c : full_name(*t) + "\n")
                h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
        }
    }
    return h;
}

std::string seconds_since(std::chrono::steady_clock::time_point t)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f s",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
    return buf;
}

} // namespace

void MpiListener::OnTestProgramStart(const testing::UnitTest &unit)
{
    run_start_ = std::chrono::steady_clock::now();
    total_ = unit.test_to_run_count();
    uint64_t mine[2] = {static_cast<uint64_t>(total_), selection_hash(unit)};
    uint64_t lo[2] = {}, hi[2] = {};
    MPI_Request req[2];
    MPI_Iallreduce(mine, lo, 2, MPI_UINT64_T, MPI_MIN, rt_.ctl(), &req[0]);
    MPI_Iallreduce(mine, hi, 2, MPI_UINT64_T, MPI_MAX, rt_.ctl(), &req[1]);
    int error = 0;
    auto w = wait_all(2, req, std::chrono::steady_clock::now() + rt_.default_deadline(), &error);
    if (w != WaitResult::Done) {
        rt_.expire("not every rank reached the start of the test run",
                   w == WaitResult::Error ? kExitInternal : kExitTimeout);
    }
    if (lo[0] != hi[0] || lo[1] != hi[1]) {
        rt_.expire("the ranks selected different cases (" + std::to_string(lo[0]) + " to " + std::to_string(hi[0]) +
                       " cases); every rank must run the same binary with the same --gtest_filter",
                   kExitUsage);
    }
    std::vector<std::string> distinct = hosts();
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    char head[200];
    std::snprintf(head, sizeof head,
                  "[==========] %d cases on %d ranks, %zu host(s); deadline %lld ms per case; logs in %s", total_,
                  rt_.size(), distinct.size(), static_cast<long long>(rt_.default_deadline().count()),
                  rt_.options().log_dir.c_str());
    rt_.say(head);
}

void MpiListener::OnTestStart(const testing::TestInfo &info)
{
    ++index_;
    std::string name = full_name(info);
    rt_.say("[ RUN      ] " + std::to_string(index_) + "/" + std::to_string(total_) + " " + name + " (elapsed " +
            seconds_since(run_start_) + ")");
    rt_.open_case(std::move(name), index_, total_);
}

void MpiListener::OnTestPartResult(const testing::TestPartResult &r)
{
    if (r.passed())
        return;
    std::string text;
    if (r.file_name())
        text = std::string(r.file_name()) + ":" + std::to_string(r.line_number()) + ": ";
    text += r.skipped() ? "skipped: " : "";
    text += r.message();
    rt_.log(text);
    rt_.add_own_message(RankMessage{rt_.rank(), std::move(text)});
}

void MpiListener::OnTestEnd(const testing::TestInfo &info)
{
    const testing::TestResult *res = info.result();
    Report mine;
    mine.index = index_;
    mine.name = full_name(info);
    mine.verdict = res->Failed() ? Verdict::Fail : res->Skipped() ? Verdict::NotSupported : Verdict::Pass;
    mine.elapsed_ms = static_cast<double>(res->elapsed_time());
    for (const auto &m : rt_.snapshot().own_messages)
        mine.messages.push_back(m.text);
    if (rt_.options().case_payload) {
        try {
            mine.payload = rt_.options().case_payload(info);
        } catch (const std::exception &e) {
            mine.verdict = Verdict::Fail;
            mine.messages.push_back(std::string("harness: the case_payload callback threw: ") + e.what());
        }
    }

    CaseResult result;
    const Verdict agreed = agree(rt_, mine, rt_.rank() == 0 ? &result : nullptr);
    if (!rt_.close_case())
        Runtime::park(); // expired meanwhile: the TIMEOUT was recorded instead
    switch (agreed) {
    case Verdict::Pass: ++passed_; break;
    case Verdict::NotSupported: ++skipped_; break;
    default:
        ++failed_;
        failed_names_.push_back(mine.name);
        break;
    }
    if (rt_.rank() == 0) {
        rt_.say(format_case_end(result));
        if (rt_.options().on_case) {
            try {
                rt_.options().on_case(result);
            } catch (const std::exception &e) {
                rt_.say(std::string("hcts-mpi: the on_case callback threw: ") + e.what());
            }
        }
    } else {
        rt_.log("agreed verdict: " + std::string(verdict_name(agreed)));
    }
}

void MpiListener::OnTestProgramEnd(const testing::UnitTest &)
{
    rt_.say("[==========] " + std::to_string(index_) + " cases ran (" + seconds_since(run_start_) + ")");
    rt_.say("[  PASSED  ] " + std::to_string(passed_));
    if (skipped_)
        rt_.say("[  SKIPPED ] " + std::to_string(skipped_));
    if (failed_) {
        rt_.say("[  FAILED  ] " + std::to_string(failed_) + ", listed below:");
        for (const auto &n : failed_names_)
            rt_.say("[  FAILED  ] " + n);
    }
}

} // namespace hcts::mpi::detail
