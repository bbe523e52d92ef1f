// The host part of HcclBroadcastRead: resources of the communicator for a root (an AICPU_TS
// thread, channels between the root and every other rank, the root's HCCL buffer as each
// rank sees it), cached in an engine context of the communicator so later calls reuse them;
// buf registered with the communicator on the ranks that read into it (it is the local side
// of their reads); the kernel loaded from its op-info JSON and launched on the caller's stream.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "acl/acl.h"
#include "broadcast.h"
#include "broadcast_args.h"
#include "hccl/hccl_channel.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_res.h"

#ifndef BROADCAST_OP_INFO
#error "define BROADCAST_OP_INFO as the path of broadcast.json"
#endif

namespace {

using broadcast_read::KernelArgs;
using broadcast_read::kMaxRanks;

// Every notify wait of the kernel; the vendor's samples use 1836 s.
constexpr uint32_t kWaitTimeout = 60;

#define BC_HOST_CHECK(call)                                                                                            \
    do {                                                                                                               \
        const HcclResult rc_ = (call);                                                                                 \
        if (rc_ != HCCL_SUCCESS) {                                                                                     \
            std::fprintf(stderr, "HcclBroadcastRead: %s returned %d\n", #call, static_cast<int>(rc_));                 \
            return rc_;                                                                                                \
        }                                                                                                              \
    } while (0)

#define BC_ACL_CHECK(call)                                                                                             \
    do {                                                                                                               \
        const aclError rc_ = (call);                                                                                   \
        if (rc_ != ACL_SUCCESS) {                                                                                      \
            const char *msg_ = aclGetRecentErrMsg();                                                                   \
            std::fprintf(stderr, "HcclBroadcastRead: %s returned %d: %s\n", #call, static_cast<int>(rc_),              \
                         msg_ != nullptr ? msg_ : "");                                                                 \
            return HCCL_E_RUNTIME;                                                                                     \
        }                                                                                                              \
    } while (0)

// The resources for one root, in a host-memory engine context (COMM_ENGINE_CPU_TS).
struct Resources {
    uint32_t rank;
    uint32_t rankSize;
    uint64_t slotBytes;
    uint64_t rootBuffer;
    uint64_t thread;
    uint64_t channels[kMaxRanks];
};

uint64_t element_size(HcclDataType type)
{
    switch (type) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_UINT8: return 1;
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_UINT16:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16: return 2;
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_UINT32:
    case HCCL_DATA_TYPE_FP32: return 4;
    case HCCL_DATA_TYPE_INT64:
    case HCCL_DATA_TYPE_UINT64:
    case HCCL_DATA_TYPE_FP64: return 8;
    default: return 0;
    }
}

HcclResult acquire(HcclComm comm, uint32_t root, Resources &res)
{
    BC_HOST_CHECK(HcclGetRankId(comm, &res.rank));
    BC_HOST_CHECK(HcclGetRankSize(comm, &res.rankSize));
    if (res.rankSize > kMaxRanks || root >= res.rankSize) {
        std::fprintf(stderr, "HcclBroadcastRead: root %u of %u ranks; at most %u ranks supported\n", root, res.rankSize,
                     kMaxRanks);
        return res.rankSize > kMaxRanks ? HCCL_E_NOT_SUPPORT : HCCL_E_PARA;
    }
    ThreadHandle thread = 0;
    BC_HOST_CHECK(HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, 1, 1, &thread));
    res.thread = thread;
    void *buffer = nullptr;
    uint64_t size = 0;
    BC_HOST_CHECK(HcclGetHcclBuffer(comm, &buffer, &size));
    res.rootBuffer = reinterpret_cast<uint64_t>(buffer);
    if (res.rankSize == 1) {
        res.slotBytes = broadcast_read::kMaxSlotBytes;
        return HCCL_SUCCESS;
    }
    // The root talks to every rank, the others to the root only.
    HcclChannelDesc descs[kMaxRanks];
    uint32_t peers[kMaxRanks];
    uint32_t num = 0;
    for (uint32_t r = 0; r < res.rankSize; ++r) {
        if (r == res.rank || (res.rank != root && r != root))
            continue;
        BC_HOST_CHECK(HcclChannelDescInit(&descs[num], 1));
        descs[num].remoteRank = r;
        descs[num].channelProtocol = COMM_PROTOCOL_UB_CTP;
        descs[num].notifyNum = broadcast_read::kNotifyNum;
        peers[num++] = r;
    }
    ChannelHandle channels[kMaxRanks] = {};
    BC_HOST_CHECK(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, descs, num, channels));
    for (uint32_t i = 0; i < num; ++i)
        res.channels[peers[i]] = channels[i];
    if (res.rank != root) {
        BC_HOST_CHECK(HcclChannelGetHcclBuffer(comm, res.channels[root], &buffer, &size));
        res.rootBuffer = reinterpret_cast<uint64_t>(buffer);
    }
    // Two slots in the root's buffer (every rank computes the same size: buffers are alike).
    res.slotBytes = size / 2 / 64 * 64;
    if (res.slotBytes > broadcast_read::kMaxSlotBytes)
        res.slotBytes = broadcast_read::kMaxSlotBytes;
    if (res.slotBytes == 0) {
        std::fprintf(stderr, "HcclBroadcastRead: the root's HCCL buffer (%" PRIu64 " bytes) is too small\n", size);
        return HCCL_E_MEMORY;
    }
    return HCCL_SUCCESS;
}

