#include "verdict.h"

#include <stdexcept>

namespace hcts {

const char *verdict_name(Verdict v)
{
    switch (v) {
    case Verdict::Pass: return "PASS";
    case Verdict::Profile: return "PROFILE";
    case Verdict::Waived: return "WAIVED";
    case Verdict::NotSupported: return "NOT_SUPPORTED";
    case Verdict::Hazard: return "HAZARD";
    case Verdict::XPass: return "XPASS";
    case Verdict::Fail: return "FAIL";
    case Verdict::Timeout: return "TIMEOUT";
    case Verdict::Crash: return "CRASH";
    }
    return "?";
}

Verdict verdict_from(std::string_view name)
{
    for (Verdict v : {Verdict::Pass, Verdict::Profile, Verdict::Waived, Verdict::NotSupported, Verdict::Hazard,
                      Verdict::XPass, Verdict::Fail, Verdict::Timeout, Verdict::Crash})
        if (name == verdict_name(v))
            return v;
    throw std::invalid_argument("unknown verdict '" + std::string(name) +
                                "'; allowed: PASS PROFILE WAIVED NOT_SUPPORTED HAZARD XPASS FAIL TIMEOUT CRASH");
}

} // namespace hcts
