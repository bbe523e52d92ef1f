// adversary_seed.h: the adversary's seed from a test. softverbs_reseed is found
// with dlsym, so a test links only libibverbs and says so when it runs on another
// provider; seeds and their counts come from the environment (printed with a
// reproducer by each test).
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <random>

#include "verbs_fixture.h"

namespace svt {

inline uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *v = std::getenv(name);
    return v && *v ? std::strtoull(v, nullptr, 0) : dflt;
}

// An odd (so non-zero) 64-bit seed from the system's entropy.
inline uint64_t random_seed()
{
    return ((static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}()) | 1;
}

// Seed 0 returns the device to sane mode.
inline void reseed(uint64_t seed)
{
    using Fn = void (*)(uint64_t);
    static Fn fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "softverbs_reseed"));
    if (!fn)
        fail("softverbs_reseed not found: is the test running on softverbs (softverbs-run)?");
    fn(seed);
}

// QPs made inside the scope are under the seed; the device returns to sane mode after.
struct SeedScope {
    explicit SeedScope(uint64_t s) { reseed(s); }
    ~SeedScope() { reseed(0); }
    SeedScope(const SeedScope &) = delete;
    SeedScope &operator=(const SeedScope &) = delete;
};

} // namespace svt
