// An AICPU kernel in the vendor's convention: extern "C" uint32_t f(void *args),
// the arguments one packed block. It copies src to dst on its thread.
#include "kernel.h"
#include "hcomm/hcomm_primitives.h"

extern "C" __attribute__((visibility("default"))) uint32_t CopyKernel(void *raw)
{
    const auto *args = static_cast<const CopyKernelArgs *>(raw);
    if (args == nullptr)
        return 1;
    if (HcommAcquireComm(args->comm_name) != 0)
        return 2;
    const int32_t rc = HcommLocalCopyOnThread(args->thread, reinterpret_cast<void *>(args->dst),
                                              reinterpret_cast<const void *>(args->src), args->len);
    if (HcommReleaseComm(args->comm_name) != 0)
        return 3;
    return rc == 0 ? 0 : 10 + static_cast<uint32_t>(rc);
}
