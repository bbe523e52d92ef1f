// Wrong IUT: HcommLocalCopyOnThread is there but refuses every call with
// HCCL_E_NOT_SUPPORT (enqueueing nothing); every other call forwards to the
// reference. The suite snapshots dst on the receiver's stream with a local copy
// right after each wait: without it, the visibility-at-wait and "no other
// write's data let through" checks cannot run, and a suite must say so
// (NOT_SUPPORTED), not PASS them.
#include "shim_common.h"

HCTS_SHIM_EXPORT int32_t HcommLocalCopyOnThread(ThreadHandle, void *, const void *, uint64_t)
{
    return HCCL_E_NOT_SUPPORT;
}
