// Reading and writing the typed results document (results_model.h). Hand-written
// rather than NLOHMANN_DEFINE_TYPE_*: those macros neither keep the members a
// struct does not know (`rest`) nor name the field path, its value and what is
// allowed when a type is wrong, and most fields here are optional or nullable.
#include "hcts/core/results_model.h"

#include <initializer_list>
#include <set>
#include <stdexcept>

namespace hcts::results {
namespace {

using nlohmann::json;

// "\"PASSED\"", "12", "null": a value as it appears in the document, shortened.
std::string shown(const json &v)
{
    auto text = v.dump();
    if (text.size() > 80)
        text = text.substr(0, 77) + "...";
    return text;
}

[[noreturn]] void wrong(const std::string &where, const json &v, std::string_view allowed)
{
    throw std::runtime_error(where + " is " + shown(v) + "; allowed: " + std::string(allowed));
}

// An allowed-values list as text: "running, complete, aborted".
std::string listed(std::initializer_list<std::string_view> values)
{
    std::string out;
    for (const auto v : values)
        out += (out.empty() ? "" : ", ") + std::string(v);
    return out;
}

class Reader;
void read(Reader &in, Waiver &out);
void read(Reader &in, Profile &out);
void read(Reader &in, ConfigurationVerdict &out);
void read(Reader &in, Message &out);
void read(Reader &in, ClauseVerdict &out);
void read(Reader &in, FailedClause &out);
void read(Reader &in, Departure &out);
void read(Reader &in, Spread &out);
void read(Reader &in, BenchMethod &out);

// One value of the document into a typed field; `where` is its path for messages.
void get(const json &v, const std::string &where, std::string &out)
{
    if (!v.is_string())
        wrong(where, v, "a string");
    out = v.get<std::string>();
}
void get(const json &v, const std::string &where, int64_t &out)
{
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX))
        wrong(where, v, "an integer");
    out = v.get<int64_t>();
}
void get(const json &v, const std::string &where, uint64_t &out)
{
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
        wrong(where, v, "an integer, 0 or more");
    out = v.get<uint64_t>();
}
void get(const json &v, const std::string &where, double &out)
{
    if (!v.is_number())
        wrong(where, v, "a number");
    out = v.get<double>();
}
void get(const json &v, const std::string &where, bool &out)
{
    if (!v.is_boolean())
        wrong(where, v, "true, false");
    out = v.get<bool>();
}
void get(const json &v, const std::string &where, Verdict &out)
{
    const auto parsed = v.is_string() ? parse_verdict(v.get<std::string>()) : std::nullopt;
    if (!parsed)
        wrong(where, v, verdict_names());
    out = *parsed;
}
void get(const json &v, const std::string &where, ClauseKind &out)
{
    const auto parsed = v.is_string() ? parse_clause_kind(v.get<std::string>()) : std::nullopt;
    if (!parsed)
        wrong(where, v, kClauseKindNames);
    out = *parsed;
}
void get(const json &v, const std::string &where, GateMode &out)
{
    const auto parsed = v.is_string() ? parse_gate_mode(v.get<std::string>()) : std::nullopt;
    if (!parsed)
        wrong(where, v, kGateModeNames);
    out = *parsed;
}
template <class T>
void get(const json &v, const std::string &where, std::vector<T> &out);
template <class T>
void get(const json &v, const std::string &where, std::map<std::string, T> &out);
template <class T>
requires requires(Reader &r, T &t) { read(r, t); }
void get(const json &v, const std::string &where, T &out);

// The members of one object: each typed field takes its own; what is left is `rest`.
class Reader {
  public:
    Reader(const json &obj, std::string where) : obj_(obj), where_(std::move(where))
    {
        if (!obj_.is_object())
            wrong(where_.empty() ? "the document" : where_, obj_, "an object");
    }

