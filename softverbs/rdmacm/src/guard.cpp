// See guard.h.
#include "guard.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "caught_exception.h"

namespace svcm {

int caught_errno(const char *api) noexcept
{
    char cause[200];
    const int err = sv_common::caught_exception(cause, sizeof cause);
    std::fprintf(stderr, "softverbs rdma_cm[%d]: %s failed: %s; returning errno %s\n", static_cast<int>(getpid()), api,
                 cause, strerrorname_np(err) ? strerrorname_np(err) : "?");
    return err;
}

} // namespace svcm
