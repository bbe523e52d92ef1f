// Internals of the hcts ACL runtime (libascendcl.so): errors, handle tables,
// devices, memory and streams shared by the api_*.cpp entry points.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "acl/acl_rt.h"
#include "hccl/hccl_types.h"

#define ACL_EXPORT extern "C" __attribute__((visibility("default")))

namespace hcts_acl {

// ---- errors -----------------------------------------------------------------

// Records "<api>: <message>" as the calling thread's most recent error (what
// aclGetRecentErrMsg returns) and returns `code`.
aclError record_error(const char *api, aclError code, const std::string &message);

template <typename... Parts>
aclError fail(const char *api, aclError code, const Parts &...parts)
{
    std::ostringstream out;
    (out << ... << parts);
    return record_error(api, code, out.str());
}

std::string hex(const void *p);

// What an exception that reached an exported function becomes: its code, recorded as the
// thread's most recent error when that can be done, and said on stderr. Never throws.
aclError exception_to_error(const char *api) noexcept;

// Every exported function runs its body through this, so no exception crosses the C ABI:
// std::bad_alloc -> ACL_ERROR_BAD_ALLOC; std::system_error (the system refused a thread or
// other resource) -> ACL_ERROR_RT_FAILURE; anything else -> ACL_ERROR_INTERNAL_ERROR.
template <typename Body>
aclError guarded(const char *api, Body &&body) noexcept
{
    try {
        return body();
    } catch (...) {
        return exception_to_error(api);
    }
}

// An enum's value as the caller stored it, read without loading the enum type
// (a value outside the enumerators is input to refuse, not undefined behaviour).
template <typename Enum>
int32_t raw_value(const Enum &value)
{
    static_assert(sizeof(Enum) == sizeof(int32_t));
    int32_t raw = 0;
    std::memcpy(&raw, &value, sizeof(raw));
    return raw;
}

// The whole of a regular file, or false.
bool read_file(const char *path, std::string &text);

// ---- handles ----------------------------------------------------------------

// Opaque handles are ids (a two-letter tag in bits 48..62, a sequence number
// below), looked up in a table and never dereferenced: a made-up, destroyed or
// other-kind handle is refused, never a crash. Ids are never reused.
template <typename T>
class HandleTable {
  public:
    explicit HandleTable(uint64_t tag) : tag_(tag << 48) {}

    void *add(std::shared_ptr<T> object)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        const uint64_t id = tag_ | next_++;
        objects_.emplace(id, std::move(object));
        return reinterpret_cast<void *>(static_cast<uintptr_t>(id));
    }
    std::shared_ptr<T> find(const void *handle)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto it = objects_.find(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle)));
        return it == objects_.end() ? nullptr : it->second;
    }
    std::shared_ptr<T> remove(const void *handle)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto it = objects_.find(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle)));
        if (it == objects_.end())
            return nullptr;
        auto object = std::move(it->second);
        objects_.erase(it);
        return object;
    }
    template <typename Pred>
    std::vector<std::pair<void *, std::shared_ptr<T>>> remove_if(Pred pred)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        std::vector<std::pair<void *, std::shared_ptr<T>>> removed;
        for (auto it = objects_.begin(); it != objects_.end();) {
            if (pred(*it->second)) {
                removed.emplace_back(reinterpret_cast<void *>(static_cast<uintptr_t>(it->first)), it->second);
                it = objects_.erase(it);
            } else {
                ++it;
            }
        }
        return removed;
    }
    // Calls f on every live object (under the table's lock: f must not call back into it).
    template <typename F>
    void for_each(F f)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto &entry : objects_)
            f(*entry.second);
    }

  private:
    std::mutex mutex_;
    std::unordered_map<uint64_t, std::shared_ptr<T>> objects_;
    uint64_t tag_;
    uint64_t next_ = 1;
};

// ---- devices ----------------------------------------------------------------

// The number of emulated devices (HCTS_ACL_DEVICES, read once), or 0 with
// `why` set when the variable is invalid.
uint32_t device_count(std::string *why = nullptr);

// The calling thread's current device, if it has one that is still set.
std::optional<int32_t> current_device();

