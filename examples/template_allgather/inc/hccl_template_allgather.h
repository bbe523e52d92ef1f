// HcclTemplateAllGather: an allgather as an HCCL custom operator in the vendor's template
// (op_host/ + op_kernel_aicpu/ + an op-info JSON under ASCEND_HOME_PATH). recvBuf receives
// rank r's sendCount elements at r * sendCount. Queued on `stream`: synchronise it.
#ifndef HCCL_TEMPLATE_ALLGATHER_H
#define HCCL_TEMPLATE_ALLGATHER_H

#include <acl/acl.h>
#include <hccl/hccl_comm.h>
#include <hccl/hccl_types.h>

#ifdef __cplusplus
extern "C" {
#endif

HcclResult HcclTemplateAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType, HcclComm comm,
                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
