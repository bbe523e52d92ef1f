// A test AICPU kernel in the vendor's convention (extern "C" unsigned int f(void *)),
// built for the host as libacl_test_kernel.so.
#include <cstring>

#include <unistd.h>

#include "hcomm/hcomm_primitives.h"
#include "hcomm_ref/hcomm_ref.h"
#include "test_kernel.h"

extern "C" __attribute__((visibility("default"))) unsigned int AclTestKernel(void *raw)
{
    const auto *args = static_cast<const AclTestKernelArgs *>(raw);
    if (args == nullptr)
        return 100;
    if (HcommRefIsDeviceSide() != 1)
        return 101; // not run as a device program
    if (HcommAcquireComm(args->comm_name) != 0)
        return 102;
    if (args->sleep_ms > 0)
        usleep(args->sleep_ms * 1000U);
    if (args->record_from != 0 && HcommThreadNotifyRecordOnThread(args->record_from, args->record_to, 0) != 0)
        return 104;
    if (args->wait_seconds > 0)
        (void)HcommThreadNotifyWaitOnThread(args->thread, 0, args->wait_seconds);
    if (args->out != 0)
        *reinterpret_cast<uint32_t *>(static_cast<uintptr_t>(args->out)) = args->value;
    if (HcommReleaseComm(args->comm_name) != 0)
        return 103;
    return args->returns;
}

// A second kernel of the same .so: returns its first argument byte.
extern "C" __attribute__((visibility("default"))) unsigned int AclTestEcho(void *raw)
{
    return raw == nullptr ? 200U : *static_cast<const unsigned char *>(raw);
}

// Reads its arguments at the offsets a packed layout puts them (test_kernel.h); nothing
// in the buffer is aligned, so every field is copied out byte by byte.
extern "C" __attribute__((visibility("default"))) unsigned int AclTestArgBytes(void *raw)
{
    if (raw == nullptr)
        return 300;
    const auto *bytes = static_cast<const unsigned char *>(raw);
    uint64_t out = 0;
    uint32_t count = 0;
    std::memcpy(&out, bytes, sizeof out);
    std::memcpy(&count, bytes + sizeof out, sizeof count);
    if (out == 0 || count > 64)
        return 301;
    std::memcpy(reinterpret_cast<void *>(static_cast<uintptr_t>(out)), bytes + sizeof out + sizeof count, count);
    return 0;
}
