// hcts-selfcheck: asserts what a results.json of the suite must say, for the
// suite's self-tests (the reference, deliberately wrong IUTs, an IUT without WWN).
#include "hcts/core/cli.h"
#include "hcts/core/results.h"
#include "hcts/expectations.h"

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

namespace {

int problems = 0;
void problem(const std::string &s)
{
    std::fprintf(stderr, "hcts-selfcheck: %s\n", s.c_str());
    ++problems;
}

std::set<std::string> split(const std::string &list)
{
    std::set<std::string> out;
    std::stringstream ss(list);
    for (std::string id; std::getline(ss, id, ',');)
        if (!id.empty())
            out.insert(id);
    return out;
}

std::string why(const nlohmann::json &c)
{
    return c.at("reason").is_null() ? "" : " (" + c.at("reason").get<std::string>() + ")";
}

bool is_bad(const std::string &v)
{
    return v == "FAIL" || v == "CRASH" || v == "TIMEOUT" || v == "HAZARD" || v == "XPASS" || v == "ERROR";
}

} // namespace

int main(int argc, char **argv)
{
    CLI::App app{"hcts-selfcheck: assert what a results.json of hcts-conformance says"};
    std::string results, mode_ids, ns_ok_list, clause_id, clause_verdict;
    int ranks = 0, hosts = 0;
    uint64_t segment = 0;
    bool subset = false, parties_apart = false;
    app.add_option("results", results, "the results.json")->required()->check(CLI::ExistingFile);
    app.add_option(
        "--not-supported-ok", ns_ok_list,
        "comma-separated clauses that may be NOT_SUPPORTED (e.g. L13, which needs 3 ranks, in a 2-rank run)");
    app.add_option("--ranks", ranks, "environment.ranks must be this");
    app.add_option("--hosts", hosts, "environment.hosts must name this many distinct hosts");
    app.add_flag("--parties-apart", parties_apart,
                 "ranks 0 and 1 (the two parties of two-party cases) must be on different hosts");
    app.add_flag("--subset", subset,
                 "a run of a subset of the cases (a configuration of ./hcts run): clauses no case decided are "
                 "allowed; every clause that ran is still checked");
    app.add_option("--segment-size", segment, "environment.segment_size must be this (the adapter declared it)");
    app.require_subcommand(1);
    app.fallthrough(); // the options above may come after the subcommand
    auto *reference = app.add_subcommand("reference", "every clause PASS or PROFILE, the gate passes");
    auto *broken = app.add_subcommand("broken", "these clauses FAIL, no other is worse than PROFILE");
    broken->add_option("clauses", mode_ids, "comma-separated clause IDs")->required();
    auto *not_supported = app.add_subcommand(
        "not-supported", "WWN clauses NOT_SUPPORTED, nothing FAILs or crashes; the listed clauses must PASS");
    not_supported->add_option("clauses", mode_ids, "comma-separated clause IDs that must PASS");
    auto *clause = app.add_subcommand("clause", "that one clause has that verdict (filtered runs)");
    clause->add_option("id", clause_id)->required();
    clause->add_option("verdict", clause_verdict)->required();
    CLI11_PARSE(app, argc, argv);
    (void)reference;

    nlohmann::json doc;
    try {
        doc = hcts::read_json_file(results);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "hcts-selfcheck: %s\n", e.what());
        return 2;
    }
    if (clause->parsed()) {
        for (const auto &c : doc.at("clauses"))
            if (c.at("id") == clause_id) {
                const std::string v = c.at("verdict");
                if (v != clause_verdict) {
                    problem(clause_id + " is " + v + why(c) + ", expected " + clause_verdict);
                    return 1;
                }
                std::printf("hcts-selfcheck: %s is %s%s, as expected\n", clause_id.c_str(), v.c_str(), why(c).c_str());
                return 0;
            }
        problem(clause_id + " does not appear in the results");
        return 1;
    }
    const std::set<std::string> listed = split(mode_ids), ns_ok = split(ns_ok_list);
    if (doc.at("run").at("status") != "complete")
        problem("run.status is " + doc.at("run").at("status").dump() + ", expected \"complete\"");
    if (!subset && !doc.at("summary").at("not_run").empty())
        problem("clauses without a case that ran: " + doc.at("summary").at("not_run").dump());
    std::set<std::string> seen;
    for (const auto &c : doc.at("clauses")) {
        const std::string id = c.at("id"), v = c.at("verdict"), kind = c.at("kind");
        seen.insert(id);
        if (v == "NOT_SUPPORTED" && ns_ok.count(id) != 0) {
            std::printf("hcts-selfcheck: %s is NOT_SUPPORTED, allowed here%s\n", id.c_str(), why(c).c_str());
            continue;
        }
        if (broken->parsed() && listed.count(id) != 0) {
            if (v != "FAIL")
                problem(id + " is " + v + why(c) + "; the broken IUT must FAIL it");
            continue;
        }
        if (not_supported->parsed()) {
            if (listed.count(id) != 0 && v != "PASS")
                problem(id + " is " + v + why(c) + ", expected PASS");
            if (is_bad(v))
                problem(id + " is " + v + why(c) + "; an IUT without the call must only be NOT_SUPPORTED");
            continue;
        }
        if (is_bad(v) || v == "NOT_SUPPORTED")
            problem(id + " (" + kind + ") is " + v + why(c) + "; expected PASS or PROFILE");
        if (kind == "PROFILE" && v != "PROFILE" && v != "PASS")
            problem(id + " is " + v);
    }
    for (const auto &id : listed)
        if (seen.count(id) == 0)
            problem(id + " does not appear in the results");
    if (not_supported->parsed()) {
        for (const auto &c : doc.at("clauses"))
            if (c.at("id") == "WWN.VIS.1" && c.at("verdict") != "NOT_SUPPORTED")
                problem("WWN.VIS.1 is " + c.at("verdict").get<std::string>() + ", expected NOT_SUPPORTED");
        if (doc.at("summary").at("gate") != "fail")
            problem("the gate passed for an IUT without HcommWriteWithNotifyOnThread");
    }
    const auto &env = doc.at("environment");
    if (segment != 0 && env.value("segment_size", nlohmann::json()) != nlohmann::json(segment))
        problem("environment.segment_size is " + env.value("segment_size", nlohmann::json(nullptr)).dump() +
                ", expected " + std::to_string(segment));
    if (parties_apart) {
        const auto h = env.value("hosts", nlohmann::json::array());
        if (h.size() < 2 || h.at(0) == h.at(1))
            problem("ranks 0 and 1 are not on different hosts: environment.hosts is " + h.dump());
        else
            std::printf("hcts-selfcheck: ranks 0 and 1 ran on %s and %s\n", h.at(0).get<std::string>().c_str(),
                        h.at(1).get<std::string>().c_str());
    }
    if (ranks != 0 && env.value("ranks", 0) != ranks)
        problem("environment.ranks is " + env.value("ranks", nlohmann::json(nullptr)).dump() + ", expected " +
                std::to_string(ranks));
    if (hosts != 0) {
        std::set<std::string> names;
        for (const auto &h : env.value("hosts", nlohmann::json::array()))
            names.insert(h.get<std::string>());
        if (names.size() != static_cast<size_t>(hosts))
            problem("environment.hosts names " + std::to_string(names.size()) + " distinct hosts (" +
                    env.value("hosts", nlohmann::json::array()).dump() + "), expected " + std::to_string(hosts));
    }
    if (reference->parsed()) {
        // A subset leaves clauses undecided (summary.not_run), which alone fails the
        // gate: judge it as if every clause it did not run were absent.
        nlohmann::json judged = doc;
        if (subset) {
            judged["summary"]["not_run"] = nlohmann::json::array();
            hcts::expectations::summarize(judged);
        }
        if (judged.at("summary").at("gate") != "pass")
            problem(subset ? "the gate failed on the reference, beyond the clauses the subset did not run"
                           : "the gate failed on the reference");
    }
    if (problems == 0)
        std::printf("hcts-selfcheck: %s: as expected\n", results.c_str());
    return problems == 0 ? 0 : 1;
}
