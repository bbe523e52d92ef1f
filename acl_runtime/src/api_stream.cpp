// Streams: in-order queues of launched kernels, each with a worker thread that
// starts at the first launch; a stream runs nothing by itself.
#include <mutex>
#include <optional>
#include <vector>

#include "acl_ref/acl_ref.h"
#include "hcomm_ref/hcomm_ref.h"
#include "runtime.h"

namespace hcts_acl {

Stream::~Stream() { shut_down(); }

void Stream::enqueue(Job job)
{
    std::lock_guard<std::mutex> lock(mutex_);
    // A worker that died has left its last hold of the mutex (it marked itself under it):
    // joined here, and a new one runs the jobs from now on.
    if (worker_died_ && worker_.joinable()) {
        worker_.join();
        worker_died_ = false;
    }
    // Started before the job is queued: a worker that cannot start leaves nothing waiting
    // for it (the exception becomes the caller's error code).
    if (!worker_.joinable())
        worker_ = std::thread([this] {
            try {
                run();
            } catch (...) { // an exception leaving the thread would end the process: the stream fails instead
                const aclError code = exception_to_error("a stream's worker");
                std::lock_guard<std::mutex> failed(mutex_);
                if (error_ == ACL_SUCCESS)
                    error_ = code;
                jobs_.clear();
                busy_ = false;
                worker_died_ = true;
                changed_.notify_all();
            }
        });
    jobs_.push_back(std::move(job));
    changed_.notify_all();
}

void Stream::run()
{
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        changed_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty())
            return; // stopping, nothing left
        Job job = std::move(jobs_.front());
        jobs_.pop_front();
        busy_ = true;
        lock.unlock();
        std::pair<aclError, std::string> outcome = job();
        job = nullptr; // what the job holds (a loaded kernel) goes before the stream counts as idle
        lock.lock();
        busy_ = false;
        if (outcome.first != ACL_SUCCESS && error_ == ACL_SUCCESS) {
            error_ = outcome.first;
            error_message_ = std::move(outcome.second);
        }
        changed_.notify_all();
    }
}

uint64_t Stream::pending() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return jobs_.size() + (busy_ ? 1 : 0);
}

bool Stream::wait_idle(std::optional<Clock::time_point> deadline)
{
    std::unique_lock<std::mutex> lock(mutex_);
    const auto idle = [&] { return jobs_.empty() && !busy_; };
    if (!deadline) {
        changed_.wait(lock, idle);
        return true;
    }
    return changed_.wait_until(lock, *deadline, idle);
}

std::pair<aclError, std::string> Stream::take_error()
{
    std::lock_guard<std::mutex> lock(mutex_);
    std::pair<aclError, std::string> taken{error_, std::move(error_message_)};
    error_ = ACL_SUCCESS;
    error_message_.clear();
    return taken;
}

void Stream::shut_down()
{
    std::thread worker;
    {
        std::optional<ReportedWait> reported;
        if (const uint64_t left = pending(); left > 0)
            reported.emplace(HCOMM_REF_ACL_WAIT_STREAM_DESTROY, *this, nullptr, left, 0);
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return jobs_.empty() && !busy_; });
        stopping_ = true;
        changed_.notify_all();
        worker = std::move(worker_);
    }
    if (worker.joinable())
        worker.join();
}

void Stream::bind(HcclComm comm)
{
    std::lock_guard<std::mutex> lock(mutex_);
    comm_ = comm;
}

HcclComm Stream::bound_comm() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return comm_;
}

HandleTable<Stream> &streams()
{
    static auto *table = new HandleTable<Stream>(0x5354); // "ST"; never destroyed
    return *table;
}

namespace {

constexpr size_t max_devices = 64;

struct DeviceStreams {
    std::mutex mutex;
    void *default_stream[max_devices] = {};
    HcclComm comm[max_devices] = {};
};

DeviceStreams &device_streams()
{
    static auto *instance = new DeviceStreams; // never destroyed
    return *instance;
}

} // namespace

aclError resolve_stream(const char *api, aclrtStream handle, std::shared_ptr<Stream> &stream)
{
    if (handle != nullptr) {
        stream = streams().find(handle);
        if (!stream) {
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, "stream ", hex(handle),
                        " is not a live stream (aclrtCreateStream; destroyed streams and streams of a reset device are "
                        "gone)");
        }
        return ACL_SUCCESS;
    }
    const std::optional<int32_t> device = current_device();
    if (!device) {
        return fail(api, ACL_ERROR_RT_CONTEXT_NULL,
                    "the default stream (NULL) belongs to the calling thread's device, and it has none "
                    "(aclrtSetDevice first)");
    }
    DeviceStreams &all = device_streams();
    std::lock_guard<std::mutex> lock(all.mutex);
    void *&id = all.default_stream[static_cast<size_t>(*device)];
    if (id != nullptr)
        stream = streams().find(id);
    if (!stream) {
        stream = std::make_shared<Stream>(*device, true);
        id = streams().add(stream);
        stream->set_id(id);
    }
    return ACL_SUCCESS;
}

