/* The generic device program: a scripted sequence of hcomm calls. Every case is
 * expressed as one such script per rank, so a device port compiles one kernel. */
#include <stddef.h>
#include <string.h>

#include "hcomm/hcomm_primitives.h"
#include "hcomm/hcomm_primitives_expt.h"
#include "hcts_programs.h"

/* Bound at load time from the implementation under test; NULL when it lacks one. */
#pragma weak HcommWriteWithNotifyOnThread
#pragma weak HcommWriteOnThread
#pragma weak HcommReadOnThread
#pragma weak HcommChannelNotifyRecordOnThread
#pragma weak HcommChannelNotifyWaitOnThread
#pragma weak HcommLocalCopyOnThread
#pragma weak HcommChannelFenceOnThread
#pragma weak HcommChannelNotifyWaitOnThreadWithDefaultTimeout
#pragma weak HcommSetNotifyWaitTimeOut
#pragma weak HcommThreadNotifyRecordOnThread
#pragma weak HcommThreadNotifyWaitOnThread
#pragma weak HcommThreadNotifyWaitOnThreadWithDefaultTimeout
#pragma weak HcommAclrtNotifyRecordOnThread
#pragma weak HcommAclrtNotifyWaitOnThread
#pragma weak HcommChannelNotifyRecord
#pragma weak HcommChannelNotifyWait
#pragma weak HcommFenceOnThread
#pragma weak HcommChannelFence
#pragma weak HcommChannelDrainOnThread
#pragma weak HcommBatchTransferOnThread
#pragma weak HcommBatchModeStart
#pragma weak HcommBatchModeEnd
#pragma weak HcommAcquireComm
#pragma weak HcommReleaseComm
#pragma weak HcommAicpuTsTaskCacheLookup
#pragma weak HcommAicpuTsTaskCacheStart
#pragma weak HcommAicpuTsTaskCacheEnd
#pragma weak HcommAicpuTsTaskCacheExecute
#pragma weak HcommAicpuTsTaskCacheClear
#pragma weak HcommThreadJoin
#pragma weak HcommLocalReduceOnThread
#pragma weak HcommWriteReduceOnThread
#pragma weak HcommWriteReduceWithNotifyOnThread
#pragma weak HcommReadReduceOnThread
#pragma weak HcommWriteNbiOnThread
#pragma weak HcommWriteNbi
#pragma weak HcommWriteWithNotifyNbiOnThread
#pragma weak HcommWriteWithNotifyNbi
#pragma weak HcommReadNbiOnThread
#pragma weak HcommReadNbi

#define CALL_OR_MISSING(fn, ...) ((fn) == NULL ? HCTS_OP_RC_MISSING : (fn)(__VA_ARGS__))

