// rotation.h: which mutants a CI run of the self-test runs.
//
// Every wrong, legal and profile entry runs. A mutant runs when the change it
// stands on moved (a changed line near its guard, or a changed case that names
// one of the clauses it declares to fail), or when it falls in this commit's
// share of the rest: mutants are spread over `shares` buckets by a stable hash
// of their id, and a commit runs the bucket its number (its position in the
// history) selects, so any `shares` consecutive commits run every mutant.
// `./hcts selftest` still runs the whole catalogue; the ctest uses this.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalogue.h"
#include "check.h"

namespace hcts::selftest {

// Lines [first, last] of a file (relative to the source root) that a change
// added or replaced, in the file as it is now.
struct ChangedLines {
    std::string file;
    uint32_t first = 0, last = 0;
};

struct Rotation {
    uint64_t commit_number = 0; // git rev-list --count HEAD
    uint32_t shares = 5;
    std::vector<ChangedLines> changes; // since the previous commit, and in the work tree
    std::string since;                 // what `changes` are measured against, for the log
};

// The bucket of a mutant id in [0, shares): FNV-1a, stable across builds and machines.
uint32_t bucket_of(std::string_view id, uint32_t shares);

// How near a guard a changed line must be to count as a change of its code.
inline constexpr uint32_t kGuardReach = 25;
// How far around a changed case line clause ids count as that case's clauses.
inline constexpr uint32_t kCaseReach = 60;

// Why `e` runs under `r`: "always (<kind>)", "changed: <file>:<line>", "share
// k of N"; empty when it does not. `read` gives a source file's text by its
// path relative to the source root ("" when it has none).
std::string why_selected(const Entry &e, const Rotation &r, const std::vector<Guard> &guards,
                         const std::function<std::string(const std::string &)> &read);

// The changed lines of a unified diff with no context (git diff -U0).
std::vector<ChangedLines> parse_unified_diff(std::string_view diff);

// The rotation of the source tree at `root` from git: the commit's number and
// the lines changed since HEAD~1 (work-tree changes included). Without git or
// history it has no answer, and the caller runs every mutant.
std::optional<Rotation> rotation_from_git(const std::filesystem::path &root, uint32_t shares, std::string &why_not);

} // namespace hcts::selftest
