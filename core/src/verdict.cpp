#include "hcts/core/verdict.h"

namespace hcts {

std::optional<Verdict> parse_verdict(std::string_view name)
{
    for (Verdict v : kAllVerdicts)
        if (verdict_name(v) == name)
            return v;
    return std::nullopt;
}

std::string_view verdict_names()
{
    return "PASS, PROFILE, WAIVED, NOT_SUPPORTED, HAZARD, XPASS, ERROR, FAIL, TIMEOUT, CRASH";
}

bool is_bad(Verdict v)
{
    return v == Verdict::Fail || v == Verdict::Timeout || v == Verdict::Crash || v == Verdict::Hazard;
}

bool fails_gate(Verdict v)
{
    return v == Verdict::Fail || v == Verdict::Timeout || v == Verdict::Crash || v == Verdict::XPass ||
           v == Verdict::Error;
}

} // namespace hcts
