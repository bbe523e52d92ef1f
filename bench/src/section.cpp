#include "section.h"

#include <cstdio>
#include <fstream>

#include "sizes.h"

namespace hcts::bench {

void read_loadavg(double (&out)[3])
{
    std::ifstream f("/proc/loadavg");
    f >> out[0] >> out[1] >> out[2];
}

nlohmann::json section(const Options &o, const std::vector<std::unique_ptr<Method>> &methods,
                       const std::vector<Measurement> &measurements, const Load &load, const std::vector<Check> *checks)
{
    nlohmann::json j;
    j["sizes"] = o.sizes;
    j["iterations"] = o.iterations;
    j["samples"] = o.samples;
    j["window"] = o.window;
    j["budget_bytes"] = o.budget;
    j["load"] = {{"cpus", load.cpus},
                 {"loadavg_before", {load.before[0], load.before[1], load.before[2]}},
                 {"loadavg_after", {load.after[0], load.after[1], load.after[2]}}};
    j["methods"] = nlohmann::json::array();
    for (const auto &m : methods)
        j["methods"].push_back({{"name", m->name()}, {"description", m->describe()}});
    j["measurements"] = nlohmann::json::array();
    for (const Measurement &m : measurements)
        j["measurements"].push_back(m.to_json());
    if (checks != nullptr) {
        bool held = true;
        nlohmann::json list = nlohmann::json::array();
        for (const Check &c : *checks) {
            held = held && c.held;
            list.push_back(c.to_json());
        }
        j["baseline"] = {{"file", o.baseline}, {"checks", list}, {"held", held}};
    }
    return j;
}

void print_table(const std::vector<Measurement> &measurements)
{
    std::printf("%-8s %-9s %-8s %12s %10s %10s %10s %12s %9s %9s\n", "size", "test", "method", "latency us", "lat min",
                "lat max", "GB/s", "msg/s", "cpu us/m", "csw/m");
    for (const Measurement &m : measurements) {
        if (!m.error.empty() || m.samples.empty()) {
            std::printf("%-8s %-9s %-8s %s\n", size_label(m.size).c_str(), std::string(test_name(m.test)).c_str(),
                        m.method.c_str(), m.error.empty() ? "no samples" : m.error.c_str());
            continue;
        }
        const nlohmann::json j = m.to_json();
        if (m.test == Test::Latency)
            std::printf("%-8s %-9s %-8s %12.2f %10.2f %10.2f %10s %12s %9.2f %9.2f\n", size_label(m.size).c_str(),
                        "latency", m.method.c_str(), m.median("latency"), j["latency"]["min"].get<double>(),
                        j["latency"]["max"].get<double>(), "", "", m.median("cpu"), m.median("switches"));
        else
            std::printf("%-8s %-9s %-8s %12s %10s %10s %10.4g %12.0f %9.2f %9.2f\n", size_label(m.size).c_str(),
                        "bandwidth", m.method.c_str(), "", "", "", m.median("bandwidth"), m.median("message_rate"),
                        m.median("cpu"), m.median("switches"));
    }
}

} // namespace hcts::bench