    // A field the schema requires.
    template <class T>
    void req(std::string_view key, T &out)
    {
        const auto it = take(key);
        if (it == obj_.end() || it->is_null())
            throw std::runtime_error(path(key) + " is missing; it is required");
        get(*it, path(key), out);
    }
    // An optional or nullable field: absent and null leave `out` as it is.
    template <class T>
    void opt(std::string_view key, T &out)
    {
        const auto it = take(key);
        if (it != obj_.end() && !it->is_null())
            get(*it, path(key), out);
    }
    template <class T>
    void opt(std::string_view key, std::optional<T> &out)
    {
        const auto it = take(key);
        if (it == obj_.end() || it->is_null())
            return;
        T value{};
        get(*it, path(key), value);
        out = std::move(value);
    }
    // A string field with a closed set of values.
    void one_of(std::string_view key, std::optional<std::string> &out, std::initializer_list<std::string_view> allowed)
    {
        opt(key, out);
        check_one_of(key, out, allowed);
    }
    void one_of(std::string_view key, std::string &out, std::initializer_list<std::string_view> allowed)
    {
        req(key, out);
        std::optional<std::string> value = out;
        check_one_of(key, value, allowed);
    }
    // A free-form value, kept as JSON.
    void any(std::string_view key, json &out)
    {
        if (const auto it = take(key); it != obj_.end())
            out = *it;
    }
    // The members no field took, and the known ones given as null or empty (an empty
    // list and an absent one read the same): written back as they were.
    json rest() const
    {
        json out = json::object();
        for (const auto &[key, value] : obj_.items())
            if (!taken_.contains(key) || value.is_null() || ((value.is_array() || value.is_object()) && value.empty()))
                out[key] = value;
        return out;
    }
    const std::string &where() const { return where_; }

  private:
    json::const_iterator take(std::string_view key)
    {
        taken_.emplace(key);
        return obj_.find(key);
    }
    std::string path(std::string_view key) const
    {
        return where_.empty() ? std::string(key) : where_ + "." + std::string(key);
    }
    void check_one_of(std::string_view key, const std::optional<std::string> &value,
                      std::initializer_list<std::string_view> allowed) const
    {
        if (!value)
            return;
        for (const auto a : allowed)
            if (a == *value)
                return;
        wrong(path(key), json(*value), listed(allowed));
    }

    const json &obj_;
    std::string where_;
    std::set<std::string, std::less<>> taken_;
};

template <class T>
void get(const json &v, const std::string &where, std::vector<T> &out)
{
    if (!v.is_array())
        wrong(where, v, "an array");
    out.clear();
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        get(v[i], where + "[" + std::to_string(i) + "]", out.emplace_back());
}

template <class T>
void get(const json &v, const std::string &where, std::map<std::string, T> &out)
{
    if (!v.is_object())
        wrong(where, v, "an object");
    out.clear();
    for (const auto &[key, value] : v.items())
        get(value, where + "." + key, out[key]);
}

template <class T>
requires requires(Reader &r, T &t) { read(r, t); }
void get(const json &v, const std::string &where, T &out)
{
    Reader in(v, where);
    read(in, out);
    out.rest = in.rest();
}

// ---- reading, one function per object, fields in the schema's order ----

void read(Reader &in, Waiver &out)
{
    in.req("expected", out.expected);
    in.req("reason", out.reason);
    in.opt("source", out.source);
}

void read(Reader &in, Profile &out)
{
    in.req("observed", out.observed);
    in.opt("allowed", out.allowed);
}

void read(Reader &in, RunSection &out)
{
    in.req("id", out.id);
    in.one_of("status", out.status, {"running", "complete", "aborted"});
    in.opt("started", out.started);
    in.opt("finished", out.finished);
    in.opt("catalogue_version", out.catalogue_version);
    in.opt("suite_version", out.suite_version);
    in.opt("suite_commit", out.suite_commit);
    in.opt("command", out.command);
    in.one_of("mode", out.mode, {"plain", "adversarial"});
    in.opt("seed", out.seed);
    in.one_of("kind", out.kind, {"conformance", "property", "mpi-selftest", "bench"});
    in.opt("gate", out.gate);
    in.opt("error", out.error);
    in.opt("configuration", out.configuration);
    in.opt("filter", out.filter);
}

