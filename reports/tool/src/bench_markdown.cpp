// The benchmark part of summary.md (a results document with a `bench`
// section): the baseline's ratios, then per size and method the medians.
#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

#include "renderers.h"
#include "text.h"

namespace hcts::report {

namespace {

std::string md_number(const std::optional<results::Spread> &spread)
{
    if (!spread)
        return "–";
    char b[32];
    const double v = spread->median;
    std::snprintf(b, sizeof b, v >= 1000 ? "%.0f" : "%.3g", v);
    return b;
}

} // namespace

std::string bench_markdown(const results::Bench &bench)
{
    std::ostringstream o;
    const results::BenchLoad load = bench.load.value_or(results::BenchLoad{});
    o << "**Benchmark:** medians of " << text_or(bench.samples, "?")
      << " samples; latency one way in µs, bandwidth in GB/s, CPU µs per message (both ranks); load average "
      << md_escape(joined(load.loadavg_before)) << " on " << text_or(load.cpus, "?") << " CPUs.\n\n";
    if (bench.baseline && !bench.baseline->checks.empty()) {
        o << "| Baseline | Metric | Size | hcomm / other | Ratio | Allowed | Held |\n|---|---|---:|---|---:|---|---|\n";
        for (const auto &c : bench.baseline->checks)
            o << "| " << md_escape(c.id) << " | " << md_escape(c.metric) << " | " << c.size << " | "
              << md_escape(text_or(c.hcomm)) << " / " << md_escape(c.hcomm_over) << " " << md_escape(text_or(c.other))
              << " | " << format_fixed(c.ratio, 3) << " | " << (c.min ? "≥ " + text_or(c.min) + " " : "")
              << (c.max ? "≤ " + text_or(c.max) : "") << " | " << (c.held ? "yes" : "**no**") << " |\n";
        o << "\n";
    }
    // One row per size and method: latency, bandwidth, CPU per message of the latency test.
    std::map<std::pair<double, std::string>, std::vector<std::string>> rows;
    for (const auto &m : bench.measurements) {
        auto &row = rows[{static_cast<double>(m.size), m.method}];
        row.resize(3, "–");
        if (m.error)
            continue;
        if (m.test == "latency") {
            row[0] = md_number(m.latency);
            row[2] = md_number(m.cpu_us_per_message);
        } else {
            row[1] = md_number(m.bandwidth);
        }
    }
    o << "| Size (B) | Method | Latency µs | GB/s | CPU µs / msg |\n|---:|---|---:|---:|---:|\n";
    for (const auto &[key, row] : rows)
        o << "| " << static_cast<long long>(key.first) << " | " << md_escape(key.second) << " | " << row[0] << " | "
          << row[1] << " | " << row[2] << " |\n";
    o << "\n";
    return o.str();
}

} // namespace hcts::report
