/*
 * hccl/hccl_res.h: communication memory, threads and engine contexts of a
 * communicator, ABI-identical to the vendor's header.
 */
#ifndef HCTS_HCCL_HCCL_RES_H
#define HCTS_HCCL_HCCL_RES_H

#include <stdint.h>

#include "hccl/hccl_channel.h" /* HcclMemHandle */
#include "hccl/hccl_types.h"
#include "hcomm/hcomm_res_defs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest resource tag (engine contexts, registered memory), in characters. */
#ifdef __cplusplus
const uint32_t HCCL_RES_TAG_MAX_LEN = 255;
#else
enum { HCCL_RES_TAG_MAX_LEN = 255 };
#endif

/* The local communication memory ("HCCL buffer"); `size` is what may be used. */
extern HcclResult HcclGetHcclBuffer(HcclComm comm, void **buffer, uint64_t *size);
extern HcclResult HcclGetHcclBufferCleared(HcclComm comm, void **buffer, uint64_t *size);

extern HcclResult HcclThreadAcquire(HcclComm comm, CommEngine engine, uint32_t threadNum, uint32_t notifyNumPerThread,
                                    ThreadHandle *threads);
extern HcclResult HcclThreadAcquireWithConfig(HcclComm comm, CommEngine engine, uint32_t threadNum, ThreadType type,
                                              const ThreadConfig *config, ThreadHandle *threads);
extern HcclResult HcclThreadAcquireWithStream(HcclComm comm, CommEngine engine, aclrtStream stream, uint32_t notifyNum,
                                              ThreadHandle *thread);
extern HcclResult HcclEngineCtxCreate(HcclComm comm, const char *ctxTag, CommEngine engine, uint64_t size, void **ctx);
extern HcclResult HcclEngineCtxGet(HcclComm comm, const char *ctxTag, CommEngine engine, void **ctx, uint64_t *size);
/* Copies `size` bytes of host memory into the context (ctxTag, engine), at
 * dstCtxOffset from its start. */
extern HcclResult HcclEngineCtxCopy(HcclComm comm, CommEngine engine, const char *ctxTag, const void *srcCtx,
                                    uint64_t size, uint64_t dstCtxOffset);
/* Registers `mem` with the communicator, which keeps it under `memTag` (NUL-terminated,
 * at most HCCL_RES_TAG_MAX_LEN characters) and answers a handle for
 * HcclChannelDesc.memHandles: the channels acquired with it exchange the memory with their peer. */
extern HcclResult HcclCommMemReg(HcclComm comm, const char *memTag, const CommMem *mem, HcclMemHandle *memHandle);
extern HcclResult HcclThreadResGetInfo(HcclComm comm, ThreadHandle thread, ThreadResType resType, uint32_t infoLen,
                                       void **info);

#ifdef __cplusplus
}
#endif

#endif /* HCTS_HCCL_HCCL_RES_H */