void read(Reader &in, Iut &out)
{
    in.opt("path", out.path);
    in.opt("sha256", out.sha256);
    in.opt("version", out.version);
    in.opt("name", out.name);
    in.opt("missing_symbols", out.missing_symbols);
}

void read(Reader &in, AdapterSection &out)
{
    in.opt("path", out.path);
    in.opt("sha256", out.sha256);
    in.opt("name", out.name);
    in.opt("abi_version", out.abi_version);
}

void read(Reader &in, Environment &out)
{
    in.opt("product", out.product);
    in.opt("ranks", out.ranks);
    in.opt("hosts", out.hosts);
    in.opt("os", out.os);
    in.opt("transport", out.transport);
    in.opt("segment_size", out.segment_size);
}

void read(Reader &in, ConfigurationVerdict &out)
{
    in.req("name", out.name);
    in.req("verdict", out.verdict);
}

void read(Reader &in, Clause &out)
{
    in.req("id", out.id);
    in.opt("title", out.title);
    in.opt("statement", out.statement);
    in.req("kind", out.kind);
    in.opt("area", out.area);
    in.opt("source", out.source);
    in.one_of("source_class", out.source_class, {"seed", "vendor-doc", "vendor-code", "vendor-test", "reference"});
    in.opt("functions", out.functions);
    in.opt("verdict", out.verdict);
    in.opt("reason", out.reason);
    in.opt("cases", out.cases);
    in.opt("profile", out.profile);
    in.opt("waived_from", out.waived_from);
    in.opt("waiver", out.waiver);
    in.opt("configurations", out.configurations);
}

void read(Reader &in, Message &out)
{
    in.opt("rank", out.rank);
    in.req("text", out.text);
}

void read(Reader &in, ClauseVerdict &out)
{
    in.req("verdict", out.verdict);
    in.opt("reason", out.reason);
    in.any("profile", out.profile);
    in.opt("waived_from", out.waived_from);
    in.opt("waiver", out.waiver);
}

void read(Reader &in, Case &out)
{
    in.req("name", out.name);
    in.opt("clauses", out.clauses);
    in.req("verdict", out.verdict);
    in.opt("reason", out.reason);
    in.opt("duration_ms", out.duration_ms);
    in.opt("seed", out.seed);
    in.opt("reproducer", out.reproducer);
    in.opt("messages", out.messages);
    in.any("observations", out.observations);
    in.opt("waived_from", out.waived_from);
    in.opt("waiver", out.waiver);
    in.opt("clause_verdicts", out.clause_verdicts);
    in.opt("configuration", out.configuration);
}

void read(Reader &in, Litmus &out)
{
    in.req("id", out.id);
    in.opt("shape", out.shape);
    in.opt("case", out.case_name);
    in.opt("repetitions", out.repetitions);
    in.req("outcomes", out.outcomes);
    in.opt("forbidden", out.forbidden);
    in.one_of("observation", out.observation, {"never", "sometimes", "always"});
    in.opt("bound", out.bound);
    in.req("verdict", out.verdict);
    in.opt("configuration", out.configuration);
    in.opt("clauses", out.clauses);
}

void read(Reader &in, FailedClause &out)
{
    in.req("id", out.id);
    in.req("kind", out.kind);
}

void read(Reader &in, Departure &out)
{
    in.req("clause", out.clause);
    in.req("kind", out.kind);
    in.req("count", out.count);
    in.opt("example", out.example);
}

