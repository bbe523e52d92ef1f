// Test main of HcclTemplateAllGather in the vendor's single-server style: one process, one
// thread per device, the root info made once by the main thread and shared. Each thread sets
// its device, creates its rank of the communicator, and runs the allgather twice (the second
// call reuses the communicator's resources) with different data, checking every element.
// Exit status 0 only if every thread got every element right.
//   HCTS_ACL_DEVICES=4 ASCEND_HOME_PATH=<build>/ascend template_allgather_test [count]
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <acl/acl.h>
#include <hccl/hccl_comm.h>
#include <hccl/hccl_types.h>

#include "hccl_template_allgather.h"

#define ACLCHECK(call)                                                                                                 \
    do {                                                                                                               \
        const aclError r_ = (call);                                                                                    \
        if (r_ != ACL_SUCCESS) {                                                                                       \
            const char *m_ = aclGetRecentErrMsg();                                                                     \
            std::printf("device %d: %s returned ACL error %d: %s\n", dev, #call, int(r_), m_ ? m_ : "");               \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

#define HCCLCHECK(call)                                                                                                \
    do {                                                                                                               \
        const HcclResult r_ = (call);                                                                                  \
        if (r_ != HCCL_SUCCESS) {                                                                                      \
            std::printf("device %d: %s returned HcclResult %d\n", dev, #call, int(r_));                                \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

namespace {

float Value(uint32_t call, int32_t rank, uint64_t i)
{
    return static_cast<float>(call * 100000 + rank * 1000) + static_cast<float>(i % 997);
}

int Sample(const HcclRootInfo *rootInfo, int32_t dev, uint32_t devCount, uint64_t count)
{
    ACLCHECK(aclrtSetDevice(dev));
    int32_t current = -1;
    ACLCHECK(aclrtGetDevice(&current));
    if (current != dev) {
        std::printf("device %d: aclrtGetDevice says %d\n", dev, current);
        return 1;
    }
    HcclComm comm = nullptr;
    HCCLCHECK(HcclCommInitRootInfo(devCount, rootInfo, static_cast<uint32_t>(dev), &comm));
    uint32_t rank = devCount;
    HCCLCHECK(HcclGetRankId(comm, &rank));
    if (rank != static_cast<uint32_t>(dev)) {
        std::printf("device %d: the communicator's rank is %u\n", dev, rank);
        return 1;
    }
    aclrtStream stream = nullptr;
    ACLCHECK(aclrtCreateStream(&stream));
    const size_t inputSize = count * sizeof(float);
    const size_t outputSize = inputSize * devCount;
    void *sendBuf = nullptr;
    void *recvBuf = nullptr;
    void *host = nullptr;
    ACLCHECK(aclrtMalloc(&sendBuf, inputSize, ACL_MEM_MALLOC_HUGE_ONLY));
    ACLCHECK(aclrtMalloc(&recvBuf, outputSize, ACL_MEM_MALLOC_HUGE_ONLY));
    ACLCHECK(aclrtMallocHost(&host, outputSize));
    float *values = static_cast<float *>(host);
    uint64_t wrong = 0;
    for (uint32_t call = 0; call < 2; ++call) {
        for (uint64_t i = 0; i < count; ++i) {
            values[i] = Value(call, dev, i);
        }
        ACLCHECK(aclrtMemcpy(sendBuf, inputSize, host, inputSize, ACL_MEMCPY_HOST_TO_DEVICE));
        ACLCHECK(aclrtMemset(recvBuf, outputSize, 0xEE, outputSize));
        HCCLCHECK(HcclTemplateAllGather(sendBuf, recvBuf, count, HCCL_DATA_TYPE_FP32, comm, stream));
        ACLCHECK(aclrtSynchronizeStream(stream));
        ACLCHECK(aclrtMemcpy(host, outputSize, recvBuf, outputSize, ACL_MEMCPY_DEVICE_TO_HOST));
        for (uint32_t src = 0; src < devCount; ++src) {
            for (uint64_t i = 0; i < count; ++i) {
                const float want = Value(call, static_cast<int32_t>(src), i);
                if (values[src * count + i] != want && wrong++ == 0) {
                    std::printf("device %d: MISMATCH in call %u: element %llu from rank %u is %g, expected %g\n", dev,
                                call, static_cast<unsigned long long>(i), src, double(values[src * count + i]),
                                double(want));
                }
            }
        }
    }
    HCCLCHECK(HcclCommDestroy(comm));
    ACLCHECK(aclrtFreeHost(host));
    ACLCHECK(aclrtFree(sendBuf));
    ACLCHECK(aclrtFree(recvBuf));
    ACLCHECK(aclrtDestroyStream(stream));
    ACLCHECK(aclrtResetDevice(dev));
    if (wrong != 0) {
        std::printf("device %d: %llu element(s) wrong\n", dev, static_cast<unsigned long long>(wrong));
        return 1;
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    const int32_t dev = 0;
    const uint64_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4099;
    ACLCHECK(aclInit(nullptr));
    uint32_t devCount = 0;
    ACLCHECK(aclrtGetDeviceCount(&devCount));
    std::printf("Found %u device(s)\n", devCount);
    ACLCHECK(aclrtSetDevice(dev));
    void *rootInfoBuf = nullptr;
    ACLCHECK(aclrtMallocHost(&rootInfoBuf, sizeof(HcclRootInfo)));
    HcclRootInfo *rootInfo = static_cast<HcclRootInfo *>(rootInfoBuf);
    HCCLCHECK(HcclGetRootInfo(rootInfo));
    std::vector<std::thread> threads;
    std::atomic<int> failed{0};
    for (uint32_t i = 0; i < devCount; ++i) {
        threads.emplace_back([&, i] {
            if (Sample(rootInfo, static_cast<int32_t>(i), devCount, count) != 0) {
                ++failed;
            }
        });
    }
    for (std::thread &t : threads) {
        t.join();
    }
    ACLCHECK(aclrtFreeHost(rootInfoBuf));
    ACLCHECK(aclrtResetDevice(dev));
    ACLCHECK(aclFinalize());
    if (failed != 0) {
        std::printf("HcclTemplateAllGather: %d of %u device(s) failed\n", failed.load(), devCount);
        return 1;
    }
    std::printf("HcclTemplateAllGather: %u devices, every element right\n", devCount);
    return 0;
}
