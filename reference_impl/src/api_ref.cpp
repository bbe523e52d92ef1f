// Reference-only extensions (include/hcomm_ref/hcomm_ref.h): the emulated device
// launch, the product profile, counters and a notify peek for watchdogs.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>

#include <hcts/mutant.h>

#include "data_path.h"
#include "hcomm_ref/hcomm_ref.h"
#include "registry.h"
#include "wait_report.h"

using namespace hcomm_ref;

HCOMM_EXPORT HcclResult HcommRefDeviceLaunch(HcclComm comm, HcommRefDeviceFn fn, void *args, uint32_t timeoutMs,
                                             HcommRefLaunchResult *result)
{
    return guarded("HcommRefDeviceLaunch", [&]() -> HcclResult {
        const char *api = "HcommRefDeviceLaunch";
        if (comm == nullptr || fn == nullptr || result == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "comm, fn and result must not be NULL");
        }
        registry::CommRef live;
        if (const HcclResult rc = live_comm(api, comm, live); rc != HCCL_SUCCESS)
            return rc;
        if (is_device_side()) {
            return refuse(live, api, HCCL_E_NOT_SUPPORT, "a device program cannot launch another");
        }
        const auto start = Clock::now();
        // Mutant: timeoutMs ignored, the launch waits for its tasks without a deadline.
        const std::optional<Deadline> deadline =
            timeoutMs == 0 || hcts::mutant("ref_launch_deadline_ignored")
                ? std::nullopt
                : std::optional<Deadline>(start + std::chrono::milliseconds(timeoutMs));
        LaunchRecord record;
        record.comm = comm;
        record.comm_name = live->name();
        const uint32_t rank = live->rank();
        // Released before the program runs: its calls hold the comm each while they run,
        // and a destroy meanwhile must not wait for the caller's program (it ends the
        // program's tasks, and the launch reads nothing of the comm from here on).
        live = {};
        uint32_t returned = 0;
        {
            DeviceScope scope(record);
            returned = fn(args);
        }
        if (record.batching) {
            HREF_LOG_WARN(rank, "device program returned inside batch '", record.batch_tag,
                          "'; its tasks are submitted now");
            record.batching = false;
            record.flush_held();
        }
        // Like a stream synchronisation: every task the program enqueued has run (or
        // was skipped after an earlier failure) before the launch completes.
        bool timed_out = false;
        for (const auto &queue : record.touched) {
            // Mutant: the launch returns at the doorbell, before the program's tasks ran.
            if (hcts::mutant("ref_launch_skips_task_wait"))
                break;
            if (!queue->wait_done(queue->enqueued(), deadline)) {
                timed_out = true;
                break;
            }
        }
        int32_t task_error = HCCL_SUCCESS;
        // Mutant: the tasks' failures are not reported in taskError.
        for (const auto &queue : record.touched) {
            if (hcts::mutant("ref_launch_task_error_dropped"))
                break;
            if (const HcclResult rc = queue->error(); rc != HCCL_SUCCESS) {
                task_error = rc;
                break;
            }
        }
        HcommRefLaunchResult out{};
        out.version = HCOMM_REF_ABI_VERSION;
        out.size = sizeof(HcommRefLaunchResult);
        out.programReturn = returned;
        out.taskError = task_error;
        out.timedOut = timed_out ? 1 : 0;
        out.elapsedNs =
            static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
        *result = out;
        return timed_out ? HCCL_E_TIMEOUT : HCCL_SUCCESS;
    });
}

HCOMM_EXPORT int32_t HcommRefIsDeviceSide(void) { return is_device_side() ? 1 : 0; }

HCOMM_EXPORT const char *HcommRefProductName(void)
{
    // Not through guarded (no error code to return): the profile is read once per process.
    try {
        return profile().name.data();
    } catch (...) {
        exception_to_code("HcommRefProductName");
        return "unknown";
    }
}

