// The results writer: the one producer of results.json (reports/schema/README.md,
// hcts-results v1) for the conformance suite, the property suite and benchmarks.
// Every write goes through the gate (expectations::summarize) and, when given,
// the expectations file, so a document on disk always carries its own verdicts;
// a run that did not reach finish(Complete) never gates "pass".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hcts/core/results_model.h"

namespace hcts {

class Adapter;
class Catalogue;
class Library;
namespace expectations {
class ExpectationSet;
}

struct RunInfo {
    std::string kind;             // "conformance", "property", "bench"
    std::string id;               // make_run_id() when empty
    std::string command;          // the exact command line, to rerun the whole run
    std::string mode = "plain";   // "plain" or "adversarial" (softverbs' seeded mode)
    std::optional<uint64_t> seed; // the run's seed (the suite's; softverbs' in adversarial mode)
    std::string gate = "default"; // "default" (MUST clauses) or "strict" (MUST and STRICT)
    std::string transport;        // e.g. "softverbs", "verbs"
    std::string suite_commit;     // "" when unknown
    std::string configuration;    // e.g. "plain", "segment", "adversarial" (run.configuration); "" = none recorded
    std::string filter;           // the GoogleTest filter of a run of a subset of the cases (run.filter); "" = all
};

enum class RunStatus { Complete, Aborted };

class ResultsWriter {
  public:
    // `catalogue` (may be null: no clause list) and `expectations` (may be null)
    // must outlive the writer. Writes the first version of the document at once.
    ResultsWriter(std::string path, RunInfo run, const Catalogue *catalogue,
                  const expectations::ExpectationSet *expectations);

    void set_iut(const Library &iut, std::optional<std::string> version);
    // For a run without a loaded library (the simulator): a name only.
    void set_iut_name(const std::string &name);
    void set_adapter(const Adapter &adapter);
    void set_environment(const std::string &product, int ranks, const std::vector<std::string> &hosts);
    // The segment size the transfers straddled (environment.segment_size); 0 = unknown (null).
    void set_segment_size(uint64_t bytes);

    // One case entry of the schema (name, clauses, verdict, clause_verdicts, ...).
    void add_case(nlohmann::json entry);
    void add_litmus(nlohmann::json entry);
    void add_property(nlohmann::json entry);
    // A benchmark run's measurements (the schema's `bench` section, run.kind "bench").
    void set_bench(nlohmann::json bench);
    // Why the run could not complete (shown in every report).
    void set_error(const std::string &why);
    void finish(RunStatus status);

    const nlohmann::json &doc() const { return doc_; }
    const std::string &path() const { return path_; }
    bool gate_passed() const;

  private:
    void write();
    std::string path_;
    const Catalogue *catalogue_;
    const expectations::ExpectationSet *expectations_;
    // The sections the writer builds itself, typed (results_model.h); each write()
    // puts them into doc_, which also holds the cases, litmus tests and properties
    // as the suites give them, and what summarize() and the expectations derive.
    results::RunSection run_;
    results::Iut iut_;
    std::optional<results::AdapterSection> adapter_;
    results::Environment environment_;
    nlohmann::json doc_;
};

// Adds a property run's properties to a run's results document (the conformance
// run of the same library), so both gate together, and re-derives the summary.
// A property run that did not complete adds an ERROR property saying why.
// Throws std::runtime_error for documents that are not hcts results.
void merge_properties(nlohmann::json &into, const nlohmann::json &property_run);

// Adds another configuration's conformance run of the same library (e.g. small
// segments, an adversarial seed: `run.configuration` names it) to a run's results
// document, so one document gates on all of them: its cases and litmus entries
// are appended, renamed "<name>@<configuration>" and tagged `configuration`, and
// listed under their clauses, so a clause's verdict is the worst over every
// configuration it ran in (summarize() lists them in `clauses[].configurations`).
// `configurations` (top level) gains one entry per run; one that did not
// complete fails the gate. A configuration may run a subset of the cases: its
// summary.not_run is not carried over. Throws std::runtime_error for documents
// that are not hcts results, or a configuration name already in `into`.
void merge_configuration(nlohmann::json &into, const nlohmann::json &configuration_run);

// A results document (or any JSON file) from disk; throws std::runtime_error
// "<path>: <problem>" for an unreadable file or malformed JSON.
nlohmann::json read_json_file(const std::string &path);

// "20261201T020610Z-4200": UTC time and 16 random bits.
std::string make_run_id();
// "2026-12-01T02:06:10Z", or the time SOURCE_DATE_EPOCH names.
std::string utc_now();
// The suite's version (the CMake project version).
const char *suite_version();

} // namespace hcts
