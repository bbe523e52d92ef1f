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

std::string md_number(const nlohmann::json &spread)
{
    if (!spread.is_object() || !spread.contains("median") || !spread["median"].is_number())
        return "–";
    char b[32];
    const double v = spread["median"].get<double>();
    std::snprintf(b, sizeof b, v >= 1000 ? "%.0f" : "%.3g", v);
    return b;
}

} // namespace

std::string bench_markdown(const nlohmann::json &bench)
{
    std::ostringstream o;
    const auto &load = object_at(bench, "load");
    o << "**Benchmark:** medians of " << field(bench, "samples", "?")
      << " samples; latency one way in µs, bandwidth in GB/s, CPU µs per message (both ranks); load average "
      << md_escape(joined(array_at(load, "loadavg_before"))) << " on " << field(load, "cpus", "?") << " CPUs.\n\n";
    if (const auto &checks = array_at(object_at(bench, "baseline"), "checks"); !checks.empty()) {
        o << "| Baseline | Metric | Size | hcomm / other | Ratio | Allowed | Held |\n|---|---|---:|---|---:|---|---|\n";
        for (const auto &c : checks)
            o << "| " << md_escape(field(c, "id")) << " | " << md_escape(field(c, "metric")) << " | "
              << field(c, "size") << " | " << md_escape(field(c, "hcomm")) << " / " << md_escape(field(c, "hcomm_over"))
              << " " << md_escape(field(c, "other")) << " | " << field(c, "ratio") << " | "
              << (field(c, "min").empty() ? "" : "≥ " + field(c, "min") + " ")
              << (field(c, "max").empty() ? "" : "≤ " + field(c, "max")) << " | "
              << (field(c, "held") == "true" ? "yes" : "**no**") << " |\n";
        o << "\n";
    }
    // One row per size and method: latency, bandwidth, CPU per message of the latency test.
    std::map<std::pair<double, std::string>, std::vector<std::string>> rows;
    for (const auto &m : array_at(bench, "measurements")) {
        auto &row = rows[{m.value("size", 0.0), field(m, "method")}];
        row.resize(3, "–");
        if (m.contains("error"))
            continue;
        if (field(m, "test") == "latency") {
            row[0] = md_number(object_at(m, "latency"));
            row[2] = md_number(object_at(m, "cpu_us_per_message"));
        } else {
            row[1] = md_number(object_at(m, "bandwidth"));
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
