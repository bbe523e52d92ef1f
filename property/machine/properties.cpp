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

bool rc_params_has(const char *key)
{
    const char *p = std::getenv("RC_PARAMS");
    return p && std::string(p).find(key) != std::string::npos;
}

} // namespace

const std::vector<PropertySpec> &all_properties()
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

const PropertySpec *find_property(const std::string &name)
{
    for (const auto &p : all_properties())
        if (p.name == name)
            return &p;
    return nullptr;
}

PropertyOutcome run_property(const PropertySpec &spec, const RunConfig &cfg, Driver &driver)
{
    PropertyOutcome out;
    out.name = spec.name;
    last_failure() = CaseFailure{};

    auto body = [&] {
        // Once the harness failed, every further case (shrinking included) fails
        // at once without touching the driver: the outcome is ERROR anyway.
        if (last_failure().harness)
            RC_FAIL(last_failure().why);
        std::optional<Judge> j;
        try {
            j.emplace(driver, cfg.geometry, cfg.profile, cfg.gates);
        } catch (const std::exception &e) {
            fail_case(nullptr, std::string("the harness could not set up a case: ") + e.what(), true);
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
        const GenState s0 = initial_gen_state(spec, cfg);
        rc::state::check(s0, *j, rc::state::gen::execOneOfWithArgs<OpCommand>());
        std::string err;
        try {
            err = j->finish();
        } catch (const std::exception &e) {
            fail_case(&*j, std::string("the harness failed at the end of a case: ") + e.what(), true);
        }
        if (!err.empty())
            fail_case(&*j, err, false);
    };

    const auto &conf = rc::detail::configuration();
    rc::detail::TestParams params = conf.testParams;
    params.seed = run_seed(cfg);
    if (!rc_params_has("max_success"))
        params.maxSuccess = cfg.max_success;
    if (!rc_params_has("max_size"))
        params.maxSize = cfg.max_size;
    out.seed = params.seed;

    rc::detail::TestMetadata meta;
    meta.id = spec.name;
    meta.description = spec.what;
    ShrinkCounter listener;
    std::unordered_map<std::string, rc::detail::Reproduce> reproduce_map;
    if (cfg.use_reproduce)
        reproduce_map = conf.reproduce;
    // A failure that depends on a race may not show on every run (RapidCheck
    // #137): a reproduce string is retried a few times before giving up.
    const bool reproducing = reproduce_map.count(spec.name) != 0;
    const int attempts = reproducing ? kReproduceAttempts : 1;
    auto result = rc::detail::checkProperty(rc::detail::toProperty(body), meta, params, listener, reproduce_map);
    for (int a = 1; a < attempts && result.is<rc::detail::Error>(); ++a) {
        std::cerr << "hcts-property: the reproduced case passed (attempt " << a << " of " << attempts
                  << "); it depends on timing, retrying\n";
        result = rc::detail::checkProperty(rc::detail::toProperty(body), meta, params, listener, reproduce_map);
    }

    out.shrinks = listener.shrinks;
    if (last_failure().harness) {
        // Not an observation of the implementation: no counterexample to shrink
        // or reproduce; the case as it stood when the harness failed.
        out.harness_error = true;
        out.description = last_failure().why;
        out.counterexample = last_failure().log;
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
        out.description = last_failure().why.empty() ? f.description : last_failure().why;
        out.clause = last_failure().clause;
        rc::detail::Configuration only;
        only.reproduce[spec.name] = f.reproduce;
        out.reproduce = rc::detail::configToMinimalString(only);
        out.counterexample = last_failure().log;
    } else if (result.is<rc::detail::GaveUpResult>()) {
        out.harness_error = true;
        out.runs = result.get<rc::detail::GaveUpResult>().numSuccess;
        out.description = "RapidCheck gave up: " + result.get<rc::detail::GaveUpResult>().description;
    } else {
        out.harness_error = true;
        out.description = "RapidCheck error: " + result.get<rc::detail::Error>().description;
    }
    return out;
}

uint64_t run_seed(const RunConfig &cfg)
{
    return cfg.seed != 0 ? cfg.seed : rc::detail::configuration().testParams.seed;
}

} // namespace hcts::prop
