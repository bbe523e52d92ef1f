// The host part of a one-rank custom operator: a communicator, an AICPU_TS thread,
// the kernel loaded from its op-info JSON and launched on a stream, the result
// checked. On Ascend hardware the same calls run the kernel on the AICPU; here the
// ACL runtime and hcomm of hcts run it on the host (docs/custom-ops.md).
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_res.h"
#include "kernel.h"

namespace {

bool acl_ok(aclError rc, const char *what)
{
    if (rc == ACL_SUCCESS)
        return true;
    std::fprintf(stderr, "copy_op: %s returned %d: %s\n", what, static_cast<int>(rc), aclGetRecentErrMsg());
    return false;
}

bool hccl_ok(HcclResult rc, const char *what)
{
    if (rc == HCCL_SUCCESS)
        return true;
    std::fprintf(stderr, "copy_op: %s returned HcclResult %d\n", what, static_cast<int>(rc));
    return false;
}

int run(HcclComm comm)
{
    CopyKernelArgs args{};
    if (!hccl_ok(HcclGetCommName(comm, args.comm_name), "HcclGetCommName"))
        return 1;
    ThreadHandle thread = 0;
    if (!hccl_ok(HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, 1, 1, &thread), "HcclThreadAcquire"))
        return 1;
    void *buffer = nullptr;
    uint64_t size = 0;
    if (!hccl_ok(HcclGetHcclBuffer(comm, &buffer, &size), "HcclGetHcclBuffer"))
        return 1;
    constexpr uint64_t kLen = 3 * 4096 + 5;
    if (size < 2 * kLen) {
        std::fprintf(stderr, "copy_op: the HCCL buffer holds %llu bytes, fewer than the %llu needed\n",
                     static_cast<unsigned long long>(size), static_cast<unsigned long long>(2 * kLen));
        return 1;
    }
    std::vector<unsigned char> payload(kLen), back(kLen);
    for (uint64_t i = 0; i < kLen; ++i)
        payload[i] = static_cast<unsigned char>(i * 7 + 3);
    auto *src = static_cast<unsigned char *>(buffer);
    unsigned char *dst = src + kLen;
    if (!acl_ok(aclrtMemcpy(src, kLen, payload.data(), kLen, ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy (in)") ||
        !acl_ok(aclrtMemset(dst, kLen, 0, kLen), "aclrtMemset"))
        return 1;
    args.thread = thread;
    args.dst = reinterpret_cast<uint64_t>(dst);
    args.src = reinterpret_cast<uint64_t>(src);
    args.len = kLen;

    aclrtBinHandle bin = nullptr;
    aclrtFuncHandle fn = nullptr;
    aclrtStream stream = nullptr;
    aclrtArgsHandle handle = nullptr;
    aclrtParamHandle param = nullptr;
    aclrtBinaryLoadOption option{};
    option.type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE;
    option.value.cpuKernelMode = 0;
    aclrtBinaryLoadOptions options{&option, 1};
    const bool launched =
        acl_ok(aclrtBinaryLoadFromFile(COPY_OP_JSON, &options, &bin), "aclrtBinaryLoadFromFile") &&
        acl_ok(aclrtBinaryGetFunction(bin, "CopyKernel", &fn), "aclrtBinaryGetFunction") &&
        acl_ok(aclrtCreateStream(&stream), "aclrtCreateStream") &&
        acl_ok(aclrtKernelArgsInit(fn, &handle), "aclrtKernelArgsInit") &&
        acl_ok(aclrtKernelArgsAppend(handle, &args, sizeof(args), &param), "aclrtKernelArgsAppend") &&
        acl_ok(aclrtKernelArgsFinalize(handle), "aclrtKernelArgsFinalize") &&
        acl_ok(aclrtLaunchKernelWithConfig(fn, 1, stream, nullptr, handle, nullptr), "aclrtLaunchKernelWithConfig") &&
        acl_ok(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream (the kernel's result)");
    if (stream != nullptr)
        (void)acl_ok(aclrtDestroyStream(stream), "aclrtDestroyStream");
    if (bin != nullptr)
        (void)acl_ok(aclrtBinaryUnLoad(bin), "aclrtBinaryUnLoad");
    if (!launched)
        return 1;
    if (!acl_ok(aclrtMemcpy(back.data(), kLen, dst, kLen, ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy (out)"))
        return 1;
    for (uint64_t i = 0; i < kLen; ++i)
        if (back[i] != payload[i]) {
            std::fprintf(stderr, "copy_op: byte %llu of %llu is 0x%02x after the kernel, expected 0x%02x\n",
                         static_cast<unsigned long long>(i), static_cast<unsigned long long>(kLen), back[i],
                         payload[i]);
            return 1;
        }
    std::printf("copy_op: the kernel copied %llu bytes on its AICPU_TS thread\n",
                static_cast<unsigned long long>(kLen));
    return 0;
}

} // namespace

int main()
{
    if (!acl_ok(aclInit(nullptr), "aclInit") || !acl_ok(aclrtSetDevice(0), "aclrtSetDevice(0)"))
        return 1;
    HcclRootInfo root{};
    HcclComm comm = nullptr;
    int status = 1;
    if (hccl_ok(HcclGetRootInfo(&root), "HcclGetRootInfo") &&
        hccl_ok(HcclCommInitRootInfo(1, &root, 0, &comm), "HcclCommInitRootInfo")) {
        status = run(comm);
        if (!hccl_ok(HcclCommDestroy(comm), "HcclCommDestroy"))
            status = 1;
    }
    (void)acl_ok(aclrtResetDevice(0), "aclrtResetDevice(0)");
    (void)acl_ok(aclFinalize(), "aclFinalize");
    return status;
}
