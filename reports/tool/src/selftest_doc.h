// What the renderers read of a selftest.json (hcts-selftest, selftest/README.md):
// the kill ratio, the kill matrix, the entries and the expectations that failed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hcts::report {

struct SelfTestEntry {
    std::string id;
    std::optional<std::string> kind, area, verdict, what, reproducer;
    bool ok = false;
    double seconds = 0;
    std::vector<std::string> problems;
};

struct SelfTestRow {
    std::string mutant;
    std::optional<std::string> outcome;
    std::vector<std::string> killed_by;
};

struct SelfTest {
    bool ok = false;
    std::vector<SelfTestEntry> entries;
    std::vector<std::string> matrix_clauses; // matrix.clauses: the columns
    std::vector<SelfTestRow> matrix_rows;    // matrix.rows
    int64_t killed = 0, run = 0;             // kill_ratio.killed, kill_ratio.run
    std::optional<double> ratio;             // kill_ratio.ratio; null when no API-observable mutant ran
    std::vector<std::string> failed;
};

// Throws std::runtime_error "FIELD is VALUE; allowed: ..." for a member of the wrong type.
SelfTest read_selftest(const nlohmann::json &doc);

} // namespace hcts::report