void read(Reader &in, Property &out)
{
    in.req("name", out.name);
    in.opt("runs", out.runs);
    in.req("verdict", out.verdict);
    in.opt("seed", out.seed);
    in.opt("reproduce", out.reproduce);
    in.opt("command", out.command);
    in.opt("counterexample", out.counterexample);
    in.opt("shrinks", out.shrinks);
    in.opt("reason", out.reason);
    in.opt("failed_clause", out.failed_clause);
    in.opt("departures", out.departures);
    in.opt("clauses", out.clauses);
}

void read(Reader &in, Expectations &out)
{
    in.opt("file", out.file);
    in.opt("entries", out.entries);
    in.opt("active", out.active);
    in.opt("waived", out.waived);
    in.opt("xpass", out.xpass);
    in.opt("waived_cases", out.waived_cases);
    in.opt("xpass_cases", out.xpass_cases);
    in.opt("unmatched", out.unmatched);
}

void read(Reader &in, Configuration &out)
{
    in.req("name", out.name);
    in.one_of("status", out.status, {"running", "complete", "aborted", "unknown"});
    in.opt("mode", out.mode);
    in.opt("seed", out.seed);
    in.opt("command", out.command);
    in.opt("cases", out.cases);
    in.opt("segment_size", out.segment_size);
    in.opt("filter", out.filter);
    in.opt("error", out.error);
}

void read(Reader &in, Summary &out)
{
    in.opt("by_verdict", out.by_verdict);
    in.opt("must_total", out.must_total);
    in.opt("must_passed", out.must_passed);
    in.opt("must_waived", out.must_waived);
    in.one_of("gate", out.gate, {"pass", "fail"});
    in.opt("not_run", out.not_run);
    in.one_of("judged", out.judged, {"pass", "fail"});
    in.opt("strict_total", out.strict_total);
    in.opt("strict_passed", out.strict_passed);
    in.opt("gate_mode", out.gate_mode);
}

void read(Reader &in, Spread &out)
{
    in.req("median", out.median);
    in.req("min", out.min);
    in.req("max", out.max);
}

void read(Reader &in, BenchLoad &out)
{
    in.opt("cpus", out.cpus);
    in.opt("loadavg_before", out.loadavg_before);
    in.opt("loadavg_after", out.loadavg_after);
}

void read(Reader &in, BenchMethod &out)
{
    in.req("name", out.name);
    in.opt("description", out.description);
}

void read(Reader &in, Measurement &out)
{
    in.req("method", out.method);
    in.one_of("test", out.test, {"latency", "bandwidth"});
    in.req("size", out.size);
    in.req("samples", out.samples);
    in.opt("messages_per_sample", out.messages_per_sample);
    in.opt("window", out.window);
    in.opt("latency", out.latency);
    in.opt("bandwidth", out.bandwidth);
    in.opt("message_rate", out.message_rate);
    in.opt("cpu_us_per_message", out.cpu_us_per_message);
    in.opt("switches_per_message", out.switches_per_message);
    in.opt("error", out.error);
}

void read(Reader &in, BaselineCheck &out)
{
    in.req("id", out.id);
    in.one_of("metric", out.metric, {"latency", "bandwidth", "message_rate", "cpu", "switches"});
    in.one_of("test", out.test, {"latency", "bandwidth"});
    in.req("size", out.size);
    in.one_of("stat", out.stat, {"median", "best"});
    in.req("hcomm_over", out.hcomm_over);
    in.opt("hcomm", out.hcomm);
    in.opt("other", out.other);
    in.req("ratio", out.ratio);
    in.opt("min", out.min);
    in.opt("max", out.max);
    in.req("held", out.held);
    in.opt("reason", out.reason);
    in.opt("source", out.source);
}

void read(Reader &in, Baseline &out)
{
    in.opt("file", out.file);
    in.req("held", out.held);
    in.req("checks", out.checks);
}

void read(Reader &in, Bench &out)
{
    in.req("sizes", out.sizes);
    in.opt("iterations", out.iterations);
    in.opt("samples", out.samples);
    in.opt("window", out.window);
    in.opt("budget_bytes", out.budget_bytes);
    in.opt("load", out.load);
    in.req("methods", out.methods);
    in.opt("errors", out.errors);
    in.req("measurements", out.measurements);
    in.opt("baseline", out.baseline);
}

