// Shared pieces of the exported entry points: the export macro and how a refused
// call is reported (logged at info with the reason, counted on the comm).
#pragma once

#include "comm.h"
#include "device_context.h"
#include "log.h"
#include "registry.h"

#define HCOMM_EXPORT extern "C" __attribute__((visibility("default")))

namespace hcomm_ref {

// The comm a refusal is counted on: the device program's (the caller), else the
// one the call's handles belong to.
inline Comm *blame(Comm *comm)
{
    LaunchRecord *launch = current_launch();
    return launch != nullptr ? launch->comm : comm;
}

template <typename... Parts>
HcclResult refuse(Comm *comm, const char *api, HcclResult code, const Parts &...parts)
{
    Comm *counted = blame(comm);
    if (counted != nullptr) {
        ++counted->stats().rejected_calls;
    }
    log(LogLevel::info, counted != nullptr ? static_cast<int64_t>(counted->rank()) : -1, api, " refused (", code,
        "): ", parts...);
    return code;
}

}  // namespace hcomm_ref
