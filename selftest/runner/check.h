// The coverage rules of the catalogue (selftest/README.md), checked by
// `hcts-selftest --check-catalogue`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalogue.h"

namespace hcts::selftest {

inline constexpr std::size_t kMinMutants = 40;

// A `hcts::mutant("<id>")` guard found in the source.
struct Guard {
    std::string id, where; // where: "reference_impl/src/x.cpp:12"
};

// Every guard in the C and C++ files under `dirs` (relative to `root`), by scanning the text.
std::vector<Guard> scan_guards(const std::string &root, const std::vector<std::string> &dirs);
// The guards in one file's text (for tests).
std::vector<Guard> guards_in(const std::string &text, const std::string &where);

// Every rule the catalogue breaks, one line each (empty: it holds). `reference`:
// a results document of the reference, whose PROFILE outcomes need no entry.
std::vector<std::string> check_coverage(const std::vector<Entry> &entries, const Catalogue &clauses,
                                        const std::vector<Guard> &guards,
                                        const std::optional<nlohmann::json> &reference);

} // namespace hcts::selftest
