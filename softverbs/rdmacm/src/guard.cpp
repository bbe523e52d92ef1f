// See guard.h.
#include "guard.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <system_error>

namespace svcm {

int caught_errno(const char *api) noexcept
{
    // Nothing here allocates: the exception in flight may be std::bad_alloc.
    char cause[200];
    int err = EIO;
    std::snprintf(cause, sizeof cause, "an exception of unknown type");
    try {
        throw;
    } catch (const std::bad_alloc &) {
        err = ENOMEM;
        std::snprintf(cause, sizeof cause, "out of memory (std::bad_alloc)");
    } catch (const std::system_error &e) {
        const std::error_category &c = e.code().category();
        const bool is_errno = c == std::generic_category() || c == std::system_category();
        err = is_errno && e.code().value() > 0 ? e.code().value() : EAGAIN;
        std::snprintf(cause, sizeof cause, "the system refused a thread or other resource (%s)", e.what());
    } catch (const std::exception &e) {
        std::snprintf(cause, sizeof cause, "an exception (%s)", e.what());
    } catch (...) {
    }
    std::fprintf(stderr, "softverbs rdma_cm[%d]: %s failed: %s; returning errno %s\n", static_cast<int>(getpid()), api,
                 cause, strerrorname_np(err) ? strerrorname_np(err) : "?");
    return err;
}

} // namespace svcm
