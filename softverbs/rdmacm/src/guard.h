// No exception leaves librdmacm.so.1: a C program cannot catch one, so a std::bad_alloc or
// the std::system_error of a refused CM thread would end it (std::terminate). Every exported
// call that runs code which may throw runs it through guarded(). The body's own objects
// (locks, unique_ptrs) are unwound before the catch, and each body makes its allocations
// before it changes its id or channel (or puts them back), so a failed call can be made
// again.
#pragma once
#include <cerrno>

namespace svcm {

// In a catch block: one line on stderr naming `api` and what was thrown, and the errno it
// stands for: ENOMEM for std::bad_alloc, a std::system_error's own errno value (EAGAIN if
// it carries none: std::thread's refused thread), EIO for anything else.
int caught_errno(const char *api) noexcept;

// rdma_cm's two ways to fail: -1 with errno set (int calls) and NULL with errno set (the
// calls that return an object); `failed` is that value.
template <typename R, typename Body>
R guarded(const char *api, R failed, Body &&body) noexcept
{
    try {
        return body();
    } catch (...) {
        errno = caught_errno(api);
        return failed;
    }
}

// A void call has nobody to tell but stderr (and errno, for what it is worth).
template <typename Body>
void guarded_void(const char *api, Body &&body) noexcept
{
    try {
        body();
    } catch (...) {
        errno = caught_errno(api);
    }
}

} // namespace svcm
