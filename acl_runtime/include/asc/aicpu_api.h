/*
 * asc/aicpu_api.h: what ASC sources of an AICPU custom operator need to build for this host
 * (hcts_add_asc_sources, cmake/HctsAsc.cmake): __global__ and __aicpu__ mark a kernel and
 * mean nothing here, and the launch a kernel<<<numBlocks, l2ctrl, stream>>>(args, size)
 * statement is rewritten into, which runs the kernel on the stream as a device program of
 * the reference (HctsAclRefLaunchFunction). Sources include it as <aicpu_api.h>, as they do
 * with the vendor's toolkit.
 */
#ifndef HCTS_ASC_AICPU_API_H
#define HCTS_ASC_AICPU_API_H

#include <stddef.h>
#include <stdint.h>

#include "acl/acl_rt.h"
#include "acl_ref/acl_ref.h"

#ifndef __global__
#define __global__
#endif
#ifndef __aicpu__
#define __aicpu__
#endif

#ifdef __cplusplus
namespace hcts_asc {

// kernel<<<numBlocks, l2ctrl, stream>>>(args, size): the launch configuration, then the call.
// The call's outcome is the thread's last error (aclrtGetLastError), as for a device launch.
class Launch {
  public:
    Launch(uint32_t (*fn)(void *), uint32_t numBlocks, aclrtStream stream)
        : fn_(fn), blocks_(numBlocks), stream_(stream)
    {
    }
    void operator()(const void *args, size_t size) const
    {
        (void)HctsAclRefLaunchFunction(fn_, blocks_, stream_, args, size);
    }
    void operator()(void *args) const = delete; // an AICPU launch passes the arguments' size too

  private:
    uint32_t (*fn_)(void *);
    uint32_t blocks_;
    aclrtStream stream_;
};

inline Launch launch(uint32_t (*fn)(void *), uint32_t numBlocks, const void * /* l2ctrl */, aclrtStream stream)
{
    return Launch(fn, numBlocks, stream);
}

} // namespace hcts_asc
#endif

#endif /* HCTS_ASC_AICPU_API_H */
