// Adapters of each ABI version, and broken ones, for the loader tests. One
// source; HCTS_FAKE_<KIND> picks what it exports.
#include <cstdlib>
#include <cstring>

#include "hcts_adapter.h"

// Each variant exports only some of these; the rest stay unused there.
#pragma GCC diagnostic ignored "-Wunused-function"
namespace {

int32_t g_init_calls = 0, g_fini_calls = 0;
uint32_t g_init_version = 0;
void *(*g_symbol)(const char *) = nullptr;

int32_t init(const hcts_adapter_init_args *a)
{
    ++g_init_calls;
    g_init_version = a->abi_version;
    g_symbol = a->iut_symbol;
#if defined(HCTS_FAKE_INIT_FAILS)
    return 7; // HCCL_E_UNAVAIL
#else
    return 0;
#endif
}
void fini() { ++g_fini_calls; }
const char *product() { return "atlas350"; }
int32_t multi() { return 1; }
int32_t run(void *, const char *, void *, size_t, uint32_t, hcts_launch_status *) { return 0; }
int32_t copy(void *d, const void *s, size_t n)
{
    std::memmove(d, s, n);
    return 0;
}
uint64_t segment(void *, uint64_t) { return 4096; }
const char *version() { return "fake 1.0"; }

} // namespace

#define EXPORT extern "C" __attribute__((visibility("default")))

// What the test reads back through dlsym.
EXPORT int32_t fake_adapter_init_calls() { return g_init_calls; }
EXPORT int32_t fake_adapter_fini_calls() { return g_fini_calls; }
EXPORT uint32_t fake_adapter_init_version() { return g_init_version; }
EXPORT void *fake_adapter_resolve(const char *name) { return g_symbol != nullptr ? g_symbol(name) : nullptr; }

// Version 1's functions, with the header a variant announces.
constexpr hcts_adapter_v1 functions(uint32_t version, uint32_t size, const char *name)
{
    // In field order: init, fini, product, multi_rank_per_process, run_program, copy_to_device, copy_to_host,
    // peek_notify.
    return {version, size, name, init, fini, product, multi, run, copy, copy, nullptr};
}

#if defined(HCTS_FAKE_V1) || defined(HCTS_FAKE_BAD_VERSION) || defined(HCTS_FAKE_INIT_FAILS)
EXPORT const hcts_adapter_v1 *hcts_adapter_get(void)
{
#if defined(HCTS_FAKE_BAD_VERSION)
    static const hcts_adapter_v1 a = functions(7, sizeof(hcts_adapter_v1), "bad");
#else
    static const hcts_adapter_v1 a = functions(HCTS_ADAPTER_V1, sizeof(hcts_adapter_v1), "fake-v1");
#endif
    return &a;
}
#endif

#if defined(HCTS_FAKE_V2)
EXPORT const hcts_adapter_v2 *hcts_adapter_get_v2(void)
{
    static const hcts_adapter_v2 a{.v1 = functions(HCTS_ADAPTER_V2, sizeof(hcts_adapter_v2), "fake-v2"),
                                   .segment_size = segment,
                                   .iut_version = version};
    return &a;
}
// A v2 adapter may keep its v1 entry point for older suites; the newest wins.
EXPORT const hcts_adapter_v1 *hcts_adapter_get(void) { return nullptr; }
#endif
