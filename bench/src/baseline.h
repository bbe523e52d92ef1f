// Ratio expectations a CI can gate on (--baseline FILE), one per YAML key:
//   p1: {metric: latency, size: 8, hcomm_over: mpi_osc, max: 2.0}
//   p2: {metric: bandwidth, size: 1M, hcomm_over: memcpy, min: 0.5}
// The ratio is hcomm's median over the other method's median, both from this
// run at this size. metric: latency, bandwidth, message_rate, cpu, switches;
// cpu and switches come from the latency test unless `test: bandwidth`.
// `stat: best` compares the best samples instead of the medians (the smallest
// latency, the largest bandwidth): on a loaded machine, the least disturbed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measurement.h"

namespace hcts::bench {

struct Expectation {
    std::string id, metric, over;
    bool best = false; // stat: best (else median)
    Test test = Test::Latency;
    uint64_t size = 0;
    std::optional<double> min, max;
    std::string source; // "file:line"
};

// Throws std::runtime_error "FILE:LINE: what is wrong, what is allowed".
std::vector<Expectation> load_baseline(const std::string &path);

struct Check {
    Expectation e;
    double hcomm = 0, other = 0, ratio = 0;
    bool held = false;
    std::string reason; // why it did not hold, with the values
    nlohmann::json to_json() const;
    std::string line() const; // for the terminal
};

// A ratio that cannot be formed (a method failed, the size was not measured) does not hold.
std::vector<Check> check_baseline(const std::vector<Expectation> &expectations,
                                  const std::vector<Measurement> &measurements);

} // namespace hcts::bench
