/*
 * hcomm/hcomm_primitives_expt.h: the vendor's inter-package (not stable) data-plane
 * additions that the suite uses: joining a thread's queue.
 */
#ifndef HCTS_HCOMM_HCOMM_PRIMITIVES_EXPT_H
#define HCTS_HCOMM_HCOMM_PRIMITIVES_EXPT_H

#include "hccl/hccl_types.h"
#include "hcomm/hcomm_primitives.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks until every task enqueued on `thread` has run, or `timeout` seconds pass
 * (0: forever). Reports an asynchronous task failure of the thread. */
extern HcclResult HcommThreadJoin(ThreadHandle thread, uint32_t timeout);

#ifdef __cplusplus
}
#endif

#endif /* HCTS_HCOMM_HCOMM_PRIMITIVES_EXPT_H */
