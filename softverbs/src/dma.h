// Data placement into or out of application memory, as a NIC's DMA engine does
// it. Under ThreadSanitizer these accesses are hidden: they are synchronised by
// completions and by peers in other processes, which TSan cannot see, just as
// it cannot see a real NIC.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace sv {

#if defined(__SANITIZE_THREAD__)
__attribute__((no_sanitize("thread"), noinline)) inline void dma_copy(void *dst, const void *src, size_t n)
{
    // volatile keeps the compiler from turning this back into an (intercepted) memcpy call
    auto *d = static_cast<volatile uint8_t *>(dst);
    auto *s = static_cast<const volatile uint8_t *>(src);
    if (d < s || d >= s + n) {
        for (size_t i = 0; i < n; ++i)
            d[i] = s[i];
    } else {
        for (size_t i = n; i-- > 0;)
            d[i] = s[i];
    }
}
__attribute__((no_sanitize("thread"), noinline)) inline uint64_t dma_fetch_add(uint64_t *p, uint64_t v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
__attribute__((no_sanitize("thread"), noinline)) inline uint64_t dma_cmp_swap(uint64_t *p, uint64_t expect,
                                                                              uint64_t swap)
{
    __atomic_compare_exchange_n(p, &expect, swap, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return expect;
}
#else
inline void dma_copy(void *dst, const void *src, size_t n)
{
    if (n != 0) // an empty SGE may name address 0, which memmove must not be given
        std::memmove(dst, src, n);
}
inline uint64_t dma_fetch_add(uint64_t *p, uint64_t v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
inline uint64_t dma_cmp_swap(uint64_t *p, uint64_t expect, uint64_t swap)
{
    __atomic_compare_exchange_n(p, &expect, swap, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return expect;
}
#endif

} // namespace sv
