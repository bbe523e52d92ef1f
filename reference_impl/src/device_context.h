// The emulated AICPU_TS device context: whether the calling OS thread runs a
// device program, and what that program has enqueued (so the launch can wait for
// it, like a stream synchronisation after a kernel).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "inline_function.h"

namespace hcomm_ref {

class TaskQueue;

// What one device program did; lives for one HcommRefDeviceLaunch.
struct LaunchRecord {
    // The program's comm, by handle: never read through, since the comm may be
    // destroyed while the program runs (each of its calls holds the comm itself).
    const void *comm = nullptr;
    std::string comm_name;                           // for HcommAcquireComm/ReleaseComm
    std::vector<std::shared_ptr<TaskQueue>> touched; // queues that received tasks
    bool batching = false;                           // HcommBatchModeStart .. End
    std::string batch_tag;
    std::vector<InlineFunction<void()>> held; // enqueues deferred by batch mode
    uint32_t acquired_comm = 0;               // HcommAcquireComm depth

    void note(const std::shared_ptr<TaskQueue> &queue);
    void flush_held();
};

bool is_device_side();
LaunchRecord *current_launch();

// RAII: the calling OS thread is "on the device" running `record`'s program.
class DeviceScope {
  public:
    explicit DeviceScope(LaunchRecord &record);
    ~DeviceScope();
    DeviceScope(const DeviceScope &) = delete;
    DeviceScope &operator=(const DeviceScope &) = delete;

  private:
    LaunchRecord *previous_;
};

} // namespace hcomm_ref