void read(Reader &in, Document &out)
{
    in.req("schema", out.schema);
    if (out.schema != kSchemaName)
        wrong("schema", json(out.schema), "\"hcts-results\"");
    in.req("schema_version", out.schema_version);
    if (out.schema_version < 1 || out.schema_version > kSchemaVersion)
        wrong("schema_version", json(out.schema_version), "1");
    in.req("run", out.run);
    in.opt("iut", out.iut);
    in.opt("adapter", out.adapter);
    in.opt("environment", out.environment);
    in.req("clauses", out.clauses);
    in.opt("cases", out.cases);
    in.opt("litmus", out.litmus);
    in.opt("properties", out.properties);
    in.opt("bench", out.bench);
    in.opt("expectations", out.expectations);
    in.opt("configurations", out.configurations);
    in.opt("summary", out.summary);
}

// ---- writing: the typed fields (absent optionals and empty optional lists
// omitted), then `rest` ----

// Declared first: put() finds them by ordinary lookup (ADL does not see this unnamed namespace).
void write(const Waiver &v, json &j);
void write(const Profile &v, json &j);
void write(const RunSection &v, json &j);
void write(const Iut &v, json &j);
void write(const AdapterSection &v, json &j);
void write(const Environment &v, json &j);
void write(const ConfigurationVerdict &v, json &j);
void write(const Clause &v, json &j);
void write(const Message &v, json &j);
void write(const ClauseVerdict &v, json &j);
void write(const Case &v, json &j);
void write(const Litmus &v, json &j);
void write(const FailedClause &v, json &j);
void write(const Departure &v, json &j);
void write(const Property &v, json &j);
void write(const Expectations &v, json &j);
void write(const Configuration &v, json &j);
void write(const Summary &v, json &j);
void write(const Spread &v, json &j);
void write(const BenchLoad &v, json &j);
void write(const BenchMethod &v, json &j);
void write(const Measurement &v, json &j);
void write(const BaselineCheck &v, json &j);
void write(const Baseline &v, json &j);
void write(const Bench &v, json &j);
void write(const Document &v, json &j);

json put(const std::string &v) { return v; }
json put(int64_t v) { return v; }
json put(uint64_t v) { return v; }
json put(double v) { return v; }
json put(bool v) { return v; }
json put(Verdict v) { return verdict_name(v); }
json put(ClauseKind k) { return clause_kind_name(k); }
json put(GateMode m) { return gate_mode_name(m); }
json put(const json &v) { return v; }
template <class T>
json put(const std::vector<T> &v);
template <class T>
json put(const std::map<std::string, T> &v);
template <class T>
requires requires(const T &t, json &j) { write(t, j); }
json put(const T &v);

class Writer {
  public:
    template <class T>
    void req(const char *key, const T &v)
    {
        out_[key] = put(v);
    }
    template <class T>
    void opt(const char *key, const std::optional<T> &v)
    {
        if (v)
            out_[key] = put(*v);
    }
    // A list or map written only when it has members.
    template <class T>
    void nonempty(const char *key, const T &v)
    {
        if (!v.empty())
            out_[key] = put(v);
    }
    json done(const json &rest)
    {
        for (const auto &[key, value] : rest.items())
            if (!out_.contains(key))
                out_[key] = value;
        return std::move(out_);
    }

  private:
    json out_ = json::object();
};

template <class T>
json put(const std::vector<T> &v)
{
    json out = json::array();
    for (const auto &x : v)
        out.push_back(put(x));
    return out;
}
template <class T>
json put(const std::map<std::string, T> &v)
{
    json out = json::object();
    for (const auto &[key, x] : v)
        out[key] = put(x);
    return out;
}

