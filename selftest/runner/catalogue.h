// The self-test catalogue (selftest/catalogue/*.yaml, format in selftest/README.md
// "The catalogue"): every wrong library, legal variant, PROFILE variant and source
// mutant the suite must tell apart, read and validated against the clause catalogue.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hcts/core/catalogue.h"

namespace hcts::selftest {

struct ProfileExpectation {
    std::string clause, outcome;
};

struct Entry {
    std::string id, kind, area, what;
    std::string iut = "reference"; // "reference" or "shim:<name>"
    std::map<std::string, std::string> env;
    std::optional<std::vector<std::string>> fails; // wrong (required), mutant (optional)
    std::string gate = "default";                  // the gate that must fail (wrong) or pass (legal)
    bool gate_given = false;                       // `gate` written in the entry (legal: overrides the rule)
    std::vector<std::string> not_supported_ok;     // clauses that may be NOT_SUPPORTED
    // wrong/mutant: clauses whose kill depends on timing (a race the IUT may or may not
    // lose in a run): a kill or a PASS/PROFILE both hold. Never needed for the kill itself.
    std::vector<std::string> may_fail;
    // legal: the STRICT clauses the variant departs from. The default gate passes, and the
    // strict gate, judged on the same run's verdicts, fails on exactly these (FAIL or
    // HAZARD) while every other MUST and STRICT clause is PASS or PROFILE.
    std::optional<std::vector<std::string>> strict_fails;
    // Clauses that must be NOT_SUPPORTED. `not_supported: all` (an IUT without the
    // call): every clause is NOT_SUPPORTED unless it does not need the call (then
    // PASS or PROFILE), none is worse, and at least one is NOT_SUPPORTED.
    std::vector<std::string> not_supported;
    bool not_supported_all = false;
    // Clauses that must be ERROR: the suite could not judge them with this IUT (a
    // refused wait proves nothing) and says so instead of a PASS. Never a kill.
    std::vector<std::string> errors;
    std::optional<ProfileExpectation> profile;
    int np = 2;
    // The suite's deadline per case (seconds) when this entry's cases need more than
    // the runner's --case-timeout; 0: the runner's.
    int case_timeout_s = 0;
    std::string cases; // profile: a gtest filter
    // mutant without fails: the gtest filter it runs under --focus (CI), the cases that
    // kill it quickly; ./hcts selftest still runs every case. Empty: the whole suite.
    std::string focus_cases;
    // Runs with no other entry beside it under --jobs: it needs the machine's memory
    // or cores to itself (a 4 GiB transfer).
    bool alone = false;
    std::string observable = "api";     // mutant: api | internal
    std::vector<std::string> killed_by; // mutant, internal: ctests
    std::string file;                   // "shims.yaml:12", where it is defined
};

struct LoadedCatalogue {
    std::vector<Entry> entries;
    std::vector<std::string> files; // the files read, in order
};

// Reads every *.yaml under `dir` (sorted by name) and validates each entry
// against `clauses`. Throws std::runtime_error listing every problem, each as
// "FILE:LINE: problem; allowed: ...".
LoadedCatalogue load_catalogue(const std::string &dir, const Catalogue &clauses);

// One file's text (for tests); `origin` names it in messages. Problems are
// appended to `problems`; ids already in `seen` are duplicates.
void parse_catalogue_file(const std::string &text, const std::string &origin, const Catalogue &clauses,
                          std::vector<Entry> &out, std::vector<std::string> &problems);

// Problems of the entries together: duplicate ids.
void check_unique(const std::vector<Entry> &entries, std::vector<std::string> &problems);

// The gate a legal entry must pass: its `gate` when written, else strict for the
// reference with a knob (it claims the reference's checks) and default for a shim.
std::string legal_gate(const Entry &e);

// The shared object of an entry's IUT: the reference or a shim (lib/selftest/),
// beside this program, built or installed (hcts/core/locate.h).
std::string iut_path(const Entry &e);

} // namespace hcts::selftest
