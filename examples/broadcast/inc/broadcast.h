// HcclBroadcastRead: a broadcast as an HCCL custom operator (host part in op_host/, AICPU
// kernel in op_kernel_aicpu/). After it, buf holds the root's count elements on every rank.
#pragma once

#include <cstdint>

#include "acl/acl.h"
#include "hccl/hccl_types.h"

// Queues the broadcast on `stream` (synchronise the stream for its result). buf is device
// memory (aclrtMalloc) of count elements on every rank: the source on `root`, the
// destination elsewhere. The first call for a root acquires threads and channels, which
// later calls reuse.
HcclResult HcclBroadcastRead(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                             aclrtStream stream);
