// What one rank established in one case, clause by clause, and the one rule
// that turns it into verdicts. A verdict is earned: a clause is PASS only when
// at least one check of it ran and held and nothing kept it from being judged
// in full. Checking functions write here; nothing in this file needs MPI.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hcts/core/verdict.h"

namespace hcts {

class Catalogue;

// One clause's evidence on one rank (or merged over ranks).
struct ClauseEvidence {
    uint32_t held = 0;        // checks that ran and held
    uint32_t failed = 0;      // checks that ran and did not hold
    uint32_t errors = 0;      // checks the harness could not run (resources, launch, adapter)
    uint32_t unsupported = 0; // checks the IUT or product could not support (missing call, no snapshot)
    std::string first_failure, first_error, first_unsupported;
    std::optional<std::string> observed; // PROFILE: what was observed
    std::string observed_note;
};

class Evidence {
  public:
    // Told about every failed check and every error as it happens (the suite
    // shows them as GoogleTest failures); none in unit tests.
    using Reporter = std::function<void(std::string_view clause, std::string_view kind, const std::string &why)>;

    explicit Evidence(std::vector<std::string> clauses, Reporter reporter = {})
        : clauses_(std::move(clauses)), reporter_(std::move(reporter))
    {
    }

    // The check ran; `held` says whether it held. Returns `held`.
    bool check(std::string_view clause, bool held, const std::string &why_not);
    // The check could not run for lack of an IUT feature (NOT_SUPPORTED, with the reason).
    void unsupported(std::string_view clause, const std::string &why);
    // The harness could not run the check (ERROR: never PASS).
    void error(std::string_view clause, const std::string &why);
    // A PROFILE clause's observed behaviour.
    void profile(std::string_view clause, const std::string &observed, const std::string &note = {});
    // The whole case could not run on this IUT (every clause NOT_SUPPORTED).
    void case_not_supported(const std::string &why) { case_not_supported_ = why; }
    // A GoogleTest failure no check recorded (an exception, an ASSERT in set-up).
    void harness_failure(const std::string &why) { harness_failure_ = why; }

    void observe(const std::string &key, nlohmann::json value) { observations_[key] = std::move(value); }
    void message(const std::string &text) { messages_.push_back(text); }
    void seed(uint64_t s) { seed_ = s; }
    void litmus(nlohmann::json entry) { litmus_.push_back(std::move(entry)); }

    const ClauseEvidence *find(std::string_view clause) const;
    bool any_failure() const;
    nlohmann::json to_json() const;

  private:
    ClauseEvidence &at(std::string_view clause);
    std::vector<std::string> clauses_;
    Reporter reporter_;
    std::map<std::string, ClauseEvidence, std::less<>> by_clause_;
    std::optional<std::string> case_not_supported_, harness_failure_;
    nlohmann::json observations_ = nlohmann::json::object();
    std::vector<std::string> messages_;
    std::optional<uint64_t> seed_;
    std::vector<nlohmann::json> litmus_;
};

// The verdict of one clause from its evidence merged over every rank. The order:
// a failed check -> FAIL; harness trouble -> ERROR; an observed profile ->
// PROFILE, or HAZARD when the catalogue lists it as such or does not allow it; a
// check that could not run -> NOT_SUPPORTED; a check that held -> PASS; no
// check at all -> ERROR (the case names the clause but never checked it).
struct ClauseVerdict {
    Verdict verdict = Verdict::Error;
    std::string reason;
    nlohmann::json profile; // {observed, allowed} for PROFILE clauses, else null
};
ClauseVerdict derive_verdict(const std::string &clause_id, const ClauseEvidence &merged, const Catalogue &catalogue);

// Every rank's Evidence::to_json of one case (index = rank; "" where a rank sent
// nothing) merged: per clause, the merged evidence and its derived verdict.
struct MergedCase {
    std::map<std::string, ClauseVerdict> clauses;           // in the case's clause order by id
    nlohmann::json observations = nlohmann::json::object(); // "rank<r>": that rank's observations
    nlohmann::json messages = nlohmann::json::array();      // {rank, text}
    std::optional<uint64_t> seed;
    std::vector<nlohmann::json> litmus;
};
MergedCase merge_ranks(const std::vector<std::string> &clause_ids, const std::vector<std::string> &per_rank_json,
                       const Catalogue &catalogue);

} // namespace hcts