void write(const Waiver &v, json &j)
{
    Writer w;
    w.req("expected", v.expected);
    w.req("reason", v.reason);
    w.opt("source", v.source);
    j = w.done(v.rest);
}

void write(const Profile &v, json &j)
{
    Writer w;
    w.req("observed", v.observed);
    w.nonempty("allowed", v.allowed);
    j = w.done(v.rest);
}

void write(const RunSection &v, json &j)
{
    Writer w;
    w.req("id", v.id);
    w.req("status", v.status);
    w.opt("started", v.started);
    w.opt("finished", v.finished);
    w.opt("catalogue_version", v.catalogue_version);
    w.opt("suite_version", v.suite_version);
    w.opt("suite_commit", v.suite_commit);
    w.opt("command", v.command);
    w.opt("mode", v.mode);
    w.opt("seed", v.seed);
    w.opt("kind", v.kind);
    w.opt("gate", v.gate);
    w.opt("error", v.error);
    w.opt("configuration", v.configuration);
    w.opt("filter", v.filter);
    j = w.done(v.rest);
}

void write(const Iut &v, json &j)
{
    Writer w;
    w.opt("path", v.path);
    w.opt("sha256", v.sha256);
    w.opt("version", v.version);
    w.opt("name", v.name);
    w.opt("missing_symbols", v.missing_symbols);
    j = w.done(v.rest);
}

void write(const AdapterSection &v, json &j)
{
    Writer w;
    w.opt("path", v.path);
    w.opt("sha256", v.sha256);
    w.opt("name", v.name);
    w.opt("abi_version", v.abi_version);
    j = w.done(v.rest);
}

void write(const Environment &v, json &j)
{
    Writer w;
    w.opt("product", v.product);
    w.opt("ranks", v.ranks);
    w.opt("hosts", v.hosts);
    w.opt("os", v.os);
    w.opt("transport", v.transport);
    w.opt("segment_size", v.segment_size);
    j = w.done(v.rest);
}

void write(const ConfigurationVerdict &v, json &j)
{
    Writer w;
    w.req("name", v.name);
    w.req("verdict", v.verdict);
    j = w.done(v.rest);
}

void write(const Clause &v, json &j)
{
    Writer w;
    w.req("id", v.id);
    w.opt("title", v.title);
    w.opt("statement", v.statement);
    w.req("kind", v.kind);
    w.opt("area", v.area);
    w.opt("source", v.source);
    w.opt("source_class", v.source_class);
    w.nonempty("functions", v.functions);
    w.opt("verdict", v.verdict);
    w.opt("reason", v.reason);
    w.nonempty("cases", v.cases);
    w.opt("profile", v.profile);
    w.opt("waived_from", v.waived_from);
    w.opt("waiver", v.waiver);
    w.nonempty("configurations", v.configurations);
    j = w.done(v.rest);
}

void write(const Message &v, json &j)
{
    Writer w;
    w.opt("rank", v.rank);
    w.req("text", v.text);
    j = w.done(v.rest);
}

void write(const ClauseVerdict &v, json &j)
{
    Writer w;
    w.req("verdict", v.verdict);
    w.opt("reason", v.reason);
    if (!v.profile.is_null())
        w.req("profile", v.profile);
    w.opt("waived_from", v.waived_from);
    w.opt("waiver", v.waiver);
    j = w.done(v.rest);
}

void write(const Case &v, json &j)
{
    Writer w;
    w.req("name", v.name);
    w.nonempty("clauses", v.clauses);
    w.req("verdict", v.verdict);
    w.opt("reason", v.reason);
    w.opt("duration_ms", v.duration_ms);
    w.opt("seed", v.seed);
    w.opt("reproducer", v.reproducer);
    w.nonempty("messages", v.messages);
    if (!v.observations.is_null() && !v.observations.empty())
        w.req("observations", v.observations);
    w.opt("waived_from", v.waived_from);
    w.opt("waiver", v.waiver);
    w.nonempty("clause_verdicts", v.clause_verdicts);
    w.opt("configuration", v.configuration);
    j = w.done(v.rest);
}

