/*
 * hccl/hccl_diag.h: registering an operator's diagnostic information with a
 * communicator, ABI-identical to the vendor's inter-package header
 * (pkg_inc/hccl/hccl_diag.h of cann/hcomm), which custom operators include as
 * <hccl/hccl_diag.h>. Declared here: HcclDfxRegOpInfoByCommId and its structure;
 * the vendor's profiling reports (HcclProfilingReportOp, HcclReportAicpuKernel,
 * HcclReportAivKernel, HcommGetProfilingSysCycleTime) are absent.
 */
#ifndef HCTS_HCCL_HCCL_DIAG_H
#define HCTS_HCCL_HCCL_DIAG_H

#include <stddef.h>
#include <stdint.h>

#include "hccl/hccl_types.h"
#include "hcomm/hcomm_res_defs.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
const uint32_t HCOMM_ALG_TAG_LENGTH = 288;
/* The vendor's structure has C++ default member initialisers; C sees the same layout. */
#define HCCL_DIAG_DEFAULT(value) = value
#else
enum { HCOMM_ALG_TAG_LENGTH = 288 };
#define HCCL_DIAG_DEFAULT(value)
#endif

/* `commId` is the name HcclGetCommName gives; `hcclDfxOpInfo` points to a
 * struct HcclDfxOpInfo. Host and device side. */
extern HcclResult HcclDfxRegOpInfoByCommId(char *commId, void *hcclDfxOpInfo);

struct HcclDfxOpInfo {
    CommAbiHeader header;
    uint64_t beginTime HCCL_DIAG_DEFAULT(0);
    uint64_t endTime HCCL_DIAG_DEFAULT(0);
    uint32_t opMode HCCL_DIAG_DEFAULT(0); /* single operator or graph mode */
    uint32_t opType HCCL_DIAG_DEFAULT(0);
    uint32_t reduceOp HCCL_DIAG_DEFAULT(0);
    uint32_t dataType HCCL_DIAG_DEFAULT(0);
    uint32_t outputType HCCL_DIAG_DEFAULT(0);
    uint64_t dataCount HCCL_DIAG_DEFAULT(0);
    uint32_t root HCCL_DIAG_DEFAULT(~0U);
    char algTag[HCOMM_ALG_TAG_LENGTH]; /* operator type + comm id + algorithm */
    CommEngine engine HCCL_DIAG_DEFAULT(COMM_ENGINE_RESERVED);
    uint64_t cpuTsThread HCCL_DIAG_DEFAULT(0); /* the host operator's main-stream thread */
    uint32_t cpuWaitAicpuNotifyIdx HCCL_DIAG_DEFAULT(~0U);
    uint32_t cpuWaitAicpuNotifyId HCCL_DIAG_DEFAULT(~0U);
    uint64_t inputMemAddr HCCL_DIAG_DEFAULT(0);
    uint64_t inputMemSize HCCL_DIAG_DEFAULT(0);
    uint64_t outputMemAddr HCCL_DIAG_DEFAULT(0);
    uint64_t outputMemSize HCCL_DIAG_DEFAULT(0);
    int8_t reserve[96];
};

#undef HCCL_DIAG_DEFAULT

#ifdef __cplusplus
}
#endif

#endif /* HCTS_HCCL_HCCL_DIAG_H */
