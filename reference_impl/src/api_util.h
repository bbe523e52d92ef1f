// Shared pieces of the exported entry points: the export macro, how a refused
// call is reported (logged at info with the reason, counted on the comm), and the
// comm argument's place in the check order.
#pragma once

#include <new>
#include <system_error>
#include <type_traits>

#include "comm.h"
#include "device_context.h"
#include "log.h"
#include "registry.h"

#define HCOMM_EXPORT extern "C" __attribute__((visibility("default")))

namespace hcomm_ref {

// What an exception that reached an exported function becomes: the call's code, said
// once on stderr (at error level) with the call and the cause. Never throws.
HcclResult exception_to_code(const char *api) noexcept;

// Every exported function runs its body through this, so no exception crosses the C
// ABI (a C caller cannot catch one, and one leaving a thread or destructor ends the
// process): std::bad_alloc -> HCCL_E_MEMORY; std::system_error (the system refused a
// thread, mutex or other resource) -> HCCL_E_UNAVAIL; anything else -> HCCL_E_INTERNAL.
// The body returns the function's own type (HcclResult, or int32_t carrying one).
template <typename Body>
auto guarded(const char *api, Body &&body) noexcept -> decltype(body())
{
    using Result = decltype(body());
    static_assert(std::is_same_v<Result, HcclResult> || std::is_same_v<Result, int32_t>);
    try {
        return body();
    } catch (...) {
        return static_cast<Result>(exception_to_code(api));
    }
}

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
    if (registry::inherited(comm))
        return refuse(nullptr, api, HCCL_E_PARA, "comm ", comm,
                      " belongs to the process this one was forked from: a forked child cannot use its parent's "
                      "comms (build its own with HcclCommInitRootInfo)");
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
