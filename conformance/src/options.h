// Command-line options of hcts-conformance and what was derived from them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clauses.h"

namespace hcts {

struct Options {
    std::string iut, adapter, programs, results, expectations, clauses;
    uint64_t seed = 0;
    bool seed_given = false;
    uint32_t repeat = 256;       // litmus repetitions
    uint32_t case_timeout_s = 120; // watchdog deadline per case
    std::string run_id;
    std::string command; // the exact command line, to rerun the run
    Catalogue catalogue;
};

Options &options();

// Parses and removes the suite's own flags from argv (GoogleTest's stay); throws
// std::invalid_argument naming the flag and what is allowed.
void parse_options(int &argc, char **argv);
std::string usage_text();

} // namespace hcts
