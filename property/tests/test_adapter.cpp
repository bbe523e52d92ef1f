// A platform adapter for hcts-property's own tests. It keeps one rank per
// process (multi_rank_per_process 0), as a device adapter may, unless
// HCTS_TEST_ADAPTER_MULTI_RANK=1; and it can launch nothing (run_program fails
// with HCCL_E_NOT_SUPPORT) while device memory is host memory. So it shows
// that all ranks in one process are refused with such an adapter, and that a
// harness that cannot launch makes a property ERROR, not a counterexample.
#include <cstdlib>
#include <cstring>

#include "hcts_adapter.h"

namespace {

int32_t init(const hcts_adapter_init_args *) { return 0; }
void fini() {}
const char *product() { return "atlas350"; }
int32_t multi_rank()
{
    const char *e = std::getenv("HCTS_TEST_ADAPTER_MULTI_RANK");
    return e != nullptr && std::strcmp(e, "1") == 0 ? 1 : 0;
}
int32_t run(void *, const char *, void *, size_t, uint32_t, hcts_launch_status *) { return 5; /* HCCL_E_NOT_SUPPORT */ }
int32_t copy(void *dst, const void *src, size_t len)
{
    std::memmove(dst, src, len);
    return 0;
}

// Version 1's functions in field order (no peek_notify), then no segment_size and no iut_version.
constexpr hcts_adapter_v2 kAdapter{{HCTS_ADAPTER_V2, sizeof(hcts_adapter_v2), "property-test", init, fini, product,
                                    multi_rank, run, copy, copy, nullptr},
                                   nullptr,
                                   nullptr};

} // namespace

extern "C" __attribute__((visibility("default"))) const hcts_adapter_v2 *hcts_adapter_get_v2(void) { return &kAdapter; }
