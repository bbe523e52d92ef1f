// Legal variant (PROFILE WWN.PRF.2, WWN.LIT.14 "notify-only", the SHMEM choice):
// a write with notify of zero bytes is accepted and raises its notify, with no
// byte written. Everything else is the reference; a zero-length call with a null
// pointer still goes to the reference, which rejects it.
#include "shim_common.h"

HCTS_SHIM_EXPORT int32_t HcommWriteWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                                      const void *src, uint64_t len, uint32_t idx)
{
    static const auto wwn = real<decltype(&HcommWriteWithNotifyOnThread)>("HcommWriteWithNotifyOnThread");
    static const auto record = real<decltype(&HcommChannelNotifyRecordOnThread)>("HcommChannelNotifyRecordOnThread");
    if (len == 0 && dst != nullptr && src != nullptr)
        return record(thread, channel, idx); // checks the thread, channel and index as a write would
    return wwn(thread, channel, dst, src, len, idx);
}
