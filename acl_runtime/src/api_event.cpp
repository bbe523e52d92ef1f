// Events and notifies: records and waits that are tasks of streams (and, for events,
// host synchronisation), each wait in the reference's wait report while it blocks.
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>

#include "hcomm_ref/hcomm_ref.h"
#include "runtime.h"

namespace hcts_acl {

namespace {

// An event counts the records issued (aclrtRecordEvent) and the records its streams
// ran; a wait issued after the n-th record waits until n records ran.
struct Event {
    explicit Event(int32_t d) : device(d) {}
    const int32_t device;
    std::mutex mutex;
    std::condition_variable ran;
    uint64_t issued = 0;
    uint64_t completed = 0;
};

// A notify is binary: a record sets it, a wait consumes it (waits for it, then resets it).
struct Notify {
    explicit Notify(int32_t d) : device(d) {}
    const int32_t device;
    std::mutex mutex;
    std::condition_variable recorded;
    bool set = false;
    uint64_t records = 0;
};

HandleTable<Event> &events()
{
    static auto *table = new HandleTable<Event>(0x4556); // "EV"; never destroyed
    return *table;
}

HandleTable<Notify> &notifies()
{
    static auto *table = new HandleTable<Notify>(0x4E54); // "NT"; never destroyed
    return *table;
}

aclError find_event(const char *api, aclrtEvent handle, std::shared_ptr<Event> &event)
{
    if (handle == nullptr)
        return fail(api, ACL_ERROR_INVALID_PARAM, "event is NULL");
    event = events().find(handle);
    if (!event) {
        return fail(api, ACL_ERROR_RT_PARAM_INVALID, "event ", hex(handle),
                    " is not a live event (aclrtCreateEvent; destroyed events are gone)");
    }
    return ACL_SUCCESS;
}

aclError find_notify(const char *api, aclrtNotify handle, std::shared_ptr<Notify> &notify)
{
    if (handle == nullptr)
        return fail(api, ACL_ERROR_INVALID_PARAM, "notify is NULL");
    notify = notifies().find(handle);
    if (!notify) {
        return fail(api, ACL_ERROR_RT_PARAM_INVALID, "notify ", hex(handle),
                    " is not a live notify (aclrtCreateNotify; destroyed notifies are gone)");
    }
    return ACL_SUCCESS;
}

// Waits on the host until the event's record `target` ran, or the deadline.
bool event_reached(Event &event, uint64_t target, std::optional<Clock::time_point> deadline)
{
    std::unique_lock<std::mutex> lock(event.mutex);
    const auto reached = [&] { return event.completed >= target; };
    if (!deadline) {
        event.ran.wait(lock, reached);
        return true;
    }
    return event.ran.wait_until(lock, *deadline, reached);
}

aclError synchronize_event(const char *api, aclrtEvent handle, int32_t timeout)
{
    std::shared_ptr<Event> event;
    if (const aclError rc = find_event(api, handle, event); rc != ACL_SUCCESS)
        return rc;
    uint64_t target = 0;
    {
        std::lock_guard<std::mutex> lock(event->mutex);
        target = event->issued;
    }
    std::optional<Clock::time_point> deadline;
    if (timeout >= 0)
        deadline = Clock::now() + std::chrono::milliseconds(timeout);
    bool reached = false;
    {
        std::optional<ReportedWait> reported;
        if (timeout != 0)
            reported.emplace(HCOMM_REF_ACL_WAIT_EVENT_SYNC, event->device, handle, target,
                             timeout > 0 ? static_cast<uint32_t>(timeout) : 0);
        reached = event_reached(*event, target, deadline);
    }
    if (!reached) {
        return fail(api, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, "event ", hex(handle), "'s record ", target,
                    " has not run after ", timeout, " ms");
    }
    return ACL_SUCCESS;
}

aclError need_device(const char *api, int32_t &device)
{
    const std::optional<int32_t> current = current_device();
    if (!current)
        return fail(api, ACL_ERROR_RT_CONTEXT_NULL, "the calling thread has no device (aclrtSetDevice first)");
    device = *current;
    return ACL_SUCCESS;
}

} // namespace

} // namespace hcts_acl

using namespace hcts_acl;

// ---- events -------------------------------------------------------------------

