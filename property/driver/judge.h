// judge.h: runs ops on a Driver and judges every observation against the
// Model. One Judge is one test case: it resets the driver when built. (Not a
// test harness: hcts::mpi::Harness is the project's one Harness.)
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "driver/driver.h"
#include "model/model.h"

namespace hcts::prop {

// Whether a violation of `clause` fails the case. A violation of a clause that
// does not gate (a STRICT one under the default gate, a PROFILE) is a
// departure: recorded, not a failure, and the model tolerates the call.
using GatesOn = std::function<bool(const std::string &clause)>;
inline bool gates_on_everything(const std::string &) { return true; }

// A rule the implementation departed from without failing the case.
struct Departure {
    std::string example; // the first violation seen
    int count = 0;       // how many violations of it
};

class Judge {
  public:
    Judge(Driver &driver, const Geometry &g, NotifyProfile profile = NotifyProfile::Binary,
          GatesOn gates = gates_on_everything);
    ~Judge();
    Judge(const Judge &) = delete;
    Judge &operator=(const Judge &) = delete;

    // Runs one op; returns the violations it revealed (empty: none).
    std::string step(const Op &op);

    // Ends the case: joins every posted wait and checks all memory (guards and
    // sources included). Returns the violations found.
    std::string finish();

    const Model &model() const { return model_; }
    Driver &driver() { return driver_; }
    const std::vector<std::string> &log() const { return log_; }
    // The clause of the first violation that failed the case (empty: none).
    const std::string &failed_clause() const { return failed_clause_; }
    // Clause -> departure, for the violations that did not fail the case.
    const std::map<std::string, Departure> &departures() const { return departures_; }

  private:
    using Clock = std::chrono::steady_clock;
    static constexpr uint32_t kConfirmTimeoutMs = 3000;
    std::string judge_wait(const Op &op, const WaitResult &r, uint64_t late_from_op = UINT64_MAX);
    // Judges a call the model expected with `exp` that returned `rc`.
    std::string judge_call(const Op &op, const Expectation &exp, int32_t rc);
    // The text of the violations that fail the case; the others become departures.
    std::string sort(const Violations &v);
    std::string sort(std::string clause, std::string text)
    {
        return sort(Violations{{std::move(clause), std::move(text)}});
    }
    // The first model op issued after `deadline` minus a delivery margin.
    uint64_t late_from(Clock::time_point deadline) const;

    Driver &driver_;
    Model model_;
    GatesOn gates_;
    std::string failed_clause_;
    std::map<std::string, Departure> departures_;
    std::vector<Op> posted_;                                     // [rank]: the posted wait, kind == Join when none
    std::vector<Clock::time_point> posted_at_;                   // [rank]: when it was posted
    std::vector<std::pair<uint64_t, Clock::time_point>> issued_; // (model op number, call start) of records
    std::vector<std::string> log_;
};

} // namespace hcts::prop
