// judge.h: runs ops on a Driver and judges every observation against the
// Model. One Judge is one test case: it resets the driver when built. (Not a
// test harness: hcts::mpi::Harness is the project's one Harness.)
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "driver/driver.h"
#include "model/model.h"

namespace hcts::prop {

class Judge {
  public:
    Judge(Driver &driver, const Geometry &g, NotifyProfile profile = NotifyProfile::Binary);
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

  private:
    using Clock = std::chrono::steady_clock;
    static constexpr uint32_t kConfirmTimeoutMs = 3000;
    std::string judgeWait(const Op &op, const WaitResult &r, uint64_t lateFromOp = UINT64_MAX);
    // The first model op issued after `deadline` minus a delivery margin.
    uint64_t lateFrom(Clock::time_point deadline) const;

    Driver &driver_;
    Model model_;
    std::vector<Op> posted_;                                     // [rank]: the posted wait, kind == Join when none
    std::vector<Clock::time_point> postedAt_;                    // [rank]: when it was posted
    std::vector<std::pair<uint64_t, Clock::time_point>> issued_; // (model op number, call start) of records
    std::vector<std::string> log_;
};

} // namespace hcts::prop
