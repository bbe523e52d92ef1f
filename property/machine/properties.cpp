#include "machine/properties.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include "machine/commands.h"

namespace hcts::prop {
namespace {

// Counts accepted shrink steps; prints nothing (the runner reports).
class ShrinkCounter final : public rc::detail::TestListener {
  public:
    void onTestCaseFinished(const rc::detail::CaseDescription &) override {}
    void onShrinkTried(const rc::detail::CaseDescription &, bool accepted) override
    {
        if (accepted)
            ++shrinks;
    }
    void onTestFinished(const rc::detail::TestMetadata &, const rc::detail::TestResult &) override {}
    int shrinks = 0;
};

bool rcParamsHas(const char *key)
{
    const char *p = std::getenv("RC_PARAMS");
    return p && std::string(p).find(key) != std::string::npos;
}

} // namespace

const std::vector<PropertySpec> &allProperties()
{
    static const std::vector<PropertySpec> props = [] {
        using enum Choice;
        std::vector<PropertySpec> p = {
            {"WriteBeforeNotify",
             "after a wait consumes a WWN's notify, all of its payload is visible (device snapshot)",
             {{Wwn, 6}, {Write, 2}, {Fence, 1}, {PostWait, 3}, {Join, 3}, {Wait, 3}, {Stamp, 1}, {Check, 1}},
             {"WWN.VIS.1"}},
            // Waits with an index >= notifyNum are generated too (WWN.IDX.5).
            {"IndexBounds",
             "every out-of-range notify index is rejected with no byte written and no notify raised",
             {{Wwn, 2},
              {WwnInvalidIdx, 3},
              {Record, 1},
              {RecordInvalidIdx, 2},
              {Wait, 2},
              {WaitInvalidIdx, 2},
              {PostWait, 1},
              {Join, 1},
              {Check, 1}},
             {"WWN.IDX.2", "WWN.IDX.3", "WWN.IDX.5"}},
            {"DeviceOnly",
             "WWN from the host or on a non-AICPU_TS thread is rejected with no side effect",
             {{Wwn, 2}, {WwnHost, 3}, {WwnWrongEngine, 2}, {Wait, 2}, {PostWait, 1}, {Join, 1}, {Check, 2}},
             {"WWN.DEV.1", "WWN.DEV.2"}},
            // len 0 is WWN.PRF.2 (PROFILE): accepted or rejected, never a counterexample.
            {"AddressChecks",
             "len 0, null, straddling, past-the-end and overflowing ranges are rejected with no side effect",
             {{Wwn, 2}, {WwnBadAddr, 4}, {Wait, 2}, {Stamp, 1}, {Check, 2}},
             {"WWN.ERR.1", "WWN.ERR.3", "WWN.ERR.4", "WWN.PRF.2"}},
            {"NotifyExactlyOnce",
             "no lost and no spurious notify: a wait completes iff a record is outstanding",
             {{Wwn, 2}, {Record, 3}, {Wait, 4}, {PostWait, 2}, {Join, 2}},
             {"WWN.NTF.1", "WWN.NTF.2"}},
            {"FullModel",
             "every command mixed; memory (guards, sources) always within the model's allowed set",
             {{Wwn, 6},
              {WwnInvalidIdx, 1},
              {WwnBadAddr, 1},
              {WwnHost, 1},
              {WwnWrongEngine, 1},
              {Write, 2},
              {Read, 2},
              {Record, 2},
              {RecordInvalidIdx, 1},
              {Wait, 3},
              {WaitInvalidIdx, 1},
              {PostWait, 2},
              {Join, 2},
              {LocalCopy, 2},
              {Fence, 1},
              {Stamp, 2},
              {Check, 1}},
             {}},
        };
        // FullModel mixes every command: it checks what all the others check.
        for (size_t i = 0; i + 1 < p.size(); ++i)
            for (const auto &c : p[i].clauses)
                if (std::find(p.back().clauses.begin(), p.back().clauses.end(), c) == p.back().clauses.end())
                    p.back().clauses.push_back(c);
        return p;
    }();
    return props;
}

const PropertySpec *findProperty(const std::string &name)
{
    for (const auto &p : allProperties())
        if (p.name == name)
            return &p;
    return nullptr;
}

PropertyOutcome runProperty(const PropertySpec &spec, const RunConfig &cfg, Driver &driver)
{
    PropertyOutcome out;
    out.name = spec.name;
    lastFailure() = CaseFailure{};

    auto body = [&] {
        // Once the harness failed, every further case (shrinking included) fails
        // at once without touching the driver: the outcome is ERROR anyway.
        if (lastFailure().harness)
            RC_FAIL(lastFailure().why);
        std::optional<Judge> j;
        try {
            j.emplace(driver, cfg.geometry, cfg.profile, cfg.gates);
        } catch (const std::exception &e) {
            failCase(nullptr, std::string("the harness could not set up a case: ") + e.what(), true);
        }
        // However the case ends (a failing step throws out of check()).
        struct Collect {
            const Judge &j;
            std::map<std::string, Departure> &into;
            ~Collect()
            {
                for (const auto &[clause, d] : j.departures()) {
                    auto &mine = into[clause];
                    if (mine.count == 0)
                        mine.example = d.example;
                    mine.count += d.count;
                }
            }
        } collect{*j, out.departures};
        const GenState s0 = initialGenState(spec, cfg);
        rc::state::check(s0, *j, rc::state::gen::execOneOfWithArgs<OpCommand>());
        std::string err;
        try {
            err = j->finish();
        } catch (const std::exception &e) {
            failCase(&*j, std::string("the harness failed at the end of a case: ") + e.what(), true);
        }
        if (!err.empty())
            failCase(&*j, err, false);
    };

    const auto &conf = rc::detail::configuration();
    rc::detail::TestParams params = conf.testParams;
    params.seed = runSeed(cfg);
    if (!rcParamsHas("max_success"))
        params.maxSuccess = cfg.maxSuccess;
    if (!rcParamsHas("max_size"))
        params.maxSize = cfg.maxSize;
    out.seed = params.seed;

    rc::detail::TestMetadata meta;
    meta.id = spec.name;
    meta.description = spec.what;
    ShrinkCounter listener;
    std::unordered_map<std::string, rc::detail::Reproduce> reproduceMap;
    if (cfg.useReproduce)
        reproduceMap = conf.reproduce;
    // A failure that depends on a race may not show on every run (RapidCheck
    // #137): a reproduce string is retried a few times before giving up.
    const bool reproducing = reproduceMap.count(spec.name) != 0;
    const int attempts = reproducing ? kReproduceAttempts : 1;
    auto result = rc::detail::checkProperty(rc::detail::toProperty(body), meta, params, listener, reproduceMap);
    for (int a = 1; a < attempts && result.is<rc::detail::Error>(); ++a) {
        std::cerr << "hcts-property: the reproduced case passed (attempt " << a << " of " << attempts
                  << "); it depends on timing, retrying\n";
        result = rc::detail::checkProperty(rc::detail::toProperty(body), meta, params, listener, reproduceMap);
    }

    out.shrinks = listener.shrinks;
    if (lastFailure().harness) {
        // Not an observation of the implementation: no counterexample to shrink
        // or reproduce; the case as it stood when the harness failed.
        out.harnessError = true;
        out.description = lastFailure().why;
        out.counterexample = lastFailure().log;
        out.shrinks = 0;
        if (result.is<rc::detail::FailureResult>())
            out.runs = result.get<rc::detail::FailureResult>().numSuccess + 1;
    } else if (result.is<rc::detail::SuccessResult>()) {
        out.passed = true;
        out.runs = result.get<rc::detail::SuccessResult>().numSuccess;
    } else if (result.is<rc::detail::FailureResult>()) {
        const auto &f = result.get<rc::detail::FailureResult>();
        out.runs = f.numSuccess + 1;
        // What the shrunk case's own run reported (RapidCheck's description comes
        // from a replay, which a racy failure may pass).
        out.description = lastFailure().why.empty() ? f.description : lastFailure().why;
        out.clause = lastFailure().clause;
        rc::detail::Configuration only;
        only.reproduce[spec.name] = f.reproduce;
        out.reproduce = rc::detail::configToMinimalString(only);
        out.counterexample = lastFailure().log;
    } else if (result.is<rc::detail::GaveUpResult>()) {
        out.harnessError = true;
        out.runs = result.get<rc::detail::GaveUpResult>().numSuccess;
        out.description = "RapidCheck gave up: " + result.get<rc::detail::GaveUpResult>().description;
    } else {
        out.harnessError = true;
        out.description = "RapidCheck error: " + result.get<rc::detail::Error>().description;
    }
    return out;
}

uint64_t runSeed(const RunConfig &cfg)
{
    return cfg.seed != 0 ? cfg.seed : rc::detail::configuration().testParams.seed;
}

} // namespace hcts::prop
