/* The generic device program: a scripted sequence of hcomm calls. Every case is
 * expressed as one such script per rank, so a device port compiles one kernel. */
#include <stddef.h>

#include "hcts_programs.h"

#ifdef HCTS_PROGRAMS_DIRECT
#define CALL(a, field, direct, ...) direct(__VA_ARGS__)
#define HAVE(a, field) 1
#else
#define CALL(a, field, direct, ...) (a)->api.field(__VA_ARGS__)
#define HAVE(a, field) ((a)->api.field != NULL)
#endif

static int32_t issue(const hcts_prog_ops_args *a, const hcts_op *op)
{
    void *dst = (void *)(uintptr_t)op->dst;
    const void *src = (const void *)(uintptr_t)op->src;
    switch (op->kind) {
    case HCTS_OP_WWN:
        if (!HAVE(a, write_with_notify))
            return HCTS_OP_RC_MISSING;
        return CALL(a, write_with_notify, HcommWriteWithNotifyOnThread, op->thread, op->channel, dst, src, op->len,
                    op->idx);
    case HCTS_OP_WRITE:
        if (!HAVE(a, write))
            return HCTS_OP_RC_MISSING;
        return CALL(a, write, HcommWriteOnThread, op->thread, op->channel, dst, src, op->len);
    case HCTS_OP_RECORD:
        if (!HAVE(a, notify_record))
            return HCTS_OP_RC_MISSING;
        return CALL(a, notify_record, HcommChannelNotifyRecordOnThread, op->thread, op->channel, op->idx);
    case HCTS_OP_WAIT:
        if (!HAVE(a, notify_wait))
            return HCTS_OP_RC_MISSING;
        return CALL(a, notify_wait, HcommChannelNotifyWaitOnThread, op->thread, op->channel, op->idx, op->timeout);
    case HCTS_OP_LOCAL_COPY:
        if (!HAVE(a, local_copy))
            return HCTS_OP_RC_MISSING;
        return CALL(a, local_copy, HcommLocalCopyOnThread, op->thread, dst, src, op->len);
    case HCTS_OP_FENCE:
        if (!HAVE(a, channel_fence))
            return HCTS_OP_RC_MISSING;
        return CALL(a, channel_fence, HcommChannelFenceOnThread, op->thread, op->channel);
    default:
        return HCTS_OP_RC_MISSING;
    }
}

uint32_t hcts_prog_ops(void *args)
{
    hcts_prog_ops_args *a = (hcts_prog_ops_args *)args;
    if (a == NULL || a->version != HCTS_PROG_ABI_VERSION || a->size != sizeof(*a) || a->op_count > HCTS_PROG_MAX_OPS)
        return HCTS_PROG_BAD_ARGS;
    uint32_t status = HCTS_PROG_OK;
    a->calls_made = 0;
    for (uint32_t i = 0; i < a->op_count; ++i) {
        a->ops[i].rc = issue(a, &a->ops[i]);
        if (a->ops[i].rc == HCTS_OP_RC_MISSING)
            status = HCTS_PROG_MISSING_API;
        a->calls_made = i + 1;
    }
    return status;
}
