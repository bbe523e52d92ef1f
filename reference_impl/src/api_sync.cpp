// Synchronisation: notifies between threads, across channels and ACL notifies;
// fences; default timeouts; batch mode; device-side comm access; thread join.
#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <map>

#include <hcts/mutant.h>

#include "data_path.h"
#include "env.h"
#include "hcomm/hcomm_primitives.h"
#include "hcomm/hcomm_primitives_expt.h"
#include "wait_report.h"

using namespace hcomm_ref;

namespace {

// ACL notifies (A2/A3 only): process-wide binary notifies named by a 64-bit id.
class AclrtNotifies {
  public:
    bool record(uint64_t id)
    {
        bool fresh = false;
        {
            std::lock_guard lock(mutex_);
            fresh = !set_[id];
            set_[id] = true;
        }
        changed_.notify_all();
        return fresh;
    }
    NotifyBank::WaitResult wait(uint64_t id, std::optional<Deadline> deadline, const std::atomic<bool> &cancel)
    {
        std::unique_lock lock(mutex_);
        const auto ready = [&] { return set_[id] || cancel.load(); };
        if (deadline) {
            if (!changed_.wait_until(lock, *deadline, ready))
                return NotifyBank::WaitResult::timed_out;
        } else {
            changed_.wait(lock, ready);
        }
        if (!set_[id])
            return NotifyBank::WaitResult::cancelled;
        set_[id] = false;
        return NotifyBank::WaitResult::consumed;
    }

