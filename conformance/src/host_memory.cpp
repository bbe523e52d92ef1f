#include "host_memory.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "hcts/core/library.h"

namespace hcts {

std::byte *kept_host_memory(size_t bytes, std::byte fill)
{
    // Never freed (still reachable, so no leak report): a comm may outlive every case.
    static std::vector<void *> kept;
    const size_t rounded = (bytes + 4095) / 4096 * 4096; // aligned_alloc wants a multiple of the alignment
    auto *mem = static_cast<std::byte *>(std::aligned_alloc(4096, rounded));
    if (mem == nullptr)
        throw std::bad_alloc();
    kept.emplace_back(mem);
    std::memset(mem, std::to_integer<int>(fill), rounded);
    return mem;
}

std::string missing_symbols(const Library &iut, std::initializer_list<const char *> names)
{
    std::string out;
    for (const char *n : names)
        if (!iut.has(n))
            out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
}

} // namespace hcts
