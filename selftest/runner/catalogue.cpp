#include "catalogue.h"

#include <yaml-cpp/yaml.h>

#include "hcts/core/locate.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace hcts::selftest {

std::string legal_gate(const Entry &e)
{
    if (e.gate_given)
        return e.gate;
    return e.iut == "reference" ? "strict" : "default";
}
namespace {

const std::vector<std::string> kKinds{"wrong", "legal", "profile", "mutant"};
const std::vector<std::string> kAreas{"bounds",     "ordering", "notify",    "timeouts",
                                      "validation", "products", "lifecycle", "transport"};
const std::vector<std::string> kKeys{"id",           "kind",          "area",       "what",         "iut",
                                     "env",          "fails",         "gate",       "strict_fails", "not_supported_ok",
                                     "may_fail",     "not_supported", "errors",     "profile",      "np",
                                     "case_timeout", "cases",         "observable", "killed_by",    "focus_cases",
                                     "alone"};

std::string list(const std::vector<std::string> &v)
{
    std::string s;
    for (const auto &x : v)
        s += (s.empty() ? "" : ", ") + x;
    return s;
}

bool one_of(const std::string &v, const std::vector<std::string> &allowed)
{
    return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

// Collects the problems of one file, each "FILE:LINE: ...".
struct Reporter {
    const std::string &origin;
    std::vector<std::string> &problems;
    void at(const YAML::Node &n, const std::string &what) const
    {
        problems.push_back(origin + ":" + std::to_string(n.Mark().line + 1) + ": " + what);
    }
};

std::optional<std::string> scalar(const YAML::Node &n, const std::string &key, const Reporter &r,
                                  const std::string &entry)
{
    const auto v = n[key];
    if (!v)
        return std::nullopt;
    if (!v.IsScalar()) {
        r.at(v, entry + ": '" + key + "' must be a single value");
        return std::nullopt;
    }
    return v.as<std::string>();
}

// A whole number in [lo, hi] under `key`; anything else is reported with what is
// allowed (`allowed`) and gives nullopt, so the entry keeps its default.
std::optional<int> int_in_range(const YAML::Node &n, const std::string &key, int lo, int hi, const std::string &allowed,
                                const Reporter &r, const std::string &entry)
{
    const auto text = scalar(n, key, r, entry);
    if (!text)
        return std::nullopt;
    int v = lo - 1;
    try {
        v = std::stoi(*text);
    } catch (const std::exception &) {
    }
    if (v < lo || v > hi) {
        r.at(n[key], entry + ": " + key + " is '" + *text + "'; allowed: " + allowed);
        return std::nullopt;
    }
    return v;
}

std::vector<std::string> clause_list(const YAML::Node &n, const std::string &key, const Reporter &r,
                                     const std::string &entry, const Catalogue &clauses)
{
    std::vector<std::string> out;
    const auto v = n[key];
    if (!v)
        return out;
    if (!v.IsSequence()) {
        r.at(v, entry + ": '" + key + "' must be a list of clause ids, e.g. [WWN.VIS.1]");
        return out;
    }
    for (const auto &c : v) {
        if (!c.IsScalar()) {
            r.at(c, entry + ": '" + key + "' must list clause ids");
            continue;
        }
        const auto id = c.as<std::string>();
        if (clauses.find(id) == nullptr)
            r.at(c,
                 entry + ": '" + key + "' names '" + id + "', which is not a clause of conformance/spec/clauses.yaml");
        out.push_back(id);
    }
    return out;
}

} // namespace

void parse_catalogue_file(const std::string &text, const std::string &origin, const Catalogue &clauses,
                          std::vector<Entry> &out, std::vector<std::string> &problems)
{
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception &e) {
        problems.push_back(origin + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
        return;
    }
    const Reporter r{origin, problems};
    if (!root || !root.IsMap()) {
        problems.push_back(origin + ":1: expected a map with schema, schema_version and entries");
        return;
    }
    if (!root["schema"] || !root["schema"].IsScalar() || root["schema"].as<std::string>() != "hcts-selftest-catalogue")
        r.at(root["schema"] ? root["schema"] : root, "schema must be 'hcts-selftest-catalogue'");
    if (!root["schema_version"] || !root["schema_version"].IsScalar() ||
        root["schema_version"].as<std::string>() != "1")
        r.at(root["schema_version"] ? root["schema_version"] : root,
             "schema_version must be 1 (the one this tool reads)");
    const auto entries = root["entries"];
    if (!entries || entries.IsNull())
        return; // a file without entries yet
    if (!entries.IsSequence()) {
        r.at(entries, "'entries' must be a list");
        return;
    }
    for (const auto &n : entries) {
        if (!n.IsMap()) {
            r.at(n, "an entry must be a map (id, kind, ...)");
            continue;
        }
        Entry e;
        e.file = std::filesystem::path(origin).filename().string() + ":" + std::to_string(n.Mark().line + 1);
        for (const auto &kv : n) {
            const auto key = kv.first.as<std::string>();
            if (!one_of(key, kKeys))
                r.at(kv.first, "unknown field '" + key + "'; allowed: " + list(kKeys));
        }
        e.id = scalar(n, "id", r, "entry").value_or("");
        const std::string name = "entry '" + (e.id.empty() ? std::string("?") : e.id) + "'";
        if (e.id.empty())
            r.at(n, "an entry needs an 'id' (lower_snake_case)");
        else if (!std::regex_match(e.id, std::regex("[a-z][a-z0-9_]*")))
            r.at(n["id"], name + ": id must be lower_snake_case ([a-z][a-z0-9_]*)");
        e.kind = scalar(n, "kind", r, name).value_or("");
        if (!one_of(e.kind, kKinds))
            r.at(n["kind"] ? n["kind"] : n, name + ": kind is '" + e.kind + "'; allowed: " + list(kKinds));
        e.area = scalar(n, "area", r, name).value_or("");
        if (!one_of(e.area, kAreas))
            r.at(n["area"] ? n["area"] : n, name + ": area is '" + e.area + "'; allowed: " + list(kAreas));
        e.what = scalar(n, "what", r, name).value_or("");
        if (e.what.empty())
            r.at(n, name + ": 'what' (one line: what is wrong or different) is required");
        e.iut = scalar(n, "iut", r, name).value_or("reference");
        if (e.iut != "reference" && !std::regex_match(e.iut, std::regex("shim:[a-z][a-z0-9_]*")))
            r.at(n["iut"], name + ": iut is '" + e.iut + "'; allowed: reference, shim:<name>");
        if (const auto env = n["env"]) {
            if (!env.IsMap())
                r.at(env, name + ": env must be a map VAR: value");
            else
                for (const auto &kv : env) {
                    const auto var = kv.first.as<std::string>();
                    if (!std::regex_match(var, std::regex("[A-Z_][A-Z0-9_]*")))
                        r.at(kv.first,
                             name + ": env variable '" + var + "' is not an environment name ([A-Z_][A-Z0-9_]*)");
                    if (!kv.second.IsScalar())
                        r.at(kv.second, name + ": env " + var + " must have a single value");
                    else
                        e.env[var] = kv.second.as<std::string>();
                }
        }
        if (n["fails"])
            e.fails = clause_list(n, "fails", r, name, clauses);
        e.gate_given = static_cast<bool>(n["gate"]);
        e.gate = scalar(n, "gate", r, name).value_or("default");
        if (e.gate != "default" && e.gate != "strict")
            r.at(n["gate"], name + ": gate is '" + e.gate + "'; allowed: default, strict");
        if (n["strict_fails"]) {
            e.strict_fails = clause_list(n, "strict_fails", r, name, clauses);
            for (const auto &id : *e.strict_fails)
                if (const Clause *c = clauses.find(id); c != nullptr && c->kind != "STRICT")
                    r.at(n["strict_fails"], name + ": strict_fails names " + id + ", which is " + c->kind +
                                                "; allowed: STRICT clauses (a MUST clause gates by default, a "
                                                "PROFILE one never)");
        }
        e.not_supported_ok = clause_list(n, "not_supported_ok", r, name, clauses);
        e.may_fail = clause_list(n, "may_fail", r, name, clauses);
        if (const auto ns = n["not_supported"]) {
            if (ns.IsScalar()) {
                if (ns.as<std::string>() == "all")
                    e.not_supported_all = true;
                else
                    r.at(ns, name + ": not_supported is '" + ns.as<std::string>() +
                                 "'; allowed: all, or a list of clause ids");
            } else {
                e.not_supported = clause_list(n, "not_supported", r, name, clauses);
            }
        }
        e.errors = clause_list(n, "errors", r, name, clauses);
        if (const auto p = n["profile"]) {
            if (!p.IsMap() || !p["clause"] || !p["outcome"])
                r.at(p, name + ": profile must be {clause: <PROFILE clause>, outcome: <one of its allowed outcomes>}");
            else {
                e.profile = ProfileExpectation{p["clause"].as<std::string>(), p["outcome"].as<std::string>()};
                const Clause *c = clauses.find(e.profile->clause);
                if (c == nullptr)
                    r.at(p,
                         name + ": profile clause '" + e.profile->clause + "' is not in conformance/spec/clauses.yaml");
                else if (c->kind != "PROFILE")
                    r.at(p, name + ": profile clause " + c->id + " is " + c->kind + ", not PROFILE");
                else if (!one_of(e.profile->outcome, c->allowed) && !one_of(e.profile->outcome, c->hazard))
                    r.at(p, name + ": outcome '" + e.profile->outcome + "' of " + c->id + "; allowed: " +
                                list(c->allowed) + (c->hazard.empty() ? "" : " (hazards: " + list(c->hazard) + ")"));
            }
        }
        e.np = int_in_range(n, "np", 2, 16, "a number of ranks from 2 to 16", r, name).value_or(e.np);
        e.case_timeout_s =
            int_in_range(n, "case_timeout", 1, 1800, "a deadline per case from 1 to 1800 seconds", r, name)
                .value_or(e.case_timeout_s);
        e.cases = scalar(n, "cases", r, name).value_or("");
        e.focus_cases = scalar(n, "focus_cases", r, name).value_or("");
        if (const auto a = scalar(n, "alone", r, name)) {
            if (*a == "true" || *a == "false")
                e.alone = *a == "true";
            else
                r.at(n["alone"], name + ": alone is '" + *a + "'; allowed: true, false");
        }
        e.observable = scalar(n, "observable", r, name).value_or("api");
        if (e.observable != "api" && e.observable != "internal")
            r.at(n["observable"], name + ": observable is '" + e.observable + "'; allowed: api, internal");
        if (const auto kb = n["killed_by"]) {
            if (!kb.IsSequence())
                r.at(kb, name + ": killed_by must be a list of ctest names");
            else
                for (const auto &t : kb)
                    e.killed_by.push_back(t.as<std::string>());
        }

        // What each kind needs and does not take.
        auto forbid = [&](const char *key, const std::string &why) {
            if (n[key])
                r.at(n[key], name + ": '" + key + "' does not apply to kind " + e.kind + " (" + why + ")");
        };
        if (e.kind == "wrong") {
            if (!e.fails)
                r.at(n, name + ": a wrong entry needs 'fails' (the clauses it breaks; [] with not_supported for an IUT "
                               "without the call)");
            else if (e.fails->empty() && !e.not_supported_all && e.not_supported.empty() && e.errors.empty())
                r.at(n["fails"], name + ": fails is empty; a wrong entry must break a clause or declare "
                                        "not_supported or errors");
        }
        if (e.kind != "legal")
            forbid("strict_fails", "only a legal entry passes one gate and fails the strict one");
        else if (e.strict_fails && legal_gate(e) != "default")
            r.at(n["strict_fails"], name +
                                        ": strict_fails needs the default gate (a shim, or gate: default): the "
                                        "entry passes it and fails --gate strict; its gate is " +
                                        legal_gate(e));
        if (e.kind != "wrong" && e.kind != "mutant") {
            forbid("fails", "only wrong and mutant entries break clauses");
            forbid("errors", "only wrong and mutant entries declare clauses the suite cannot judge");
            forbid("may_fail", "only wrong and mutant entries break clauses, by chance or not");
        }
        for (const auto &id : e.may_fail)
            if (e.fails && std::find(e.fails->begin(), e.fails->end(), id) != e.fails->end())
                r.at(n["may_fail"], name + ": " + id + " is in both fails and may_fail; a clause is one or the other");
        if (e.kind == "profile") {
            if (!e.profile)
                r.at(n, name + ": a profile entry needs profile: {clause, outcome}");
        } else {
            forbid("profile", "only profile entries expect an outcome");
            forbid("cases", "only profile entries run a subset of cases");
        }
        if (e.kind == "mutant") {
            if (!std::regex_match(e.id, std::regex("(ref|sv)_[a-z0-9_]+")))
                r.at(n["id"] ? n["id"] : n, name + ": a mutant id is its HCTS_MUTANT value, prefixed ref_ or sv_");
            if (e.iut != "reference")
                r.at(n["iut"], name + ": a mutant runs in the reference build (iut: reference)");
            if (e.observable == "internal" && e.killed_by.empty())
                r.at(n, name + ": an internal mutant needs killed_by (the ctests that see it)");
            if (e.observable == "internal" && e.fails)
                r.at(n["fails"], name + ": an internal mutant is not run by the conformance suite; no fails");
            if (n["focus_cases"] && (e.observable != "api" || e.fails))
                r.at(n["focus_cases"], name + ": focus_cases is for an API mutant without fails (one with fails "
                                              "runs the cases naming them under --focus)");
            e.env.emplace("HCTS_MUTANT", e.id);
        } else {
            forbid("observable", "only mutants");
            forbid("focus_cases", "only mutants");
            forbid("killed_by", "only mutants");
        }
        out.push_back(std::move(e));
    }
}

void check_unique(const std::vector<Entry> &entries, std::vector<std::string> &problems)
{
    std::map<std::string, std::string> first;
    for (const auto &e : entries) {
        if (e.id.empty())
            continue;
        const auto [it, fresh] = first.emplace(e.id, e.file);
        if (!fresh)
            problems.push_back(e.file + ": id '" + e.id + "' is already used at " + it->second +
                               "; ids are unique over all catalogue files");
    }
}

LoadedCatalogue load_catalogue(const std::string &dir, const Catalogue &clauses)
{
    namespace fs = std::filesystem;
    LoadedCatalogue out;
    std::vector<std::string> problems;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw std::runtime_error(dir + ": not a directory (the self-test catalogue)");
    for (const auto &f : fs::directory_iterator(dir))
        if (f.is_regular_file() && f.path().extension() == ".yaml")
            out.files.push_back(f.path().string());
    std::sort(out.files.begin(), out.files.end());
    for (const auto &path : out.files) {
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            problems.push_back(path + ": cannot open for reading");
            continue;
        }
        std::ostringstream text;
        text << in.rdbuf();
        parse_catalogue_file(text.str(), path, clauses, out.entries, problems);
    }
    check_unique(out.entries, problems);
    if (!problems.empty()) {
        std::string all = std::to_string(problems.size()) + " problem(s) in the self-test catalogue:";
        for (const auto &p : problems)
            all += "\n  " + p;
        throw std::runtime_error(all);
    }
    return out;
}

std::string iut_path(const Entry &e)
{
    if (e.iut.rfind("shim:", 0) == 0)
        return hcts::locate::library("selftest/libhcts_iut_" + e.iut.substr(5) + ".so").string();
    return hcts::locate::library("libhcomm.so").string();
}

} // namespace hcts::selftest
