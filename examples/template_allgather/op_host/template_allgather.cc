// The host part of HcclTemplateAllGather, in the vendor's template: register the operator
// for diagnostics, take the stream's CPU_TS thread, acquire (first call) or reuse (later
// calls, from an engine context) one AICPU_TS thread and a channel to every peer, load the
// kernel from its op-info JSON in CANN's layout under ASCEND_HOME_PATH, start it with a
// thread notify and launch it, and queue the wait for the kernel's "done" notify.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include <acl/acl.h>
#include <hccl/hccl_channel.h>
#include <hccl/hccl_comm.h>
#include <hccl/hccl_diag.h>
#include <hccl/hccl_res.h>
#include <hccl/hccl_res_expt.h>

#include "common.h"
#include "hccl_template_allgather.h"
#include "log.h"

namespace ops_template_allgather {
// op_host/launch_kernel_asc.asc: the <<<>>> launch of the ASC kernel.
HcclResult LaunchKernelAsc(OpParam &param, aclrtStream stream);
} // namespace ops_template_allgather

using namespace ops_template_allgather;

namespace {

// What a communicator keeps between calls, in a host-memory engine context.
struct ResourceCache {
    ThreadHandle aicpuThread;
    uint64_t cclAddr;
    uint64_t cclSize;
    ChannelHandle channels[MAX_RANK_SIZE];
    uint64_t remoteCcl[MAX_RANK_SIZE];
};

HcclResult AcquireResources(HcclComm comm, const OpParam &param, ResourceCache &cache)
{
    void *ccl = nullptr;
    uint64_t cclSize = 0;
    CHK_RET(HcclGetHcclBuffer(comm, &ccl, &cclSize));
    cache.cclAddr = reinterpret_cast<uint64_t>(ccl);
    cache.cclSize = cclSize;
    CHK_RET(HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, 1, 1, &cache.aicpuThread));

    HcclChannelDesc descs[MAX_RANK_SIZE];
    uint32_t peers[MAX_RANK_SIZE];
    uint32_t num = 0;
    for (uint32_t r = 0; r < param.rankSize; ++r) {
        if (r == param.myRank) {
            continue;
        }
        CHK_RET(HcclChannelDescInit(&descs[num], 1));
        // The endpoints stay unset: the reference picks them from the rank graph.
        CHK_RET(EndpointDescInit(&descs[num].localEndpoint, 1));
        CHK_RET(EndpointDescInit(&descs[num].remoteEndpoint, 1));
        descs[num].remoteRank = r;
        descs[num].channelProtocol = COMM_PROTOCOL_UBC_CTP;
        descs[num].notifyNum = CHANNEL_NOTIFY_NUM;
        peers[num++] = r;
    }
    if (num == 0) {
        return HCCL_SUCCESS;
    }
    ChannelHandle channels[MAX_RANK_SIZE] = {};
    CHK_RET(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, descs, num, channels));
    for (uint32_t i = 0; i < num; ++i) {
        void *remote = nullptr;
        uint64_t remoteSize = 0;
        CHK_RET(HcclChannelGetHcclBuffer(comm, channels[i], &remote, &remoteSize));
        cache.channels[peers[i]] = channels[i];
        cache.remoteCcl[peers[i]] = reinterpret_cast<uint64_t>(remote);
    }
    return HCCL_SUCCESS;
}

HcclResult InitResources(HcclComm comm, OpParam &param)
{
    void *ctx = nullptr;
    uint64_t size = 0;
    if (HcclEngineCtxGet(comm, param.tag, COMM_ENGINE_CPU_TS, &ctx, &size) != HCCL_SUCCESS ||
        size != sizeof(ResourceCache)) {
        ResourceCache cache;
        std::memset(&cache, 0, sizeof(cache));
        CHK_RET(AcquireResources(comm, param, cache));
        CHK_RET(HcclEngineCtxCreate(comm, param.tag, COMM_ENGINE_CPU_TS, sizeof(cache), &ctx));
        std::memcpy(ctx, &cache, sizeof(cache));
    }
    const ResourceCache *cache = static_cast<const ResourceCache *>(ctx);
    param.aicpuThread = cache->aicpuThread;
    param.cclAddr = cache->cclAddr;
    param.slotBytes = cache->cclSize / param.rankSize / 64 * 64;
    std::memcpy(param.channels, cache->channels, sizeof(param.channels));
    std::memcpy(param.remoteCcl, cache->remoteCcl, sizeof(param.remoteCcl));
    // The kernel's thread, as the host's CPU_TS engine sees it (the start notify goes there).
    CHK_RET(HcclThreadExportToCommEngine(comm, 1, &param.aicpuThread, COMM_ENGINE_CPU_TS, &param.aicpuThreadOnCpu));
    return HCCL_SUCCESS;
}

HcclResult LoadKernel(aclrtFuncHandle &func)
{
    static std::mutex mutex;
    static aclrtFuncHandle loaded = nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    if (loaded == nullptr) {
        const char *home = std::getenv("ASCEND_HOME_PATH");
        std::string json = home != nullptr ? home : "/usr/local/Ascend/cann";
        json += "/opp/vendors/cust/aicpu/config/libtemplate_allgather_aicpu_kernel.json";
        aclrtBinaryLoadOption option;
        option.type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE;
        option.value.cpuKernelMode = 0;
        aclrtBinaryLoadOptions options;
        options.options = &option;
        options.numOpt = 1;
        aclrtBinHandle bin = nullptr;
        ACL_CHK(aclrtBinaryLoadFromFile(json.c_str(), &options, &bin));
        ACL_CHK(aclrtBinaryGetFunction(bin, "HcclTemplateAllGatherKernel", &loaded));
    }
    func = loaded;
    return HCCL_SUCCESS;
}

