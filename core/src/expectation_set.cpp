// Applying an expectation set to a results document.
#include <fnmatch.h>

#include <set>
#include <stdexcept>

#include "hcts/expectations.h"

namespace hcts::expectations {
namespace {

bool glob(const std::string &pattern, const std::string &text)
{
    return ::fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

std::string str(const nlohmann::json &obj, const char *key)
{
    if (!obj.is_object())
        return {};
    const auto it = obj.find(key);
    return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

// The facts of a run that `when` may restrict on.
struct RunFacts {
    std::string iut_path, iut_file, iut_name, product;
    std::optional<std::int64_t> ranks;

    explicit RunFacts(const nlohmann::json &results)
    {
        const auto iut = results.value("iut", nlohmann::json::object());
        iut_path = str(iut, "path");
        iut_file = iut_path.substr(iut_path.find_last_of('/') + 1);
        iut_name = str(iut, "name");
        const auto env = results.value("environment", nlohmann::json::object());
        product = str(env, "product");
        if (env.is_object() && env.contains("ranks") && env["ranks"].is_number_integer())
            ranks = env["ranks"].get<std::int64_t>();
    }

    bool matches(const When &when) const
    {
        if (when.iut && !(glob(*when.iut, iut_path) || glob(*when.iut, iut_file) || glob(*when.iut, iut_name)))
            return false;
        if (when.product && *when.product != product)
            return false;
        if (when.ranks && ranks != when.ranks)
            return false;
        return true;
    }
};

bool covers(const Expectation &e, const std::string &name, const nlohmann::json &clause_ids)
{
    if (!e.case_glob.empty())
        return !name.empty() && glob(e.case_glob, name);
    if (!clause_ids.is_array())
        return false;
    for (const auto &id : clause_ids)
        if (id.is_string() && glob(e.clause, id.get<std::string>()))
            return true;
    return false;
}

// Turns one verdict-carrying object (a case, or a clause without cases) into
// WAIVED or XPASS under `e`. Returns the new verdict, or "" if unchanged.
std::string waive(nlohmann::json &item, const Expectation &e, const std::string &origin)
{
    const std::string verdict = str(item, "verdict");
    std::string now;
    if (is_bad(verdict) || verdict == e.expected)
        now = "WAIVED";
    else if (verdict == "PASS")
        now = "XPASS";
    else
        return {};
    item["verdict"] = now;
    if (now == "WAIVED")
        item["waived_from"] = verdict;
    item["waiver"] = {
        {"expected", e.expected}, {"reason", e.reason}, {"source", origin + ":" + std::to_string(e.line)}};
    return now;
}

} // namespace

void ExpectationSet::apply(nlohmann::json &results) const
{
    if (!results.is_object() || str(results, "schema") != "hcts-results")
        throw std::runtime_error("expectations: the document is not an hcts-results document");
    const RunFacts run(results);
    std::vector<const Expectation *> active;
    for (const auto &e : entries_)
        if (run.matches(e.when))
            active.push_back(&e);

    std::set<const Expectation *> used;
    std::set<std::string> waived_cases, xpass_cases, waived_clauses, xpass_clauses, hit_cases;
    auto &cases = results["cases"];
    if (cases.is_null())
        cases = nlohmann::json::array();
    if (!cases.is_array())
        throw std::runtime_error("expectations: 'cases' is not an array");
    for (auto &c : cases) {
        const std::string name = str(c, "name");
        hit_cases.insert(name);
        const nlohmann::json ids = c.is_object() ? c.value("clauses", nlohmann::json::array()) : nlohmann::json();
        for (const auto *e : active) {
            if (!covers(*e, name, ids))
                continue;
            used.insert(e);
            if (c.contains("clause_verdicts") && c["clause_verdicts"].is_object()) {
                // The case judged each of its clauses separately: waive only the
                // covered clauses, then the case is the worst of its clauses again.
                for (auto &[id, per_clause] : c["clause_verdicts"].items()) {
                    if (!per_clause.is_object() || (e->case_glob.empty() && !glob(e->clause, id)))
                        continue;
                    const auto now = waive(per_clause, *e, origin_);
                    if (now == "WAIVED")
                        waived_clauses.insert(id);
                    if (now == "XPASS")
                        xpass_clauses.insert(id);
                }
                const std::string before = str(c, "verdict");
                std::string worst;
                for (const auto &[id, per_clause] : c["clause_verdicts"].items()) {
                    const auto v = str(per_clause, "verdict");
                    if (verdict_rank(v) > verdict_rank(worst))
                        worst = v;
                }
                if (!worst.empty() && worst != before) {
                    c["verdict"] = worst;
                    if (worst == "WAIVED")
                        c["waived_from"] = before;
                    c["waiver"] = {{"expected", e->expected},
                                   {"reason", e->reason},
                                   {"source", origin_ + ":" + std::to_string(e->line)}};
                }
                if (worst == "WAIVED" && before != "WAIVED")
                    waived_cases.insert(name);
                if (worst == "XPASS" && before != "XPASS")
                    xpass_cases.insert(name);
            } else {
                const auto now = waive(c, *e, origin_);
                if (now == "WAIVED")
                    waived_cases.insert(name);
                if (now == "XPASS")
                    xpass_cases.insert(name);
                // Without per-clause verdicts the whole case stands for each of its clauses.
                for (const auto &id : ids) {
                    if (!id.is_string())
                        continue;
                    if (now == "WAIVED")
                        waived_clauses.insert(id.get<std::string>());
                    if (now == "XPASS")
                        xpass_clauses.insert(id.get<std::string>());
                }
            }
            break;
        }
    }

    // A clause decided without cases (e.g. NOT_SUPPORTED because a symbol is
    // missing) is matched by clause entries directly.
    auto &clauses = results["clauses"];
    if (clauses.is_array()) {
        for (auto &clause : clauses) {
            const std::string id = str(clause, "id");
            bool has_case = false;
            if (clause.is_object() && clause.contains("cases") && clause["cases"].is_array())
                for (const auto &n : clause["cases"])
                    has_case = has_case || (n.is_string() && hit_cases.contains(n));
            if (has_case || id.empty())
                continue;
            for (const auto *e : active) {
                if (e->clause.empty() || !glob(e->clause, id))
                    continue;
                used.insert(e);
                waive(clause, *e, origin_);
                break;
            }
        }
    }

    summarize(results);

    // A clause is listed as waived / xpass if it is, or if any of its cases was for it.
    if (clauses.is_array()) {
        for (const auto &clause : clauses) {
            const std::string verdict = str(clause, "verdict");
            if (verdict == "WAIVED")
                waived_clauses.insert(str(clause, "id"));
            if (verdict == "XPASS")
                xpass_clauses.insert(str(clause, "id"));
        }
    }
    auto &block = results["expectations"];
    if (!block.is_object())
        block = nlohmann::json::object();
    block["file"] = origin_.empty() ? nlohmann::json() : nlohmann::json(origin_);
    block["entries"] = entries_.size();
    block["active"] = active.size();
    // Merge with what an earlier apply (at run time) recorded: applying twice
    // must not forget the first.
    auto merge = [&block](const char *key, const std::set<std::string> &add) {
        std::set<std::string> all(add);
        if (block.contains(key) && block[key].is_array())
            for (const auto &v : block[key])
                if (v.is_string())
                    all.insert(v.get<std::string>());
        block[key] = all;
    };
    // Entries that matched nothing in this run: a stale file is worth knowing about.
    std::vector<std::string> unmatched;
    for (const auto *e : active)
        if (!used.contains(e))
            unmatched.push_back(origin_ + ":" + std::to_string(e->line));
    block["unmatched"] = unmatched;
    merge("waived", waived_clauses);
    merge("xpass", xpass_clauses);
    merge("waived_cases", waived_cases);
    merge("xpass_cases", xpass_cases);
}

} // namespace hcts::expectations
