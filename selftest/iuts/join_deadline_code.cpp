// Legal variant (API.JN.2 judges only success): a join whose own deadline passes
// returns HCCL_E_INTERNAL, not the reference's HCCL_E_TIMEOUT; the vendor leaves
// that code undocumented (pkg_inc/hcomm/hcomm_primitives_expt.h). A join that
// reports a thread's earlier failure returns at once and keeps its code, so a
// timeout that took at least a quarter of a second is told to be the join's own.
#include <chrono>

#include "hcomm/hcomm_primitives_expt.h"
#include "shim_common.h"

HCTS_SHIM_EXPORT HcclResult HcommThreadJoin(ThreadHandle thread, uint32_t timeout)
{
    static const auto join = real<decltype(&HcommThreadJoin)>("HcommThreadJoin");
    const auto start = std::chrono::steady_clock::now();
    const HcclResult rc = join(thread, timeout);
    if (rc == HCCL_E_TIMEOUT && std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(250))
        return HCCL_E_INTERNAL;
    return rc;
}
