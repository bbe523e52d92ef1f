// A measurement: one method, one test (latency or bandwidth), one size, a few
// samples. A sample is one timed call of the method on both ranks; its CPU time
// and context switches are summed over both ranks' processes (the library's
// and the transport's threads included), so per message they count everything
// the transfer cost.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "method.h"
#include "usage.h"

namespace hcts::bench {

enum class Test { Latency, Bandwidth };
std::string_view test_name(Test t);

struct Sample {
    double seconds = 0;    // rank 0's wall time
    uint64_t messages = 0; // one-way messages moved (a round trip is two)
    Usage used;            // both ranks (valid on rank 0)
};

// Collective: a barrier, n / kWarmupDivisor (at least 1) untimed round trips or
// messages, then the method's call for n with getrusage around it.
constexpr uint32_t kWarmupDivisor = 10;
Sample take_sample(Method &m, Test t, uint64_t size, uint32_t n, uint32_t window);

struct Measurement {
    std::string method;
    Test test = Test::Latency;
    uint64_t size = 0;
    uint32_t window = 1;
    std::vector<Sample> samples;
    std::string error; // why it stopped, when it did

    // The median over the samples of a metric: "latency" (us, one way),
    // "bandwidth" (GB/s), "message_rate" (messages/s), "cpu" (CPU us per
    // message), "switches" (context switches per message). 0 without samples.
    double median(std::string_view metric) const;
    // The best sample's value: the smallest latency, cpu or switches, the largest
    // bandwidth or message rate (on a loaded machine the least disturbed sample).
    double best(std::string_view metric) const;
    nlohmann::json to_json() const;
};

// The metrics a baseline may name, each with its unit.
const std::vector<std::pair<std::string, std::string>> &metrics();

} // namespace hcts::bench