// The resources for `root`: acquired by the first call, found by later ones.
HcclResult resources(HcclComm comm, uint32_t root, const Resources *&out)
{
    char tag[64];
    std::snprintf(tag, sizeof(tag), "broadcast_read_root%u", root);
    void *ctx = nullptr;
    uint64_t size = 0;
    if (HcclEngineCtxGet(comm, tag, COMM_ENGINE_CPU_TS, &ctx, &size) == HCCL_SUCCESS && size == sizeof(Resources)) {
        out = static_cast<const Resources *>(ctx);
        return HCCL_SUCCESS;
    }
    Resources res{};
    BC_HOST_CHECK(acquire(comm, root, res));
    BC_HOST_CHECK(HcclEngineCtxCreate(comm, tag, COMM_ENGINE_CPU_TS, sizeof(Resources), &ctx));
    std::memcpy(ctx, &res, sizeof(res));
    out = static_cast<const Resources *>(ctx);
    return HCCL_SUCCESS;
}

// The kernel, loaded once per process.
HcclResult kernel(aclrtFuncHandle &fn)
{
    static std::mutex mutex;
    static aclrtFuncHandle loaded = nullptr;
    std::lock_guard lock(mutex);
    if (loaded == nullptr) {
        aclrtBinaryLoadOption option{};
        option.type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE;
        option.value.cpuKernelMode = 0;
        aclrtBinaryLoadOptions options{&option, 1};
        aclrtBinHandle bin = nullptr;
        BC_ACL_CHECK(aclrtBinaryLoadFromFile(BROADCAST_OP_INFO, &options, &bin));
        BC_ACL_CHECK(aclrtBinaryGetFunction(bin, "BroadcastReadKernel", &loaded));
    }
    fn = loaded;
    return HCCL_SUCCESS;
}

} // namespace

HcclResult HcclBroadcastRead(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                             aclrtStream stream)
{
    const uint64_t unit = element_size(dataType);
    if (buf == nullptr || comm == nullptr || stream == nullptr)
        return HCCL_E_PTR;
    if (unit == 0 || count == 0) {
        std::fprintf(stderr, "HcclBroadcastRead: dataType %d, count %" PRIu64 ": needs a plain type and a count > 0\n",
                     static_cast<int>(dataType), count);
        return HCCL_E_PARA;
    }
    const Resources *res = nullptr;
    BC_HOST_CHECK(resources(comm, root, res));

    KernelArgs args{};
    BC_HOST_CHECK(HcclGetCommName(comm, args.commName));
    args.rank = res->rank;
    args.rankSize = res->rankSize;
    args.root = root;
    args.waitTimeout = kWaitTimeout;
    args.bytes = count * unit;
    args.slotBytes = res->slotBytes;
    args.buf = reinterpret_cast<uint64_t>(buf);
    args.rootBuffer = res->rootBuffer;
    args.thread = res->thread;
    std::memcpy(args.channels, res->channels, sizeof(args.channels));

    if (res->rank != root) {
        // The kernel reads into buf: register it (a second call with the same buffer finds
        // the registration under the same tag).
        char tag[64];
        std::snprintf(tag, sizeof(tag), "broadcast_read_buf_%" PRIx64 "_%" PRIx64, args.buf, args.bytes);
        CommMem mem{COMM_MEM_TYPE_DEVICE, buf, args.bytes};
        HcclMemHandle handle = nullptr;
        BC_HOST_CHECK(HcclCommMemReg(comm, tag, &mem, &handle));
    }

    aclrtFuncHandle fn = nullptr;
    BC_HOST_CHECK(kernel(fn));
    aclrtArgsHandle argsHandle = nullptr;
    aclrtParamHandle param = nullptr;
    BC_ACL_CHECK(aclrtKernelArgsInit(fn, &argsHandle));
    BC_ACL_CHECK(aclrtKernelArgsAppend(argsHandle, &args, sizeof(args), &param));
    BC_ACL_CHECK(aclrtKernelArgsFinalize(argsHandle));
    BC_ACL_CHECK(aclrtLaunchKernelWithConfig(fn, 1, stream, nullptr, argsHandle, nullptr));
    return HCCL_SUCCESS;
}
