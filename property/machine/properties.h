// properties.h: the named properties (each a mix of generated commands run as
// an rc::state machine against a Driver) and how to run one with RapidCheck,
// capturing what a report needs: seed, reproduce string, shrunk counterexample.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "driver/driver.h"
#include "driver/judge.h"
#include "model/model.h"

namespace hcts::prop {

// What the generator may pick next. The order is part of every seed and
// reproduce string (a draw selects a command by walking the weights in this
// order): append, never reorder.
enum class Choice : uint32_t {
    Check,
    Stamp,
    Wwn,
    Write,
    Read,
    Record,
    Wait,
    PostWait,
    Join,
    LocalCopy,
    Fence,
    WwnInvalidIdx,
    WwnBadAddr,
    WwnHost,
    WwnWrongEngine,
    RecordInvalidIdx,
    WaitInvalidIdx,
    Count
};

// Relative weights of the commands a property generates (0: never): one slot
// per Choice, so a new command needs no second list to keep in step.
class Mix {
  public:
    Mix(std::initializer_list<std::pair<Choice, uint32_t>> weights)
    {
        for (const auto &[c, w] : weights)
            weights_[static_cast<size_t>(c)] = w;
    }
    uint32_t weight(Choice c) const { return weights_[static_cast<size_t>(c)]; }

  private:
    std::array<uint32_t, static_cast<size_t>(Choice::Count)> weights_{};
};

struct PropertySpec {
    std::string name;
    std::string what; // one line: the property it checks
    Mix mix;
    std::vector<std::string> clauses; // the catalogue clauses it checks (conformance/spec/clauses.yaml)
};

const std::vector<PropertySpec> &all_properties();
const PropertySpec *find_property(const std::string &name);

struct RunConfig {
    Geometry geometry;
    NotifyProfile profile = NotifyProfile::Binary;
    uint32_t wait_timeout_ms = 200;      // timeout given to generated waits
    int max_success = 100;               // cases (RC_PARAMS max_success overrides unless --long)
    int max_size = 30;                   // longest command sequence
    uint64_t seed = 0;                   // 0: RC_PARAMS seed or random
    bool use_reproduce = true;           // honour RC_PARAMS reproduce=
    GatesOn gates = gates_on_everything; // which clauses fail a case (the others are departures)
};

struct PropertyOutcome {
    std::string name;
    bool passed = false;
    // The harness could not decide (a driver threw, RapidCheck gave up, a
    // reproduce string did not reproduce): the verdict is ERROR, not FAIL, and
    // `counterexample` is the unshrunk case that met the trouble.
    bool harness_error = false;
    int runs = 0;
    uint64_t seed = 0;
    std::string description;                 // the failure message (or what the harness could not do)
    std::string reproduce;                   // the value for RC_PARAMS="reproduce=..."
    std::vector<std::string> counterexample; // the shrunk command sequence
    int shrinks = 0;
    std::string clause; // FAIL: the clause of the rule the counterexample breaks
    // Rules the implementation departed from in some case without failing it
    // (clauses that do not gate the run), over every case run, shrinking included.
    std::map<std::string, Departure> departures;
};

// How often a reproduce string is replayed before "it does not reproduce".
constexpr int kReproduceAttempts = 30;

// Runs `spec` against drivers from `driver` (one driver for the whole run; the
// judge resets it for every case). Never throws for what a case meets: a
// driver that throws makes the outcome a harness error.
PropertyOutcome run_property(const PropertySpec &spec, const RunConfig &cfg, Driver &driver);

// The seed a run with `cfg` uses: cfg.seed, else RC_PARAMS seed=, else the one
// RapidCheck picked for this process.
uint64_t run_seed(const RunConfig &cfg);

} // namespace hcts::prop
