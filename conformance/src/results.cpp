#include "results.h"

#include <sys/utsname.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "adapter.h"
#include "iut.h"
#include "options.h"
#include "verdict.h"
#include "hcts/expectations.h"

namespace hcts {

namespace {
std::string utc_now()
{
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

nlohmann::json null_if_empty(const std::string &s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }
} // namespace

Results::Results(std::string path, const Catalogue &catalogue) : path_(std::move(path)), catalogue_(catalogue)
{
    const Options &o = options();
    struct utsname u {};
    uname(&u);
    const char *sv_seed = std::getenv("SOFTVERBS_SEED");
    const char *commit = std::getenv("HCTS_SUITE_COMMIT");
    doc_ = {
        {"schema", "hcts-results"},
        {"schema_version", 1},
        {"run",
         {{"id", o.run_id},
          {"status", "running"},
          {"started", utc_now()},
          {"finished", nullptr},
          {"suite_version", HCTS_SUITE_VERSION},
          {"suite_commit", commit != nullptr ? nlohmann::json(commit) : nlohmann::json(nullptr)},
          {"command", o.command},
          {"mode", sv_seed != nullptr ? "adversarial" : "plain"},
          {"seed", sv_seed != nullptr ? nlohmann::json(std::strtoull(sv_seed, nullptr, 10)) : nlohmann::json(o.seed)},
          {"kind", "conformance"}}},
        {"iut",
         {{"path", o.iut},
          {"sha256", null_if_empty(Iut::get().sha256())},
          {"version", nullptr},
          {"name", std::filesystem::path(o.iut).filename().string()},
          {"missing_symbols", Iut::get().missing()}}},
        {"adapter", nullptr},
        {"environment",
         {{"product", nullptr},
          {"ranks", 0},
          {"hosts", nlohmann::json::array()},
          {"os", std::string(u.sysname) + " " + u.release + " " + u.machine},
          {"transport", std::getenv("HCTS_TRANSPORT") != nullptr ? std::getenv("HCTS_TRANSPORT") : "softverbs"}}},
        {"clauses", nlohmann::json::array()},
        {"cases", nlohmann::json::array()},
        {"litmus", nlohmann::json::array()},
        {"properties", nlohmann::json::array()},
        {"expectations",
         {{"file", null_if_empty(o.expectations)}, {"waived", nlohmann::json::array()}, {"xpass", nlohmann::json::array()}}},
        {"summary", nullptr},
    };
    recompute();
}

std::pair<std::string, std::string> Results::add_case(const CaseInfo &info, const std::vector<nlohmann::json> &per_rank,
                                                      double duration_ms)
{
    nlohmann::json clause_verdicts = nlohmann::json::object();
    Verdict case_v = Verdict::Pass;
    std::string case_reason;
    nlohmann::json messages = nlohmann::json::array();
    nlohmann::json observations = nlohmann::json::object();
    nlohmann::json seed = nullptr;
    for (const auto &id : info.clauses) {
        Verdict v = Verdict::Pass;
        nlohmann::json reason = nullptr, profile = nullptr;
        for (size_t r = 0; r < per_rank.size(); ++r) {
            const auto &c = per_rank[r].at("clauses").at(id);
            const Verdict rv = verdict_from(c.at("verdict").get<std::string>());
            if (!c.at("profile").is_null() && profile.is_null())
                profile = c.at("profile");
            if (rv > v || (rv == v && reason.is_null() && !c.at("reason").is_null())) {
                v = rv;
                reason = c.at("reason").is_null() ? nlohmann::json(nullptr)
                                                  : nlohmann::json("rank " + std::to_string(r) + ": " +
                                                                   c.at("reason").get<std::string>());
            }
        }
        clause_verdicts[id] = {{"verdict", verdict_name(v)}, {"reason", reason}, {"profile", profile}};
        if (v > case_v || (v == case_v && case_reason.empty() && !reason.is_null())) {
            case_v = v;
            case_reason = reason.is_null() ? "" : id + ": " + reason.get<std::string>();
        }
    }
    for (size_t r = 0; r < per_rank.size(); ++r) {
        for (const auto &m : per_rank[r].at("messages"))
            messages.push_back({{"rank", r}, {"text", m}});
        if (!per_rank[r].at("observations").empty())
            observations["rank" + std::to_string(r)] = per_rank[r].at("observations");
        if (seed.is_null())
            seed = per_rank[r].at("seed");
        for (const auto &l : per_rank[r].at("litmus"))
            doc_["litmus"].push_back(l);
    }
    nlohmann::json reproducer = "./hcts run --iut " + options().iut + " --adapter " + options().adapter +
                                (seed.is_null() ? std::string() : " --seed " + std::to_string(seed.get<uint64_t>())) +
                                " -- --gtest_filter=" + info.name;
    // The schema derives a clause's verdict from its cases, so a test that checks
    // several clauses is recorded as one case per clause ("Test/CLAUSE"), each with
    // that clause's own verdict: a broken behaviour fails only its clause.
    const bool split = info.clauses.size() > 1;
    for (size_t k = 0; k < (split ? info.clauses.size() : 1); ++k) {
        const std::string id = split ? info.clauses[k] : std::string();
        const nlohmann::json &cv = split ? clause_verdicts[id] : nlohmann::json();
        nlohmann::json own_verdicts = split ? nlohmann::json{{id, cv}} : clause_verdicts;
        doc_["cases"].push_back(
            {{"name", split ? info.name + "/" + id : info.name},
             {"test", info.name},
             {"clauses", split ? nlohmann::json::array({id}) : nlohmann::json(info.clauses)},
             {"verdict", split ? cv.at("verdict").get<std::string>() : std::string(verdict_name(case_v))},
             {"reason", split ? cv.at("reason") : null_if_empty(case_reason)},
             {"duration_ms", duration_ms},
             {"seed", seed},
             {"reproducer", reproducer},
             {"messages", messages},
             {"observations", k == 0 ? observations : nlohmann::json::object()},
             {"clause_verdicts", own_verdicts}});
    }
    write();
    return {verdict_name(case_v), case_reason};
}

void Results::add_broken_case(const CaseInfo &info, Verdict v, const std::string &reason, double duration_ms)
{
    nlohmann::json clause_verdicts = nlohmann::json::object();
    for (const auto &id : info.clauses)
        clause_verdicts[id] = {{"verdict", verdict_name(v)}, {"reason", reason}, {"profile", nullptr}};
    doc_["cases"].push_back({{"name", info.name},
                             {"clauses", info.clauses},
                             {"verdict", verdict_name(v)},
                             {"reason", reason},
                             {"duration_ms", duration_ms},
                             {"seed", nullptr},
                             {"reproducer", "./hcts run -- --gtest_filter=" + info.name},
                             {"messages", nlohmann::json::array()},
                             {"observations", nlohmann::json::object()},
                             {"clause_verdicts", clause_verdicts}});
    write();
}

void Results::recompute()
{
    // Clause verdict: the worst over the cases that ran for it.
    std::map<std::string, std::pair<Verdict, nlohmann::json>> by_clause;
    std::map<std::string, std::vector<std::string>> cases_of;
    std::map<std::string, nlohmann::json> profile_of;
    for (const auto &c : doc_["cases"]) {
        for (const auto &[id, cv] : c.at("clause_verdicts").items()) {
            const Verdict v = verdict_from(cv.at("verdict").get<std::string>());
            cases_of[id].push_back(c.at("name").get<std::string>());
            auto it = by_clause.find(id);
            if (it == by_clause.end() || v > it->second.first)
                by_clause[id] = {v, cv.at("reason")};
            if (!cv.at("profile").is_null())
                profile_of[id] = cv.at("profile");
        }
    }
    nlohmann::json clauses = nlohmann::json::array();
    nlohmann::json not_run = nlohmann::json::array();
    for (const auto &cl : catalogue_.clauses()) {
        nlohmann::json verdict = nullptr, reason = "no case ran for this clause";
        if (auto it = by_clause.find(cl.id); it != by_clause.end()) {
            verdict = verdict_name(it->second.first);
            reason = it->second.second;
        }
        // A clause no case decided (a filtered run) is left out of the list, so
        // readers only meet schema verdicts, and it counts against the gate.
        if (verdict.is_null()) {
            not_run.push_back(cl.id);
            continue;
        }
        clauses.push_back({{"id", cl.id},
                           {"title", cl.title},
                           {"statement", cl.statement},
                           {"kind", cl.kind},
                           {"area", cl.area},
                           {"source", cl.source},
                           {"verdict", verdict},
                           {"reason", reason},
                           {"cases", cases_of[cl.id]},
                           {"profile", profile_of.count(cl.id) != 0 ? profile_of[cl.id] : nlohmann::json(nullptr)}});
    }
    doc_["clauses"] = clauses;
    // The counts and the gate are reports' (run status, not_run, MUST clauses PASS
    // or WAIVED, no XPASS, no failed litmus or property entry): one gate for the
    // suite's exit status and for hcts-report.
    doc_["summary"] = {{"not_run", not_run}};
    expectations::summarize(doc_);
}

void Results::write()
{
    recompute();
    if (!options().expectations.empty()) {
        static const auto set = expectations::ExpectationSet::load(options().expectations);
        set.apply(doc_);
    }
    const std::filesystem::path p(path_);
    if (p.has_parent_path())
        std::filesystem::create_directories(p.parent_path());
    const std::string tmp = path_ + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        if (!out)
            throw std::runtime_error("cannot write results to '" + tmp + "'");
        out << doc_.dump(2) << '\n';
    }
    std::filesystem::rename(tmp, p);
}

void Results::finish(const std::string &status)
{
    doc_["run"]["status"] = status;
    doc_["run"]["finished"] = utc_now();
    write();
}

bool Results::gate_passed() const { return doc_.at("summary").at("gate") == "pass"; }

} // namespace hcts
