// A program for the test of `hcts launch` on ACL waits (ctest hcts_launch_acl_deadlock): one
// process, two devices, one thread each, each with its rank of a communicator and a stream.
// Device 1's stream waits for a notify that device 0's stream records; device 0's stream
// waits for an event that device 1's stream records after that wait.
//   acl_wait_probe pass      device 0 records the notify before it waits for the event: both
//                            streams run through, every call succeeds, exit 0
//   acl_wait_probe deadlock  device 0 waits for the event first: each stream waits for the
//                            other's task behind its own wait, and both host threads block in
//                            aclrtSynchronizeStream; hcts launch's deadline reports who waits
//                            for what (the streams' event and notify waits, the host threads)
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "acl/acl.h"
#include "hccl/hccl_comm.h"

namespace {

std::mutex step_mutex;
std::condition_variable step_changed;
int step = 0; // 1: device 1 queued its wait and record; the handles below are set
aclrtEvent event1 = nullptr;
aclrtNotify notify0 = nullptr;
std::atomic<int> failures{0};

bool ok(int device, aclError rc, const char *what)
{
    if (rc == ACL_SUCCESS)
        return true;
    const char *msg = aclGetRecentErrMsg();
    std::fprintf(stderr, "acl_wait_probe device %d: %s returned %d: %s\n", device, what, rc, msg ? msg : "");
    ++failures;
    return false;
}

void device_thread(int device, const HcclRootInfo *root, bool deadlock)
{
    if (!ok(device, aclrtSetDevice(device), "aclrtSetDevice"))
        return;
    HcclComm comm = nullptr;
    if (HcclCommInitRootInfo(2, root, static_cast<uint32_t>(device), &comm) != HCCL_SUCCESS) {
        std::fprintf(stderr, "acl_wait_probe device %d: HcclCommInitRootInfo failed\n", device);
        ++failures;
        return;
    }
    aclrtStream stream = nullptr;
    if (!ok(device, aclrtCreateStream(&stream), "aclrtCreateStream"))
        return;
    if (device == 1) {
        ok(device, aclrtCreateNotify(&notify0, 0), "aclrtCreateNotify");
        ok(device, aclrtCreateEvent(&event1), "aclrtCreateEvent");
        ok(device, aclrtWaitAndResetNotify(notify0, stream, 0), "aclrtWaitAndResetNotify");
        ok(device, aclrtRecordEvent(event1, stream), "aclrtRecordEvent");
        {
            std::lock_guard<std::mutex> lock(step_mutex);
            step = 1;
        }
        step_changed.notify_all();
    } else {
        std::unique_lock<std::mutex> lock(step_mutex);
        step_changed.wait(lock, [] { return step == 1; });
        lock.unlock();
        if (!deadlock)
            ok(device, aclrtRecordNotify(notify0, stream), "aclrtRecordNotify");
        ok(device, aclrtStreamWaitEvent(stream, event1), "aclrtStreamWaitEvent");
        if (deadlock)
            ok(device, aclrtRecordNotify(notify0, stream), "aclrtRecordNotify");
    }
    ok(device, aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
    ok(device, aclrtDestroyStream(stream), "aclrtDestroyStream");
    if (HcclCommDestroy(comm) != HCCL_SUCCESS)
        ++failures;
    ok(device, aclrtResetDevice(device), "aclrtResetDevice");
}

} // namespace

int main(int argc, char **argv)
{
    const std::string mode = argc == 2 ? argv[1] : "";
    uint32_t devices = 0;
    if ((mode != "pass" && mode != "deadlock") || aclrtGetDeviceCount(&devices) != ACL_SUCCESS || devices < 2) {
        std::fprintf(stderr, "usage: acl_wait_probe pass|deadlock, with 2 devices (HCTS_ACL_DEVICES=2); got '%s', %u\n",
                     mode.c_str(), devices);
        return 2;
    }
    HcclRootInfo root{};
    if (HcclGetRootInfo(&root) != HCCL_SUCCESS)
        return 3;
    std::thread d0(device_thread, 0, &root, mode == "deadlock");
    std::thread d1(device_thread, 1, &root, mode == "deadlock");
    d0.join();
    d1.join();
    if (event1 != nullptr)
        ok(1, aclrtDestroyEvent(event1), "aclrtDestroyEvent");
    if (notify0 != nullptr)
        ok(1, aclrtDestroyNotify(notify0), "aclrtDestroyNotify");
    std::printf("acl_wait_probe: %s, %d failure(s)\n", mode.c_str(), failures.load());
    return failures == 0 ? 0 : 1;
}
