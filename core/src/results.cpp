#include "hcts/core/results.h"
#include "hcts/core/files.h"
#include "hcts/core/settings.h"

#include <sys/utsname.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <stdexcept>

#include "hcts/core/adapter.h"
#include "hcts/core/catalogue.h"
#include "hcts/core/library.h"
#include "hcts/core/results_model.h"
#include "hcts/expectations.h"

namespace hcts {

namespace {

// A field the writer states as unknown: null in the document (the key in `rest`), else the value.
template <class T>
void set_or_null(std::optional<T> &field, nlohmann::json &rest, const char *key, std::optional<T> value)
{
    field = std::move(value);
    if (field)
        rest.erase(key);
    else
        rest[key] = nullptr;
}

std::optional<std::string> unless_empty(const std::string &s)
{
    return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

std::string os_name()
{
    struct utsname u {};
    uname(&u);
    return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

} // namespace

const char *suite_version() { return HCTS_SUITE_VERSION; }

void merge_properties(nlohmann::json &into, const nlohmann::json &property_run)
{
    for (const nlohmann::json *d : {static_cast<const nlohmann::json *>(&into), &property_run})
        if (!d->is_object() || d->value("schema", "") != "hcts-results")
            throw std::runtime_error("merge: not an hcts-results document");
    const nlohmann::json run = property_run.value("run", nlohmann::json::object());
    auto &props = into["properties"];
    if (!props.is_array())
        props = nlohmann::json::array();
    const nlohmann::json added = property_run.value("properties", nlohmann::json::array());
    for (const auto &p : added)
        props.push_back(p);
    if (run.value("status", "") != "complete")
        props.push_back({{"name", "property run " + run.value("id", std::string("?"))},
                         {"verdict", "ERROR"},
                         {"reason", "the property run did not complete: " +
                                        run.value("error", std::string("status ") + run.value("status", "?"))},
                         {"command", run.value("command", nlohmann::json())}});
    expectations::summarize(into);
}

namespace {

void require_results(const nlohmann::json &doc)
{
    if (!doc.is_object() || doc.value("schema", "") != "hcts-results")
        throw std::runtime_error("merge: not an hcts-results document");
}

nlohmann::json &array_in(nlohmann::json &doc, const char *key)
{
    auto &a = doc[key];
    if (!a.is_array())
        a = nlohmann::json::array();
    return a;
}

// A run's configuration name: run.configuration, "plain" for documents without one.
std::string configuration_of(const nlohmann::json &doc)
{
    const nlohmann::json run = doc.value("run", nlohmann::json::object());
    const auto it = run.find("configuration");
    return it != run.end() && it->is_string() && !it->get<std::string>().empty() ? it->get<std::string>() : "plain";
}

// What the top-level `configurations` says about one run: enough to tell how it ran and rerun it.
nlohmann::json configuration_entry(const nlohmann::json &doc)
{
    const nlohmann::json run = doc.value("run", nlohmann::json::object());
    const nlohmann::json env = doc.value("environment", nlohmann::json::object());
    nlohmann::json e = {{"name", configuration_of(doc)},
                        {"status", run.value("status", std::string("unknown"))},
                        {"mode", run.value("mode", std::string("plain"))},
                        {"seed", run.value("seed", nlohmann::json())},
                        {"command", run.value("command", nlohmann::json())},
                        {"cases", doc.value("cases", nlohmann::json::array()).size()}};
    if (env.is_object() && env.contains("segment_size"))
        e["segment_size"] = env.at("segment_size");
    for (const char *key : {"filter", "error"})
        if (run.contains(key))
            e[key] = run.at(key);
    return e;
}

} // namespace

void merge_configuration(nlohmann::json &into, const nlohmann::json &configuration_run)
{
    require_results(into);
    require_results(configuration_run);
    const std::string name = configuration_of(configuration_run);
    auto &configs = into["configurations"];
    if (!configs.is_array())
        configs = nlohmann::json::array({configuration_entry(into)});
    for (const auto &c : configs)
        if (c.is_object() && c.value("name", "") == name)
            throw std::runtime_error("merge: the document already holds configuration '" + name + "'");
    configs.push_back(configuration_entry(configuration_run));

    // The first run's cases keep their names; each tells its configuration.
    const std::string base = configuration_of(into);
    auto &cases = array_in(into, "cases");
    for (auto &c : cases)
        if (c.is_object() && !c.contains("configuration"))
            c["configuration"] = base;
    const std::string suffix = "@" + name;
    for (nlohmann::json c : configuration_run.value("cases", nlohmann::json::array())) {
        if (!c.is_object())
            continue;
        c["name"] = c.value("name", std::string("?")) + suffix;
        c["configuration"] = name;
        cases.push_back(std::move(c));
    }
    auto &litmus = array_in(into, "litmus");
    for (nlohmann::json l : configuration_run.value("litmus", nlohmann::json::array())) {
        if (!l.is_object())
            continue;
        if (l.contains("case") && l.at("case").is_string())
            l["case"] = l.at("case").get<std::string>() + suffix;
        l["configuration"] = name;
        litmus.push_back(std::move(l));
    }
    // Each clause lists the other run's cases too, so summarize() takes the worst of all.
    auto &clauses = array_in(into, "clauses");
    for (const auto &cl : configuration_run.value("clauses", nlohmann::json::array())) {
        if (!cl.is_object())
            continue;
        nlohmann::json names = nlohmann::json::array();
        for (const auto &n : cl.value("cases", nlohmann::json::array()))
            if (n.is_string())
                names.push_back(n.get<std::string>() + suffix);
        const std::string id = cl.value("id", "");
        const auto it = std::find_if(clauses.begin(), clauses.end(), [&id](const nlohmann::json &c) {
            return c.is_object() && c.value("id", "") == id;
        });
        if (it == clauses.end()) {
            nlohmann::json copy = cl;
            copy["cases"] = std::move(names);
            clauses.push_back(std::move(copy));
            continue;
        }
        auto &list = array_in(*it, "cases");
        for (auto &n : names)
            list.push_back(std::move(n));
    }
    expectations::summarize(into);
}

nlohmann::json read_json_file(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error(path + ": cannot open for reading");
    try {
        return nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception &e) {
        throw std::runtime_error(path + ": not JSON: " + e.what());
    }
}

std::string utc_now()
{
    std::time_t t = std::time(nullptr);
    // SOURCE_DATE_EPOCH makes documents reproducible (reproducible-builds.org convention).
    // Read as strtoll reads it, as always (text after the number ignored).
    if (const auto epoch = settings::raw(suite_settings::source_date_epoch))
        t = static_cast<std::time_t>(std::strtoll(std::string(*epoch).c_str(), nullptr, 10));
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string make_run_id()
{
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[40];
    const size_t n = std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
    std::snprintf(buf + n, sizeof buf - n, "-%04x", static_cast<unsigned>(std::random_device{}() & 0xffffU));
    return buf;
}

ResultsWriter::ResultsWriter(std::string path, RunInfo run, const Catalogue *catalogue,
                             const expectations::ExpectationSet *expectations)
    : path_(std::move(path)), catalogue_(catalogue), expectations_(expectations)
{
    const auto gate = parse_gate_mode(run.gate);
    if (!gate)
        throw std::invalid_argument("gate mode '" + run.gate + "'; allowed: " + std::string(kGateModeNames));
    run_.id = run.id.empty() ? make_run_id() : run.id;
    run_.status = "running";
    run_.started = utc_now();
    run_.rest["finished"] = nullptr;
    run_.suite_version = suite_version();
    set_or_null(run_.suite_commit, run_.rest, "suite_commit", unless_empty(run.suite_commit));
    run_.command = run.command;
    run_.mode = run.mode;
    set_or_null(run_.seed, run_.rest, "seed", run.seed);
    run_.gate = *gate;
    run_.kind = run.kind;
    if (!run.configuration.empty())
        run_.configuration = run.configuration;
    if (!run.filter.empty())
        run_.filter = run.filter;
    iut_.rest = {{"path", nullptr}, {"sha256", nullptr}, {"version", nullptr}, {"name", nullptr}};
    environment_.rest["product"] = nullptr;
    environment_.ranks = 0;
    environment_.hosts.emplace();
    environment_.os = os_name();
    environment_.transport = run.transport;
    doc_ = {
        {"schema", results::kSchemaName},
        {"schema_version", results::kSchemaVersion},
        {"adapter", nullptr},
        {"clauses", nlohmann::json::array()},
        {"cases", nlohmann::json::array()},
        {"litmus", nlohmann::json::array()},
        {"properties", nlohmann::json::array()},
        {"expectations",
         {{"file", expectations != nullptr ? nlohmann::json(expectations->origin()) : nlohmann::json(nullptr)},
          {"waived", nlohmann::json::array()},
          {"xpass", nlohmann::json::array()}}},
        {"summary", nullptr},
    };
    write();
}

void ResultsWriter::set_iut(const Library &iut, std::optional<std::string> version)
{
    iut_ = results::Iut{};
    iut_.path = iut.path();
    set_or_null(iut_.sha256, iut_.rest, "sha256", unless_empty(iut.sha256()));
    set_or_null(iut_.version, iut_.rest, "version", std::move(version));
    iut_.name = std::filesystem::path(iut.path()).filename().string();
    iut_.missing_symbols = iut.missing();
    write();
}

void ResultsWriter::set_iut_name(const std::string &name)
{
    set_or_null(iut_.name, iut_.rest, "name", std::optional<std::string>(name));
    write();
}

void ResultsWriter::set_adapter(const Adapter &adapter)
{
    results::AdapterSection a;
    a.path = adapter.path();
    set_or_null(a.sha256, a.rest, "sha256", unless_empty(adapter.sha256()));
    a.name = adapter.name();
    a.abi_version = adapter.abi_version();
    adapter_ = std::move(a);
    write();
}

void ResultsWriter::set_environment(const std::string &product, int ranks, const std::vector<std::string> &hosts)
{
    set_or_null(environment_.product, environment_.rest, "product", unless_empty(product));
    environment_.ranks = ranks;
    environment_.hosts = hosts;
    write();
}

void ResultsWriter::set_segment_size(uint64_t bytes)
{
    set_or_null(environment_.segment_size, environment_.rest, "segment_size",
                bytes != 0 ? std::optional<uint64_t>(bytes) : std::nullopt);
    write();
}

void ResultsWriter::add_case(nlohmann::json entry)
{
    // Each case tells the configuration it ran in, so a merged document can tell them apart.
    if (run_.configuration && !entry.contains("configuration"))
        entry["configuration"] = *run_.configuration;
    doc_["cases"].push_back(std::move(entry));
    write();
}

void ResultsWriter::add_litmus(nlohmann::json entry)
{
    doc_["litmus"].push_back(std::move(entry));
    write();
}

void ResultsWriter::add_property(nlohmann::json entry)
{
    doc_["properties"].push_back(std::move(entry));
    write();
}

void ResultsWriter::set_bench(nlohmann::json bench)
{
    doc_["bench"] = std::move(bench);
    write();
}

void ResultsWriter::set_error(const std::string &why)
{
    run_.error = why;
    write();
}

void ResultsWriter::finish(RunStatus status)
{
    run_.status = status == RunStatus::Complete ? "complete" : "aborted";
    set_or_null(run_.finished, run_.rest, "finished", std::optional<std::string>(utc_now()));
    write();
}

bool ResultsWriter::gate_passed() const
{
    const auto &s = doc_.at("summary");
    return s.is_object() && s.value("gate", "") == "pass";
}

void ResultsWriter::write()
{
    // The clause list: every catalogue clause some case names, with those cases;
    // summarize() derives verdict, reason and profile from them. A clause no
    // case decided is listed in summary.not_run and fails the gate.
    nlohmann::json not_run = nlohmann::json::array();
    if (catalogue_ != nullptr) {
        std::map<std::string, std::vector<std::string>> cases_of;
        for (const auto &c : doc_["cases"])
            for (const auto &id : c.at("clauses"))
                cases_of[id.get<std::string>()].push_back(c.at("name").get<std::string>());
        nlohmann::json clauses = nlohmann::json::array();
        for (const Clause &cl : catalogue_->clauses()) {
            const auto it = cases_of.find(cl.id);
            if (it == cases_of.end()) {
                not_run.push_back(cl.id);
                continue;
            }
            results::Clause entry;
            entry.id = cl.id;
            entry.title = cl.title;
            entry.statement = cl.statement;
            const auto kind = parse_clause_kind(cl.kind);
            if (!kind)
                throw std::runtime_error("clause " + cl.id + ": kind '" + cl.kind +
                                         "'; allowed: " + std::string(kClauseKindNames));
            entry.kind = *kind;
            entry.area = cl.area;
            entry.source = cl.source;
            entry.source_class = cl.source_class;
            entry.functions = cl.functions;
            entry.cases = it->second;
            // Undecided until summarize(); always written, as are the functions (possibly none).
            entry.rest = {{"verdict", nullptr}, {"reason", nullptr}, {"profile", nullptr}};
            if (cl.functions.empty())
                entry.rest["functions"] = nlohmann::json::array();
            clauses.push_back(entry);
        }
        doc_["clauses"] = std::move(clauses);
        run_.catalogue_version = catalogue_->version();
    }
    // The sections the writer owns, from their typed form (results_model.h).
    doc_["run"] = run_;
    doc_["iut"] = iut_;
    doc_["adapter"] = adapter_ ? nlohmann::json(*adapter_) : nlohmann::json(nullptr);
    doc_["environment"] = environment_;
    doc_["summary"] = {{"not_run", not_run}};
    expectations::summarize(doc_);
    if (expectations_ != nullptr)
        expectations_->apply(doc_);

    files::write_atomic(path_, doc_.dump(2) + "\n");
}

} // namespace hcts
