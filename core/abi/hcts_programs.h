/*
 * hcts_programs.h: the device-program ABI (contract 3), one convention for every
 * program of the suite (conformance and property alike).
 *
 * A device program is an AICPU kernel: extern "C" uint32_t hcts_prog_<name>(void *args).
 * It calls only the hcomm C API and libc, returns a status and writes what it
 * observed (return codes) into its argument block. It never judges: the host
 * side of a case decides what the observations mean.
 *
 * Argument blocks are plain data and start with `version` and `size`. Each
 * version of a block is frozen once released; a program accepts every version
 * it knows whose `size` is at least that version's, and reads later fields only
 * when `size` covers them. Addresses and handles travel as uint64_t so the
 * layout is the same on a 64-bit host and device.
 *
 * How a program reaches hcomm: it calls the hcomm C API by name. The symbols are
 * weak references, bound when the program library is loaded, from the
 * implementation under test the suite loaded globally beforehand (host build)
 * or from the device library (device build); a symbol the implementation lacks
 * stays NULL and its ops report HCTS_OP_RC_MISSING instead of crashing.
 */
#ifndef HCTS_PROGRAMS_H
#define HCTS_PROGRAMS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- hcts_prog_ops: a script of hcomm calls ----------------------------------
 * Issues ops[0..op_count) in order, each on the thread it names, and records
 * every return code. A failed call does not stop the script (observations, not
 * asserts), except that an op flagged HCTS_OP_F_IF_PREV_OK is skipped (rc
 * HCTS_OP_RC_SKIPPED) when the op before it did not return 0.
 *
 * Version 1 carried function pointers into the implementation in its block; a
 * device cannot call host pointers, so it was retired. Version 2 is current. */
#define HCTS_PROG_OPS_V2 2U
#define HCTS_PROG_MAX_OPS 256U
#define HCTS_PROG_POOL_BYTES 4096U

typedef enum {
    HCTS_OP_NONE = 0,
    HCTS_OP_WWN = 1,        /* HcommWriteWithNotifyOnThread(thread, channel, dst, src, len, idx) */
    HCTS_OP_WRITE = 2,      /* HcommWriteOnThread(thread, channel, dst, src, len) */
    HCTS_OP_RECORD = 3,     /* HcommChannelNotifyRecordOnThread(thread, channel, idx) */
    HCTS_OP_WAIT = 4,       /* HcommChannelNotifyWaitOnThread(thread, channel, idx, timeout) */
    HCTS_OP_LOCAL_COPY = 5, /* HcommLocalCopyOnThread(thread, dst, src, len): e.g. a device-stream snapshot */
    HCTS_OP_FENCE = 6,      /* HcommChannelFenceOnThread(thread, channel) */
    HCTS_OP_READ = 7,       /* HcommReadOnThread(thread, channel, dst (local), src (remote), len) */
    /* Added without a new block version (the block is unchanged): a program that
     * predates them reports HCTS_OP_RC_UNKNOWN_KIND. */
    HCTS_OP_WAIT_DEFAULT = 8,     /* HcommChannelNotifyWaitOnThreadWithDefaultTimeout(thread, channel, idx) */
    HCTS_OP_SET_WAIT_TIMEOUT = 9, /* HcommSetNotifyWaitTimeOut(timeOut): the float's bits in the low 32 of aux */
    /* 30..59: thread notifies, host-only and legacy calls, batches, comm access and
     * the task cache. A string or array argument is a byte offset into `pool`
     * (HCTS_OP_POOL_NULL passes NULL); the thread-notify ops name the
     * destination thread in `channel`. */
    HCTS_OP_THREAD_RECORD = 30,       /* HcommThreadNotifyRecordOnThread(thread, channel = dstThread, idx) */
    HCTS_OP_THREAD_WAIT = 31,         /* HcommThreadNotifyWaitOnThread(thread, idx, timeout) */
    HCTS_OP_THREAD_WAIT_DEFAULT = 32, /* HcommThreadNotifyWaitOnThreadWithDefaultTimeout(thread, idx) */
    HCTS_OP_ACLRT_RECORD = 33,        /* HcommAclrtNotifyRecordOnThread(thread, aux = notify id) */
    HCTS_OP_ACLRT_WAIT = 34,          /* HcommAclrtNotifyWaitOnThread(thread, aux = notify id, timeout) */
    HCTS_OP_CHANNEL_RECORD = 35,      /* HcommChannelNotifyRecord(channel, idx) */
    HCTS_OP_CHANNEL_WAIT = 36,        /* HcommChannelNotifyWait(channel, idx, timeout) */
    HCTS_OP_FENCE_ON_THREAD = 37,     /* HcommFenceOnThread(thread) */
    HCTS_OP_CHANNEL_FENCE = 38,       /* HcommChannelFence(channel) */
    HCTS_OP_DRAIN = 39,               /* HcommChannelDrainOnThread(thread, channel) */
    HCTS_OP_BATCH_TRANSFER = 40,      /* HcommBatchTransferOnThread(thread, channel, descs at aux, len = count) */
    HCTS_OP_BATCH_START = 41,         /* HcommBatchModeStart(tag at aux) */
    HCTS_OP_BATCH_END = 42,           /* HcommBatchModeEnd(tag at aux) */
    HCTS_OP_ACQUIRE_COMM = 43,        /* HcommAcquireComm(commId at aux) */
    HCTS_OP_RELEASE_COMM = 44,        /* HcommReleaseComm(commId at aux) */
    HCTS_OP_TC_LOOKUP = 45,           /* HcommAicpuTsTaskCacheLookup(tag at aux, isHit at dst (a bool)) */
    HCTS_OP_TC_START = 46,            /* HcommAicpuTsTaskCacheStart(tag at aux, addrs at dst, sizes at src, len) */
    HCTS_OP_TC_END = 47,              /* HcommAicpuTsTaskCacheEnd(tag at aux) */
    HCTS_OP_TC_EXECUTE = 48,          /* HcommAicpuTsTaskCacheExecute(tag at aux, addrs at dst, sizes at src, len) */
    HCTS_OP_TC_CLEAR = 49,            /* HcommAicpuTsTaskCacheClear(tag at aux) */
    HCTS_OP_THREAD_JOIN = 50,         /* HcommThreadJoin(thread, timeout) */
    /* No hcomm call: the caller reuses an argument array, as a loop does once a call returned:
     * `len` pool bytes at aux are overwritten with the pool bytes at src (rc 0; a range outside
     * the pool: HCTS_OP_RC_UNKNOWN_KIND, nothing written). */
    HCTS_OP_REUSE_ARGS = 51,
    /* Reductions: `len` is the element count, `data_type` / `reduce_op` the HcommDataType / HcommReduceOp. */
    HCTS_OP_LOCAL_REDUCE = 10,             /* HcommLocalReduceOnThread(thread, dst, src, count, type, op) */
    HCTS_OP_WRITE_REDUCE = 11,             /* HcommWriteReduceOnThread(thread, channel, dst, src, count, type, op) */
    HCTS_OP_WRITE_REDUCE_WITH_NOTIFY = 12, /* HcommWriteReduceWithNotifyOnThread(..., count, type, op, idx) */
    HCTS_OP_READ_REDUCE = 13,         /* HcommReadReduceOnThread(thread, channel, dst (local), src (remote), ...) */
    HCTS_OP_WRITE_NBI_ON_THREAD = 14, /* HcommWriteNbiOnThread(thread, channel, dst, src, len) */
    HCTS_OP_WRITE_NBI = 15,           /* HcommWriteNbi(channel, dst, src, len): `thread` unused */
    HCTS_OP_WRITE_WITH_NOTIFY_NBI_ON_THREAD =
        16,                             /* HcommWriteWithNotifyNbiOnThread(thread, channel, dst, src, len, idx) */
    HCTS_OP_WRITE_WITH_NOTIFY_NBI = 17, /* HcommWriteWithNotifyNbi(channel, dst, src, len, idx) */
    HCTS_OP_READ_NBI_ON_THREAD = 18,    /* HcommReadNbiOnThread(thread, channel, dst (local), src (remote), len) */
    HCTS_OP_READ_NBI = 19               /* HcommReadNbi(channel, dst (local), src (remote), len) */
} hcts_op_kind;

