#include "baseline.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "sizes.h"

namespace hcts::bench {

namespace {

const std::vector<std::string> kMethods = {"verbs", "mpi_osc", "memcpy"};

std::string number(double v)
{
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return b;
}

std::string where(const std::string &path, const YAML::Node &n)
{
    return path + ":" + std::to_string(n.Mark().line + 1);
}

} // namespace

std::vector<Expectation> load_baseline(const std::string &path)
{
    YAML::Node doc;
    try {
        doc = YAML::LoadFile(path);
    } catch (const YAML::Exception &e) {
        throw std::runtime_error(path + ": not a readable YAML file: " + e.what());
    }
    if (!doc.IsMap())
        throw std::runtime_error(path + ": a baseline is a map of id: {metric, size, hcomm_over, min and/or max}");
    std::vector<Expectation> out;
    for (const auto &kv : doc) {
        Expectation e;
        e.id = kv.first.as<std::string>();
        const YAML::Node &n = kv.second;
        e.source = where(path, n);
        const auto bad = [&](const std::string &what) {
            return std::runtime_error(e.source + ": " + e.id + ": " + what);
        };
        if (!n.IsMap())
            throw bad("expected {metric, size, hcomm_over, min and/or max}");
        for (const auto &f : n) {
            const auto key = f.first.as<std::string>();
            if (key != "metric" && key != "size" && key != "hcomm_over" && key != "min" && key != "max" &&
                key != "test" && key != "stat")
                throw bad("unknown field '" + key + "'; allowed: metric, size, hcomm_over, test, stat, min, max");
        }
        e.metric = n["metric"] ? n["metric"].as<std::string>() : "";
        const auto &ms = metrics();
        if (std::none_of(ms.begin(), ms.end(), [&](const auto &m) { return m.first == e.metric; }))
            throw bad("metric '" + e.metric + "'; allowed: latency, bandwidth, message_rate, cpu, switches");
        e.over = n["hcomm_over"] ? n["hcomm_over"].as<std::string>() : "";
        if (std::find(kMethods.begin(), kMethods.end(), e.over) == kMethods.end())
            throw bad("hcomm_over '" + e.over + "'; allowed: verbs, mpi_osc, memcpy");
        if (!n["size"])
            throw bad("no size (e.g. size: 8 or size: 1M)");
        try {
            e.size = parse_size(n["size"].as<std::string>());
        } catch (const std::invalid_argument &x) {
            throw bad(x.what());
        }
        const bool stream = e.metric == "bandwidth" || e.metric == "message_rate";
        const std::string test = n["test"] ? n["test"].as<std::string>() : (stream ? "bandwidth" : "latency");
        if (test != "latency" && test != "bandwidth")
            throw bad("test '" + test + "'; allowed: latency, bandwidth");
        if (stream && test != "bandwidth")
            throw bad("metric " + e.metric + " comes from the bandwidth test only");
        e.test = test == "latency" ? Test::Latency : Test::Bandwidth;
        const std::string stat = n["stat"] ? n["stat"].as<std::string>() : "median";
        if (stat != "median" && stat != "best")
            throw bad("stat '" + stat + "'; allowed: median, best");
        e.best = stat == "best";
        try {
            if (n["min"])
                e.min = n["min"].as<double>();
            if (n["max"])
                e.max = n["max"].as<double>();
        } catch (const YAML::Exception &) {
            throw bad("min and max are numbers (ratios, e.g. max: 2.0)");
        }
        if (!e.min && !e.max)
            throw bad("needs min, max or both (the bounds of hcomm/" + e.over + ")");
        out.push_back(std::move(e));
    }
    return out;
}

std::vector<Check> check_baseline(const std::vector<Expectation> &expectations,
                                  const std::vector<Measurement> &measurements)
{
    std::vector<Check> out;
    const auto find = [&](const std::string &method, const Expectation &e) -> const Measurement * {
        for (const Measurement &m : measurements)
            if (m.method == method && m.size == e.size && m.test == e.test && !m.samples.empty() && m.error.empty())
                return &m;
        return nullptr;
    };
    for (const Expectation &e : expectations) {
        Check c;
        c.e = e;
        const Measurement *h = find("hcomm", e), *o = find(e.over, e);
        if (h == nullptr || o == nullptr) {
            c.reason = "not measured in this run: " + std::string(h == nullptr ? "hcomm" : e.over) + " " +
                       std::string(test_name(e.test)) + " at " + size_label(e.size);
            out.push_back(std::move(c));
            continue;
        }
        c.hcomm = e.best ? h->best(e.metric) : h->median(e.metric);
        c.other = e.best ? o->best(e.metric) : o->median(e.metric);
        c.ratio = c.other > 0 ? c.hcomm / c.other : 0;
        c.held = c.other > 0 && (!e.min || c.ratio >= *e.min) && (!e.max || c.ratio <= *e.max);
        if (!c.held)
            c.reason = c.other > 0 ? "ratio out of bounds" : e.over + " measured 0";
        out.push_back(std::move(c));
    }
    return out;
}

nlohmann::json Check::to_json() const
{
    nlohmann::json j = {{"id", e.id},
                        {"metric", e.metric},
                        {"test", test_name(e.test)},
                        {"stat", e.best ? "best" : "median"},
                        {"size", e.size},
                        {"hcomm_over", e.over},
                        {"hcomm", hcomm},
                        {"other", other},
                        {"ratio", ratio},
                        {"held", held},
                        {"source", e.source}};
    j["min"] = e.min ? nlohmann::json(*e.min) : nlohmann::json(nullptr);
    j["max"] = e.max ? nlohmann::json(*e.max) : nlohmann::json(nullptr);
    if (!reason.empty())
        j["reason"] = reason;
    return j;
}

std::string Check::line() const
{
    char buf[512];
    const std::string bounds = (e.min ? ">= " + number(*e.min) : std::string()) + (e.min && e.max ? " and " : "") +
                               (e.max ? "<= " + number(*e.max) : "");
    std::snprintf(buf, sizeof buf, "%-4s %-6s %s%s at %s: hcomm %.4g / %s %.4g = %.3f (allowed %s)%s%s",
                  held ? "ok" : "FAIL", e.id.c_str(), e.metric.c_str(), e.best ? " (best)" : "",
                  size_label(e.size).c_str(), hcomm, e.over.c_str(), other, ratio, bounds.c_str(),
                  reason.empty() ? "" : ": ", reason.c_str());
    return buf;
}

} // namespace hcts::bench
