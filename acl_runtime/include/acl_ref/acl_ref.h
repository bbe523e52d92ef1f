/*
 * acl_ref/acl_ref.h: extensions that only the hcts ACL runtime (acl_runtime/,
 * libascendcl.so) exports. The vendor's runtime has none of them.
 *
 * On the device a kernel launched on a stream runs on the AI CPU of the stream's
 * device; on the reference it runs as a device program of an hcomm communicator
 * (HcommRefDeviceLaunch), so the runtime must know which communicator a stream's
 * kernels belong to. These calls tell it; the reference's host calls that tie a
 * stream to a communicator (HcclThreadAcquireWithStream) may call them too.
 */
#ifndef HCTS_ACL_REF_ACL_REF_H
#define HCTS_ACL_REF_ACL_REF_H

#include <stdint.h>

#include "acl/acl_base.h"
#include "hccl/hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kernels launched on `stream` (NULL: the default stream of the calling thread's
 * device) run as device programs of `comm`; comm NULL removes the binding. The
 * stream must be live. Returns ACL_SUCCESS or an ACL error code. */
ACL_FUNC_VISIBILITY aclError HctsAclRefBindStreamComm(aclrtStream stream, HcclComm comm);

/* Kernels launched on any stream of device `deviceId` that has no binding of its
 * own run as device programs of `comm`; comm NULL removes the binding. */
ACL_FUNC_VISIBILITY aclError HctsAclRefBindDeviceComm(int32_t deviceId, HcclComm comm);

/* What the reference calls when the runtime is in the process (found with dlsym;
 * programs need not call them). A program written for the device sets its device,
 * then creates its communicator, and never says which communicator its kernels
 * belong to: the reference offers each new communicator to the creating thread's
 * device, which takes it when it has none bound (the first one created stays),
 * and withdraws it when it is destroyed, from the device and from every stream
 * bound to it. comm must not be NULL. Both return ACL_SUCCESS or an ACL error code. */
ACL_FUNC_VISIBILITY aclError HctsAclRefOfferDeviceComm(int32_t deviceId, HcclComm comm);
ACL_FUNC_VISIBILITY aclError HctsAclRefWithdrawComm(HcclComm comm);

/* Also called by the reference: [base, base + size) is device memory of `comm` (an engine
 * context of a device engine), on the device the comm serves, so aclrtMemcpy and
 * aclrtMemset of every kind accept it, as on the hardware; aclrtFree refuses it, and it is
 * forgotten with the comm. */
ACL_FUNC_VISIBILITY aclError HctsAclRefAdoptCommMemory(HcclComm comm, const void *base, uint64_t size);

/* What an ASC source's kernel<<<numBlocks, l2ctrl, stream>>>(args, argsSize) becomes on the
 * reference (hcts_add_asc_sources, asc/aicpu_api.h): fn(copy of args) runs as a device
 * program of the stream's communicator, in the stream's order, as aclrtLaunchKernelWithConfig
 * runs a loaded kernel. numBlocks must be 1. Failures are also the thread's last error
 * (aclrtGetLastError), which is how ASC code checks a launch. */
ACL_FUNC_VISIBILITY aclError HctsAclRefLaunchFunction(uint32_t (*fn)(void *), uint32_t numBlocks, aclrtStream stream,
                                                      const void *args, size_t argsSize);

#ifdef __cplusplus
}
#endif

#endif /* HCTS_ACL_REF_ACL_REF_H */
