// The verdicts of the results schema (reports/schema/results-v1.schema.json,
// $defs.verdict), in increasing severity: a clause's verdict is the worst of its
// cases'. The only list of them in the project; a test checks it against the schema.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace hcts {

enum class Verdict {
    Pass,         // the check ran and held
    Profile,      // a behaviour the documents leave open, observed and reported
    Waived,       // an expectations file waives the failure
    NotSupported, // the IUT or the product lacks what the check needs (with the reason)
    Hazard,       // an open behaviour that is dangerous (success returned, nothing delivered)
    XPass,        // a waived failure now passes: the waiver is stale
    Error,        // the harness could not decide (resources, launch, adapter): never PASS
    Fail,         // the check ran and did not hold
    Timeout,      // no verdict before the deadline
    Crash,        // the job died during the case
};

inline constexpr std::array<Verdict, 10> kAllVerdicts{
    Verdict::Pass,  Verdict::Profile, Verdict::Waived, Verdict::NotSupported, Verdict::Hazard,
    Verdict::XPass, Verdict::Error,   Verdict::Fail,   Verdict::Timeout,      Verdict::Crash};

// "PASS", "NOT_SUPPORTED", ... as the schema spells them.
constexpr std::string_view verdict_name(Verdict v)
{
    switch (v) {
    case Verdict::Pass: return "PASS";
    case Verdict::Profile: return "PROFILE";
    case Verdict::Waived: return "WAIVED";
    case Verdict::NotSupported: return "NOT_SUPPORTED";
    case Verdict::Hazard: return "HAZARD";
    case Verdict::XPass: return "XPASS";
    case Verdict::Error: return "ERROR";
    case Verdict::Fail: return "FAIL";
    case Verdict::Timeout: return "TIMEOUT";
    case Verdict::Crash: return "CRASH";
    }
    return "CRASH"; // unreachable for a valid enum; the worst is the safe answer
}
std::optional<Verdict> parse_verdict(std::string_view name);
// "PASS, PROFILE, ...": every name, best first, for error messages.
std::string_view verdict_names();
inline Verdict worst(Verdict a, Verdict b) { return a > b ? a : b; }
// The verdicts a waiver covers without naming them (something is wrong with the IUT).
bool is_bad(Verdict v);
// Whether the verdict fails a gate wherever it appears (a property, a litmus entry, a case).
bool fails_gate(Verdict v);

} // namespace hcts
