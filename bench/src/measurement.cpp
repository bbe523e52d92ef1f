#include "measurement.h"

#include <functional>

#include "stats.h"

namespace hcts::bench {

namespace {

// One metric of one sample.
double value(const Sample &s, std::string_view metric, uint64_t size)
{
    const double msgs = static_cast<double>(s.messages);
    if (s.messages == 0 || s.seconds <= 0)
        return 0;
    if (metric == "latency")
        return s.seconds / msgs * 1e6;
    if (metric == "bandwidth")
        return static_cast<double>(size) * msgs / s.seconds / 1e9;
    if (metric == "message_rate")
        return msgs / s.seconds;
    if (metric == "cpu")
        return s.used.cpu_s / msgs * 1e6;
    if (metric == "switches")
        return s.used.switches / msgs;
    return 0;
}

Spread spread(const Measurement &m, std::string_view metric)
{
    std::vector<double> v;
    for (const Sample &s : m.samples)
        v.push_back(value(s, metric, m.size));
    return spread_of(v);
}

} // namespace

std::string_view test_name(Test t) { return t == Test::Latency ? "latency" : "bandwidth"; }

const std::vector<std::pair<std::string, std::string>> &metrics()
{
    static const std::vector<std::pair<std::string, std::string>> all = {
        {"latency", "us"}, {"bandwidth", "GB/s"}, {"message_rate", "1/s"}, {"cpu", "us"}, {"switches", ""}};
    return all;
}

double Measurement::median(std::string_view metric) const { return spread(*this, metric).median; }

double Measurement::best(std::string_view metric) const
{
    const Spread s = spread(*this, metric);
    return metric == "bandwidth" || metric == "message_rate" ? s.max : s.min;
}

nlohmann::json Measurement::to_json() const
{
    nlohmann::json j = {{"method", method},
                        {"test", test_name(test)},
                        {"size", size},
                        {"samples", samples.size()},
                        {"messages_per_sample", samples.empty() ? 0 : samples.front().messages}};
    if (test == Test::Bandwidth)
        j["window"] = window;
    // A latency test tells latency; a bandwidth test bandwidth and message rate.
    const std::vector<std::string> own = test == Test::Latency ? std::vector<std::string>{"latency"}
                                                               : std::vector<std::string>{"bandwidth", "message_rate"};
    for (const auto &metric : own)
        j[metric] = bench::to_json(spread(*this, metric));
    j["cpu_us_per_message"] = bench::to_json(spread(*this, "cpu"));
    j["switches_per_message"] = bench::to_json(spread(*this, "switches"));
    if (!error.empty())
        j["error"] = error;
    return j;
}

} // namespace hcts::bench
