/*
 * hcomm_ref/hcomm_ref.h: extensions that only the hcts reference implementation
 * (reference_impl/, libhcomm.so) exports. A vendor library does not have them;
 * the conformance suite reaches them only through the reference adapter, never
 * from a test case, so the suite judges any library by the public API alone.
 *
 * Every struct here starts with its version and size (NCCL plugin style); fields
 * are only ever appended.
 */
#ifndef HCTS_HCOMM_REF_HCOMM_REF_H
#define HCTS_HCOMM_REF_HCOMM_REF_H

#include <stdint.h>

#include "hccl/hccl_types.h"
#include "hcomm/hcomm_res_defs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HCOMM_REF_ABI_VERSION 1U

/* A device-side program in the AICPU kernel convention. */
typedef uint32_t (*HcommRefDeviceFn)(void *args);

typedef struct {
    uint32_t version;       /* HCOMM_REF_ABI_VERSION */
    uint32_t size;          /* sizeof(HcommRefLaunchResult) */
    uint32_t programReturn; /* what the program returned */
    int32_t taskError;      /* first asynchronous task failure (HcclResult), 0 if none */
    uint32_t timedOut;      /* 1 if the launch deadline passed before every task ran */
    uint32_t reserved;
    uint64_t elapsedNs; /* launch to completion of the last task */
} HcommRefLaunchResult;

/* Runs `fn(args)` in the emulated AICPU_TS device context of `comm`, as an AICPU
 * kernel runs, then waits until every task the program enqueued on any thread of
 * `comm` has run, or `timeoutMs` passes (0: no deadline). Like a stream
 * synchronisation it reports asynchronous task failures (a notify wait timing
 * out, a remote access error) in result->taskError. Returns HCCL_E_TIMEOUT when
 * the deadline passed, HCCL_E_PTR for a null fn or result. */
extern HcclResult HcommRefDeviceLaunch(HcclComm comm, HcommRefDeviceFn fn, void *args, uint32_t timeoutMs,
                                       HcommRefLaunchResult *result);

/* 1 when the calling thread runs in the emulated device context, else 0. */
extern int32_t HcommRefIsDeviceSide(void);

/* The product profile in force (a name from spec/products.yaml), chosen by
 * HCOMM_REF_PRODUCT at first use. */
extern const char *HcommRefProductName(void);

typedef struct {
    uint32_t version; /* HCOMM_REF_ABI_VERSION */
    uint32_t size;    /* sizeof(HcommRefStats) */
    uint64_t bytesWritten;
    uint64_t bytesRead;
    uint64_t notifiesRaised;   /* sent towards peers */
    uint64_t notifiesConsumed; /* satisfied waits */
    uint64_t notifyOverruns;   /* a record on an already-set (binary) notify */
    uint64_t rejectedCalls;    /* calls refused by input checks */
    uint64_t taskErrors;       /* asynchronous task failures */
} HcommRefStats;

/* Counters of `comm` since it was created. `stats->size` must be set by the
 * caller; fields beyond it are not written. */
extern HcclResult HcommRefGetStats(HcclComm comm, HcommRefStats *stats);

/* Whether a notify of the channel is set right now (diagnostics for watchdogs):
 * *isSet = 1 or 0. Does not consume it. */
extern HcclResult HcommRefPeekNotify(HcclComm comm, ChannelHandle channel, uint32_t localNotifyIdx, int32_t *isSet);

/* Appended after v1: the name a device program passes to HcommAcquireComm /
 * HcommReleaseComm for `comm` (the vendor's HcclGetCommName is not in this API
 * subset). Writes a NUL-terminated name into `name` (HCCL_E_PARA when `len` is
 * too short; 64 bytes always suffice). */
extern HcclResult HcommRefGetCommName(HcclComm comm, char *name, uint32_t len);

/* Appended after v1, for the hcts ACL runtime (acl_runtime/, libascendcl.so): its waits
 * in the wait report (HCOMM_REF_WAIT_REPORT; hcts-waits, hcts launch), beside the notify
 * waits of hcomm threads. What an ACL wait waits in: */
#define HCOMM_REF_ACL_WAIT_STREAM_SYNC 1 /* aclrtSynchronizeStream[WithTimeout]: a host thread, the stream's tasks */
#define HCOMM_REF_ACL_WAIT_STREAM_DESTROY                                                                              \
    2                                      /* aclrtDestroyStream, aclrtResetDevice: a host thread, the stream's tasks */
#define HCOMM_REF_ACL_WAIT_EVENT_SYNC 3    /* aclrtSynchronizeEvent[WithTimeout]: a host thread, an event's record */
#define HCOMM_REF_ACL_WAIT_STREAM_EVENT 4  /* aclrtStreamWaitEvent: a stream's worker, an event's record */
#define HCOMM_REF_ACL_WAIT_STREAM_NOTIFY 5 /* aclrtWaitAndResetNotify: a stream's worker, a notify's record */

typedef struct {
    uint32_t what;      /* HCOMM_REF_ACL_WAIT_* */
    int32_t device;     /* the stream's (or event's) device */
    HcclComm comm;      /* the communicator the stream's kernels run with (its rank is shown), or NULL */
    uint64_t stream;    /* the aclrtStream handle */
    uint64_t object;    /* the aclrtEvent / aclrtNotify handle waited on, 0 for stream waits */
    uint64_t count;     /* stream waits: tasks queued or running; event waits: the record number awaited */
    uint32_t timeoutMs; /* 0: no deadline */
    uint32_t reserved;
} HcommRefAclWait;

/* Marks the calling thread as blocked in `wait` until HcommRefAclWaitEnd(token). Returns
 * the token, 0 when the report is off or `wait` is NULL (HcommRefAclWaitEnd(0) does nothing). */
extern uint64_t HcommRefAclWaitBegin(const HcommRefAclWait *wait);
extern void HcommRefAclWaitEnd(uint64_t token);
/* The event or notify `object` of `device` was recorded, its `records`-th record. */
extern void HcommRefAclRecorded(uint64_t object, int32_t device, uint64_t records);

#ifdef __cplusplus
}
#endif

#endif /* HCTS_HCOMM_REF_HCOMM_REF_H */