static float float_of_aux(uint64_t aux)
{
    const uint32_t bits = (uint32_t)aux;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* The reductions and the Nbi calls (op kinds 10..19). */
static int32_t issue_more(const hcts_op *op, void *dst, const void *src)
{
    const HcommDataType type = (HcommDataType)op->data_type;
    const HcommReduceOp red = (HcommReduceOp)op->reduce_op;
    switch (op->kind) {
    case HCTS_OP_LOCAL_REDUCE:
        return CALL_OR_MISSING(HcommLocalReduceOnThread, op->thread, dst, src, op->len, type, red);
    case HCTS_OP_WRITE_REDUCE:
        return CALL_OR_MISSING(HcommWriteReduceOnThread, op->thread, op->channel, dst, src, op->len, type, red);
    case HCTS_OP_WRITE_REDUCE_WITH_NOTIFY:
        return CALL_OR_MISSING(HcommWriteReduceWithNotifyOnThread, op->thread, op->channel, dst, src, op->len, type,
                               red, op->idx);
    case HCTS_OP_READ_REDUCE:
        return CALL_OR_MISSING(HcommReadReduceOnThread, op->thread, op->channel, dst, src, op->len, type, red);
    case HCTS_OP_WRITE_NBI_ON_THREAD:
        return CALL_OR_MISSING(HcommWriteNbiOnThread, op->thread, op->channel, dst, src, op->len);
    case HCTS_OP_WRITE_NBI: return CALL_OR_MISSING(HcommWriteNbi, op->channel, dst, src, op->len);
    case HCTS_OP_WRITE_WITH_NOTIFY_NBI_ON_THREAD:
        return CALL_OR_MISSING(HcommWriteWithNotifyNbiOnThread, op->thread, op->channel, dst, src, op->len, op->idx);
    case HCTS_OP_WRITE_WITH_NOTIFY_NBI:
        return CALL_OR_MISSING(HcommWriteWithNotifyNbi, op->channel, dst, src, op->len, op->idx);
    case HCTS_OP_READ_NBI_ON_THREAD:
        return CALL_OR_MISSING(HcommReadNbiOnThread, op->thread, op->channel, dst, src, op->len);
    case HCTS_OP_READ_NBI: return CALL_OR_MISSING(HcommReadNbi, op->channel, dst, src, op->len);
    default: return HCTS_OP_RC_UNKNOWN_KIND;
    }
}

static int32_t issue(const hcts_op *op)
{
    void *dst = (void *)(uintptr_t)op->dst;
    const void *src = (const void *)(uintptr_t)op->src;
    switch (op->kind) {
    case HCTS_OP_WWN:
        return CALL_OR_MISSING(HcommWriteWithNotifyOnThread, op->thread, op->channel, dst, src, op->len, op->idx);
    case HCTS_OP_WRITE: return CALL_OR_MISSING(HcommWriteOnThread, op->thread, op->channel, dst, src, op->len);
    case HCTS_OP_READ: return CALL_OR_MISSING(HcommReadOnThread, op->thread, op->channel, dst, src, op->len);
    case HCTS_OP_RECORD: return CALL_OR_MISSING(HcommChannelNotifyRecordOnThread, op->thread, op->channel, op->idx);
    case HCTS_OP_WAIT:
        return CALL_OR_MISSING(HcommChannelNotifyWaitOnThread, op->thread, op->channel, op->idx, op->timeout);
    case HCTS_OP_LOCAL_COPY: return CALL_OR_MISSING(HcommLocalCopyOnThread, op->thread, dst, src, op->len);
    case HCTS_OP_FENCE: return CALL_OR_MISSING(HcommChannelFenceOnThread, op->thread, op->channel);
    case HCTS_OP_WAIT_DEFAULT:
        return CALL_OR_MISSING(HcommChannelNotifyWaitOnThreadWithDefaultTimeout, op->thread, op->channel, op->idx);
    case HCTS_OP_SET_WAIT_TIMEOUT: return CALL_OR_MISSING(HcommSetNotifyWaitTimeOut, float_of_aux(op->aux));
    default: return issue_more(op, dst, src);
    }
}

/* An argument in the block's pool (HCTS_OP_POOL_NULL: NULL; outside the pool: NULL too). */
static void *in_pool(hcts_prog_ops_v2 *a, uint64_t off)
{
    return off < HCTS_PROG_POOL_BYTES ? (void *)&a->pool[off] : NULL;
}

/* The ops of kinds 30..59: their arguments may live in the pool. */
static int32_t issue_with_pool(hcts_prog_ops_v2 *a, const hcts_op *op)
{
    const char *tag = (const char *)in_pool(a, op->aux);
    void **addrs = (void **)in_pool(a, op->dst);
    uint64_t *sizes = (uint64_t *)in_pool(a, op->src);
    switch (op->kind) {
    case HCTS_OP_THREAD_RECORD:
        return CALL_OR_MISSING(HcommThreadNotifyRecordOnThread, op->thread, op->channel, op->idx);
    case HCTS_OP_THREAD_WAIT: return CALL_OR_MISSING(HcommThreadNotifyWaitOnThread, op->thread, op->idx, op->timeout);
    case HCTS_OP_THREAD_WAIT_DEFAULT:
        return CALL_OR_MISSING(HcommThreadNotifyWaitOnThreadWithDefaultTimeout, op->thread, op->idx);
    case HCTS_OP_ACLRT_RECORD: return CALL_OR_MISSING(HcommAclrtNotifyRecordOnThread, op->thread, op->aux);
    case HCTS_OP_ACLRT_WAIT: return CALL_OR_MISSING(HcommAclrtNotifyWaitOnThread, op->thread, op->aux, op->timeout);
    case HCTS_OP_CHANNEL_RECORD: return CALL_OR_MISSING(HcommChannelNotifyRecord, op->channel, op->idx);
    case HCTS_OP_CHANNEL_WAIT: return CALL_OR_MISSING(HcommChannelNotifyWait, op->channel, op->idx, op->timeout);
    case HCTS_OP_FENCE_ON_THREAD: return CALL_OR_MISSING(HcommFenceOnThread, op->thread);
    case HCTS_OP_CHANNEL_FENCE: return CALL_OR_MISSING(HcommChannelFence, op->channel);
    case HCTS_OP_DRAIN: return CALL_OR_MISSING(HcommChannelDrainOnThread, op->thread, op->channel);
    case HCTS_OP_BATCH_TRANSFER:
        return CALL_OR_MISSING(HcommBatchTransferOnThread, op->thread, op->channel,
                               (const HcommBatchTransferDesc *)in_pool(a, op->aux), (uint32_t)op->len);
    case HCTS_OP_BATCH_START: return CALL_OR_MISSING(HcommBatchModeStart, tag);
    case HCTS_OP_BATCH_END: return CALL_OR_MISSING(HcommBatchModeEnd, tag);
    case HCTS_OP_ACQUIRE_COMM: return CALL_OR_MISSING(HcommAcquireComm, tag);
    case HCTS_OP_RELEASE_COMM: return CALL_OR_MISSING(HcommReleaseComm, tag);
    case HCTS_OP_TC_LOOKUP: return CALL_OR_MISSING(HcommAicpuTsTaskCacheLookup, tag, (bool *)in_pool(a, op->dst));
    case HCTS_OP_TC_START: return CALL_OR_MISSING(HcommAicpuTsTaskCacheStart, tag, addrs, sizes, op->len);
    case HCTS_OP_TC_END: return CALL_OR_MISSING(HcommAicpuTsTaskCacheEnd, tag);
    case HCTS_OP_TC_EXECUTE: return CALL_OR_MISSING(HcommAicpuTsTaskCacheExecute, tag, addrs, sizes, op->len);
    case HCTS_OP_TC_CLEAR: return CALL_OR_MISSING(HcommAicpuTsTaskCacheClear, tag);
    case HCTS_OP_THREAD_JOIN: return CALL_OR_MISSING(HcommThreadJoin, op->thread, op->timeout);
    case HCTS_OP_REUSE_ARGS:
        if (op->aux > HCTS_PROG_POOL_BYTES || op->src > HCTS_PROG_POOL_BYTES ||
            op->len > HCTS_PROG_POOL_BYTES - op->aux || op->len > HCTS_PROG_POOL_BYTES - op->src)
            return HCTS_OP_RC_UNKNOWN_KIND;
        memmove(&a->pool[op->aux], &a->pool[op->src], (size_t)op->len);
        return 0;
    default: return HCTS_OP_RC_UNKNOWN_KIND;
    }
}

uint32_t hcts_prog_ops(void *args)
{
    hcts_prog_ops_v2 *a = (hcts_prog_ops_v2 *)args;
    if (a == NULL || a->version != HCTS_PROG_OPS_V2 || a->size < sizeof(*a) || a->op_count > HCTS_PROG_MAX_OPS)
        return HCTS_PROG_BAD_ARGS;
    uint32_t status = HCTS_PROG_OK;
    a->calls_made = 0;
    for (uint32_t i = 0; i < a->op_count; ++i) {
        hcts_op *op = &a->ops[i];
        if (((op->flags & HCTS_OP_F_IF_PREV_OK) != 0 && i > 0 && a->ops[i - 1].rc != 0) ||
            ((op->flags & HCTS_OP_F_IF_PREV_FAILED) != 0 && i > 0 && a->ops[i - 1].rc == 0))
            op->rc = HCTS_OP_RC_SKIPPED;
        else
            op->rc = op->kind >= 30 && op->kind < 60 ? issue_with_pool(a, op) : issue(op);
        if (op->rc == HCTS_OP_RC_MISSING || op->rc == HCTS_OP_RC_UNKNOWN_KIND)
            status = HCTS_PROG_MISSING_API;
        a->calls_made = i + 1;
    }
    return status;
}
