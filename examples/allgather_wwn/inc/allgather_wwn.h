// HcclAllGatherWwn: an allgather as an HCCL custom operator (host part in op_host/, AICPU
// kernel in op_kernel_aicpu/). Every rank contributes sendCount elements; recvBuf receives
// rank r's elements at r * sendCount, for every rank r.
#pragma once

#include <cstdint>

#include "acl/acl.h"
#include "hccl/hccl_types.h"

// Queues the allgather on `stream` (the kernel runs there; synchronise the stream for its
// result). sendBuf and recvBuf are device memory (aclrtMalloc) of sendCount and
// rankSize * sendCount elements. The first call on a communicator acquires its threads and
// channels, which later calls reuse.
HcclResult HcclAllGatherWwn(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType, HcclComm comm,
                            aclrtStream stream);
