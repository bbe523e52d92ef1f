// The derived parts of a results document: clause verdicts from cases, the
// summary and the gate. The one derivation every writer and reader uses.
#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "hcts/core/clause_kind.h"
#include "hcts/core/verdict.h"
#include "hcts/expectations.h"

namespace hcts::expectations {
namespace {

constexpr std::array<std::string_view, kAllVerdicts.size()> names()
{
    std::array<std::string_view, kAllVerdicts.size()> out{};
    for (size_t i = 0; i < kAllVerdicts.size(); ++i)
        out[i] = verdict_name(kAllVerdicts[i]);
    return out;
}
// Best first; the index is the rank.
constexpr std::array<std::string_view, kAllVerdicts.size()> kNames = names();

std::string string_or(const nlohmann::json &obj, const char *key, std::string fallback)
{
    if (!obj.is_object())
        return fallback;
    const auto it = obj.find(key);
    return it != obj.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// What a case says about one clause: its entry in clause_verdicts when it has
// one (a case may cover several clauses and fail only one), else the case itself.
const nlohmann::json &entry_for(const nlohmann::json &c, const std::string &clause_id)
{
    if (c.is_object() && c.contains("clause_verdicts")) {
        const auto &per = c.at("clause_verdicts");
        if (per.is_object() && per.contains(clause_id) &&
            verdict_rank(string_or(per.at(clause_id), "verdict", "")) >= 0)
            return per.at(clause_id);
    }
    return c;
}

} // namespace

bool gates_on(std::string_view kind, bool strict)
{
    return hcts::gates_on(kind, strict ? GateMode::Strict : GateMode::Default);
}

int verdict_rank(std::string_view verdict)
{
    const auto v = parse_verdict(verdict);
    return v ? static_cast<int>(*v) : -1;
}

std::span<const std::string_view> all_verdicts() { return kNames; }

bool is_bad(std::string_view verdict)
{
    const auto v = parse_verdict(verdict);
    return v && hcts::is_bad(*v);
}

void summarize(nlohmann::json &results)
{
    if (!results.is_object())
        throw std::runtime_error("results: the document is not a JSON object");
    auto &clauses = results["clauses"];
    if (clauses.is_null())
        clauses = nlohmann::json::array();
    if (!clauses.is_array())
        throw std::runtime_error("results: 'clauses' is not an array");

    std::map<std::string, const nlohmann::json *> case_by_name;
    bool any_xpass = false;
    if (const auto it = results.find("cases"); it != results.end() && it->is_array()) {
        for (const auto &c : *it) {
            const auto name = string_or(c, "name", "");
            if (!name.empty())
                case_by_name[name] = &c;
            any_xpass = any_xpass || string_or(c, "verdict", "") == "XPASS";
        }
    }
    const nlohmann::json run = results.value("run", nlohmann::json::object());
    const std::string gate_mode = string_or(run, "gate", "default");
    const bool strict = gate_mode == "strict";
    const GateMode mode = strict ? GateMode::Strict : GateMode::Default;

    std::map<std::string, int> by_verdict;
    for (const auto v : kNames)
        by_verdict[std::string(v)] = 0;
    int must_total = 0, must_passed = 0, must_waived = 0, strict_total = 0, strict_passed = 0;
    bool gated_ok = true;
    for (auto &clause : clauses) {
        if (!clause.is_object())
            throw std::runtime_error("results: an entry of 'clauses' is not an object");
        const std::string own = string_or(clause, "verdict", "");
        const std::string id = string_or(clause, "id", "");
        // A PROFILE is a judgement on the clause as a whole (its cases pass and
        // report what they saw), so it survives unless a case is worse.
        std::string worst = own == "PROFILE" ? own : "";
        const nlohmann::json *decider = nullptr;
        std::string decider_case;
        nlohmann::json profile = clause.value("profile", nlohmann::json());
        // Cases tagged with a configuration (merge_configuration): the worst per
        // configuration, in the order the configurations first appear.
        std::vector<std::pair<std::string, std::string>> per_configuration;
        if (const auto it = clause.find("cases"); it != clause.end() && it->is_array()) {
            for (const auto &name : *it) {
                if (!name.is_string())
                    continue;
                const auto found = case_by_name.find(name.get<std::string>());
                if (found == case_by_name.end())
                    continue;
                const nlohmann::json &e = entry_for(*found->second, id);
                const auto v = string_or(e, "verdict", "");
                if (verdict_rank(v) < 0)
                    continue;
                if (const auto conf = string_or(*found->second, "configuration", ""); !conf.empty()) {
                    auto at = std::find_if(per_configuration.begin(), per_configuration.end(),
                                           [&conf](const auto &p) { return p.first == conf; });
                    if (at == per_configuration.end())
                        per_configuration.emplace_back(conf, v);
                    else if (verdict_rank(v) > verdict_rank(at->second))
                        at->second = v;
                }
                if (e.contains("profile") && !e.at("profile").is_null())
                    profile = e.at("profile");
                // The first case with the worst verdict gives the clause its reason.
                if (worst.empty() || verdict_rank(v) > verdict_rank(worst) ||
                    (decider == nullptr && verdict_rank(v) == verdict_rank(worst))) {
                    worst = v;
                    decider = &e;
                    decider_case = name.get<std::string>();
                }
            }
        }
        if (!per_configuration.empty()) {
            nlohmann::json list = nlohmann::json::array();
            for (const auto &[conf, v] : per_configuration)
                list.push_back({{"name", conf}, {"verdict", v}});
            clause["configurations"] = std::move(list);
        }
        if (decider != nullptr) {
            clause["verdict"] = worst;
            // "Case.Name: why", so a reader knows which case to rerun.
            const nlohmann::json why = decider->value("reason", nlohmann::json());
            clause["reason"] = why.is_string() ? nlohmann::json(decider_case + ": " + why.get<std::string>()) : why;
            clause["profile"] = profile;
        }
        const std::string verdict = string_or(clause, "verdict", "");
        if (verdict_rank(verdict) >= 0)
            ++by_verdict[verdict];
        any_xpass = any_xpass || verdict == "XPASS";
        const std::string kind = string_or(clause, "kind", "");
        const bool ok = verdict == "PASS" || verdict == "WAIVED";
        if (kind == "MUST") {
            ++must_total;
            must_passed += verdict == "PASS";
            must_waived += verdict == "WAIVED";
        } else if (kind == "STRICT") {
            ++strict_total;
            strict_passed += verdict == "PASS";
        }
        if (hcts::gates_on(kind, mode) && !ok)
            gated_ok = false;
    }

    const bool complete = string_or(run, "status", "") == "complete";
    auto &summary = results["summary"];
    if (!summary.is_object())
        summary = nlohmann::json::object();
    // Clauses the writer knew of but no case decided (a filtered or cut-short
    // run) are listed in summary.not_run; such a run is not a conforming one.
    const auto not_run = summary.find("not_run");
    const bool all_ran = not_run == summary.end() || !not_run->is_array() || not_run->empty();
    // Properties and litmus tests decide a run too: in a property run they are
    // all there is; in a conformance run their cases also feed the clauses.
    // A property that checks only STRICT clauses gates as they do: in strict mode.
    std::map<std::string, std::string> kind_of;
    for (const auto &clause : clauses)
        kind_of[string_or(clause, "id", "")] = string_or(clause, "kind", "");
    const auto strict_only = [&](const nlohmann::json &item) {
        const nlohmann::json ids = item.value("clauses", nlohmann::json::array());
        if (!ids.is_array() || ids.empty())
            return false;
        return std::all_of(ids.begin(), ids.end(), [&](const nlohmann::json &id) {
            return id.is_string() && kind_of.count(id.get<std::string>()) != 0 &&
                   kind_of[id.get<std::string>()] == "STRICT";
        });
    };
    bool others_ok = true;
    for (const char *key : {"properties", "litmus"}) {
        const auto it = results.find(key);
        if (it == results.end() || !it->is_array())
            continue;
        for (const auto &item : *it) {
            const auto v = parse_verdict(string_or(item, "verdict", ""));
            // A counterexample gates by the kind of the clause it breaks (a
            // property run records it); without one, by the clauses it names.
            const std::string failed_kind = string_or(item.value("failed_clause", nlohmann::json()), "kind", "");
            const bool gates =
                item_gates(v == Verdict::Fail && !failed_kind.empty(), failed_kind, strict_only(item), mode);
            others_ok = others_ok && (!gates || (v && !fails_gate(*v)));
            // A rule broken without failing a case: a STRICT one gates a strict run.
            if (const auto d = item.find("departures"); d != item.end() && d->is_array())
                for (const auto &dep : *d) {
                    if (hcts::gates_on(string_or(dep, "kind", ""), mode, /*unknown_gates=*/true))
                        others_ok = false;
                }
            // A document without clauses (a property run) counts its properties instead.
            if (clauses.empty() && std::string_view(key) == "properties" && v)
                ++by_verdict[std::string(verdict_name(*v))];
        }
    }
    // Every configuration merged into the document (merge_configuration) must have completed.
    bool configurations_ok = true;
    if (const auto it = results.find("configurations"); it != results.end() && it->is_array())
        for (const auto &conf : *it)
            configurations_ok = configurations_ok && string_or(conf, "status", "") == "complete";
    summary["by_verdict"] = by_verdict;
    summary["must_total"] = must_total;
    summary["must_passed"] = must_passed;
    summary["must_waived"] = must_waived;
    summary["strict_total"] = strict_total;
    summary["strict_passed"] = strict_passed;
    summary["gate_mode"] = gate_mode;
    // A benchmark gates on its baseline's ratios (hcts-bench --baseline), when it has one.
    const auto bench = results.find("bench");
    const bool baseline_ok = bench == results.end() || !bench->is_object() || !bench->contains("baseline") ||
                             (*bench)["baseline"].value("held", true);
    const bool judged_ok = complete && gated_ok && !any_xpass && others_ok && configurations_ok && baseline_ok;
    summary["gate"] = judged_ok && all_ran ? "pass" : "fail";
    // What the gate says of the clauses that did run: a configuration running a subset
    // of the cases reports this, and the merged document's gate is the verdict.
    summary["judged"] = judged_ok ? "pass" : "fail";
}

} // namespace hcts::expectations
