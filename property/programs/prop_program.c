#include "prop_program.h"

#include <stddef.h>

#include "hcomm/hcomm_primitives.h"

static void *ptr(uint64_t a) { return (void *)(uintptr_t)a; }

uint32_t hcts_prog_prop_op(void *arg)
{
    hcts_prop_op_args *a = (hcts_prop_op_args *)arg;
    if (a == NULL || a->version != HCTS_PROP_PROGRAM_VERSION || a->size != sizeof(*a))
        return 1u;
    a->copy_rc = 0;
    switch (a->call) {
    case HCTS_PROP_WWN:
        a->rc = HcommWriteWithNotifyOnThread(a->thread, a->channel, ptr(a->dst), ptr(a->src), a->len, a->idx);
        break;
    case HCTS_PROP_WRITE:
        a->rc = HcommWriteOnThread(a->thread, a->channel, ptr(a->dst), ptr(a->src), a->len);
        break;
    case HCTS_PROP_READ:
        a->rc = HcommReadOnThread(a->thread, a->channel, ptr(a->dst), ptr(a->src), a->len);
        break;
    case HCTS_PROP_LOCAL_COPY:
        a->rc = HcommLocalCopyOnThread(a->thread, ptr(a->dst), ptr(a->src), a->len);
        break;
    case HCTS_PROP_RECORD:
        a->rc = HcommChannelNotifyRecordOnThread(a->thread, a->channel, a->idx);
        break;
    case HCTS_PROP_FENCE:
        a->rc = HcommChannelFenceOnThread(a->thread, a->channel);
        break;
    case HCTS_PROP_WAIT:
        a->rc = HcommChannelNotifyWaitOnThread(a->thread, a->channel, a->idx, a->timeout);
        /* Behind the wait on the same in-order thread: the window as it is the
         * moment the notify is consumed (the device observer path). */
        if (a->rc == 0 && a->snap_len != 0)
            a->copy_rc = HcommLocalCopyOnThread(a->thread, ptr(a->snap_dst), ptr(a->snap_src), a->snap_len);
        break;
    default:
        return 2u;
    }
    return a->rc == 0 ? 0u : 3u;
}