/* A pool offset that stands for a NULL argument. */
#define HCTS_OP_POOL_NULL UINT64_MAX

/* HCTS_OP_F_IF_PREV_FAILED: the op is skipped (HCTS_OP_RC_SKIPPED) when the op before it returned 0,
 * e.g. a plain notify record standing in for a refused call's notify so the peer's wait still ends. */
enum { HCTS_OP_F_IF_PREV_OK = 1U, HCTS_OP_F_IF_PREV_FAILED = 2U };

typedef struct {
    uint32_t kind; /* hcts_op_kind */
    uint32_t idx;  /* notify index */
    uint64_t thread;
    uint64_t channel; /* or, for thread-to-thread notifies, the destination thread */
    uint64_t dst;
    uint64_t src;
    uint64_t len;       /* bytes; elements for reduce ops */
    uint32_t timeout;   /* waits, in the implementation's unit; 0 waits forever */
    int32_t rc;         /* out: what the call returned */
    uint32_t flags;     /* HCTS_OP_F_* */
    uint32_t data_type; /* reduce ops: HcommDataType */
    uint32_t reduce_op; /* reduce ops: HcommReduceOp */
    uint32_t reserved;
    uint64_t aux; /* kind-specific: an ACL notify id, or a byte offset into `pool` */
} hcts_op;

typedef struct {
    uint32_t version; /* HCTS_PROG_OPS_V2 */
    uint32_t size;    /* sizeof(hcts_prog_ops_v2) */
    uint32_t op_count;
    uint32_t calls_made; /* out: how many ops were issued */
    hcts_op ops[HCTS_PROG_MAX_OPS];
    uint8_t pool[HCTS_PROG_POOL_BYTES]; /* strings and arrays the ops point into (aux) */
} hcts_prog_ops_v2;

uint32_t hcts_prog_ops(void *args);

/* Program return values. */
#define HCTS_PROG_OK 0U
#define HCTS_PROG_BAD_ARGS 1U                   /* unknown version, block too small, or op_count too large */
#define HCTS_PROG_MISSING_API 2U                /* an op needed a call the implementation lacks */
#define HCTS_OP_RC_MISSING INT32_MIN            /* ops[i].rc: the call is absent from the implementation */
#define HCTS_OP_RC_UNKNOWN_KIND (INT32_MIN + 1) /* ops[i].rc: this program does not know the op kind */
#define HCTS_OP_RC_SKIPPED (INT32_MIN + 2)      /* ops[i].rc: its HCTS_OP_F_IF_PREV_* condition did not hold */

#ifdef __cplusplus
}
#endif

#endif /* HCTS_PROGRAMS_H */
