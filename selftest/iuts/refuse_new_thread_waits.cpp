// Wrong IUT: waits are refused on every thread but the first two the process
// acquired (the world's two threads): a wait issued on any thread acquired
// later — the suite's fresh threads for waits that must time out, replacement
// threads — returns HCCL_E_NOT_SUPPORT at the call and enqueues nothing. Every
// other call forwards to the reference. A suite must not read a refused wait as
// "the wait did not complete": that would pass the notify-isolation clauses on
// an implementation that never showed it.
#include <cstdlib>
#include <mutex>
#include <vector>

#include "shim_common.h"

namespace {
// HCTS_IUT_ALLOWED_THREADS=N changes how many threads keep working waits (default
// 2, the world's); 0 refuses waits on every thread.
size_t allowed_threads()
{
    static const size_t n = [] {
        const char *v = std::getenv("HCTS_IUT_ALLOWED_THREADS");
        return v != nullptr && *v != '\0' ? std::strtoul(v, nullptr, 10) : 2ul;
    }();
    return n;
}
std::mutex g_mutex;
std::vector<ThreadHandle> g_allowed; // the first allowed_threads() handles acquired

void note_acquired(const ThreadHandle *threads, uint32_t n)
{
    std::lock_guard lock(g_mutex);
    for (uint32_t i = 0; i < n && g_allowed.size() < allowed_threads(); ++i)
        g_allowed.push_back(threads[i]);
}

bool allowed(ThreadHandle t)
{
    std::lock_guard lock(g_mutex);
    for (ThreadHandle a : g_allowed)
        if (a == t)
            return true;
    return false;
}
} // namespace

HCTS_SHIM_EXPORT HcclResult HcclThreadAcquire(HcclComm comm, CommEngine engine, uint32_t threadNum,
                                              uint32_t notifyNumPerThread, ThreadHandle *threads)
{
    static const auto fn = real<decltype(&HcclThreadAcquire)>("HcclThreadAcquire");
    const HcclResult rc = fn(comm, engine, threadNum, notifyNumPerThread, threads);
    if (rc == HCCL_SUCCESS && threads != nullptr)
        note_acquired(threads, threadNum);
    return rc;
}

HCTS_SHIM_EXPORT HcclResult HcclThreadAcquireWithConfig(HcclComm comm, CommEngine engine, uint32_t threadNum,
                                                        ThreadType type, const ThreadConfig *config,
                                                        ThreadHandle *threads)
{
    static const auto fn = real<decltype(&HcclThreadAcquireWithConfig)>("HcclThreadAcquireWithConfig");
    const HcclResult rc = fn(comm, engine, threadNum, type, config, threads);
    if (rc == HCCL_SUCCESS && threads != nullptr)
        note_acquired(threads, threadNum);
    return rc;
}

HCTS_SHIM_EXPORT HcclResult HcclThreadAcquireWithStream(HcclComm comm, CommEngine engine, aclrtStream stream,
                                                        uint32_t notifyNum, ThreadHandle *thread)
{
    static const auto fn = real<decltype(&HcclThreadAcquireWithStream)>("HcclThreadAcquireWithStream");
    const HcclResult rc = fn(comm, engine, stream, notifyNum, thread);
    if (rc == HCCL_SUCCESS && thread != nullptr)
        note_acquired(thread, 1);
    return rc;
}

HCTS_SHIM_EXPORT int32_t HcommChannelNotifyWaitOnThread(ThreadHandle thread, ChannelHandle channel, uint32_t idx,
                                                        uint32_t timeOut)
{
    static const auto fn = real<decltype(&HcommChannelNotifyWaitOnThread)>("HcommChannelNotifyWaitOnThread");
    return allowed(thread) ? fn(thread, channel, idx, timeOut) : HCCL_E_NOT_SUPPORT;
}

HCTS_SHIM_EXPORT int32_t HcommChannelNotifyWaitOnThreadWithDefaultTimeout(ThreadHandle thread, ChannelHandle channel,
                                                                          uint32_t idx)
{
    static const auto fn = real<decltype(&HcommChannelNotifyWaitOnThreadWithDefaultTimeout)>(
        "HcommChannelNotifyWaitOnThreadWithDefaultTimeout");
    return allowed(thread) ? fn(thread, channel, idx) : HCCL_E_NOT_SUPPORT;
}

HCTS_SHIM_EXPORT int32_t HcommThreadNotifyWaitOnThread(ThreadHandle thread, uint32_t idx, uint32_t timeOut)
{
    static const auto fn = real<decltype(&HcommThreadNotifyWaitOnThread)>("HcommThreadNotifyWaitOnThread");
    return allowed(thread) ? fn(thread, idx, timeOut) : HCCL_E_NOT_SUPPORT;
}

HCTS_SHIM_EXPORT int32_t HcommThreadNotifyWaitOnThreadWithDefaultTimeout(ThreadHandle thread, uint32_t idx)
{
    static const auto fn = real<decltype(&HcommThreadNotifyWaitOnThreadWithDefaultTimeout)>(
        "HcommThreadNotifyWaitOnThreadWithDefaultTimeout");
    return allowed(thread) ? fn(thread, idx) : HCCL_E_NOT_SUPPORT;
}

HCTS_SHIM_EXPORT int32_t HcommAclrtNotifyWaitOnThread(ThreadHandle thread, uint64_t notifyId, uint32_t timeOut)
{
    static const auto fn = real<decltype(&HcommAclrtNotifyWaitOnThread)>("HcommAclrtNotifyWaitOnThread");
    return allowed(thread) ? fn(thread, notifyId, timeOut) : HCCL_E_NOT_SUPPORT;
}