HcclResult LaunchKernel(OpParam &param, aclrtStream stream)
{
    // HCCL_CUSTOM_KERNEL_LAUNCH_ASC=1: the ASC kernel in this library, launched with <<<>>>.
    const char *asc = std::getenv("HCCL_CUSTOM_KERNEL_LAUNCH_ASC");
    if (asc != nullptr && std::strcmp(asc, "1") == 0) {
        CHK_RET(HcommThreadNotifyRecordOnThread(param.cpuThread, param.aicpuThreadOnCpu, CONTROL_NOTIFY_IDX));
        CHK_RET(LaunchKernelAsc(param, stream));
        CHK_RET(HcommThreadNotifyWaitOnThread(param.cpuThread, CONTROL_NOTIFY_IDX, CUSTOM_TIMEOUT));
        return HCCL_SUCCESS;
    }
    aclrtFuncHandle func = nullptr;
    CHK_RET(LoadKernel(func));
    // Start signal: the kernel's first task waits for it.
    CHK_RET(HcommThreadNotifyRecordOnThread(param.cpuThread, param.aicpuThreadOnCpu, CONTROL_NOTIFY_IDX));
    aclrtArgsHandle args = nullptr;
    aclrtParamHandle paramHandle = nullptr;
    ACL_CHK(aclrtKernelArgsInit(func, &args));
    ACL_CHK(aclrtKernelArgsAppend(args, &param, sizeof(param), &paramHandle));
    ACL_CHK(aclrtKernelArgsFinalize(args));
    aclrtLaunchKernelAttr attr;
    attr.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT;
    attr.value.timeout = static_cast<uint16_t>(CUSTOM_TIMEOUT);
    aclrtLaunchKernelCfg cfg;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    ACL_CHK(aclrtLaunchKernelWithConfig(func, 1, stream, &cfg, args, nullptr));
    // The stream goes on once the kernel said it is done.
    CHK_RET(HcommThreadNotifyWaitOnThread(param.cpuThread, CONTROL_NOTIFY_IDX, CUSTOM_TIMEOUT));
    return HCCL_SUCCESS;
}

} // namespace

extern "C" HcclResult HcclTemplateAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                                            HcclComm comm, aclrtStream stream)
{
    CHK_PTR_NULL(sendBuf);
    CHK_PTR_NULL(recvBuf);
    CHK_PTR_NULL(comm);
    CHK_PTR_NULL(stream);
    if (DataTypeSize(dataType) == 0 || sendCount == 0) {
        HCCL_ERROR("[HcclTemplateAllGather] dataType %d, count %llu: needs a plain type and a count > 0",
                   static_cast<int>(dataType), static_cast<unsigned long long>(sendCount));
        return HCCL_E_PARA;
    }
    OpParam param;
    std::memset(&param, 0, sizeof(param));
    // sprintf_s comes with the hcomm headers, as on the device toolchain.
    if (sprintf_s(param.tag, sizeof(param.tag), "%s", "hccl_template_allgather") <= 0) {
        return HCCL_E_INTERNAL;
    }
    CHK_RET(HcclGetCommName(comm, param.commName));
    HcclDfxOpInfo dfxInfo{};
    dfxInfo.opType = HCCL_CMD_ALLGATHER;
    dfxInfo.dataType = static_cast<uint32_t>(dataType);
    dfxInfo.dataCount = sendCount;
    CHK_RET(HcclDfxRegOpInfoByCommId(param.commName, reinterpret_cast<void *>(&dfxInfo)));

    param.inputPtr = sendBuf;
    param.outputPtr = recvBuf;
    param.count = sendCount;
    param.dataType = dataType;
    param.opType = HCCL_CMD_ALLGATHER;
    CHK_RET(HcclGetRankId(comm, &param.myRank));
    CHK_RET(HcclGetRankSize(comm, &param.rankSize));
    if (param.rankSize > MAX_RANK_SIZE) {
        HCCL_ERROR("[HcclTemplateAllGather] %u ranks; at most %u", param.rankSize, MAX_RANK_SIZE);
        return HCCL_E_NOT_SUPPORT;
    }
    // The stream's CPU_TS thread: bound to the stream, taken again by every call.
    CHK_RET(HcclThreadAcquireWithStream(comm, COMM_ENGINE_CPU_TS, stream, 1, &param.cpuThread));
    CHK_RET(HcclThreadExportToCommEngine(comm, 1, &param.cpuThread, COMM_ENGINE_AICPU_TS, &param.cpuThreadOnAicpu));
    CHK_RET(InitResources(comm, param));
    if (param.slotBytes < sendCount * DataTypeSize(dataType)) {
        HCCL_ERROR("[HcclTemplateAllGather] %llu bytes per rank do not fit a slot of the HCCL buffer (%llu bytes)",
                   static_cast<unsigned long long>(sendCount * DataTypeSize(dataType)),
                   static_cast<unsigned long long>(param.slotBytes));
        return HCCL_E_PARA;
    }
    const std::string summary = ParamText(param.tag, param).Str();
    if (sprintf_s(param.summary, sizeof(param.summary), "%s", summary.c_str()) <= 0) {
        return HCCL_E_INTERNAL;
    }
    CHK_RET(LaunchKernel(param, stream));
    return HCCL_SUCCESS;
}
