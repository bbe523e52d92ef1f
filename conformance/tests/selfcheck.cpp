// hcts-selfcheck: asserts what a results.json of the suite must say, for the
// suite's self-tests (reference, deliberately wrong IUTs, an IUT without WWN).
//   hcts-selfcheck RESULTS reference
//   hcts-selfcheck RESULTS broken CLAUSE[,CLAUSE...]   those FAIL, no other clause is worse than PROFILE
//   hcts-selfcheck RESULTS not-supported [IDS]        WWN clauses NOT_SUPPORTED, nothing FAILs or crashes;
//                                                     the listed clauses must PASS
//   hcts-selfcheck RESULTS clause ID VERDICT           that one clause has that verdict (filtered runs)
//   any mode + --not-supported-ok=IDS: those clauses may be NOT_SUPPORTED (e.g. L13,
//   which needs 3 ranks, in a 2-rank run); their reason is printed.
// Environment: HCTS_SELFCHECK_RANKS=N (environment.ranks must be N),
// HCTS_SELFCHECK_HOSTS=K (environment.hosts must name K distinct hosts).
#include <cstdio>
#include <cstdlib>
#include <fstream>
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
} // namespace

int main(int argc, char **argv)
{
    std::set<std::string> ns_ok;
    {
        const std::string flag = "--not-supported-ok=";
        int out = 1;
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            if (a.rfind(flag, 0) == 0) {
                std::stringstream ss(a.substr(flag.size()));
                for (std::string id; std::getline(ss, id, ',');)
                    ns_ok.insert(id);
            } else {
                argv[out++] = argv[i];
            }
        }
        argc = out;
    }
    if (argc < 3) {
        std::fprintf(stderr, "usage: hcts-selfcheck RESULTS reference|broken IDS|not-supported\n");
        return 2;
    }
    std::ifstream in(argv[1]);
    if (!in) {
        std::fprintf(stderr, "hcts-selfcheck: cannot read '%s'\n", argv[1]);
        return 2;
    }
    const auto doc = nlohmann::json::parse(in);
    const std::string mode = argv[2];
    if (mode == "clause") {
        if (argc < 5) {
            std::fprintf(stderr, "hcts-selfcheck: 'clause' needs a clause id and a verdict\n");
            return 2;
        }
        for (const auto &c : doc.at("clauses"))
            if (c.at("id") == argv[3]) {
                const std::string v = c.at("verdict");
                const std::string why = c.at("reason").is_null() ? "" : " (" + c.at("reason").get<std::string>() + ")";
                if (v != argv[4]) {
                    problem(std::string(argv[3]) + " is " + v + why + ", expected " + argv[4]);
                    return 1;
                }
                std::printf("hcts-selfcheck: %s is %s%s, as expected\n", argv[3], v.c_str(), why.c_str());
                return 0;
            }
        problem(std::string(argv[3]) + " does not appear in the results");
        return 1;
    }
    std::set<std::string> broken;
    if (mode == "broken") {
        if (argc < 4) {
            std::fprintf(stderr, "hcts-selfcheck: 'broken' needs a comma-separated clause list\n");
            return 2;
        }
        std::stringstream ss(argv[3]);
        for (std::string id; std::getline(ss, id, ',');)
            broken.insert(id);
    } else if (mode == "not-supported" && argc >= 4) {
        std::stringstream ss(argv[3]);
        for (std::string id; std::getline(ss, id, ',');)
            broken.insert(id); // here: clauses that must PASS
    } else if (mode != "reference" && mode != "not-supported") {
        std::fprintf(stderr, "hcts-selfcheck: mode '%s' is not reference, broken or not-supported\n", mode.c_str());
        return 2;
    }
    if (doc.at("run").at("status") != "complete")
        problem("run.status is " + doc.at("run").at("status").dump() + ", expected \"complete\"");
    if (!doc.at("summary").at("not_run").empty())
        problem("clauses without a case that ran: " + doc.at("summary").at("not_run").dump());
    std::set<std::string> seen;
    for (const auto &c : doc.at("clauses")) {
        const std::string id = c.at("id"), v = c.at("verdict"), kind = c.at("kind");
        const std::string why = c.at("reason").is_null() ? "" : " (" + c.at("reason").get<std::string>() + ")";
        seen.insert(id);
        const bool bad = v == "FAIL" || v == "CRASH" || v == "TIMEOUT" || v == "HAZARD" || v == "XPASS";
        if (v == "NOT_SUPPORTED" && ns_ok.count(id) != 0) {
            std::printf("hcts-selfcheck: %s is NOT_SUPPORTED, allowed here%s\n", id.c_str(), why.c_str());
            continue;
        }
        if (mode == "broken" && broken.count(id) != 0) {
            if (v != "FAIL")
                problem(id + " is " + v + "; the broken IUT must FAIL it");
            continue;
        }
        if (mode == "not-supported") {
            if (broken.count(id) != 0 && v != "PASS")
                problem(id + " is " + v + why + ", expected PASS");
            if (bad)
                problem(id + " is " + v + why + "; an IUT without the call must only be NOT_SUPPORTED");
            continue;
        }
        if (bad || v == "NOT_SUPPORTED")
            problem(id + " (" + kind + ") is " + v + why + "; expected PASS or PROFILE");
        if (kind == "PROFILE" && v != "PROFILE" && v != "PASS")
            problem(id + " is " + v);
    }
    for (const auto &id : broken)
        if (seen.count(id) == 0)
            problem(id + " does not appear in the results");
    if (mode == "not-supported") {
        for (const auto &c : doc.at("clauses"))
            if (c.at("id") == "WWN.VIS.1" && c.at("verdict") != "NOT_SUPPORTED")
                problem("WWN.VIS.1 is " + c.at("verdict").get<std::string>() + ", expected NOT_SUPPORTED");
        if (doc.at("summary").at("gate") != "fail")
            problem("the gate passed for an IUT without HcommWriteWithNotifyOnThread");
    }
    const auto &env = doc.at("environment");
    if (const char *want = std::getenv("HCTS_SELFCHECK_RANKS"); want != nullptr && *want != '\0')
        if (env.value("ranks", 0) != std::atoi(want))
            problem("environment.ranks is " + env.value("ranks", nlohmann::json(nullptr)).dump() + ", expected " + want);
    if (const char *want = std::getenv("HCTS_SELFCHECK_HOSTS"); want != nullptr && *want != '\0') {
        std::set<std::string> hosts;
        for (const auto &h : env.value("hosts", nlohmann::json::array()))
            hosts.insert(h.get<std::string>());
        if (hosts.size() != static_cast<size_t>(std::atoi(want)))
            problem("environment.hosts names " + std::to_string(hosts.size()) + " distinct hosts (" +
                    env.value("hosts", nlohmann::json::array()).dump() + "), expected " + want);
    }
    if (mode == "reference" && doc.at("summary").at("gate") != "pass")
        problem("the gate failed on the reference");
    if (problems == 0)
        std::printf("hcts-selfcheck: %s: as expected (%s)\n", argv[1], mode.c_str());
    return problems == 0 ? 0 : 1;
}
