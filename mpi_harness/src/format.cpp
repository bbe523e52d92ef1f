#include "format.h"

#include "runtime.h"

#include <algorithm>
#include <cstdio>

namespace hcts::mpi {

namespace detail {

CaseResult make_result(const CaseState &cs, Verdict verdict, double duration_ms)
{
    CaseResult r{cs.name, verdict, duration_ms, cs.own_messages, {}, {}, cs.index, cs.total};
    for (const auto &rep : cs.reports)
        r.payloads.push_back(rep.payload);
    r.messages.insert(r.messages.end(), cs.peer_messages.begin(), cs.peer_messages.end());
    std::stable_sort(r.messages.begin(), r.messages.end(),
                     [](const RankMessage &a, const RankMessage &b) { return a.rank < b.rank; });
    for (size_t i = 1; i < cs.reports.size(); ++i) {
        if (!cs.reports[i].received)
            r.silent_ranks.push_back(static_cast<int>(i));
    }
    return r;
}

std::string format_case_end(const CaseResult &r)
{
    const char *tag = "[       OK ]";
    switch (r.verdict) {
    case Verdict::Pass: break;
    case Verdict::Fail: tag = "[  FAILED  ]"; break;
    case Verdict::NotSupported: tag = "[  SKIPPED ]"; break;
    case Verdict::Timeout: tag = "[  TIMEOUT ]"; break;
    case Verdict::Crash: tag = "[  CRASH   ]"; break;
    default: tag = "[  ERROR   ]"; break; // the harness itself only agrees on the five above
    }
    std::string out;
    for (const auto &m : r.messages)
        out += "[rank " + std::to_string(m.rank) + "] " + m.text + "\n";
    if (!r.silent_ranks.empty()) {
        out += "ranks that never reported:";
        for (int s : r.silent_ranks)
            out += " " + std::to_string(s);
        out += "\n";
    }
    char line[64];
    std::snprintf(line, sizeof line, " (%.0f ms)", r.duration_ms);
    out += std::string(tag) + " " + r.name + line;
    return out;
}

} // namespace detail
} // namespace hcts::mpi
