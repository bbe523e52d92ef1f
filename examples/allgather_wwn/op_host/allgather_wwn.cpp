// The host part of HcclAllGatherWwn: resources of the communicator (AICPU_TS threads, a
// channel to every peer, the peers' HCCL buffers), cached in an engine context of the
// communicator so later calls reuse them; the send buffer registered with the communicator
// (it is the local side of the kernel's writes); the kernel loaded from its op-info JSON and
// launched on the caller's stream.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "acl/acl.h"
#include "allgather_wwn.h"
#include "allgather_wwn_args.h"
#include "hccl/hccl_channel.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_res.h"

#ifndef ALLGATHER_WWN_OP_INFO
#error "define ALLGATHER_WWN_OP_INFO as the path of allgather_wwn.json"
#endif

namespace {

using allgather_wwn::KernelArgs;
using allgather_wwn::kMaxRanks;

constexpr const char *kCtxTag = "allgather_wwn";
// Every notify wait of the kernel; the vendor's samples use 1836 s.
constexpr uint32_t kWaitTimeout = 60;

#define AG_HOST_CHECK(call)                                                                                            \
    do {                                                                                                               \
        const HcclResult rc_ = (call);                                                                                 \
        if (rc_ != HCCL_SUCCESS) {                                                                                     \
            std::fprintf(stderr, "HcclAllGatherWwn: %s returned %d\n", #call, static_cast<int>(rc_));                  \
            return rc_;                                                                                                \
        }                                                                                                              \
    } while (0)

#define AG_ACL_CHECK(call)                                                                                             \
    do {                                                                                                               \
        const aclError rc_ = (call);                                                                                   \
        if (rc_ != ACL_SUCCESS) {                                                                                      \
            const char *msg_ = aclGetRecentErrMsg();                                                                   \
            std::fprintf(stderr, "HcclAllGatherWwn: %s returned %d: %s\n", #call, static_cast<int>(rc_),               \
                         msg_ != nullptr ? msg_ : "");                                                                 \
            return HCCL_E_RUNTIME;                                                                                     \
        }                                                                                                              \
    } while (0)

// The communicator's resources, in a host-memory engine context (COMM_ENGINE_CPU_TS).
struct Resources {
    uint32_t rank;
    uint32_t rankSize;
    uint64_t localBuffer;
    uint64_t slotBytes;
    uint64_t threads[kMaxRanks];
    uint64_t channels[kMaxRanks];
    uint64_t remoteBuffers[kMaxRanks];
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

HcclResult acquire(HcclComm comm, Resources &res)
{
    AG_HOST_CHECK(HcclGetRankId(comm, &res.rank));
    AG_HOST_CHECK(HcclGetRankSize(comm, &res.rankSize));
    if (res.rankSize > kMaxRanks) {
        std::fprintf(stderr, "HcclAllGatherWwn: %u ranks, at most %u supported\n", res.rankSize, kMaxRanks);
        return HCCL_E_NOT_SUPPORT;
    }
    void *buffer = nullptr;
    uint64_t size = 0;
    AG_HOST_CHECK(HcclGetHcclBuffer(comm, &buffer, &size));
    res.localBuffer = reinterpret_cast<uint64_t>(buffer);
    // Two slots per rank, 64-byte aligned.
    res.slotBytes = size / (2ULL * res.rankSize) / 64 * 64;
    if (res.slotBytes > allgather_wwn::kMaxSlotBytes)
        res.slotBytes = allgather_wwn::kMaxSlotBytes;
    if (res.slotBytes == 0) {
        std::fprintf(stderr, "HcclAllGatherWwn: the HCCL buffer (%" PRIu64 " bytes) is too small for %u ranks\n", size,
                     res.rankSize);
        return HCCL_E_MEMORY;
    }
    // One thread per rank: threads[peer] runs the exchange with that peer, threads[rank] the local copy.
    ThreadHandle threads[kMaxRanks] = {};
    AG_HOST_CHECK(HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, res.rankSize, 1, threads));
    HcclChannelDesc descs[kMaxRanks];
    uint32_t peers[kMaxRanks];
    uint32_t num = 0;
    for (uint32_t r = 0; r < res.rankSize; ++r) {
        res.threads[r] = threads[r];
        if (r == res.rank)
            continue;
        AG_HOST_CHECK(HcclChannelDescInit(&descs[num], 1));
        descs[num].remoteRank = r;
        descs[num].channelProtocol = COMM_PROTOCOL_UB_CTP;
        descs[num].notifyNum = allgather_wwn::kNotifyNum;
        peers[num++] = r;
    }
    if (num == 0)
        return HCCL_SUCCESS;
    ChannelHandle channels[kMaxRanks] = {};
    AG_HOST_CHECK(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, descs, num, channels));
    for (uint32_t i = 0; i < num; ++i) {
        void *remote = nullptr;
        uint64_t remoteSize = 0;
        AG_HOST_CHECK(HcclChannelGetHcclBuffer(comm, channels[i], &remote, &remoteSize));
        if (remoteSize < 2ULL * res.slotBytes * res.rankSize) {
            std::fprintf(stderr, "HcclAllGatherWwn: rank %u's HCCL buffer (%" PRIu64 " bytes) is smaller than ours\n",
                         peers[i], remoteSize);
            return HCCL_E_PARA;
        }
        res.channels[peers[i]] = channels[i];
        res.remoteBuffers[peers[i]] = reinterpret_cast<uint64_t>(remote);
    }
    return HCCL_SUCCESS;
}

// The communicator's resources: acquired by the first call, found by later ones.
HcclResult resources(HcclComm comm, const Resources *&out)
{
    void *ctx = nullptr;
    uint64_t size = 0;
    if (HcclEngineCtxGet(comm, kCtxTag, COMM_ENGINE_CPU_TS, &ctx, &size) == HCCL_SUCCESS && size == sizeof(Resources)) {
        out = static_cast<const Resources *>(ctx);
        return HCCL_SUCCESS;
    }
    Resources res{};
    AG_HOST_CHECK(acquire(comm, res));
    AG_HOST_CHECK(HcclEngineCtxCreate(comm, kCtxTag, COMM_ENGINE_CPU_TS, sizeof(Resources), &ctx));
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
        AG_ACL_CHECK(aclrtBinaryLoadFromFile(ALLGATHER_WWN_OP_INFO, &options, &bin));
        AG_ACL_CHECK(aclrtBinaryGetFunction(bin, "AllGatherWwnKernel", &loaded));
    }
    fn = loaded;
    return HCCL_SUCCESS;
}

} // namespace