void release_device_streams(int32_t device)
{
    {
        DeviceStreams &all = device_streams();
        std::lock_guard<std::mutex> lock(all.mutex);
        all.default_stream[static_cast<size_t>(device)] = nullptr;
    }
    const auto removed = streams().remove_if([device](const Stream &s) { return s.device() == device; });
    for (const auto &entry : removed)
        entry.second->shut_down();
}

HcclComm launch_comm(const Stream &stream)
{
    if (HcclComm comm = stream.bound_comm(); comm != nullptr)
        return comm;
    DeviceStreams &all = device_streams();
    std::lock_guard<std::mutex> lock(all.mutex);
    return all.comm[static_cast<size_t>(stream.device())];
}

namespace {

aclError synchronize(const char *api, aclrtStream handle, std::optional<Clock::time_point> deadline, int32_t timeout)
{
    std::shared_ptr<Stream> stream;
    if (const aclError rc = resolve_stream(api, handle, stream); rc != ACL_SUCCESS)
        return rc;
    bool idle = false;
    {
        std::optional<ReportedWait> reported;
        if (const uint64_t left = stream->pending(); left > 0 && timeout != 0)
            reported.emplace(HCOMM_REF_ACL_WAIT_STREAM_SYNC, *stream, nullptr, left,
                             timeout > 0 ? static_cast<uint32_t>(timeout) : 0);
        idle = stream->wait_idle(deadline);
    }
    if (!idle) {
        return fail(api, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, "stream ", hex(handle), " still runs a kernel after ",
                    timeout, " ms");
    }
    const auto [code, message] = stream->take_error();
    if (code != ACL_SUCCESS)
        return fail(api, code, message);
    return ACL_SUCCESS;
}

} // namespace

ReportedWait::ReportedWait(uint32_t what, const Stream &stream, const void *object, uint64_t count, uint32_t timeout_ms)
{
    HcommRefAclWait wait{};
    wait.what = what;
    wait.device = stream.device();
    wait.comm = launch_comm(stream);
    wait.stream = reinterpret_cast<uintptr_t>(stream.id());
    wait.object = reinterpret_cast<uintptr_t>(object);
    wait.count = count;
    wait.timeoutMs = timeout_ms;
    token_ = HcommRefAclWaitBegin(&wait);
}

ReportedWait::ReportedWait(uint32_t what, int32_t device, const void *object, uint64_t count, uint32_t timeout_ms)
{
    HcommRefAclWait wait{};
    wait.what = what;
    wait.device = device;
    wait.object = reinterpret_cast<uintptr_t>(object);
    wait.count = count;
    wait.timeoutMs = timeout_ms;
    token_ = HcommRefAclWaitBegin(&wait);
}

ReportedWait::~ReportedWait() { HcommRefAclWaitEnd(token_); }

void report_recorded(const void *object, int32_t device, uint64_t records)
{
    HcommRefAclRecorded(reinterpret_cast<uintptr_t>(object), device, records);
}

} // namespace hcts_acl

using namespace hcts_acl;

