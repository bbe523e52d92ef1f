/*
 * hccl/hccl_res_expt.h: the vendor's inter-package (not stable) resource calls.
 */
#ifndef HCTS_HCCL_HCCL_RES_EXPT_H
#define HCTS_HCCL_HCCL_RES_EXPT_H

#include "hccl/hccl_types.h"
#include "hcomm/hcomm_res_defs.h"

#ifdef __cplusplus
extern "C" {
#endif

extern HcclResult HcclThreadExportToCommEngine(HcclComm comm, uint32_t threadNum, const ThreadHandle *threads,
                                               CommEngine dstCommEngine, ThreadHandle *exportedThreads);

#ifdef __cplusplus
}
#endif

#endif /* HCTS_HCCL_HCCL_RES_EXPT_H */