HcclResult HcclAllGatherWwn(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType, HcclComm comm,
                            aclrtStream stream)
{
    const uint64_t unit = element_size(dataType);
    if (sendBuf == nullptr || recvBuf == nullptr || comm == nullptr || stream == nullptr)
        return HCCL_E_PTR;
    if (unit == 0 || sendCount == 0) {
        std::fprintf(stderr, "HcclAllGatherWwn: dataType %d, count %" PRIu64 ": needs a plain type and a count > 0\n",
                     static_cast<int>(dataType), sendCount);
        return HCCL_E_PARA;
    }
    const Resources *res = nullptr;
    AG_HOST_CHECK(resources(comm, res));

    KernelArgs args{};
    AG_HOST_CHECK(HcclGetCommName(comm, args.commName));
    args.rank = res->rank;
    args.rankSize = res->rankSize;
    args.bytes = sendCount * unit;
    args.slotBytes = res->slotBytes;
    args.sendBuf = reinterpret_cast<uint64_t>(sendBuf);
    args.recvBuf = reinterpret_cast<uint64_t>(recvBuf);
    args.localBuffer = res->localBuffer;
    args.waitTimeout = kWaitTimeout;
    std::memcpy(args.threads, res->threads, sizeof(args.threads));
    std::memcpy(args.channels, res->channels, sizeof(args.channels));
    std::memcpy(args.remoteBuffers, res->remoteBuffers, sizeof(args.remoteBuffers));

    // The kernel writes straight from sendBuf: register it (a second call with the same
    // buffer finds the registration under the same tag).
    char tag[64];
    std::snprintf(tag, sizeof(tag), "allgather_wwn_send_%" PRIx64 "_%" PRIx64, args.sendBuf, args.bytes);
    CommMem mem{COMM_MEM_TYPE_DEVICE, sendBuf, args.bytes};
    HcclMemHandle handle = nullptr;
    AG_HOST_CHECK(HcclCommMemReg(comm, tag, &mem, &handle));

    aclrtFuncHandle fn = nullptr;
    AG_HOST_CHECK(kernel(fn));
    aclrtArgsHandle argsHandle = nullptr;
    aclrtParamHandle param = nullptr;
    AG_ACL_CHECK(aclrtKernelArgsInit(fn, &argsHandle));
    AG_ACL_CHECK(aclrtKernelArgsAppend(argsHandle, &args, sizeof(args), &param));
    AG_ACL_CHECK(aclrtKernelArgsFinalize(argsHandle));
    AG_ACL_CHECK(aclrtLaunchKernelWithConfig(fn, 1, stream, nullptr, argsHandle, nullptr));
    return HCCL_SUCCESS;
}