// Checks that `device` is a valid id (records the error otherwise).
aclError check_device_id(const char *api, int32_t device);

// ---- memory -----------------------------------------------------------------

// A communicator's HCCL buffer is device memory on the device the communicator
// serves (as on the hardware, where the communication memory is HBM): copies of
// every kind accept it, aclrtFree refuses it. Adopted when the reference offers
// the communicator (HcclCommInitRootInfo), forgotten when it withdraws it.
void adopt_comm_memory(HcclComm comm, int32_t device);
// The same for other memory the communicator owns on the device: an engine context of a
// device engine (HcclEngineCtxCreate), which operators fill with aclrtMemcpy.
void adopt_comm_range(HcclComm comm, const void *base, size_t size, int32_t device);
void forget_comm_memory(HcclComm comm);

// ---- streams ----------------------------------------------------------------

using Clock = std::chrono::steady_clock;

// A stream runs nothing by itself: it is an in-order queue of launched jobs, run
// by a worker thread it starts at its first job. Synchronisation waits until
// every job has finished and reports the first failure since the last one.
class Stream {
  public:
    // What a job reports: ACL_SUCCESS or an error code and its message.
    using Job = std::function<std::pair<aclError, std::string>()>;

    Stream(int32_t device, bool is_default) : device_(device), is_default_(is_default) {}
    ~Stream();
    Stream(const Stream &) = delete;
    Stream &operator=(const Stream &) = delete;

    int32_t device() const { return device_; }
    bool is_default() const { return is_default_; }
    // The handle the stream table gave it (set once, right after it was added).
    void set_id(void *id) { id_.store(id); }
    void *id() const { return id_.load(); }
    // Jobs queued or running.
    uint64_t pending() const;

    void enqueue(Job job);
    // Waits until every job enqueued so far has finished (no deadline: nullopt).
    // Returns false when the deadline passed first.
    bool wait_idle(std::optional<Clock::time_point> deadline);
    // The first failure since the last call, cleared.
    std::pair<aclError, std::string> take_error();
    // Waits for every job, then ends the worker.
    void shut_down();

    void bind(HcclComm comm);
    HcclComm bound_comm() const;

  private:
    void run();

    const int32_t device_;
    const bool is_default_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Job> jobs_;
    bool busy_ = false;
    bool stopping_ = false;
    bool worker_died_ = false; // its worker ended on an exception; the next job starts another
    std::thread worker_;
    aclError error_ = ACL_SUCCESS;
    std::string error_message_;
    HcclComm comm_ = nullptr;
    std::atomic<void *> id_{nullptr};
};

HandleTable<Stream> &streams();

// Resolves `handle` (nullptr: the calling thread's device's default stream,
// created at first use) to a live stream, or records why not.
aclError resolve_stream(const char *api, aclrtStream handle, std::shared_ptr<Stream> &stream);

// Destroys every stream of `device`, after their jobs finished (device reset).
void release_device_streams(int32_t device);

// The communicator a kernel launched on `stream` runs with: the stream's own
// binding, else its device's, else nullptr.
HcclComm launch_comm(const Stream &stream);

// ---- the wait report --------------------------------------------------------

// Marks the calling thread as blocked in an ACL wait for its lifetime, in the
// reference's wait report (HCOMM_REF_WAIT_REPORT, HcommRefAclWaitBegin): `what` is a
// HCOMM_REF_ACL_WAIT_* value, `object` the event or notify (nullptr for stream waits),
// `count` the tasks pending or the record awaited. Nothing when the report is off.
class ReportedWait {
  public:
    ReportedWait(uint32_t what, const Stream &stream, const void *object, uint64_t count, uint32_t timeout_ms);
    ReportedWait(uint32_t what, int32_t device, const void *object, uint64_t count, uint32_t timeout_ms);
    ~ReportedWait();
    ReportedWait(const ReportedWait &) = delete;
    ReportedWait &operator=(const ReportedWait &) = delete;

  private:
    uint64_t token_ = 0;
};

// The event or notify `object` of `device` was recorded, its `records`-th record.
void report_recorded(const void *object, int32_t device, uint64_t records);

} // namespace hcts_acl