ACL_EXPORT aclError aclrtCreateStream(aclrtStream *stream)
{
    return guarded("aclrtCreateStream", [&]() -> aclError {
        const char *api = "aclrtCreateStream";
        if (stream == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, "stream is NULL");
        const std::optional<int32_t> device = current_device();
        if (!device)
            return fail(api, ACL_ERROR_RT_CONTEXT_NULL, "the calling thread has no device (aclrtSetDevice first)");
        auto created = std::make_shared<Stream>(*device, false);
        *stream = streams().add(created);
        created->set_id(*stream);
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtDestroyStream(aclrtStream stream)
{
    return guarded("aclrtDestroyStream", [&]() -> aclError {
        const char *api = "aclrtDestroyStream";
        if (stream == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, "stream is NULL (the default stream cannot be destroyed)");
        const std::shared_ptr<Stream> found = streams().find(stream);
        if (!found) {
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, "stream ", hex(stream),
                        " is not a live stream (never created, destroyed already, or its device was reset)");
        }
        if (found->is_default())
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, "stream ", hex(stream), " is a device's default stream");
        const std::shared_ptr<Stream> removed = streams().remove(stream);
        if (!removed)
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, "stream ", hex(stream), " was destroyed meanwhile");
        // As on the device, the stream's tasks finish first.
        removed->shut_down();
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtSynchronizeStream(aclrtStream stream)
{
    return guarded("aclrtSynchronizeStream",
                   [&]() -> aclError { return synchronize("aclrtSynchronizeStream", stream, std::nullopt, -1); });
}

ACL_EXPORT aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    return guarded("aclrtSynchronizeStreamWithTimeout", [&]() -> aclError {
        const char *api = "aclrtSynchronizeStreamWithTimeout";
        if (timeout < -1)
            return fail(api, ACL_ERROR_INVALID_PARAM, "timeout ", timeout, " ms: -1 (no deadline), 0 (check) or more");
        std::optional<Clock::time_point> deadline;
        if (timeout >= 0)
            deadline = Clock::now() + std::chrono::milliseconds(timeout);
        return synchronize(api, stream, deadline, timeout);
    });
}

ACL_EXPORT aclError HctsAclRefBindStreamComm(aclrtStream stream, HcclComm comm)
{
    return guarded("HctsAclRefBindStreamComm", [&]() -> aclError {
        std::shared_ptr<Stream> found;
        if (const aclError rc = resolve_stream("HctsAclRefBindStreamComm", stream, found); rc != ACL_SUCCESS)
            return rc;
        found->bind(comm);
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError HctsAclRefBindDeviceComm(int32_t deviceId, HcclComm comm)
{
    return guarded("HctsAclRefBindDeviceComm", [&]() -> aclError {
        if (const aclError rc = check_device_id("HctsAclRefBindDeviceComm", deviceId); rc != ACL_SUCCESS)
            return rc;
        DeviceStreams &all = device_streams();
        std::lock_guard<std::mutex> lock(all.mutex);
        all.comm[static_cast<size_t>(deviceId)] = comm;
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError HctsAclRefOfferDeviceComm(int32_t deviceId, HcclComm comm)
{
    return guarded("HctsAclRefOfferDeviceComm", [&]() -> aclError {
        if (comm == nullptr)
            return fail("HctsAclRefOfferDeviceComm", ACL_ERROR_INVALID_PARAM, "comm is NULL");
        if (const aclError rc = check_device_id("HctsAclRefOfferDeviceComm", deviceId); rc != ACL_SUCCESS)
            return rc;
        DeviceStreams &all = device_streams();
        std::lock_guard<std::mutex> lock(all.mutex);
        HcclComm &bound = all.comm[static_cast<size_t>(deviceId)];
        if (bound == nullptr)
            bound = comm;
        adopt_comm_memory(comm, deviceId);
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError HctsAclRefAdoptCommMemory(HcclComm comm, const void *base, uint64_t size)
{
    return guarded("HctsAclRefAdoptCommMemory", [&]() -> aclError {
        const char *api = "HctsAclRefAdoptCommMemory";
        if (comm == nullptr || base == nullptr || size == 0)
            return fail(api, ACL_ERROR_INVALID_PARAM, "comm, base and size must not be NULL or 0");
        // The device the comm serves; else the caller's (a comm created before any device was set).
        std::optional<int32_t> device;
        {
            DeviceStreams &all = device_streams();
            std::lock_guard<std::mutex> lock(all.mutex);
            for (size_t d = 0; d < std::size(all.comm) && !device; ++d)
                if (all.comm[d] == comm)
                    device = static_cast<int32_t>(d);
        }
        if (!device)
            device = current_device();
        adopt_comm_range(comm, base, static_cast<size_t>(size), device.value_or(-1));
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError HctsAclRefWithdrawComm(HcclComm comm)
{
    return guarded("HctsAclRefWithdrawComm", [&]() -> aclError {
        if (comm == nullptr)
            return fail("HctsAclRefWithdrawComm", ACL_ERROR_INVALID_PARAM, "comm is NULL");
        {
            DeviceStreams &all = device_streams();
            std::lock_guard<std::mutex> lock(all.mutex);
            for (HcclComm &bound : all.comm)
                if (bound == comm)
                    bound = nullptr;
        }
        streams().for_each([comm](Stream &s) {
            if (s.bound_comm() == comm)
                s.bind(nullptr);
        });
        forget_comm_memory(comm);
        return ACL_SUCCESS;
    });
}