  private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::map<uint64_t, bool> set_;
};

AclrtNotifies &aclrt_notifies()
{
    static AclrtNotifies notifies;
    return notifies;
}

std::optional<Deadline> deadline_after(uint32_t timeout)
{
    if (timeout == 0)
        return std::nullopt;
    return Clock::now() + env::timeout_to_duration(timeout);
}

HcclResult finish_wait(Comm &comm, NotifyBank::WaitResult result, const char *what, uint64_t index, uint32_t timeout)
{
    switch (result) {
    case NotifyBank::WaitResult::consumed: ++comm.stats().notifies_consumed; return HCCL_SUCCESS;
    case NotifyBank::WaitResult::timed_out:
        HREF_LOG_ERROR(comm.rank(), "wait on ", what, " notify ", index, " timed out after ", timeout,
                       env::timeout_unit_is_ms() ? " ms" : " s");
        return HCCL_E_TIMEOUT;
    case NotifyBank::WaitResult::cancelled: break;
    }
    return HCCL_E_INTERNAL;
}

// The host-side channel calls take no thread: the channel alone is checked.
HcclResult resolve_host_channel(const char *api, ChannelHandle channel, Target &t)
{
    if (channel == 0) {
        return refuse(nullptr, api, HCCL_E_PTR, "channel is 0");
    }
    return resolve_channel_only(api, Api::host_channel, channel, t);
}

// The checks of a notify record or wait on a channel, from a thread or (no
// thread) from the host.
HcclResult resolve_channel_notify(const char *api, std::optional<ThreadHandle> thread, ChannelHandle channel,
                                  uint32_t index, Target &t)
{
    if (thread) {
        if (const HcclResult rc = resolve_handles(api, Api::on_thread, *thread, channel, t); rc != HCCL_SUCCESS) {
            return rc;
        }
    } else if (const HcclResult rc = resolve_host_channel(api, channel, t); rc != HCCL_SUCCESS) {
        return rc;
    }
    return check_notify_index(api, t, index);
}

int32_t channel_wait_on_thread(const char *api, ThreadHandle thread, ChannelHandle channel, uint32_t index,
                               uint32_t timeout)
{
    Target t;
    // Mutant: the wait takes channel 0 for an unknown handle (HCCL_E_PARA), not a NULL one.
    if (hcts::mutant("ref_wait_channel_zero_para") && channel == 0 && thread != 0)
        return refuse(nullptr, api, HCCL_E_PARA, "channel 0x0 is not a live channel handle");
    // Mutant: the same for thread 0.
    if (hcts::mutant("ref_wait_thread_zero_para") && thread == 0 && channel != 0)
        return refuse(nullptr, api, HCCL_E_PARA, "thread 0x0 is not a live thread handle");
    if (hcts::mutant("ref_wait_index_checked_in_task")) {
        // Mutant: the index is checked when the wait runs, so the call itself succeeds.
        if (const HcclResult rc = resolve_handles(api, Api::on_thread, thread, channel, t); rc != HCCL_SUCCESS)
            return rc;
        submit(t.thread, [c = t.channel, index, timeout, thread] {
            return index >= c->notify_num ? HCCL_E_PARA : do_channel_wait(c, index, timeout, thread);
        });
        return HCCL_SUCCESS;
    }
    if (const HcclResult rc = resolve_channel_notify(api, thread, channel, index, t); rc != HCCL_SUCCESS)
        return rc;
    if (writes_pending_from_other_threads(channel, thread)) {
        // Mutant ref_channel_half_duplex_wait: the channel taken for half-duplex,
        // a wait is refused while another thread's write on it is pending.
        return refuse(t.comm, api, HCCL_E_UNAVAIL, "a write on this channel from another thread is pending");
    }
    // Mutant: the wait's clock starts when the call queues it, not when the wait runs in the
    // thread's order (a wait queued behind others expires early).
    const std::optional<Deadline> due = timeout != 0 && hcts::mutant("ref_wait_clock_from_call")
                                            ? std::optional<Deadline>(Clock::now() + env::timeout_to_duration(timeout))
                                            : std::nullopt;
    // A wait moves no bytes: it may run while the thread's writes are in flight.
    submit(
        t.thread,
        [c = t.channel, index, timeout, thread, due] { return do_channel_wait(c, index, timeout, thread, due); },
        TaskQueue::kOverlapAll);
    return HCCL_SUCCESS;
}

int32_t thread_wait_on_thread(const char *api, ThreadHandle thread, uint32_t index, uint32_t timeout)
{
    Target t;
    if (const HcclResult rc = resolve_handles(api, Api::on_thread, thread, std::nullopt, t); rc != HCCL_SUCCESS) {
        return rc;
    }
    if (index >= t.thread->core->notifies.size()) {
        return refuse(t.comm, api, HCCL_E_PARA, "notifyIdx ", index, " is outside [0, ",
                      t.thread->core->notifies.size(), ") of the thread");
    }
    // Mutant: thread waits wait forever, whatever their timeOut.
    const bool forever = hcts::mutant("ref_thread_wait_timeout_ignored");
    submit(t.thread, [core = t.thread->core, comm = t.comm.get(), index, timeout, forever, thread] {
        const wait_report::WaitScope reported(wait_report::Kind::thread, comm->rank(), 0, index, core->notifies.size(),
                                              timeout, thread, 0, nullptr);
        return finish_wait(
            *comm, core->notifies.wait(index, forever ? std::nullopt : deadline_after(timeout), comm->closing()),
            "thread", index, timeout);
    });
    return HCCL_SUCCESS;
}

// A fence-like task: every earlier operation on the thread already completed
// inside its own task (the reference waits for completions), so it only keeps
// its place in the order.
int32_t ordering_task(const char *api, Api family, ThreadHandle thread, std::optional<ChannelHandle> channel)
{
    if ((channel && *channel == 0) || thread == 0) {
        return refuse(nullptr, api, HCCL_E_PTR, thread == 0 ? "thread" : "channel", " is 0");
    }
    Target t;
    if (const HcclResult rc = resolve(api, family, thread, channel, t); rc != HCCL_SUCCESS)
        return rc;
    submit(t.thread, [c = t.channel] { return c && c->destroyed ? HCCL_E_NOT_FOUND : HCCL_SUCCESS; });
    return HCCL_SUCCESS;
}

// The calls that exist only inside a device program: HCCL_E_PTR for a NULL
// `arg` (named `arg_name`), then HCCL_E_NOT_SUPPORT on the host; only then does
// `body` judge the call against the program's launch record. Their refusals name
// no comm: blame() counts them on the program's (by handle; it may be destroyed).
template <typename Body>
HcclResult in_device_program(const char *api, const char *arg, const char *arg_name, const char *host_refusal,
                             Body body)
{
    if (arg == nullptr) {
        return refuse(nullptr, api, HCCL_E_PTR, arg_name, " is NULL");
    }
    LaunchRecord *launch = current_launch();
    if (launch == nullptr) {
        return refuse(nullptr, api, HCCL_E_NOT_SUPPORT, host_refusal);
    }
    return body(*launch);
}

constexpr const char *kBatchOnHost = "batch mode exists in device programs only";

// HcommAcquireComm and HcommReleaseComm name the device program's comm by the
// name HcommRefGetCommName gives the host.
template <typename Body>
HcclResult with_program_comm(const char *api, const char *commId, const char *host_refusal, Body body)
{
    return in_device_program(api, commId, "commId", host_refusal, [&](LaunchRecord &launch) {
        // Mutant: any name is taken for the program's comm.
        if (launch.comm_name != commId && !hcts::mutant("ref_comm_name_unchecked")) {
            return refuse(nullptr, api, HCCL_E_NOT_FOUND, "'", commId, "' is not the program's comm ('",
                          launch.comm_name, "', from HcommRefGetCommName)");
        }
        return body(launch);
    });
}

// The reference has no SQEs to cache: every task cache call refuses after its
// null checks.
HcclResult no_task_cache(const char *api, bool null_args)
{
    // Mutant: support is decided before the arguments are checked.
    if (hcts::mutant("ref_task_cache_support_before_null"))
        return refuse(nullptr, api, HCCL_E_NOT_SUPPORT, "no task cache in the reference");
    if (null_args)
        return refuse(nullptr, api, HCCL_E_PTR, "NULL");
    return refuse(nullptr, api, HCCL_E_NOT_SUPPORT, "no task cache in the reference");
}

HcclResult check_timeout_value(const char *api, float timeOut, uint32_t &seconds)
{
    // Mutant: the sign judged on the integer part, so -0.5 passes as 0.
    const float judged = hcts::mutant("ref_timeout_sign_truncated") ? std::trunc(timeOut) : timeOut;
    if (std::isnan(timeOut) || judged < 0.0F || static_cast<double>(timeOut) > static_cast<double>(UINT32_MAX)) {
        return refuse(nullptr, api, HCCL_E_PARA, "timeOut ", timeOut, " must be a number in [0, 4294967295]");
    }
    seconds = static_cast<uint32_t>(timeOut); // the integer part, as the vendor does
    return HCCL_SUCCESS;
}

std::atomic<uint32_t> g_thread_res_timeout{0};

} // namespace