void write(const Litmus &v, json &j)
{
    Writer w;
    w.req("id", v.id);
    w.opt("shape", v.shape);
    w.opt("case", v.case_name);
    w.opt("repetitions", v.repetitions);
    w.req("outcomes", v.outcomes);
    w.nonempty("forbidden", v.forbidden);
    w.opt("observation", v.observation);
    w.opt("bound", v.bound);
    w.req("verdict", v.verdict);
    w.opt("configuration", v.configuration);
    w.nonempty("clauses", v.clauses);
    j = w.done(v.rest);
}

void write(const FailedClause &v, json &j)
{
    Writer w;
    w.req("id", v.id);
    w.req("kind", v.kind);
    j = w.done(v.rest);
}

void write(const Departure &v, json &j)
{
    Writer w;
    w.req("clause", v.clause);
    w.req("kind", v.kind);
    w.req("count", v.count);
    w.opt("example", v.example);
    j = w.done(v.rest);
}

void write(const Property &v, json &j)
{
    Writer w;
    w.req("name", v.name);
    w.opt("runs", v.runs);
    w.req("verdict", v.verdict);
    w.opt("seed", v.seed);
    w.opt("reproduce", v.reproduce);
    w.opt("command", v.command);
    w.opt("counterexample", v.counterexample);
    w.opt("shrinks", v.shrinks);
    w.opt("reason", v.reason);
    w.opt("failed_clause", v.failed_clause);
    w.nonempty("departures", v.departures);
    w.nonempty("clauses", v.clauses);
    j = w.done(v.rest);
}

void write(const Expectations &v, json &j)
{
    Writer w;
    w.opt("file", v.file);
    w.opt("entries", v.entries);
    w.opt("active", v.active);
    w.nonempty("waived", v.waived);
    w.nonempty("xpass", v.xpass);
    w.nonempty("waived_cases", v.waived_cases);
    w.nonempty("xpass_cases", v.xpass_cases);
    w.nonempty("unmatched", v.unmatched);
    j = w.done(v.rest);
}

void write(const Configuration &v, json &j)
{
    Writer w;
    w.req("name", v.name);
    w.req("status", v.status);
    w.opt("mode", v.mode);
    w.opt("seed", v.seed);
    w.opt("command", v.command);
    w.opt("cases", v.cases);
    w.opt("segment_size", v.segment_size);
    w.opt("filter", v.filter);
    w.opt("error", v.error);
    j = w.done(v.rest);
}

void write(const Summary &v, json &j)
{
    Writer w;
    w.nonempty("by_verdict", v.by_verdict);
    w.opt("must_total", v.must_total);
    w.opt("must_passed", v.must_passed);
    w.opt("must_waived", v.must_waived);
    w.opt("gate", v.gate);
    w.nonempty("not_run", v.not_run);
    w.opt("judged", v.judged);
    w.opt("strict_total", v.strict_total);
    w.opt("strict_passed", v.strict_passed);
    w.opt("gate_mode", v.gate_mode);
    j = w.done(v.rest);
}

void write(const Spread &v, json &j)
{
    Writer w;
    w.req("median", v.median);
    w.req("min", v.min);
    w.req("max", v.max);
    j = w.done(v.rest);
}

void write(const BenchLoad &v, json &j)
{
    Writer w;
    w.opt("cpus", v.cpus);
    w.nonempty("loadavg_before", v.loadavg_before);
    w.nonempty("loadavg_after", v.loadavg_after);
    j = w.done(v.rest);
}

void write(const BenchMethod &v, json &j)
{
    Writer w;
    w.req("name", v.name);
    w.opt("description", v.description);
    j = w.done(v.rest);
}

