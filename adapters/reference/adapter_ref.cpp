// The reference adapter: device programs run in the reference's emulated AICPU_TS
// context (HcommRefDeviceLaunch), and device memory is host memory. The
// reference-only extensions are looked up in the implementation under test, so
// this adapter also serves a shim library that forwards to the reference.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "hcomm_ref/hcomm_ref.h"
#include "hcts_adapter.h"

namespace {

struct State {
    void *programs = nullptr;
    decltype(&HcommRefDeviceLaunch) launch = nullptr;
    decltype(&HcommRefProductName) product = nullptr;
    decltype(&HcommRefPeekNotify) peek = nullptr;
};
State g;

int32_t init(const hcts_adapter_init_args *args)
{
    if (args == nullptr || args->size < sizeof(hcts_adapter_init_args) || args->iut_symbol == nullptr) {
        std::fprintf(stderr, "hcts_adapter_ref: init arguments missing or too old (need size >= %zu)\n",
                     sizeof(hcts_adapter_init_args));
        return HCCL_E_PARA;
    }
    g.launch = reinterpret_cast<decltype(g.launch)>(args->iut_symbol("HcommRefDeviceLaunch"));
    g.product = reinterpret_cast<decltype(g.product)>(args->iut_symbol("HcommRefProductName"));
    g.peek = reinterpret_cast<decltype(g.peek)>(args->iut_symbol("HcommRefPeekNotify"));
    if (g.launch == nullptr) {
        std::fprintf(stderr, "hcts_adapter_ref: the implementation under test lacks HcommRefDeviceLaunch; this adapter "
                             "only drives the hcts reference (or a library forwarding to it)\n");
        return HCCL_E_NOT_SUPPORT;
    }
    g.programs = dlopen(args->programs_path, RTLD_NOW | RTLD_LOCAL);
    if (g.programs == nullptr) {
        std::fprintf(stderr, "hcts_adapter_ref: cannot load device programs '%s': %s\n", args->programs_path,
                     dlerror());
        return HCCL_E_NOT_FOUND;
    }
    return HCCL_SUCCESS;
}

void fini()
{
    if (g.programs != nullptr)
        dlclose(g.programs);
    g = State{};
}

// Without the reference extension the suite reports the product as unknown.
const char *product() { return g.product != nullptr ? g.product() : nullptr; }

int32_t multi_rank_per_process() { return 1; }

int32_t run_program(void *comm, const char *program, void *args, size_t, uint32_t timeout_ms,
                    hcts_launch_status *status)
{
    if (program == nullptr || status == nullptr)
        return HCCL_E_PTR;
    const std::string symbol = std::string("hcts_prog_") + program;
    auto fn = reinterpret_cast<HcommRefDeviceFn>(dlsym(g.programs, symbol.c_str()));
    if (fn == nullptr)
        return HCCL_E_NOT_FOUND;
    // Device memory is host memory here, so the block is used in place.
    HcommRefLaunchResult r{};
    r.version = HCOMM_REF_ABI_VERSION;
    r.size = sizeof(r);
    const HcclResult rc = g.launch(comm, fn, args, timeout_ms, &r);
    *status = hcts_launch_status{r.programReturn, r.taskError, r.timedOut, 0, r.elapsedNs};
    return rc;
}

int32_t copy(void *dst, const void *src, size_t len)
{
    if (len != 0)
        std::memmove(dst, src, len);
    return HCCL_SUCCESS;
}

int32_t peek_notify(void *comm, uint64_t channel, uint32_t idx, int32_t *is_set)
{
    return g.peek != nullptr ? g.peek(comm, channel, idx, is_set) : HCCL_E_NOT_SUPPORT;
}

// The reference writes at most min(max_msg_sz, HCOMM_REF_MAX_WRITE) bytes per
// RDMA WRITE (reference_impl/README.md, decision 8). The device's max_msg_sz
// (1 GiB on softverbs) is beyond any buffer the suite uses, so only the cap is
// declared; without it the segment size is unknown (0).
uint64_t segment_size(void *, uint64_t)
{
    const char *cap = std::getenv("HCOMM_REF_MAX_WRITE");
    if (cap == nullptr || *cap == '\0')
        return 0;
    char *end = nullptr;
    const unsigned long long v = std::strtoull(cap, &end, 10);
    return end != nullptr && *end == '\0' ? v : 0; // the reference ignores what it cannot parse
}

constexpr hcts_adapter_v2 kAdapter{
    .v1 = {.abi_version = HCTS_ADAPTER_V2,
           .size = sizeof(hcts_adapter_v2),
           .name = "reference",
           .init = init,
           .fini = fini,
           .product = product,
           .multi_rank_per_process = multi_rank_per_process,
           .run_program = run_program,
           .copy_to_device = copy,
           .copy_to_host = copy,
           .peek_notify = peek_notify},
    .segment_size = segment_size,
    .iut_version = nullptr,
};

} // namespace

extern "C" __attribute__((visibility("default"))) const hcts_adapter_v2 *hcts_adapter_get_v2(void) { return &kAdapter; }
