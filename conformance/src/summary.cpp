#include "summary.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "hcts/core/results.h"
#include "hcts/expectations.h"

namespace hcts {

int print_summary(const std::string &path)
{
    nlohmann::json d;
    try {
        d = read_json_file(path);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "hcts: no results: %s\n", e.what());
        return 2;
    }
    const auto &sum = d.at("summary");
    std::printf("\nhcts: clause summary for %s on product %s (%s)\n", d.at("iut").at("path").get<std::string>().c_str(),
                d.at("environment").value("product", nlohmann::json("?")).dump().c_str(),
                d.at("run").at("mode").get<std::string>().c_str());
    std::printf("hcts:  ");
    for (const auto &[v, n] : sum.at("by_verdict").items())
        if (n.get<int>() != 0)
            std::printf(" %s %d", v.c_str(), n.get<int>());
    std::printf("  (MUST %d/%d passed, %d waived)\n", sum.at("must_passed").get<int>(), sum.at("must_total").get<int>(),
                sum.value("must_waived", 0));
    for (const auto &c : d.at("clauses")) {
        const std::string v = c.at("verdict");
        if (v == "PASS")
            continue;
        std::printf("hcts:   %-13s %-10s %-7s %s\n", v.c_str(), c.at("id").get<std::string>().c_str(),
                    c.at("kind").get<std::string>().c_str(),
                    c.at("reason").is_null() ? c.at("title").get<std::string>().c_str()
                                             : c.at("reason").get<std::string>().c_str());
    }
    if (sum.contains("not_run") && !sum.at("not_run").empty())
        std::printf("hcts:   not run: %s\n", sum.at("not_run").dump().c_str());
    const std::string status = d.at("run").at("status");
    const bool pass = sum.at("gate") == "pass" && status == "complete";
    std::printf("hcts: gate %s (run %s); results: %s\n", pass ? "PASS" : "FAIL", status.c_str(), path.c_str());
    if (status != "complete")
        return 2;
    return pass ? 0 : 1;
}

void print_outcome(const nlohmann::json &results, const std::string &configuration, const std::string &path)
{
    const nlohmann::json summary = results.value("summary", nlohmann::json::object());
    const auto not_run = summary.find("not_run");
    if (not_run == summary.end() || !not_run->is_array() || not_run->empty()) {
        std::printf("hcts: gate %s; results in %s\n", summary.value("gate", "") == "pass" ? "pass" : "FAIL",
                    path.c_str());
        return;
    }
    int judged = 0;
    std::string failing, departing;
    const bool strict = summary.value("gate_mode", "default") == "strict";
    for (const auto &c : results.value("clauses", nlohmann::json::array())) {
        const auto verdict = c.value("verdict", nlohmann::json());
        if (!verdict.is_string())
            continue;
        ++judged;
        if (!expectations::is_bad(verdict.get<std::string>()))
            continue;
        const std::string kind = c.value("kind", "");
        const std::string id = c.value("id", std::string("?"));
        if (expectations::gates_on(kind, strict))
            failing += (failing.empty() ? "" : ", ") + id;
        else
            departing += (departing.empty() ? "" : ", ") + id + " (" + kind + ")";
    }
    const int undecided = static_cast<int>(not_run->size());
    std::printf("hcts: %s: %d clauses judged (%d left to other runs), %s%s; results in %s\n",
                configuration.empty() ? "this subset" : configuration.c_str(), judged, undecided,
                failing.empty() ? "none failing" : ("failing: " + failing).c_str(),
                departing.empty() ? "" : ("; not gated: " + departing).c_str(), path.c_str());
}

int outcome_status(const nlohmann::json &results)
{
    const nlohmann::json summary = results.value("summary", nlohmann::json::object());
    const auto not_run = summary.find("not_run");
    const bool subset = not_run != summary.end() && not_run->is_array() && !not_run->empty();
    return summary.value(subset ? "judged" : "gate", "") == "pass" ? 0 : 1;
}

} // namespace hcts