void write(const Measurement &v, json &j)
{
    Writer w;
    w.req("method", v.method);
    w.req("test", v.test);
    w.req("size", v.size);
    w.req("samples", v.samples);
    w.opt("messages_per_sample", v.messages_per_sample);
    w.opt("window", v.window);
    w.opt("latency", v.latency);
    w.opt("bandwidth", v.bandwidth);
    w.opt("message_rate", v.message_rate);
    w.opt("cpu_us_per_message", v.cpu_us_per_message);
    w.opt("switches_per_message", v.switches_per_message);
    w.opt("error", v.error);
    j = w.done(v.rest);
}

void write(const BaselineCheck &v, json &j)
{
    Writer w;
    w.req("id", v.id);
    w.req("metric", v.metric);
    w.opt("test", v.test);
    w.req("size", v.size);
    w.opt("stat", v.stat);
    w.req("hcomm_over", v.hcomm_over);
    w.opt("hcomm", v.hcomm);
    w.opt("other", v.other);
    w.req("ratio", v.ratio);
    w.opt("min", v.min);
    w.opt("max", v.max);
    w.req("held", v.held);
    w.opt("reason", v.reason);
    w.opt("source", v.source);
    j = w.done(v.rest);
}

void write(const Baseline &v, json &j)
{
    Writer w;
    w.opt("file", v.file);
    w.req("held", v.held);
    w.req("checks", v.checks);
    j = w.done(v.rest);
}

void write(const Bench &v, json &j)
{
    Writer w;
    w.req("sizes", v.sizes);
    w.opt("iterations", v.iterations);
    w.opt("samples", v.samples);
    w.opt("window", v.window);
    w.opt("budget_bytes", v.budget_bytes);
    w.opt("load", v.load);
    w.req("methods", v.methods);
    w.nonempty("errors", v.errors);
    w.req("measurements", v.measurements);
    w.opt("baseline", v.baseline);
    j = w.done(v.rest);
}

void write(const Document &v, json &j)
{
    Writer w;
    w.req("schema", v.schema);
    w.req("schema_version", v.schema_version);
    w.req("run", v.run);
    w.opt("iut", v.iut);
    w.opt("adapter", v.adapter);
    w.opt("environment", v.environment);
    w.req("clauses", v.clauses);
    w.nonempty("cases", v.cases);
    w.nonempty("litmus", v.litmus);
    w.nonempty("properties", v.properties);
    w.opt("bench", v.bench);
    w.opt("expectations", v.expectations);
    w.nonempty("configurations", v.configurations);
    w.opt("summary", v.summary);
    j = w.done(v.rest);
}

template <class T>
requires requires(const T &t, json &j) { write(t, j); }
json put(const T &v)
{
    json j;
    write(v, j);
    return j;
}

} // namespace

const Spread *Measurement::metric(std::string_view name) const
{
    const std::optional<Spread> *found = name == "latency"                ? &latency
                                         : name == "bandwidth"            ? &bandwidth
                                         : name == "message_rate"         ? &message_rate
                                         : name == "cpu_us_per_message"   ? &cpu_us_per_message
                                         : name == "switches_per_message" ? &switches_per_message
                                                                          : nullptr;
    return found && *found ? &**found : nullptr;
}

const Case *Document::find_case(std::string_view name) const
{
    for (const auto &c : cases)
        if (c.name == name)
            return &c;
    return nullptr;
}

Document read_document(const json &doc)
{
    Document out;
    get(doc, "", out);
    return out;
}

json to_json_document(const Document &doc) { return put(doc); }

void from_json(const json &j, Document &doc) { doc = read_document(j); }
void to_json(json &j, const Document &doc) { j = to_json_document(doc); }
void to_json(json &j, const RunSection &v) { write(v, j); }
void to_json(json &j, const Iut &v) { write(v, j); }
void to_json(json &j, const AdapterSection &v) { write(v, j); }
void to_json(json &j, const Environment &v) { write(v, j); }
void to_json(json &j, const Clause &v) { write(v, j); }

} // namespace hcts::results
