// What the data-plane entry points share: resolving and checking handles in the
// order the reference promises (HCCL_E_PTR, then HCCL_E_NOT_SUPPORT, then
// HCCL_E_PARA), range checks, submitting tasks, and the task bodies themselves.
#pragma once

#include <cstring>

#include <memory>
#include <optional>

#include "api_util.h"
#include "hcomm/hcomm_primitives.h"
#include "mem_probe.h"
#include "profile.h"

namespace hcomm_ref {

struct Target {
    std::shared_ptr<ThreadObj> thread;   // null for the calls without a thread
    std::shared_ptr<ChannelObj> channel; // null for the calls without a channel
    registry::CommRef comm;              // their comm, held until the call returns
};

// Support, then handle validity. Call after the caller's own null checks (which
// include thread == 0 and channel == 0 where the call takes them).
HcclResult resolve(const char *api, Api family, ThreadHandle thread, std::optional<ChannelHandle> channel,
                   Target &target);
// For the calls that take a channel but no thread (host side).
HcclResult resolve_channel_only(const char *api, Api family, ChannelHandle channel, Target &target);
// The null checks of the calls on a thread, then resolve(): HCCL_E_PTR names the
// first NULL or 0 argument in the vendor's order (dst, src, channel, thread).
HcclResult resolve_operands(const char *api, Api family, ThreadHandle thread, std::optional<ChannelHandle> channel,
                            const void *dst, const void *src, Target &target);
// The same for the calls that take only handles.
HcclResult resolve_handles(const char *api, Api family, ThreadHandle thread, std::optional<ChannelHandle> channel,
                           Target &target);

// Range checks (HCCL_E_PARA with a message naming the call); len must be > 0.
// check_local: `access` is what the transfer does to the local range (a write reads
// it, a read writes it), judged under HCOMM_REF_LOCAL_UNREGISTERED=warn only.
HcclResult check_local(const char *api, const Target &t, const void *addr, uint64_t len, const char *what,
                       Access access = Access::read);
HcclResult check_remote(const char *api, const Target &t, const void *addr, uint64_t len, const char *what);
HcclResult check_notify_index(const char *api, const Target &t, uint32_t index);
HcclResult check_reduce(const char *api, Comm *comm, uint64_t count, int32_t data_type, int32_t op, uint64_t &bytes);

// The value of an enum field of a caller's struct, read as its bytes: loading an
// out-of-range value through the enum type is undefined behaviour (UBSan), and a
// caller's batch descriptor may hold anything.
template <class E>
int32_t raw_enum(const E &field)
{
    static_assert(sizeof(E) == sizeof(int32_t), "C enums of the hcomm ABI are 32 bits");
    int32_t v = 0;
    std::memcpy(&v, &field, sizeof v);
    return v;
}

// An enum parameter as a value its type can hold: `field` read as its bytes, kept if
// within [lo, hi] (the range of the enum's values), else `fallback`, a value the callee
// refuses. Passing an out-of-range value through the enum type is undefined behaviour.
template <class E>
E enum_or(const E &field, int32_t lo, int32_t hi, E fallback)
{
    const int32_t v = raw_enum(field);
    return v >= lo && v <= hi ? static_cast<E>(v) : fallback;
}

// Enqueues on the thread (held back while the device program is in batch mode).
// `overlap`: the earlier transfers in flight the task may run alongside (TaskQueue).
void submit(const std::shared_ptr<ThreadObj> &thread, TaskQueue::Task task,
            TaskQueue::Overlap overlap = TaskQueue::kDrain);

// Task bodies; they run on the thread's worker (or inline for the host Nbi calls).
HcclResult do_write(const std::shared_ptr<ChannelObj> &channel, void *dst, const void *src, uint64_t len,
                    std::optional<uint32_t> notify);
HcclResult do_read(const std::shared_ptr<ChannelObj> &channel, void *dst, const void *src, uint64_t len);
HcclResult do_write_reduce(const std::shared_ptr<ChannelObj> &channel, ThreadCore &core, void *dst, const void *src,
                           uint64_t count, HcommDataType type, HcommReduceOp op, std::optional<uint32_t> notify);
HcclResult do_read_reduce(const std::shared_ptr<ChannelObj> &channel, ThreadCore &core, void *dst, const void *src,
                          uint64_t count, HcommDataType type, HcommReduceOp op);
// thread: the ThreadHandle the wait runs on (0: a host call), for the wait report.
// due: mutant ref_wait_clock_from_call only (the deadline fixed when the call queued it).
HcclResult do_channel_wait(const std::shared_ptr<ChannelObj> &channel, uint32_t index, uint32_t timeout,
                           uint64_t thread = 0, std::optional<Deadline> due = std::nullopt);

// Mutants ref_channel_half_duplex_[large_]wait only (off: a null token, false): writes
// pending on a channel per thread, counted from the call until the task is run
// or dropped (the token dies with the task).
std::shared_ptr<void> note_pending_write(ChannelHandle channel, ThreadHandle thread, uint64_t len);
bool writes_pending_from_other_threads(ChannelHandle channel, ThreadHandle thread);
// Mutant ref_record_overtakes_large_write only: writes of 64 KiB or more pending on the
// channel from this thread.
bool large_writes_pending(ChannelHandle channel, ThreadHandle thread);

// Default wait timeout (HcommSetNotifyWaitTimeOut), in the configured unit.
uint32_t default_wait_timeout();
void set_default_wait_timeout(uint32_t value);

} // namespace hcomm_ref