HCOMM_EXPORT int32_t HcommThreadNotifyRecordOnThread(ThreadHandle thread, ThreadHandle dstThread, uint32_t dstNotifyIdx)
{
    return guarded("HcommThreadNotifyRecordOnThread", [&]() -> int32_t {
        const char *api = "HcommThreadNotifyRecordOnThread";
        if (thread == 0 || dstThread == 0) {
            return refuse(nullptr, api, HCCL_E_PTR, thread == 0 ? "thread" : "dstThread", " is 0");
        }
        Target t;
        if (const HcclResult rc = resolve(api, Api::on_thread, thread, std::nullopt, t); rc != HCCL_SUCCESS)
            return rc;
        auto dst = registry::thread(dstThread);
        if (!dst || dst->comm_id != t.thread->comm_id) {
            return refuse(t.comm, api, HCCL_E_PARA, "dstThread 0x", std::hex, dstThread, std::dec,
                          " is not a live thread of the same comm");
        }
        // Mutant: the index is bounded by the smaller of the two threads' notify counts, not
        // by dstThread's own (threads of different acquires differ).
        const size_t bound = hcts::mutant("ref_thread_record_bound_by_smaller")
                                 ? std::min(dst->core->notifies.size(), t.thread->core->notifies.size())
                                 : dst->core->notifies.size();
        const bool in_range = dstNotifyIdx < bound;
        if (hcts::mutant("ref_thread_record_index_in_task")) {
            // Mutant: the index is checked when the record runs, so the call itself succeeds.
            submit(t.thread, [core = dst->core, comm = t.comm.get(), dstNotifyIdx, in_range] {
                if (!in_range)
                    return HCCL_E_PARA;
                core->notifies.record(dstNotifyIdx);
                ++comm->stats().notifies_raised;
                return HCCL_SUCCESS;
            });
            return HCCL_SUCCESS;
        }
        if (!in_range) {
            return refuse(t.comm, api, HCCL_E_PARA, "dstNotifyIdx ", dstNotifyIdx, " is outside [0, ",
                          dst->core->notifies.size(), ") of dstThread");
        }
        // Mutant (blind-regions.yaml): a thread's record to its own notify does nothing.
        if (dstThread == thread && hcts::mutant("ref_thread_self_record_dropped"))
            return HCCL_SUCCESS;
        if (hcts::mutant("ref_thread_record_at_call") ||
            (hcts::mutant("ref_batch_record_not_held") && current_launch() != nullptr && current_launch()->batching)) {
            // Mutant: the record is raised at the call, not in the thread's order (the second:
            // only inside a batch, which holds the transfers but not it).
            ++t.comm->stats().notifies_raised;
            dst->core->notifies.record(dstNotifyIdx);
            return HCCL_SUCCESS;
        }
        submit(t.thread, [core = dst->core, comm = t.comm.get(), dstNotifyIdx] {
            ++comm->stats().notifies_raised;
            if (!core->notifies.record(dstNotifyIdx))
                ++comm->stats().notify_overruns;
            return HCCL_SUCCESS;
        });
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT int32_t HcommThreadNotifyWaitOnThread(ThreadHandle thread, uint32_t notifyIdx, uint32_t timeOut)
{
    return guarded("HcommThreadNotifyWaitOnThread", [&]() -> int32_t {
        return thread_wait_on_thread("HcommThreadNotifyWaitOnThread", thread, notifyIdx, timeOut);
    });
}

HCOMM_EXPORT int32_t HcommThreadNotifyWaitOnThreadWithDefaultTimeout(ThreadHandle thread, uint32_t notifyIdx)
{
    return guarded("HcommThreadNotifyWaitOnThreadWithDefaultTimeout", [&]() -> int32_t {
        return thread_wait_on_thread("HcommThreadNotifyWaitOnThreadWithDefaultTimeout", thread, notifyIdx,
                                     default_wait_timeout());
    });
}

HCOMM_EXPORT int32_t HcommAclrtNotifyRecordOnThread(ThreadHandle thread, uint64_t dstNotifyId)
{
    return guarded("HcommAclrtNotifyRecordOnThread", [&]() -> int32_t {
        const char *api = "HcommAclrtNotifyRecordOnThread";
        Target t;
        if (const HcclResult rc = resolve_handles(api, Api::aclrt_notify, thread, std::nullopt, t);
            rc != HCCL_SUCCESS) {
            return rc;
        }
        submit(t.thread, [comm = t.comm.get(), dstNotifyId] {
            ++comm->stats().notifies_raised;
            if (!aclrt_notifies().record(dstNotifyId))
                ++comm->stats().notify_overruns;
            return HCCL_SUCCESS;
        });
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT int32_t HcommAclrtNotifyWaitOnThread(ThreadHandle thread, uint64_t notifyId, uint32_t timeOut)
{
    return guarded("HcommAclrtNotifyWaitOnThread", [&]() -> int32_t {
        const char *api = "HcommAclrtNotifyWaitOnThread";
        Target t;
        if (const HcclResult rc = resolve_handles(api, Api::aclrt_notify, thread, std::nullopt, t);
            rc != HCCL_SUCCESS) {
            return rc;
        }
        submit(t.thread, [comm = t.comm.get(), notifyId, timeOut] {
            return finish_wait(*comm, aclrt_notifies().wait(notifyId, deadline_after(timeOut), comm->closing()), "ACL",
                               notifyId, timeOut);
        });
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT int32_t HcommChannelNotifyRecordOnThread(ThreadHandle thread, ChannelHandle channel,
                                                      uint32_t remoteNotifyIdx)
{
    return guarded("HcommChannelNotifyRecordOnThread", [&]() -> int32_t {
        const char *api = "HcommChannelNotifyRecordOnThread";
        // Mutant (selftest/catalogue/survivors.yaml): thread 0 taken as "no stream, record now":
        // the record is made at once on the caller's side instead of refused with HCCL_E_PTR.
        if (thread == 0 && hcts::mutant("ref_record_thread_zero_records_now")) {
            if (auto c = registry::channel(channel); c && remoteNotifyIdx < c->notify_num)
                return do_write(c, reinterpret_cast<void *>(c->peer.addr), c->comm->memory().base(), 0,
                                remoteNotifyIdx);
        }
        Target t;
        if (const HcclResult rc = resolve_channel_notify(api, thread, channel, remoteNotifyIdx, t);
            rc != HCCL_SUCCESS) {
            return rc;
        }
        // Mutant (blind-regions.yaml): with a write of 64 KiB or more still queued on the
        // thread and channel, the record is posted at the call, ahead of it.
        if (hcts::mutant("ref_record_overtakes_large_write") && large_writes_pending(channel, thread))
            return do_write(t.channel, reinterpret_cast<void *>(t.channel->peer.addr), t.comm->memory().base(), 0,
                            remoteNotifyIdx);
        submit(t.thread, [c = t.channel, remoteNotifyIdx] {
            return do_write(c, reinterpret_cast<void *>(c->peer.addr), c->comm->memory().base(), 0, remoteNotifyIdx);
        });
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT int32_t HcommChannelNotifyRecord(ChannelHandle channel, uint32_t remoteNotifyIdx)
{
    return guarded("HcommChannelNotifyRecord", [&]() -> int32_t {
        const char *api = "HcommChannelNotifyRecord";
        Target t;
        if (const HcclResult rc = resolve_channel_notify(api, std::nullopt, channel, remoteNotifyIdx, t);
            rc != HCCL_SUCCESS) {
            return rc;
        }
        return do_write(t.channel, reinterpret_cast<void *>(t.channel->peer.addr), t.comm->memory().base(), 0,
                        remoteNotifyIdx);
    });
}

HCOMM_EXPORT int32_t HcommChannelNotifyWaitOnThread(ThreadHandle thread, ChannelHandle channel, uint32_t localNotifyIdx,
                                                    uint32_t timeOut)
{
    return guarded("HcommChannelNotifyWaitOnThread", [&]() -> int32_t {
        // Mutant: the deadline rounded up by a whole unit (a finite wait ends one unit late).
        const uint32_t late = timeOut != 0 && hcts::mutant("ref_wait_timeout_one_unit_late") ? 1 : 0;
        // Mutant: timeOut 0 taken as "give up after a second" instead of "wait forever".
        if (timeOut == 0 && hcts::mutant("ref_wait_zero_gives_up_after_1s"))
            timeOut = env::timeout_unit_is_ms() ? 1000U : 1U;
        return channel_wait_on_thread("HcommChannelNotifyWaitOnThread", thread, channel, localNotifyIdx,
                                      timeOut + late);
    });
}

HCOMM_EXPORT int32_t HcommChannelNotifyWaitOnThreadWithDefaultTimeout(ThreadHandle thread, ChannelHandle channel,
                                                                      uint32_t localNotifyIdx)
{
    return guarded("HcommChannelNotifyWaitOnThreadWithDefaultTimeout", [&]() -> int32_t {
        return channel_wait_on_thread("HcommChannelNotifyWaitOnThreadWithDefaultTimeout", thread, channel,
                                      localNotifyIdx, default_wait_timeout());
    });
}

HCOMM_EXPORT int32_t HcommChannelNotifyWait(ChannelHandle channel, uint32_t localNotifyIdx, uint32_t timeOut)
{
    return guarded("HcommChannelNotifyWait", [&]() -> int32_t {
        const char *api = "HcommChannelNotifyWait";
        Target t;
        if (const HcclResult rc = resolve_channel_notify(api, std::nullopt, channel, localNotifyIdx, t);
            rc != HCCL_SUCCESS) {
            return rc;
        }
        return do_channel_wait(t.channel, localNotifyIdx, timeOut);
    });
}

HCOMM_EXPORT int32_t HcommFenceOnThread(ThreadHandle thread)
{
    return guarded("HcommFenceOnThread", [&]() -> int32_t {
        return ordering_task("HcommFenceOnThread", Api::fence_on_thread, thread, std::nullopt);
    });
}

HCOMM_EXPORT int32_t HcommChannelFenceOnThread(ThreadHandle thread, ChannelHandle channel)
{
    return guarded("HcommChannelFenceOnThread", [&]() -> int32_t {
        return ordering_task("HcommChannelFenceOnThread", Api::channel_fence_on_thread, thread, channel);
    });
}

HCOMM_EXPORT int32_t HcommChannelDrainOnThread(ThreadHandle thread, ChannelHandle channel)
{
    return guarded("HcommChannelDrainOnThread", [&]() -> int32_t {
        return ordering_task("HcommChannelDrainOnThread", Api::drain, thread, channel);
    });
}

HCOMM_EXPORT int32_t HcommChannelFence(ChannelHandle channel)
{
    return guarded("HcommChannelFence", [&]() -> int32_t {
        const char *api = "HcommChannelFence";
        Target t;
        if (const HcclResult rc = resolve_host_channel(api, channel, t); rc != HCCL_SUCCESS)
            return rc;
        if (!profile().ascend950) {
            return refuse(t.comm, api, HCCL_E_NOT_SUPPORT, "fences exist on 950 products only");
        }
        return HCCL_SUCCESS; // host transfers complete before they return
    });
}

HCOMM_EXPORT int32_t HcommSetNotifyWaitTimeOut(float timeOut)
{
    return guarded("HcommSetNotifyWaitTimeOut", [&]() -> int32_t {
        uint32_t value = 0;
        if (const HcclResult rc = check_timeout_value("HcommSetNotifyWaitTimeOut", timeOut, value);
            rc != HCCL_SUCCESS) {
            return rc;
        }
        // Mutant: 0 ("wait forever", accepted by the vendor's unit test) refused as out of range.
        if (value == 0 && hcts::mutant("ref_set_wait_timeout_zero_refused"))
            return refuse(nullptr, "HcommSetNotifyWaitTimeOut", HCCL_E_PARA, "timeOut ", timeOut,
                          " must be at least 1");
        // Mutant (survivors.yaml): the seconds rounded to the nearest whole number, not truncated
        // (1.7 gives 2, 0.6 gives 1 instead of 0, forever).
        if (hcts::mutant("ref_set_wait_timeout_rounded"))
            value = static_cast<uint32_t>(std::lround(timeOut));
        // Mutant (blind-regions.yaml): the default kept in 16 bits (65537 gives 1).
        if (hcts::mutant("ref_set_wait_timeout_low_16_bits"))
            value &= 0xFFFFU;
        // Mutant: the setter checks its argument but the default is never changed.
        if (!hcts::mutant("ref_set_wait_timeout_ignored"))
            set_default_wait_timeout(value);
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT int32_t HcommThreadResAcquireTimeOut(float timeOut)
{
    return guarded("HcommThreadResAcquireTimeOut", [&]() -> int32_t {
        uint32_t value = 0;
        // Mutant: a negative timeout clamped to 0 (never time out) instead of refused.
        if (hcts::mutant("ref_res_timeout_negative_clamped") && timeOut < 0.0F)
            timeOut = 0.0F;
        if (const HcclResult rc = check_timeout_value("HcommThreadResAcquireTimeOut", timeOut, value);
            rc != HCCL_SUCCESS) {
            return rc;
        }
        // Acquisition never waits for resources in the reference; the value is kept only.
        g_thread_res_timeout = value;
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT int32_t HcommBatchModeStart(const char *batchTag)
{
    return guarded("HcommBatchModeStart", [&]() -> int32_t {
        const char *api = "HcommBatchModeStart";
        batchTag = batchTag != nullptr ? batchTag : ""; // NULL, like "", is a temporary batch (vendor page)
        return in_device_program(api, batchTag, "batchTag", kBatchOnHost, [&](LaunchRecord &launch) {
            if (launch.batching) {
                return refuse(nullptr, api, HCCL_E_PARA, "batch '", launch.batch_tag, "' is still open");
            }
            launch.batching = true;
            launch.batch_tag = batchTag;
            return HCCL_SUCCESS;
        });
    });
}

HCOMM_EXPORT int32_t HcommBatchModeEnd(const char *batchTag)
{
    return guarded("HcommBatchModeEnd", [&]() -> int32_t {
        const char *api = "HcommBatchModeEnd";
        batchTag = batchTag != nullptr ? batchTag : "";
        return in_device_program(api, batchTag, "batchTag", kBatchOnHost, [&](LaunchRecord &launch) {
            // Mutant: End closes whatever batch is open, whatever its tag.
            const bool tag_matches = launch.batch_tag == batchTag || hcts::mutant("ref_batch_end_tag_unchecked");
            if (!launch.batching || !tag_matches) {
                return refuse(nullptr, api, HCCL_E_PARA, "batch '", batchTag, "' is not the open batch ('",
                              launch.batching ? launch.batch_tag : std::string("none"), "')");
            }
            launch.batching = false;
            launch.batch_tag.clear();
            if (hcts::mutant("ref_batch_end_discards_held"))
                launch.held.clear(); // Mutant: End forgets what the batch held instead of submitting it
            launch.flush_held();     // the submission of everything the batch held, in order
            return HCCL_SUCCESS;
        });
    });
}

HCOMM_EXPORT int32_t HcommAcquireComm(const char *commId)
{
    return guarded("HcommAcquireComm", [&]() -> int32_t {
        return with_program_comm("HcommAcquireComm", commId, "device programs acquire comms; the host has them already",
                                 [](LaunchRecord &launch) {
                                     ++launch.acquired_comm;
                                     return HCCL_SUCCESS;
                                 });
    });
}

HCOMM_EXPORT int32_t HcommReleaseComm(const char *commId)
{
    return guarded("HcommReleaseComm", [&]() -> int32_t {
        const char *api = "HcommReleaseComm";
        return with_program_comm(api, commId, "device programs release comms", [&](LaunchRecord &launch) {
            if (launch.acquired_comm == 0) {
                return refuse(nullptr, api, HCCL_E_PARA, "released more often than acquired");
            }
            --launch.acquired_comm;
            return HCCL_SUCCESS;
        });
    });
}

HCOMM_EXPORT HcclResult HcommThreadJoin(ThreadHandle thread, uint32_t timeout)
{
    return guarded("HcommThreadJoin", [&]() -> HcclResult {
        const char *api = "HcommThreadJoin";
        if (thread == 0) {
            return refuse(nullptr, api, HCCL_E_PTR, "thread is 0");
        }
        auto t = registry::thread(thread);
        if (!t) {
            return refuse(nullptr, api, HCCL_E_PARA, "thread 0x", std::hex, thread, std::dec, " is not a live thread");
        }
        // A copy: the thread's comm may be destroyed meanwhile (the queue then ends
        // its tasks and this wait returns with their failure).
        const std::shared_ptr<TaskQueue> queue = t->core->queue;
        // Mutant: join waits for the task before the last one (a sequence off by one).
        const uint64_t queued = queue->enqueued();
        const uint64_t upto = queued > 0 && hcts::mutant("ref_join_one_task_early") ? queued - 1 : queued;
        if (!queue->wait_done(upto, deadline_after(timeout))) {
            return HCCL_E_TIMEOUT;
        }
        // Mutant: join reports only its own deadline, not the thread's failure.
        return hcts::mutant("ref_join_ignores_task_error") ? HCCL_SUCCESS : queue->error();
    });
}

// The AICPU task cache records and replays SQEs of a 950 device (see no_task_cache).
HCOMM_EXPORT HcommResult HcommAicpuTsTaskCacheLookup(const char *tag, bool *isHit)
{
    return guarded("HcommAicpuTsTaskCacheLookup", [&]() -> HcommResult {
        // Mutant: on the host a lookup "misses" instead of being refused as a device-side call.
        if (hcts::mutant("ref_task_cache_lookup_on_host") && current_launch() == nullptr && tag != nullptr &&
            isHit != nullptr) {
            *isHit = false;
            return HCCL_SUCCESS;
        }
        return no_task_cache("HcommAicpuTsTaskCacheLookup", tag == nullptr || isHit == nullptr);
    });
}

HCOMM_EXPORT HcommResult HcommAicpuTsTaskCacheStart(const char *tag, void **addrs, uint64_t *sizes, uint64_t count)
{
    return guarded("HcommAicpuTsTaskCacheStart", [&]() -> HcommResult {
        return no_task_cache("HcommAicpuTsTaskCacheStart",
                             tag == nullptr || (count != 0 && (addrs == nullptr || sizes == nullptr)));
    });
}

HCOMM_EXPORT HcommResult HcommAicpuTsTaskCacheEnd(const char *tag)
{
    return guarded("HcommAicpuTsTaskCacheEnd",
                   [&]() -> HcommResult { return no_task_cache("HcommAicpuTsTaskCacheEnd", tag == nullptr); });
}

HCOMM_EXPORT HcommResult HcommAicpuTsTaskCacheExecute(const char *tag, void **addrs, uint64_t *sizes, uint64_t count)
{
    return guarded("HcommAicpuTsTaskCacheExecute", [&]() -> HcommResult {
        return no_task_cache("HcommAicpuTsTaskCacheExecute",
                             tag == nullptr || (count != 0 && (addrs == nullptr || sizes == nullptr)));
    });
}

HCOMM_EXPORT HcommResult HcommAicpuTsTaskCacheClear(const char *tag)
{
    return guarded("HcommAicpuTsTaskCacheClear",
                   [&]() -> HcommResult { return no_task_cache("HcommAicpuTsTaskCacheClear", tag == nullptr); });
}
