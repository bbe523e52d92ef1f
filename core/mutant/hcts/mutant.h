// Mutant schemata for the suite's mutation score (selftest/README.md).
//
// Every mutant of the reference and of softverbs is compiled into the one build,
// guarded by hcts::mutant("<id>"); at most one is switched on, at run time, by
// HCTS_MUTANT=<id>. Unset, every guard is false and the code is the reference.
// One build serves the whole kill matrix, so `./hcts selftest` builds nothing.
#pragma once

#include <hcts/settings.h>

#include <string>
#include <string_view>

namespace hcts {

// HCTS_MUTANT, a row of the suite's settings table (core/src/settings.cpp).
inline constexpr settings::Setting mutant_setting{
    "HCTS_MUTANT", settings::Type::string, "",
    "the one mutant switched on in the reference and softverbs (./hcts selftest sets it; unset: none)",
    "a mutant id of selftest/catalogue/*.yaml"};

// HCTS_MUTANT_SEAMS=0 (the installed and packaged libraries, reference_impl/ and softverbs/
// CMakeLists.txt): every guard is a constant false, so the compiler drops each mutant's
// branch and its id, and the shipped library carries no fault of the self-test and
// never reads HCTS_MUTANT. The build tree's libraries keep the seams (the default).
#ifndef HCTS_MUTANT_SEAMS
#define HCTS_MUTANT_SEAMS 1
#endif

#if HCTS_MUTANT_SEAMS
// The id of the mutant switched on by HCTS_MUTANT, read once; empty when none.
[[gnu::always_inline]] inline const std::string &active_mutant()
{
    static const std::string id(settings::raw(mutant_setting).value_or(""));
    return id;
}

// True only in a build run as mutant `id`. Ids are listed in selftest/catalogue/*.yaml,
// and a ctest checks that each guard in the source has an entry and vice versa.
// Always inlined: the hot paths pass dozens of guards per operation, and an out-of-line
// call each (which GCC chose for this function) cost 1-2 % of the CPU of a ping-pong.
[[gnu::always_inline]] inline bool mutant(std::string_view id)
{
    const std::string &a = active_mutant();
    return !a.empty() && a == id;
}

#else
inline const std::string &active_mutant()
{
    static const std::string none;
    return none;
}
constexpr bool mutant(std::string_view) { return false; }
#endif

} // namespace hcts
