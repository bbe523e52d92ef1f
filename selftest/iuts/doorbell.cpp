// Legal variant: the stream moves on at the doorbell. The vendor's thread only
// rings the NIC's doorbell for a transfer and goes on; RDMA orders nothing across
// QPs, a plain write is not covered by a later notify, and src is read when the
// NIC gets to it. This shim shows those freedoms on the reference, which waits
// for every transfer's completion:
//   * a write (with or without notify) is held back until the thread's next call;
//   * the held transfer is overtaken by that call when it is a write on another
//     channel (WWN.PRF.4 unordered-observed, WWN.LIT.13 not-cumulative), a write
//     with notify on the same channel overtaking a plain write (WWN.PRF.5,
//     WWN.LIT.5 not-cumulative), or a local copy (src read late: WWN.LIT.11N
//     overwrite-seen); between the two the thread copies a pad buffer, so the
//     held transfer lands measurably later;
//   * any other call on the thread (a wait, a record, a fence, a read ...), the
//     end of the device program and batch mode issue the held transfer first,
//     so every order the API does promise holds: a write's own notify still
//     follows its data, and two writes on one channel keep their order.
// Only calls the reference would accept are held (checked as it would: the
// ranges, the index, and the thread and channel through a fence, which only
// keeps its place in the reference's order); anything else goes straight to the
// reference, so rejections are unchanged.
#include <map>
#include <mutex>
#include <vector>

#include "device_program.h"
#include "notify_num_tracker.h"
#include "world_comm.h"

namespace {

struct Op {
    bool notify = false; // a write with notify, else a plain write
    ThreadHandle thread = 0;
    ChannelHandle channel = 0;
    void *dst = nullptr;
    const void *src = nullptr;
    uint64_t len = 0;
    uint32_t idx = 0;
};

// Held transfers of the device program running on this OS thread, per hcomm thread.
thread_local std::map<ThreadHandle, Op> t_held;

const auto &wwn_fn()
{
    static const auto f = real<decltype(&HcommWriteWithNotifyOnThread)>("HcommWriteWithNotifyOnThread");
    return f;
}
const auto &write_fn()
{
    static const auto f = real<decltype(&HcommWriteOnThread)>("HcommWriteOnThread");
    return f;
}
const auto &copy_fn()
{
    static const auto f = real<decltype(&HcommLocalCopyOnThread)>("HcommLocalCopyOnThread");
    return f;
}

int32_t issue(const Op &op)
{
    return op.notify ? wwn_fn()(op.thread, op.channel, op.dst, op.src, op.len, op.idx)
                     : write_fn()(op.thread, op.channel, op.dst, op.src, op.len);
}

// Issues a held transfer; its caller was told success already.
void release(const Op &op)
{
    if (const int32_t rc = issue(op); rc != 0) // it was checked before it was held: a shim bug, and loud
        std::fprintf(stderr, "hcts shim doorbell: a held %s of %llu bytes was refused late: %d\n",
                     op.notify ? "write with notify" : "write", static_cast<unsigned long long>(op.len), rc);
}

// Keeps `thread` busy for a while (a local copy of a pad buffer; local copies may
// use any memory), so what follows on it lands measurably later.
void stall(ThreadHandle thread)
{
    static constexpr uint64_t kPad = 16ULL << 20;
    static std::vector<std::byte> pad(2 * kPad);
    (void)copy_fn()(thread, pad.data() + kPad, pad.data(), kPad);
}

void flush(ThreadHandle thread)
{
    auto it = t_held.find(thread);
    if (it == t_held.end())
        return;
    const Op op = it->second;
    t_held.erase(it);
    release(op);
}

void flush_all()
{
    while (!t_held.empty())
        flush(t_held.begin()->first);
}

bool inside(const void *p, uint64_t len, const void *base, uint64_t size)
{
    const auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(base);
    return a >= b && len <= size && a - b <= size - len;
}

// Whether the reference would accept `op` (see the top of the file).
bool acceptable(const Op &op)
{
    static const auto fence = real<decltype(&HcommChannelFenceOnThread)>("HcommChannelFenceOnThread");
    const HcclComm comm = world_comm();
    if (!t_in_program || comm == nullptr || op.dst == nullptr || op.src == nullptr || op.len == 0 || op.thread == 0 ||
        op.channel == 0)
        return false;
    void *lb = nullptr, *rb = nullptr;
    uint64_t ls = 0, rs = 0;
    if (HcclGetHcclBuffer(comm, &lb, &ls) != HCCL_SUCCESS ||
        HcclChannelGetHcclBuffer(comm, op.channel, &rb, &rs) != HCCL_SUCCESS || !inside(op.src, op.len, lb, ls) ||
        !inside(op.dst, op.len, rb, rs))
        return false;
    if (op.notify) {
        const uint32_t bound = channel_notify_num(op.channel);
        if (bound == 0 || op.idx >= bound)
            return false;
    }
    return fence(op.thread, op.channel) == 0;
}

// A transfer call on `op.thread`: overtakes the held one where that is allowed,
// else issues it first; then holds this one if it can.
int32_t transfer(const Op &op)
{
    auto it = t_held.find(op.thread);
    if (it != t_held.end()) {
        const Op held = it->second;
        if (held.channel != op.channel || (!held.notify && op.notify)) {
            t_held.erase(it);
            const int32_t rc = issue(op);
            stall(op.thread);
            release(held);
            return rc;
        }
        flush(op.thread);
    }
    if (acceptable(op)) {
        t_held[op.thread] = op;
        return HCCL_SUCCESS;
    }
    return issue(op);
}

} // namespace

