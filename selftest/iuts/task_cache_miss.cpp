// Legal variant (PROFILE API.TC.1 "miss"): a library with a task cache that holds
// nothing yet, as the vendor's 950 device library does before any Start/End: a
// lookup with valid arguments returns 0 and isHit false. NULL arguments still
// go to the reference, which refuses them.
#include "shim_common.h"

HCTS_SHIM_EXPORT HcommResult HcommAicpuTsTaskCacheLookup(const char *tag, bool *isHit)
{
    static const auto lookup = real<decltype(&HcommAicpuTsTaskCacheLookup)>("HcommAicpuTsTaskCacheLookup");
    if (tag == nullptr || isHit == nullptr)
        return lookup(tag, isHit);
    *isHit = false;
    return HCCL_SUCCESS;
}
