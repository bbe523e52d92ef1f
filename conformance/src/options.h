// The command line of hcts-conformance (CLI11). GoogleTest's own flags
// (--gtest_filter=...) pass through to it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hcts {

struct Options {
    std::string iut, adapter, programs, results, expectations, clauses;
    uint64_t seed = 0;
    bool seed_given = false;
    uint32_t repeat = 256;         // litmus repetitions
    uint32_t case_timeout_s = 120; // watchdog deadline per case
    std::string gate = "default";  // default | strict
    std::string mode = "plain";    // plain | adversarial: how the transport runs (recorded, and in reproducers)
    std::string transport;         // what carries the IUT's traffic (recorded), e.g. softverbs
    std::string summary;           // --summary PATH: print a results.json's clause summary
    bool check_catalogue = false;
    bool list_cases = false;              // --list-cases: each case and the clauses it names, one per line
    bool no_peek = false;                 // judge quiet notifies as on an adapter without peek_notify
    std::string configuration = "plain";  // the configuration this run judges (run.configuration; ./hcts run)
    std::string segment_size;             // "" (none), "auto" (ask the adapter) or bytes: lengths straddle it
    bool big = false;                     // --big / HCTS_BIG: run the transfer above 4 GiB (Big.*)
    std::string command;                  // the exact command line, to rerun the run
    std::vector<std::string> run_words;   // --run-word: the words the user gave `hcts run`, for reproducers
    std::vector<std::string> passthrough; // argv[0] and GoogleTest's flags
};

// Parses argv. Throws CLI::ParseError (CLI::CallForHelp for --help); the caller
// prints it with app's formatter via exit_with_usage().
Options parse_options(int argc, char **argv);
// Prints a parse error (or the help) and returns the exit status to use.
int report_usage_error(const std::exception &e);

} // namespace hcts
