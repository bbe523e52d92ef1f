// Judging one entry's run against its expectation (selftest/README.md, "What the
// runner checks"). Pure functions over a results document, unit-tested without MPI.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalogue.h"

namespace hcts::selftest {

// How the run of an entry ended, as the runner saw it.
struct RunOutcome {
    enum class Status {
        Finished, // the suite exited by itself (any status) before the deadline
        Timeout,  // the wall-clock deadline passed: the process group was killed
        NotRun,   // could not be started, or an internal mutant not run
    };
    Status status = Status::Finished;
    int exit_code = 0;                     // the suite's (128+signal when killed by one)
    std::optional<nlohmann::json> results; // its results.json, when there is one
    std::string note;                      // why there is no results document, ...
};

struct Judgement {
    bool ok = false;                   // every expectation held
    std::string verdict;               // one short phrase for the progress line
    std::vector<std::string> problems; // each expectation that did not hold
    std::optional<bool> killed;        // mutants: killed or survived (unset: not judged)
    std::vector<std::string> killed_by;
    std::map<std::string, std::string> verdicts; // clause -> verdict ("NOT RUN" when undecided)
    std::string gate;                            // "pass", "fail" or "" (no document)
    // legal with strict_fails: the strict gate recomputed from the same clause verdicts
    // ("pass", "fail"; "" when not judged).
    std::string strict_gate;
};

// Verdicts that are evidence that a clause caught something. ERROR (the harness
// could not decide) and NOT RUN never are.
bool is_kill_evidence(const std::string &verdict);

// `np` of the run: WWN.LIT.13 needs 3 ranks and may be NOT_SUPPORTED on fewer.
Judgement judge(const Entry &e, const RunOutcome &run);

} // namespace hcts::selftest
