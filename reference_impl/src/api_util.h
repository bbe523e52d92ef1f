// Shared pieces of the exported entry points: the export macro, how a refused
// call is reported (logged at info with the reason, counted on the comm), and the
// comm argument's place in the check order.
#pragma once

#include "comm.h"
#include "device_context.h"
#include "log.h"
#include "registry.h"

#define HCOMM_EXPORT extern "C" __attribute__((visibility("default")))

namespace hcomm_ref {

// The comm a refusal is counted on, by handle: the device program's (the caller),
// else the one the call's handles belong to (held by the caller, so readable).
inline const void *blame(const Comm *comm)
{
    LaunchRecord *launch = current_launch();
    return launch != nullptr ? launch->comm : comm != nullptr ? comm->handle() : nullptr;
}

template <typename... Parts>
HcclResult refuse(const Comm *comm, const char *api, HcclResult code, const Parts &...parts)
{
    // Through the registry: the device program's comm may be destroyed while the
    // program runs, and a dead one is not counted.
    const int64_t rank = registry::count_rejection(blame(comm));
    log(LogLevel::info, rank, api, " refused (", code, "): ", parts...);
    return code;
}

// The last step of the check order for a call that names a comm: once its null
// checks and support rules passed, a comm that is not live is HCCL_E_PARA.
inline HcclResult refuse_dead_comm(const char *api, const void *comm)
{
    return refuse(nullptr, api, HCCL_E_PARA, "comm ", comm, " is not a live communicator");
}

// For the calls with no support rule before the comm: holds the comm in `live`
// for the rest of the call, or refuses.
inline HcclResult live_comm(const char *api, const void *comm, registry::CommRef &live)
{
    live = registry::pin_comm(comm);
    return live != nullptr ? HCCL_SUCCESS : refuse_dead_comm(api, comm);
}

} // namespace hcomm_ref
