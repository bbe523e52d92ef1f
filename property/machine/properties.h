// properties.h: the named properties (each a mix of generated commands run as
// an rc::state machine against a Driver) and how to run one with RapidCheck,
// capturing what a report needs: seed, reproduce string, shrunk counterexample.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "driver/driver.h"
#include "model/model.h"

namespace hcts::prop {

// Relative weights of the commands a property generates (0: never).
struct Mix {
    uint32_t wwn = 0, wwnInvalidIdx = 0, wwnBadAddr = 0, wwnHost = 0, wwnWrongEngine = 0;
    uint32_t write = 0, read = 0, record = 0, recordInvalidIdx = 0, wait = 0, waitInvalidIdx = 0;
    uint32_t postWait = 0, join = 0, localCopy = 0, fence = 0, stamp = 0, check = 0;
};

struct PropertySpec {
    std::string name;
    std::string what; // one line: the property it checks
    Mix mix;
    std::vector<std::string> clauses; // the catalogue clauses it checks (conformance/spec/clauses.yaml)
};

const std::vector<PropertySpec> &allProperties();
const PropertySpec *findProperty(const std::string &name);

struct RunConfig {
    Geometry geometry;
    NotifyProfile profile = NotifyProfile::Binary;
    uint32_t waitTimeoutMs = 200; // timeout given to generated waits
    int maxSuccess = 100;         // cases (RC_PARAMS max_success overrides unless --long)
    int maxSize = 30;             // longest command sequence
    uint64_t seed = 0;            // 0: RC_PARAMS seed or random
    bool useReproduce = true;     // honour RC_PARAMS reproduce=
};

struct PropertyOutcome {
    std::string name;
    bool passed = false;
    // The harness could not decide (a driver threw, RapidCheck gave up, a
    // reproduce string did not reproduce): the verdict is ERROR, not FAIL, and
    // `counterexample` is the unshrunk case that met the trouble.
    bool harnessError = false;
    int runs = 0;
    uint64_t seed = 0;
    std::string description;                 // the failure message (or what the harness could not do)
    std::string reproduce;                   // the value for RC_PARAMS="reproduce=..."
    std::vector<std::string> counterexample; // the shrunk command sequence
    int shrinks = 0;
};

// How often a reproduce string is replayed before "it does not reproduce".
constexpr int kReproduceAttempts = 30;

// Runs `spec` against drivers from `driver` (one driver for the whole run; the
// judge resets it for every case). Never throws for what a case meets: a
// driver that throws makes the outcome a harness error.
PropertyOutcome runProperty(const PropertySpec &spec, const RunConfig &cfg, Driver &driver);

// The seed a run with `cfg` uses: cfg.seed, else RC_PARAMS seed=, else the one
// RapidCheck picked for this process.
uint64_t runSeed(const RunConfig &cfg);

} // namespace hcts::prop
