// Deliberately wrong implementations for the suite's self-test: each forwards
// every hcomm symbol to the reference (it links libhcomm.so) and breaks exactly
// one behaviour of HcommWriteWithNotifyOnThread. Never use them for anything else.
#pragma once

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "hccl/hccl_channel.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_res.h"
#include "hcomm/hcomm_primitives.h"
#include "hcomm_ref/hcomm_ref.h"

#define HCTS_SHIM_EXPORT extern "C" __attribute__((visibility("default")))

// The reference's definition of a symbol this shim overrides.
template <typename F>
F real(const char *name)
{
    static_assert(sizeof(F) == sizeof(void *));
    void *p = dlsym(RTLD_NEXT, name);
    if (p == nullptr) {
        std::fprintf(stderr, "hcts shim: the reference lacks %s\n", name);
        std::abort();
    }
    return reinterpret_cast<F>(p);
}
