// Verdicts of the results schema (reports/schema/README.md), in increasing severity.
#pragma once

#include <string>
#include <string_view>

namespace hcts {

enum class Verdict { Pass, Profile, Waived, NotSupported, Hazard, XPass, Fail, Timeout, Crash };

const char *verdict_name(Verdict v);
Verdict verdict_from(std::string_view name); // throws std::invalid_argument
inline Verdict worst(Verdict a, Verdict b) { return a > b ? a : b; }

} // namespace hcts
