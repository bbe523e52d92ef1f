// The exported functions' last line of defence (api_util.h's guarded): an exception
// that reached the C ABI becomes the call's error code and one line on stderr.
#include <cstdio>
#include <exception>
#include <new>
#include <system_error>

#include "api_util.h"

namespace hcomm_ref {

HcclResult exception_to_code(const char *api) noexcept
{
    // No allocation here: the exception may be std::bad_alloc.
    HcclResult code = HCCL_E_INTERNAL;
    const char *cause = "an exception of unknown type";
    char what[200];
    try {
        throw;
    } catch (const std::bad_alloc &) {
        code = HCCL_E_MEMORY;
        cause = "out of memory (std::bad_alloc)";
    } catch (const std::system_error &e) {
        code = HCCL_E_UNAVAIL;
        std::snprintf(what, sizeof what, "the system refused a thread or other resource (std::system_error: %s)",
                      e.what());
        cause = what;
    } catch (const std::exception &e) {
        std::snprintf(what, sizeof what, "an exception (%s)", e.what());
        cause = what;
    } catch (...) {
    }
    std::fprintf(stderr, "[hcomm_ref] error: %s failed with %d: %s\n", api, static_cast<int>(code), cause);
    return code;
}

} // namespace hcomm_ref
