// hcts::expectations — known failures of an implementation, declared in a YAML
// file and applied to a results document (reports/schema/README.md).
//
// File format (reports/README.md has the full description):
//
//   schema: hcts-expectations
//   schema_version: 1
//   expectations:
//     - clause: WWN.IDX.2          # or  case: "Bounds.*"  (glob over case names)
//       expected: FAIL             # FAIL | TIMEOUT | CRASH | HAZARD | ERROR | NOT_SUPPORTED
//       reason: "vendor ticket 1234: index not range-checked"
//       when: { iut: "libvendor*.so", product: atlas350, ranks: 2 }   # optional
//
// Applying a set to a results document:
//   - a case matched by an entry (its name matches `case`, or one of its clauses
//     matches `clause`; `when` keys all match the run) whose verdict is FAIL,
//     TIMEOUT, CRASH, HAZARD or the entry's `expected` becomes WAIVED; the old
//     verdict is kept in "waived_from" and the entry in "waiver";
//   - a matched case that PASSes becomes XPASS (an error: the waiver is stale);
//   - a clause with no case in the document is matched on its own verdict the same way;
//   - clause verdicts, "summary" and the "expectations" block are recomputed.
// The first matching entry, in file order, decides. Applying twice is harmless.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hcts::expectations {

// The run facts an entry's `when` may restrict on; an absent key matches anything.
struct When {
    std::optional<std::string> iut;     // glob over iut.path, its file name, or iut.name
    std::optional<std::string> product; // exact, environment.product
    std::optional<std::int64_t> ranks;  // exact, environment.ranks
};

struct Expectation {
    std::string clause;    // glob over clause IDs; empty when `case_glob` is used
    std::string case_glob; // glob over case names; empty when `clause` is used
    std::string expected;  // FAIL | TIMEOUT | CRASH | HAZARD | NOT_SUPPORTED
    std::string reason;
    When when;
    int line = 0; // 1-based line of the entry in its file, for messages
};

class ExpectationSet {
  public:
    ExpectationSet() = default;

    // Reads and validates a file. Throws std::runtime_error "FILE:LINE: problem"
    // for an unreadable file, malformed YAML, a wrong schema, a newer
    // schema_version, an unknown key or verdict, or a missing field.
    static ExpectationSet load(std::string_view path);
    // The same from text already in memory; `origin` names it in messages.
    static ExpectationSet parse(std::string_view yaml_text, std::string_view origin);

    // Rewrites `results` in place as described above. Throws std::runtime_error
    // if `results` is not a results document this library understands.
    void apply(nlohmann::json &results) const;

    [[nodiscard]] std::span<const Expectation> entries() const { return entries_; }
    [[nodiscard]] const std::string &origin() const { return origin_; }

  private:
    std::string origin_;
    std::vector<Expectation> entries_;
};

// String forms of hcts::Verdict (hcts/core/verdict.h), for code that reads
// verdicts out of JSON: the rank in the worst-of order (higher is worse),
// or -1 for a string that is not a verdict.
int verdict_rank(std::string_view verdict);
// Every verdict name, best first.
std::span<const std::string_view> all_verdicts();
// True for the verdicts a waiver may cover without naming them: FAIL, TIMEOUT, CRASH, HAZARD.
bool is_bad(std::string_view verdict);
// Whether a clause of this kind ("MUST", "STRICT", "PROFILE") gates a run: MUST always,
// STRICT under the strict gate, PROFILE never: hcts::gates_on (hcts/core/clause_kind.h), for kinds as text.
bool gates_on(std::string_view kind, bool strict);

// The gate: the one derivation of a results document's verdicts, used by every
// writer (through hcts::ResultsWriter) and every reader.
// Recomputes every clause's verdict, reason and profile from its cases (worst-of,
// the first case with the worst verdict giving the reason; a clause's own PROFILE
// verdict is kept unless a case is worse; a clause without cases keeps its
// verdict) and the "summary" block. Gate: "pass" iff run.status is "complete",
// summary.not_run is empty, every gated clause is PASS or WAIVED (MUST clauses;
// with run.gate "strict", STRICT clauses too), no clause or case is XPASS, and
// every property and litmus entry has a verdict that is not FAIL, ERROR,
// TIMEOUT, CRASH or XPASS. by_verdict counts clauses (properties, in a document
// without clauses).
void summarize(nlohmann::json &results);

} // namespace hcts::expectations