HCOMM_EXPORT HcclResult HcommRefGetStats(HcclComm comm, HcommRefStats *stats)
{
    return guarded("HcommRefGetStats", [&]() -> HcclResult {
        const char *api = "HcommRefGetStats";
        if (comm == nullptr || stats == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "comm and stats must not be NULL");
        }
        registry::CommRef live;
        if (const HcclResult rc = live_comm(api, comm, live); rc != HCCL_SUCCESS)
            return rc;
        if (stats->size < 2 * sizeof(uint32_t)) {
            return refuse(live, api, HCCL_E_PARA, "stats->size ", stats->size, " must at least cover version and size");
        }
        const Stats &s = live->stats();
        // Every field named, so a counter added to the ABI struct but not filled in
        // is a missing-initializer warning.
        const HcommRefStats full{
            .version = HCOMM_REF_ABI_VERSION,
            .size = static_cast<uint32_t>(std::min<size_t>(stats->size, sizeof(HcommRefStats))),
            .bytesWritten = s.bytes_written,
            .bytesRead = s.bytes_read,
            .notifiesRaised = s.notifies_raised,
            .notifiesConsumed = s.notifies_consumed,
            .notifyOverruns = s.notify_overruns,
            .rejectedCalls = s.rejected_calls,
            .taskErrors = s.task_errors,
        };
        std::memcpy(stats, &full, full.size); // fields beyond the caller's size stay untouched
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcommRefPeekNotify(HcclComm comm, ChannelHandle channel, uint32_t localNotifyIdx,
                                           int32_t *isSet)
{
    return guarded("HcommRefPeekNotify", [&]() -> HcclResult {
        const char *api = "HcommRefPeekNotify";
        if (comm == nullptr || channel == 0 || isSet == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "comm, channel and isSet must not be NULL/0");
        }
        registry::CommRef live = registry::pin_comm(comm);
        auto c = registry::channel(channel);
        if (live == nullptr || !c || c->comm_id != live->handle() || localNotifyIdx >= c->notify_num) {
            return refuse(live, api, HCCL_E_PARA, "channel 0x", std::hex, channel, std::dec, " / index ",
                          localNotifyIdx, ": needs a live channel of the comm and an index below its notifyNum");
        }
        *isSet = c->notifies->peek(localNotifyIdx) ? 1 : 0;
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcommRefGetCommName(HcclComm comm, char *name, uint32_t len)
{
    return guarded("HcommRefGetCommName", [&]() -> HcclResult {
        const char *api = "HcommRefGetCommName";
        if (comm == nullptr || name == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "comm and name must not be NULL");
        }
        registry::CommRef live = registry::pin_comm(comm);
        if (live == nullptr || len <= live->name().size()) {
            return refuse(live, api, HCCL_E_PARA, "needs a live comm and len > ",
                          live != nullptr ? live->name().size() : 0U);
        }
        std::memcpy(name, live->name().c_str(), live->name().size() + 1);
        return HCCL_SUCCESS;
    });
}

// ---- the hcts ACL runtime's waits in the wait report ------------------------------------

namespace {

// The ACL waits in progress, by token (serial numbers, never reused: a made-up or
// ended token finds nothing).
struct AclWaits {
    std::mutex mutex;
    uint64_t next = 1;
    std::unordered_map<uint64_t, std::unique_ptr<wait_report::WaitScope>> scopes;
};

AclWaits &acl_waits()
{
    static auto *instance = new AclWaits; // never destroyed: waits may end during exit
    return *instance;
}

} // namespace

namespace {
uint64_t acl_wait_begin(const HcommRefAclWait *wait)
{
    if (wait == nullptr || wait->what < HCOMM_REF_ACL_WAIT_STREAM_SYNC ||
        wait->what > HCOMM_REF_ACL_WAIT_STREAM_NOTIFY || !wait_report::enabled())
        return 0;
    uint32_t rank = UINT32_MAX;
    if (wait->comm != nullptr) {
        if (const registry::CommRef live = registry::pin_comm(wait->comm); live != nullptr)
            rank = live->rank();
    }
    const auto kind = static_cast<wait_report::Kind>(2 + wait->what);
    const auto count = static_cast<uint32_t>(std::min<uint64_t>(wait->count, UINT32_MAX));
    auto scope = std::make_unique<wait_report::WaitScope>(
        kind, rank, static_cast<uint32_t>(wait->device), count, 0, wait->timeoutMs, wait->stream, wait->object,
        reinterpret_cast<const void *>(static_cast<uintptr_t>(wait->object)));
    AclWaits &all = acl_waits();
    std::lock_guard<std::mutex> lock(all.mutex);
    const uint64_t token = all.next++;
    all.scopes.emplace(token, std::move(scope));
    return token;
}
} // namespace

// Not HcclResult-valued, so not through guarded(): a wait the report cannot record
// (no memory) is simply not reported, token 0, with the cause said once.
HCOMM_EXPORT uint64_t HcommRefAclWaitBegin(const HcommRefAclWait *wait)
{
    try {
        return acl_wait_begin(wait);
    } catch (...) {
        (void)exception_to_code("HcommRefAclWaitBegin");
        return 0;
    }
}

HCOMM_EXPORT void HcommRefAclWaitEnd(uint64_t token)
{
    // Token 0: a wait that was never recorded (the report is off, or Begin had no memory),
    // so nothing to find, and nothing to allocate: the table may not exist yet.
    if (token == 0)
        return;
    try {
        std::unique_ptr<wait_report::WaitScope> ended;
        AclWaits &all = acl_waits();
        std::lock_guard<std::mutex> lock(all.mutex);
        if (const auto it = all.scopes.find(token); it != all.scopes.end()) {
            ended = std::move(it->second);
            all.scopes.erase(it);
        }
    } catch (...) { // called from destructors: nothing may leave it
        (void)exception_to_code("HcommRefAclWaitEnd");
    }
}

HCOMM_EXPORT void HcommRefAclRecorded(uint64_t object, int32_t device, uint64_t records)
{
    if (object == 0 || !wait_report::enabled())
        return;
    try {
        wait_report::notify_received(reinterpret_cast<const void *>(static_cast<uintptr_t>(object)), UINT32_MAX,
                                     static_cast<uint32_t>(device),
                                     static_cast<uint32_t>(std::min<uint64_t>(records, UINT32_MAX)));
    } catch (...) {
        (void)exception_to_code("HcommRefAclRecorded");
    }
}
