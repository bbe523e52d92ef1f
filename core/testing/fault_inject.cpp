// See hcts/testing/fault_inject.h. Replaces every form of operator new and delete
// (malloc-based, so the sanitizers still see each allocation) and pthread_create.
#include "hcts/testing/fault_inject.h"

#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace hcts::fault {
namespace {

std::atomic<uint64_t> g_alloc_left{0};  // 0: disarmed; else allocations until the failing one
std::atomic<uint64_t> g_thread_left{0}; // likewise for pthread_create
std::atomic<bool> g_fired{false};

// True when this event is the armed one (the counter reaches 1 -> fires, then disarms).
bool strike(std::atomic<uint64_t> &left)
{
    uint64_t n = left.load(std::memory_order_relaxed);
    while (n != 0) {
        if (left.compare_exchange_weak(n, n - 1, std::memory_order_relaxed)) {
            if (n == 1) {
                g_fired.store(true);
                return true;
            }
            return false;
        }
    }
    return false;
}

void *allocate(std::size_t size, std::size_t align)
{
    if (strike(g_alloc_left))
        return nullptr;
    if (size == 0)
        size = 1;
    void *p = nullptr;
    if (align <= alignof(std::max_align_t))
        p = std::malloc(size);
    else if (posix_memalign(&p, align, size) != 0)
        p = nullptr;
    return p;
}

void *allocate_or_throw(std::size_t size, std::size_t align)
{
    void *p = allocate(size, align);
    if (p == nullptr)
        throw std::bad_alloc();
    return p;
}

} // namespace

void fail_nth_allocation(uint64_t n)
{
    g_fired.store(false);
    g_alloc_left.store(n);
}

void fail_nth_thread(uint64_t n)
{
    g_fired.store(false);
    g_thread_left.store(n);
}

bool disarm()
{
    g_alloc_left.store(0);
    g_thread_left.store(0);
    return g_fired.load();
}

} // namespace hcts::fault

using hcts::fault::allocate;
using hcts::fault::allocate_or_throw;

void *operator new(std::size_t n) { return allocate_or_throw(n, 0); }
void *operator new[](std::size_t n) { return allocate_or_throw(n, 0); }
void *operator new(std::size_t n, std::align_val_t a) { return allocate_or_throw(n, static_cast<std::size_t>(a)); }
void *operator new[](std::size_t n, std::align_val_t a) { return allocate_or_throw(n, static_cast<std::size_t>(a)); }
void *operator new(std::size_t n, const std::nothrow_t &) noexcept { return allocate(n, 0); }
void *operator new[](std::size_t n, const std::nothrow_t &) noexcept { return allocate(n, 0); }
void *operator new(std::size_t n, std::align_val_t a, const std::nothrow_t &) noexcept
{
    return allocate(n, static_cast<std::size_t>(a));
}
void *operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t &) noexcept
{
    return allocate(n, static_cast<std::size_t>(a));
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }
void operator delete(void *p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void *p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void *p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { std::free(p); }

extern "C" int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
    using Create = int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    static const auto real = reinterpret_cast<Create>(dlsym(RTLD_NEXT, "pthread_create"));
    if (hcts::fault::strike(hcts::fault::g_thread_left))
        return EAGAIN;
    return real(thread, attr, start, arg);
}
