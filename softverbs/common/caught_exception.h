// What the exception in flight stands for, for the C libraries softverbs builds
// (libibverbs.so.1, librdmacm.so.1): no exception may leave them, so each exported call
// catches and turns it into an errno. One mapping for both.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <new>
#include <system_error>

namespace sv_common {

// Call only in a catch block. Writes what was thrown into `cause` and returns the errno it
// stands for: ENOMEM for std::bad_alloc, a std::system_error's own errno value (EAGAIN if
// it carries none, as std::thread's refused thread may not), EIO for anything else.
// Allocates nothing: the exception in flight may be std::bad_alloc.
inline int caught_exception(char *cause, std::size_t size) noexcept
{
    int err = EIO;
    std::snprintf(cause, size, "an exception of unknown type");
    try {
        throw;
    } catch (const std::bad_alloc &) {
        err = ENOMEM;
        std::snprintf(cause, size, "out of memory (std::bad_alloc)");
    } catch (const std::system_error &e) {
        const std::error_category &c = e.code().category();
        const bool is_errno = c == std::generic_category() || c == std::system_category();
        err = is_errno && e.code().value() > 0 ? e.code().value() : EAGAIN;
        std::snprintf(cause, size, "the system refused a thread or other resource (%s)", e.what());
    } catch (const std::exception &e) {
        std::snprintf(cause, size, "an exception (%s)", e.what());
    } catch (...) {
    }
    return err;
}

} // namespace sv_common
