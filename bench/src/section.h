// The `bench` section of results.json (reports/schema/README.md) and the
// table printed on the terminal.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "baseline.h"
#include "measurement.h"
#include "method.h"
#include "options.h"

namespace hcts::bench {

struct Load {
    double before[3] = {0, 0, 0}, after[3] = {0, 0, 0}; // /proc/loadavg: 1, 5, 15 minutes
    int cpus = 0;
};
void read_loadavg(double (&out)[3]);

nlohmann::json section(const Options &o, const std::vector<std::unique_ptr<Method>> &methods,
                       const std::vector<Measurement> &measurements, const Load &load,
                       const std::vector<Check> *checks);
// Per size: latency (us), bandwidth (GB/s), CPU us and switches per message, for each method.
void print_table(const std::vector<Measurement> &measurements);

} // namespace hcts::bench
