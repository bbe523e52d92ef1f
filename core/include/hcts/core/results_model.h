// The results document (hcts-results v1, reports/schema/README.md and
// results-v1.schema.json) as C++ types: what every reader of a results.json reads
// through, so a field's name, type and nullability are written down once.
//
// Discipline (as the schema's): `schema` and `schema_version` first; fields are
// only appended, never renamed or re-typed. A field the schema marks optional or
// nullable is a std::optional (absent and null read the same; an optional list
// that is absent reads as empty). Each object keeps in `rest` the members its typed
// fields do not hold (fields this version does not know, and known ones given as
// null or as an empty list or object) and writes them back as they were, so a
// read-modify-write keeps what it did not understand and the document's shape.
// Numbers the schema calls "number" are doubles: 12 is written back as 12.0.
//
// read_document() checks the types the schema gives; a wrong one throws
// std::runtime_error "<field path> is <value>; allowed: <what is>", e.g.
// "cases[3].verdict is \"PASSED\"; allowed: PASS, PROFILE, ...".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "hcts/core/clause_kind.h"
#include "hcts/core/verdict.h"

namespace hcts::results {

inline constexpr std::string_view kSchemaName = "hcts-results";
inline constexpr int kSchemaVersion = 1;

struct Waiver {
    std::string expected; // a verdict name, or a glob the expectations file gave
    std::string reason;
    std::optional<std::string> source; // "vendor.yaml:4"
    nlohmann::json rest = nlohmann::json::object();
};

struct Profile {
    std::string observed;
    std::vector<std::string> allowed;
    nlohmann::json rest = nlohmann::json::object();
};

struct RunSection {
    std::string id;
    std::string status; // running | complete | aborted
    std::optional<std::string> started, finished;
    std::optional<int64_t> catalogue_version;
    std::optional<std::string> suite_version, suite_commit, command;
    std::optional<std::string> mode; // plain | adversarial
    std::optional<uint64_t> seed;
    std::optional<std::string> kind; // conformance | property | mpi-selftest | bench
    std::optional<GateMode> gate;
    std::optional<std::string> error, configuration, filter;
    nlohmann::json rest = nlohmann::json::object();

    GateMode gate_mode() const { return gate.value_or(GateMode::Default); }
};

struct Iut {
    std::optional<std::string> path, sha256, version, name;
    std::optional<std::vector<std::string>> missing_symbols;
    nlohmann::json rest = nlohmann::json::object();
};

struct AdapterSection {
    std::optional<std::string> path, sha256, name;
    std::optional<int64_t> abi_version;
    nlohmann::json rest = nlohmann::json::object();
};

struct Environment {
    std::optional<std::string> product;
    std::optional<int64_t> ranks; // 0 while unknown
    std::optional<std::vector<std::string>> hosts;
    std::optional<std::string> os, transport;
    std::optional<uint64_t> segment_size;
    nlohmann::json rest = nlohmann::json::object();
};

struct ConfigurationVerdict {
    std::string name;
    Verdict verdict = Verdict::Pass;
    nlohmann::json rest = nlohmann::json::object();
};

struct Clause {
    std::string id;
    std::optional<std::string> title, statement;
    ClauseKind kind = ClauseKind::Must;
    std::optional<std::string> area, source, source_class;
    std::vector<std::string> functions;
    std::optional<Verdict> verdict; // nullopt: not decided yet
    std::optional<std::string> reason;
    std::vector<std::string> cases;
    std::optional<Profile> profile;
    std::optional<Verdict> waived_from;
    std::optional<Waiver> waiver;
    std::vector<ConfigurationVerdict> configurations;
    nlohmann::json rest = nlohmann::json::object();
};

struct Message {
    std::optional<int64_t> rank;
    std::string text;
    nlohmann::json rest = nlohmann::json::object();
};

// What a case decided for one of its clauses (cases[].clause_verdicts[id]).
struct ClauseVerdict {
    Verdict verdict = Verdict::Pass;
    std::optional<std::string> reason;
    nlohmann::json profile; // null or a free-form object
    std::optional<Verdict> waived_from;
    std::optional<Waiver> waiver;
    nlohmann::json rest = nlohmann::json::object();
};

struct Case {
    std::string name;
    std::vector<std::string> clauses;
    Verdict verdict = Verdict::Pass;
    std::optional<std::string> reason;
    std::optional<double> duration_ms;
    std::optional<uint64_t> seed;
    std::optional<std::string> reproducer;
    std::vector<Message> messages;
    nlohmann::json observations = nlohmann::json::object(); // free-form, case-specific
    std::optional<Verdict> waived_from;
    std::optional<Waiver> waiver;
    std::map<std::string, ClauseVerdict> clause_verdicts;
    std::optional<std::string> configuration;
    nlohmann::json rest = nlohmann::json::object();
};

struct Litmus {
    std::string id;
    std::optional<std::string> shape;
    std::optional<std::string> case_name; // "case"
    std::optional<int64_t> repetitions;
    std::map<std::string, int64_t> outcomes;
    std::vector<std::string> forbidden;
    std::optional<std::string> observation; // never | sometimes | always
    std::optional<std::string> bound;
    Verdict verdict = Verdict::Pass;
    std::optional<std::string> configuration;
    std::vector<std::string> clauses; // not in the schema's list, read by the gate: the clauses it checks
    nlohmann::json rest = nlohmann::json::object();
};

struct FailedClause {
    std::string id;
    std::string kind; // a clause kind; text, as a property writes it
    nlohmann::json rest = nlohmann::json::object();
};

struct Departure {
    std::string clause;
    std::string kind;
    int64_t count = 0;
    std::optional<std::string> example;
    nlohmann::json rest = nlohmann::json::object();
};

struct Property {
    std::string name;
    std::optional<int64_t> runs;
    Verdict verdict = Verdict::Pass;
    std::optional<uint64_t> seed;
    std::optional<std::string> reproduce, command;
    std::optional<std::vector<std::string>> counterexample;
    std::optional<int64_t> shrinks;
    std::optional<std::string> reason;
    std::optional<FailedClause> failed_clause;
    std::vector<Departure> departures;
    std::vector<std::string> clauses; // not in the schema's list, read by the gate: the clauses it checks
    nlohmann::json rest = nlohmann::json::object();
};

struct Expectations {
    std::optional<std::string> file;
    std::optional<int64_t> entries, active;
    std::vector<std::string> waived, xpass, waived_cases, xpass_cases, unmatched;
    nlohmann::json rest = nlohmann::json::object();
};

// One configuration's run merged into the document (merge_configuration).
struct Configuration {
    std::string name;
    std::string status; // running | complete | aborted | unknown
    std::optional<std::string> mode;
    std::optional<uint64_t> seed;
    std::optional<std::string> command;
    std::optional<int64_t> cases;
    std::optional<uint64_t> segment_size;
    std::optional<std::string> filter, error;
    nlohmann::json rest = nlohmann::json::object();
};

struct Summary {
    std::map<std::string, int64_t> by_verdict;
    std::optional<int64_t> must_total, must_passed, must_waived;
    std::optional<std::string> gate; // pass | fail
    std::vector<std::string> not_run;
    std::optional<std::string> judged; // pass | fail
    std::optional<int64_t> strict_total, strict_passed;
    std::optional<GateMode> gate_mode;
    nlohmann::json rest = nlohmann::json::object();
};

struct Spread {
    double median = 0, min = 0, max = 0;
    nlohmann::json rest = nlohmann::json::object();
};

struct BenchLoad {
    std::optional<int64_t> cpus;
    std::vector<double> loadavg_before, loadavg_after;
    nlohmann::json rest = nlohmann::json::object();
};

struct BenchMethod {
    std::string name;
    std::optional<std::string> description;
    nlohmann::json rest = nlohmann::json::object();
};

struct Measurement {
    std::string method;
    std::string test; // latency | bandwidth
    int64_t size = 0;
    int64_t samples = 0;
    std::optional<int64_t> messages_per_sample, window;
    std::optional<Spread> latency, bandwidth, message_rate, cpu_us_per_message, switches_per_message;
    std::optional<std::string> error;
    nlohmann::json rest = nlohmann::json::object();

