// The command line of hcts-bench (CLI11).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hcts::bench {

struct Options {
    std::string iut, adapter, programs; // default: the reference and its adapter next to the program
    std::string results;                // default results/<run-id>/results.json
    std::string baseline;               // ratio expectations (baseline.h)
    std::string transport;              // recorded, e.g. softverbs
    std::vector<uint64_t> sizes;
    std::vector<std::string> methods = {"hcomm", "verbs", "mpi_osc", "memcpy"};
    uint32_t iterations = 100; // round trips (latency) or messages (bandwidth) per sample, at most
    uint32_t samples = 5;
    uint32_t window = 8;        // notifies in flight in the bandwidth test
    uint64_t budget = 64 << 20; // bytes per sample, at most: large sizes take fewer iterations
    bool quick = false;
    std::string command;
};

// Exits (0 for --help, 2 for a parse error) before MPI starts; throws
// std::invalid_argument for a value CLI11 cannot check (a size, a method).
Options parse_options(int argc, char **argv);

} // namespace hcts::bench
