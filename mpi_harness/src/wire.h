// The agreement messages between ranks: a flat byte encoding, so no MPI
// datatypes and no dependence on the two ranks' struct layouts.
#pragma once

#include "hcts/mpi_harness.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hcts::mpi::detail {

// One rank's end of one case, sent to rank 0.
struct Report {
    int32_t index = 0; // 1-based case number; must match rank 0's
    std::string name;
    Verdict verdict = Verdict::Pass;
    double elapsed_ms = 0;
    std::vector<std::string> messages;
    std::string payload;
};

std::vector<char> encode(const Report &r);
// nullopt if the bytes are not a well-formed report.
std::optional<Report> decode(std::span<const char> bytes);

} // namespace hcts::mpi::detail
