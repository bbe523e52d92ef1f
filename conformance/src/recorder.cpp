#include "recorder.h"

#include <cstdio>

#include "case.h"
#include "evidence.h"
#include "hcts/core/catalogue.h"
#include "hcts/core/results.h"
#include "hcts/expectations.h"

namespace hcts {

std::string reproducer(const RunShape &s, const std::string &case_name)
{
    RunSpec r = s.run;
    // One case in the one configuration it ran in (./hcts run runs several by default),
    // without the property suite; a rerun writes results of its own, not over these.
    // --full stays: it also sets the timeout unit of the configurations beyond plain.
    r.configurations = {s.configuration};
    if (r.scope == RunScope::Quick)
        r.scope = RunScope::Default;
    r.results.clear();
    r.reports.clear();
    r.jobs.reset();
    r.properties = false;
    r.property_cases.reset();
    r.gtest_args = {"--gtest_filter=" + case_name};
    return run_command_line(r);
}

void Recorder::record(const mpi::CaseResult &r)
{
    const CaseSpec *spec = find_case(r.name);
    if (spec == nullptr)
        return; // --check-catalogue keeps undeclared tests out of a run
    const std::string repro = reproducer(shape_, r.name);
    MergedCase merged;
    if (r.verdict == Verdict::Timeout || r.verdict == Verdict::Crash) {
        std::string why = r.verdict == Verdict::Timeout ? "no verdict before the case deadline (watchdog)"
                                                        : "the job was terminated during the case";
        if (!r.silent_ranks.empty()) {
            why += "; silent ranks:";
            for (int s : r.silent_ranks)
                why += " " + std::to_string(s);
        }
        for (const auto &id : spec->clauses)
            merged.clauses[id] = ClauseVerdict{r.verdict, why, nullptr};
    } else {
        merged = merge_ranks(spec->clauses, r.payloads, catalogue_);
    }
    for (const auto &l : merged.litmus)
        writer_.add_litmus(l);
    // One results case per clause ("Test/CLAUSE"), each with that clause's own
    // verdict, so the schema's worst-of rule gives a clause only its own checks.
    Verdict worst_v = Verdict::Pass;
    std::string worst_reason;
    // Whether a failing verdict of this case gates the run (a MUST clause, or a STRICT
    // one under --gate strict): a STRICT departure in a default run is printed as such,
    // never as FAIL, so a run that passes prints no FAIL line of its own.
    bool gated_failure = false;
    const bool split = spec->clauses.size() > 1;
    for (size_t k = 0; k < spec->clauses.size(); ++k) {
        const std::string &id = spec->clauses[k];
        const ClauseVerdict &cv = merged.clauses.at(id);
        const nlohmann::json reason = cv.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(cv.reason);
        if (fails_gate(cv.verdict)) {
            const Clause *c = catalogue_.find(id);
            const std::string kind = c != nullptr ? c->kind : "MUST";
            gated_failure = gated_failure || expectations::gates_on(kind, shape_.run.gate == RunGate::Strict);
        }
        if (cv.verdict > worst_v || (cv.verdict == worst_v && worst_reason.empty())) {
            worst_v = cv.verdict;
            worst_reason = cv.reason.empty() ? "" : id + ": " + cv.reason;
        }
        writer_.add_case(
            {{"name", split ? r.name + "/" + id : r.name},
             {"test", r.name},
             {"clauses", {id}},
             {"verdict", verdict_name(cv.verdict)},
             {"reason", reason},
             {"duration_ms", r.duration_ms},
             {"seed", merged.seed ? nlohmann::json(*merged.seed) : nlohmann::json(nullptr)},
             {"reproducer", repro},
             {"messages", merged.messages},
             {"observations", k == 0 ? merged.observations : nlohmann::json::object()},
             {"clause_verdicts",
              {{id, {{"verdict", verdict_name(cv.verdict)}, {"reason", reason}, {"profile", cv.profile}}}}}});
    }
    const bool departs = worst_v == Verdict::Fail && !gated_failure;
    std::printf("hcts: %-13s %s (%.0f ms)%s%s%s\n", departs ? "DEPARTS" : std::string(verdict_name(worst_v)).c_str(),
                r.name.c_str(), r.duration_ms, worst_reason.empty() ? "" : " - ",
                departs ? "(STRICT, gates only --gate strict) " : "", worst_reason.c_str());
    if (worst_v != Verdict::Pass && worst_v != Verdict::Profile)
        std::printf("hcts:   reproduce: %s\n", repro.c_str());
    std::fflush(stdout);
}

} // namespace hcts