ACL_EXPORT aclError aclrtCreateEvent(aclrtEvent *event)
{
    return guarded("aclrtCreateEvent", [&]() -> aclError {
        const char *api = "aclrtCreateEvent";
        if (event == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, "event is NULL");
        int32_t device = -1;
        if (const aclError rc = need_device(api, device); rc != ACL_SUCCESS)
            return rc;
        *event = events().add(std::make_shared<Event>(device));
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtDestroyEvent(aclrtEvent event)
{
    return guarded("aclrtDestroyEvent", [&]() -> aclError {
        const char *api = "aclrtDestroyEvent";
        if (event == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, "event is NULL");
        // Records and waits already queued keep the event until they ran.
        if (!events().remove(event)) {
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, "event ", hex(event),
                        " is not a live event (never created, or destroyed already)");
        }
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    return guarded("aclrtRecordEvent", [&]() -> aclError {
        const char *api = "aclrtRecordEvent";
        std::shared_ptr<Event> found;
        if (const aclError rc = find_event(api, event, found); rc != ACL_SUCCESS)
            return rc;
        std::shared_ptr<Stream> target;
        if (const aclError rc = resolve_stream(api, stream, target); rc != ACL_SUCCESS)
            return rc;
        uint64_t record = 0;
        {
            std::lock_guard<std::mutex> lock(found->mutex);
            record = ++found->issued;
        }
        target->enqueue([found, record, event]() -> std::pair<aclError, std::string> {
            {
                std::lock_guard<std::mutex> lock(found->mutex);
                found->completed = std::max(found->completed, record);
            }
            found->ran.notify_all();
            report_recorded(event, found->device, record);
            return {ACL_SUCCESS, {}};
        });
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    return guarded("aclrtStreamWaitEvent", [&]() -> aclError {
        const char *api = "aclrtStreamWaitEvent";
        std::shared_ptr<Event> found;
        if (const aclError rc = find_event(api, event, found); rc != ACL_SUCCESS)
            return rc;
        std::shared_ptr<Stream> waiting;
        if (const aclError rc = resolve_stream(api, stream, waiting); rc != ACL_SUCCESS)
            return rc;
        uint64_t target = 0;
        {
            std::lock_guard<std::mutex> lock(found->mutex);
            target = found->issued;
        }
        if (target == 0)
            return ACL_SUCCESS; // never recorded: nothing to wait for
        // The stream's later tasks run after the event's latest record issued so far.
        std::weak_ptr<Stream> self = waiting;
        waiting->enqueue([found, target, event, self]() -> std::pair<aclError, std::string> {
            std::optional<ReportedWait> reported;
            if (const std::shared_ptr<Stream> s = self.lock())
                reported.emplace(HCOMM_REF_ACL_WAIT_STREAM_EVENT, *s, event, target, 0);
            event_reached(*found, target, std::nullopt);
            return {ACL_SUCCESS, {}};
        });
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    return guarded("aclrtSynchronizeEvent",
                   [&]() -> aclError { return synchronize_event("aclrtSynchronizeEvent", event, -1); });
}

ACL_EXPORT aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    return guarded("aclrtSynchronizeEventWithTimeout", [&]() -> aclError {
        const char *api = "aclrtSynchronizeEventWithTimeout";
        if (timeout < -1)
            return fail(api, ACL_ERROR_INVALID_PARAM, "timeout ", timeout, " ms: -1 (no deadline), 0 (check) or more");
        return synchronize_event(api, event, timeout);
    });
}

ACL_EXPORT aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    return guarded("aclrtQueryEventStatus", [&]() -> aclError {
        const char *api = "aclrtQueryEventStatus";
        if (status == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, "status is NULL");
        std::shared_ptr<Event> found;
        if (const aclError rc = find_event(api, event, found); rc != ACL_SUCCESS)
            return rc;
        std::lock_guard<std::mutex> lock(found->mutex);
        *status = found->completed >= found->issued ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                                                    : ACL_EVENT_RECORDED_STATUS_NOT_READY;
        return ACL_SUCCESS;
    });
}

// ---- notifies -----------------------------------------------------------------

ACL_EXPORT aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag)
{
    return guarded("aclrtCreateNotify", [&]() -> aclError {
        const char *api = "aclrtCreateNotify";
        if (notify == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, "notify is NULL");
        if (flag != 0)
            return fail(api, ACL_ERROR_INVALID_PARAM, "flag ", flag, " is reserved and must be 0");
        int32_t device = -1;
        if (const aclError rc = need_device(api, device); rc != ACL_SUCCESS)
            return rc;
        *notify = notifies().add(std::make_shared<Notify>(device));
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtDestroyNotify(aclrtNotify notify)
{
    return guarded("aclrtDestroyNotify", [&]() -> aclError {
        const char *api = "aclrtDestroyNotify";
        if (notify == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, "notify is NULL");
        if (!notifies().remove(notify)) {
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, "notify ", hex(notify),
                        " is not a live notify (never created, or destroyed already)");
        }
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)
{
    return guarded("aclrtRecordNotify", [&]() -> aclError {
        const char *api = "aclrtRecordNotify";
        std::shared_ptr<Notify> found;
        if (const aclError rc = find_notify(api, notify, found); rc != ACL_SUCCESS)
            return rc;
        std::shared_ptr<Stream> target;
        if (const aclError rc = resolve_stream(api, stream, target); rc != ACL_SUCCESS)
            return rc;
        target->enqueue([found, notify]() -> std::pair<aclError, std::string> {
            uint64_t records = 0;
            {
                std::lock_guard<std::mutex> lock(found->mutex);
                found->set = true;
                records = ++found->records;
            }
            found->recorded.notify_all();
            report_recorded(notify, found->device, records);
            return {ACL_SUCCESS, {}};
        });
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout)
{
    return guarded("aclrtWaitAndResetNotify", [&]() -> aclError {
        const char *api = "aclrtWaitAndResetNotify";
        std::shared_ptr<Notify> found;
        if (const aclError rc = find_notify(api, notify, found); rc != ACL_SUCCESS)
            return rc;
        std::shared_ptr<Stream> waiting;
        if (const aclError rc = resolve_stream(api, stream, waiting); rc != ACL_SUCCESS)
            return rc;
        std::weak_ptr<Stream> self = waiting;
        waiting->enqueue([found, notify, timeout, self]() -> std::pair<aclError, std::string> {
            std::optional<ReportedWait> reported;
            if (const std::shared_ptr<Stream> s = self.lock())
                reported.emplace(HCOMM_REF_ACL_WAIT_STREAM_NOTIFY, *s, notify, 0, timeout);
            std::unique_lock<std::mutex> lock(found->mutex);
            const auto is_set = [&] { return found->set; };
            // Reference choice: timeout 0 waits without a deadline.
            if (timeout == 0)
                found->recorded.wait(lock, is_set);
            else if (!found->recorded.wait_for(lock, std::chrono::milliseconds(timeout), is_set))
                return {ACL_ERROR_RT_WAIT_TIMEOUT, "aclrtWaitAndResetNotify: notify " + hex(notify) +
                                                       " was not recorded within " + std::to_string(timeout) + " ms"};
            found->set = false;
            return {ACL_SUCCESS, {}};
        });
        return ACL_SUCCESS;
    });
}
