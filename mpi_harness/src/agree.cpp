#include "agree.h"

#include "format.h"
#include "poll.h"
#include "runtime.h"

#include <algorithm>
#include <vector>

namespace hcts::mpi::detail {
namespace {

constexpr int kTagReport = 101;
constexpr int kTagVerdict = 102;

void check(Runtime &rt, WaitResult w, int error, const char *what)
{
    if (w == WaitResult::Done)
        return;
    if (w == WaitResult::TimedOut)
        Runtime::park(); // the watchdog owns the ending
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(error, text, &len);
    rt.expire(std::string("MPI error while ") + what + ": " + std::string(text, static_cast<size_t>(len)) +
                  " (a rank was probably lost)",
              kExitInternal);
}

void collect_reports(Runtime &rt, const Report &mine)
{
    for (int pending = rt.size() - 1; pending > 0;) {
        int flag = 0;
        MPI_Status st;
        Backoff backoff;
        while (!flag) {
            int rc = MPI_Iprobe(MPI_ANY_SOURCE, kTagReport, rt.ctl(), &flag, &st);
            if (rc != MPI_SUCCESS)
                check(rt, WaitResult::Error, rc, "waiting for the ranks' reports");
            if (rt.expired())
                Runtime::park();
            if (!flag)
                backoff.pause();
        }
        int count = 0;
        MPI_Get_count(&st, MPI_CHAR, &count);
        std::vector<char> buf(static_cast<size_t>(count));
        int rc = MPI_Recv(buf.data(), count, MPI_CHAR, st.MPI_SOURCE, kTagReport, rt.ctl(), MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            check(rt, WaitResult::Error, rc, "receiving a rank's report");
        const int from = st.MPI_SOURCE;
        RankReport rep;
        std::vector<RankMessage> msgs;
        if (auto r = decode(buf); !r) {
            rep.verdict = Verdict::Fail;
            msgs.push_back({from, "harness: malformed report of " + std::to_string(count) + " bytes"});
        } else if (r->index != mine.index || r->name != mine.name) {
            rep.verdict = Verdict::Fail;
            msgs.push_back({from, "harness: this rank ran case #" + std::to_string(r->index) + " '" + r->name +
                                      "' while rank 0 ran #" + std::to_string(mine.index) + " '" + mine.name +
                                      "'; every rank must run the same cases (same binary and --gtest_filter)"});
        } else {
            rep.verdict = r->verdict;
            rep.elapsed_ms = r->elapsed_ms;
            rep.payload = std::move(r->payload);
            for (auto &m : r->messages)
                msgs.push_back({from, std::move(m)});
        }
        rt.record_report(from, rep, std::move(msgs));
        --pending;
    }
}

} // namespace

Verdict agree(Runtime &rt, const Report &mine, CaseResult *result)
{
    int error = 0;
    if (rt.rank() != 0) {
        const std::vector<char> buf = encode(mine);
        uint8_t verdict = 0;
        MPI_Request req[2];
        MPI_Isend(buf.data(), static_cast<int>(buf.size()), MPI_CHAR, 0, kTagReport, rt.ctl(), &req[0]);
        MPI_Irecv(&verdict, 1, MPI_UINT8_T, 0, kTagVerdict, rt.ctl(), &req[1]);
        check(rt, wait_all(2, req, std::nullopt, &error), error, "agreeing on a verdict with rank 0");
        return static_cast<Verdict>(verdict);
    }

    rt.record_report(0, RankReport{true, mine.verdict, mine.elapsed_ms, mine.payload}, {});
    collect_reports(rt, mine);
    const CaseState cs = rt.snapshot();
    Verdict agreed = Verdict::Pass;
    double duration = 0;
    for (const auto &r : cs.reports) {
        agreed = worst(agreed, r.verdict);
        duration = std::max(duration, r.elapsed_ms);
    }
    const uint8_t v = static_cast<uint8_t>(agreed);
    std::vector<MPI_Request> req(static_cast<size_t>(rt.size() - 1));
    for (int r = 1; r < rt.size(); ++r) {
        MPI_Isend(&v, 1, MPI_UINT8_T, r, kTagVerdict, rt.ctl(), &req[static_cast<size_t>(r - 1)]);
    }
    check(rt, wait_all(static_cast<int>(req.size()), req.data(), std::nullopt, &error), error,
          "sending the agreed verdict");
    if (result)
        *result = make_result(cs, agreed, duration);
    return agreed;
}

} // namespace hcts::mpi::detail