    // The spread of a metric by its schema name ("latency", "message_rate", ...); null if absent.
    const Spread *metric(std::string_view name) const;
};

struct BaselineCheck {
    std::string id;
    std::string metric; // latency | bandwidth | message_rate | cpu | switches
    std::optional<std::string> test;
    int64_t size = 0;
    std::optional<std::string> stat; // median | best
    std::string hcomm_over;
    std::optional<double> hcomm, other;
    double ratio = 0;
    std::optional<double> min, max;
    bool held = false;
    std::optional<std::string> reason, source;
    nlohmann::json rest = nlohmann::json::object();
};

struct Baseline {
    std::optional<std::string> file;
    bool held = false;
    std::vector<BaselineCheck> checks;
    nlohmann::json rest = nlohmann::json::object();
};

struct Bench {
    std::vector<int64_t> sizes;
    std::optional<int64_t> iterations, samples, window, budget_bytes;
    std::optional<BenchLoad> load;
    std::vector<BenchMethod> methods;
    std::vector<std::string> errors;
    std::vector<Measurement> measurements;
    std::optional<Baseline> baseline;
    nlohmann::json rest = nlohmann::json::object();
};

struct Document {
    std::string schema{kSchemaName};
    int64_t schema_version = kSchemaVersion;
    RunSection run;
    std::optional<Iut> iut;
    std::optional<AdapterSection> adapter;
    std::optional<Environment> environment;
    std::vector<Clause> clauses;
    std::vector<Case> cases;
    std::vector<Litmus> litmus;
    std::vector<Property> properties;
    std::optional<Bench> bench;
    std::optional<Expectations> expectations;
    std::vector<Configuration> configurations;
    std::optional<Summary> summary;
    nlohmann::json rest = nlohmann::json::object();

    // The case named `name`, or null.
    const Case *find_case(std::string_view name) const;
};

// Reads a results document. Throws std::runtime_error naming the field, its value
// and what is allowed, for another schema, a newer schema_version, or a field of
// the wrong type or value.
Document read_document(const nlohmann::json &doc);
// The document as JSON: the typed fields, then each object's `rest`.
nlohmann::json to_json_document(const Document &doc);

// nlohmann's conventions, for `j.get<Document>()` and `nlohmann::json j = doc`.
void from_json(const nlohmann::json &j, Document &doc);
void to_json(nlohmann::json &j, const Document &doc);
// The sections a writer builds on its own (core/src/results.cpp), as JSON. A field
// the writer states as unknown is null: put the key, as null, in the object's `rest`.
void to_json(nlohmann::json &j, const RunSection &v);
void to_json(nlohmann::json &j, const Iut &v);
void to_json(nlohmann::json &j, const AdapterSection &v);
void to_json(nlohmann::json &j, const Environment &v);
void to_json(nlohmann::json &j, const Clause &v);

} // namespace hcts::results
