// results.json (reports/schema/README.md, schema v1), kept by rank 0 and
// rewritten atomically after every decided case.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "case.h"
#include "clauses.h"

namespace hcts {

class Results {
  public:
    Results(std::string path, const Catalogue &catalogue);
    nlohmann::json &doc() { return doc_; }
    // Merges every rank's view of one case (Case::to_json, index = rank) and writes.
    // Returns the test's overall verdict and one-line reason, for the console.
    std::pair<std::string, std::string> add_case(const CaseInfo &info, const std::vector<nlohmann::json> &per_rank, double duration_ms);
    // A case the watchdog or a signal ended: every clause of it gets `v`.
    void add_broken_case(const CaseInfo &info, Verdict v, const std::string &reason, double duration_ms);
    void finish(const std::string &status);
    void write();
    bool gate_passed() const;
    const std::string &path() const { return path_; }

  private:
    void recompute();
    std::string path_;
    const Catalogue &catalogue_;
    nlohmann::json doc_;
};

} // namespace hcts
