// Reading results documents (reports/schema/README.md) for the renderers.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "hcts/core/results_model.h"

namespace hcts::expectations {
class ExpectationSet;
}

namespace hcts::report {

inline constexpr int kResultsSchemaVersion = results::kSchemaVersion;

struct Run {
    std::string path;   // where it was read from, for messages and the report
    std::string label;  // short, unique among the runs of one report (column heading)
    std::string bytes;  // the file as read, for bundles (checksummed as is)
    nlohmann::json doc; // as read; apply, merge and summarize rewrite it
    // The document as the renderers read it: prepare_runs() reads it from `doc` once
    // the derived parts are computed.
    results::Document model;
};

// Parses and checks a results document. Throws std::runtime_error
// "ORIGIN[:LINE:COL]: problem; allowed: ..." for malformed JSON, another schema,
// a newer schema_version, or a structure a renderer cannot use (a field of another
// type than the schema gives it: "ORIGIN: FIELD is VALUE; allowed: ...").
nlohmann::json parse_results(std::string_view text, std::string_view origin);
void check_results(const nlohmann::json &doc, std::string_view origin);

// Reads, parses and checks one file; `label` is left for label_runs().
Run load_run(const std::string &path);

// Applies `expectations` (if any) and recomputes the derived parts (clause
// verdicts, summary), reads each `doc` into its typed `model` (throws
// std::runtime_error "PATH: FIELD is VALUE; allowed: ..." for a field of the
// wrong type), then gives each run a unique label.
void prepare_runs(std::span<Run> runs, const expectations::ExpectationSet *expectations);

std::string read_file(const std::string &path); // throws naming the path

} // namespace hcts::report
