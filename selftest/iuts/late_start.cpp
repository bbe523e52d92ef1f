// Legal variants for PROFILE WWN.LIT.15, whose outcome is a race between a
// peer's write and a read by a device thread not ordered after the wait: a
// device thread whose first call in a program is of one kind starts late (as an
// AICPU may schedule a thread late): the program pauses before issuing it.
//   late_observer (HCTS_LATE_COPY): a first local copy starts late, so the
//     unordered reader finds the payload already there ("new-observed");
//   late_sender (HCTS_LATE_WRITE): a first write with notify starts late, so the
//     unordered reader always runs before the payload arrives ("stale-observed").
// Nothing else changes; timing is all the documents leave to an implementation.
#include <time.h>

#include <set>

#include "device_program.h"

namespace {

// Threads that have had a call in the device program running on this OS thread.
thread_local std::set<ThreadHandle> t_started;

void started(ThreadHandle thread)
{
    if (t_in_program)
        t_started.insert(thread);
}

void forget_started() { t_started.clear(); }

} // namespace

HCTS_SHIM_EXPORT HcclResult HcommRefDeviceLaunch(HcclComm comm, HcommRefDeviceFn fn, void *args, uint32_t timeoutMs,
                                                 HcommRefLaunchResult *result)
{
    return launch_program(comm, fn, args, timeoutMs, result, {forget_started, nullptr});
}

namespace {
// Before the first call of `thread` in the program: 100 ms, far longer than a
// peer's write of the sizes the suite uses takes here.
void late_start(ThreadHandle thread)
{
    if (t_in_program && t_started.count(thread) == 0) {
        const timespec pause{0, 100 * 1000 * 1000};
        nanosleep(&pause, nullptr);
    }
}
} // namespace

HCTS_SHIM_EXPORT int32_t HcommLocalCopyOnThread(ThreadHandle thread, void *dst, const void *src, uint64_t len)
{
    static const auto fn = real<decltype(&HcommLocalCopyOnThread)>("HcommLocalCopyOnThread");
#ifdef HCTS_LATE_COPY
    late_start(thread);
#endif
    started(thread);
    return fn(thread, dst, src, len);
}

HCTS_SHIM_EXPORT int32_t HcommWriteWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                                      const void *src, uint64_t len, uint32_t idx)
{
    static const auto fn = real<decltype(&HcommWriteWithNotifyOnThread)>("HcommWriteWithNotifyOnThread");
#ifdef HCTS_LATE_WRITE
    late_start(thread);
#endif
    started(thread);
    return fn(thread, channel, dst, src, len, idx);
}

// Calls that start a thread without a pause.
#define HCTS_STARTS(ret, name, params, args)                                                                           \
    HCTS_SHIM_EXPORT ret name params                                                                                   \
    {                                                                                                                  \
        static const auto fn = real<decltype(&name)>(#name);                                                           \
        started(thread);                                                                                               \
        return fn args;                                                                                                \
    }

HCTS_STARTS(int32_t, HcommWriteOnThread,
            (ThreadHandle thread, ChannelHandle channel, void *dst, const void *src, uint64_t len),
            (thread, channel, dst, src, len))
HCTS_STARTS(int32_t, HcommReadOnThread,
            (ThreadHandle thread, ChannelHandle channel, void *dst, const void *src, uint64_t len),
            (thread, channel, dst, src, len))
HCTS_STARTS(int32_t, HcommChannelNotifyWaitOnThread,
            (ThreadHandle thread, ChannelHandle channel, uint32_t idx, uint32_t timeOut),
            (thread, channel, idx, timeOut))
HCTS_STARTS(int32_t, HcommChannelNotifyRecordOnThread, (ThreadHandle thread, ChannelHandle channel, uint32_t idx),
            (thread, channel, idx))
HCTS_STARTS(int32_t, HcommChannelFenceOnThread, (ThreadHandle thread, ChannelHandle channel), (thread, channel))
