/* A stand-in implementation under test for the loader tests: two hcomm calls,
 * everything else absent. */
#include <stdint.h>

#include "hcomm/hcomm_primitives.h"

static uint64_t g_writes;

int32_t HcommWriteOnThread(ThreadHandle thread, ChannelHandle channel, void *dst, const void *src, uint64_t len)
{
    (void)dst;
    (void)src;
    ++g_writes;
    return thread == 0 || channel == 0 ? 2 /* HCCL_E_PTR */ : (int32_t)(len % 7);
}

int32_t HcommChannelNotifyRecordOnThread(ThreadHandle thread, ChannelHandle channel, uint32_t idx)
{
    (void)thread;
    (void)channel;
    return (int32_t)idx;
}

uint64_t fake_iut_writes(void) { return g_writes; }