// The program's transfers are all issued before the launch waits for its tasks.
HCTS_SHIM_EXPORT HcclResult HcommRefDeviceLaunch(HcclComm comm, HcommRefDeviceFn fn, void *args, uint32_t timeoutMs,
                                                 HcommRefLaunchResult *result)
{
    return launch_program(comm, fn, args, timeoutMs, result, {nullptr, flush_all});
}

HCTS_SHIM_EXPORT int32_t HcommWriteWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                                      const void *src, uint64_t len, uint32_t idx)
{
    return transfer(Op{true, thread, channel, dst, src, len, idx});
}

HCTS_SHIM_EXPORT int32_t HcommWriteOnThread(ThreadHandle thread, ChannelHandle channel, void *dst, const void *src,
                                            uint64_t len)
{
    return transfer(Op{false, thread, channel, dst, src, len, 0});
}

// A local copy overtakes a held transfer: the NIC reads src after the copy.
HCTS_SHIM_EXPORT int32_t HcommLocalCopyOnThread(ThreadHandle thread, void *dst, const void *src, uint64_t len)
{
    auto it = t_held.find(thread);
    if (it == t_held.end())
        return copy_fn()(thread, dst, src, len);
    const Op held = it->second;
    t_held.erase(it);
    const int32_t rc = copy_fn()(thread, dst, src, len);
    stall(thread);
    release(held);
    return rc;
}

// Every other call on a thread issues its held transfer first.
#define HCTS_FLUSH_THEN(ret, name, params, args)                                                                       \
    HCTS_SHIM_EXPORT ret name params                                                                                   \
    {                                                                                                                  \
        static const auto fn = real<decltype(&name)>(#name);                                                           \
        flush(thread);                                                                                                 \
        return fn args;                                                                                                \
    }

HCTS_FLUSH_THEN(int32_t, HcommChannelNotifyWaitOnThread,
                (ThreadHandle thread, ChannelHandle channel, uint32_t idx, uint32_t timeOut),
                (thread, channel, idx, timeOut))
HCTS_FLUSH_THEN(int32_t, HcommChannelNotifyWaitOnThreadWithDefaultTimeout,
                (ThreadHandle thread, ChannelHandle channel, uint32_t idx), (thread, channel, idx))
HCTS_FLUSH_THEN(int32_t, HcommChannelNotifyRecordOnThread, (ThreadHandle thread, ChannelHandle channel, uint32_t idx),
                (thread, channel, idx))
HCTS_FLUSH_THEN(int32_t, HcommChannelFenceOnThread, (ThreadHandle thread, ChannelHandle channel), (thread, channel))
HCTS_FLUSH_THEN(int32_t, HcommChannelDrainOnThread, (ThreadHandle thread, ChannelHandle channel), (thread, channel))
HCTS_FLUSH_THEN(int32_t, HcommFenceOnThread, (ThreadHandle thread), (thread))
HCTS_FLUSH_THEN(int32_t, HcommReadOnThread,
                (ThreadHandle thread, ChannelHandle channel, void *dst, const void *src, uint64_t len),
                (thread, channel, dst, src, len))
HCTS_FLUSH_THEN(int32_t, HcommThreadNotifyRecordOnThread,
                (ThreadHandle thread, ThreadHandle dstThread, uint32_t dstNotifyIdx), (thread, dstThread, dstNotifyIdx))
HCTS_FLUSH_THEN(int32_t, HcommThreadNotifyWaitOnThread, (ThreadHandle thread, uint32_t notifyIdx, uint32_t timeOut),
                (thread, notifyIdx, timeOut))
HCTS_FLUSH_THEN(int32_t, HcommThreadNotifyWaitOnThreadWithDefaultTimeout, (ThreadHandle thread, uint32_t notifyIdx),
                (thread, notifyIdx))
HCTS_FLUSH_THEN(int32_t, HcommLocalReduceOnThread,
                (ThreadHandle thread, void *dst, const void *src, uint64_t count, HcommDataType dataType,
                 HcommReduceOp reduceOp),
                (thread, dst, src, count, dataType, reduceOp))
HCTS_FLUSH_THEN(int32_t, HcommWriteReduceOnThread,
                (ThreadHandle thread, ChannelHandle channel, void *dst, const void *src, uint64_t count,
                 HcommDataType dataType, HcommReduceOp reduceOp),
                (thread, channel, dst, src, count, dataType, reduceOp))
HCTS_FLUSH_THEN(int32_t, HcommWriteReduceWithNotifyOnThread,
                (ThreadHandle thread, ChannelHandle channel, void *dst, const void *src, uint64_t count,
                 HcommDataType dataType, HcommReduceOp reduceOp, uint32_t idx),
                (thread, channel, dst, src, count, dataType, reduceOp, idx))
HCTS_FLUSH_THEN(int32_t, HcommReadReduceOnThread,
                (ThreadHandle thread, ChannelHandle channel, void *dst, const void *src, uint64_t count,
                 HcommDataType dataType, HcommReduceOp reduceOp),
                (thread, channel, dst, src, count, dataType, reduceOp))
HCTS_FLUSH_THEN(int32_t, HcommBatchTransferOnThread,
                (ThreadHandle thread, ChannelHandle channel, const HcommBatchTransferDesc *descs, uint32_t n),
                (thread, channel, descs, n))

// Batch mode changes when tasks are submitted: nothing is held across its edges.
HCTS_SHIM_EXPORT int32_t HcommBatchModeStart(const char *batchTag)
{
    static const auto fn = real<decltype(&HcommBatchModeStart)>("HcommBatchModeStart");
    flush_all();
    return fn(batchTag);
}

HCTS_SHIM_EXPORT int32_t HcommBatchModeEnd(const char *batchTag)
{
    static const auto fn = real<decltype(&HcommBatchModeEnd)>("HcommBatchModeEnd");
    flush_all();
    return fn(batchTag);
}
