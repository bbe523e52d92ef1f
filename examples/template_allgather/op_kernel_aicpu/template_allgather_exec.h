// The body of HcclTemplateAllGather's AICPU kernel, shared by its two builds: the kernel
// library an op-info JSON names (template_allgather_kernel.cc, aclrtLaunchKernelWithConfig)
// and the ASC kernel linked into the host library (template_allgather_kernel_asc.aicpu,
// launched with <<<>>>). Everything here has internal linkage: each build keeps its own copy.
// It queues tasks on its one AICPU_TS thread: wait for the host's start notify; copy the input
// into this rank's slot of its own HCCL buffer; write that slot into the same slot of every
// peer's HCCL buffer with a DATA notify; wait for every peer's DATA, copy every slot to the
// output; tell every peer its slot was copied out (ACK) and wait for theirs, so the next call
// cannot overwrite a slot still being read; raise the host thread's "done" notify.
#ifndef TEMPLATE_ALLGATHER_EXEC_H
#define TEMPLATE_ALLGATHER_EXEC_H

#include <string>

#include <hccl/hcomm_primitives.h>

#include "common.h"
#include "log.h"

namespace {

using namespace ops_template_allgather;

void *At(uint64_t base, uint64_t offset) { return reinterpret_cast<void *>(base + offset); }

HcclResult ExecOp(const OpParam &param)
{
    const ThreadHandle thread = param.aicpuThread;
    const uint64_t bytes = param.count * DataTypeSize(param.dataType);
    const uint64_t mySlot = param.slotBytes * param.myRank;
    CHK_RET(HcommThreadNotifyWaitOnThread(thread, CONTROL_NOTIFY_IDX, CUSTOM_TIMEOUT));
    CHK_RET(HcommLocalCopyOnThread(thread, At(param.cclAddr, mySlot), param.inputPtr, bytes));
    for (uint32_t r = 0; r < param.rankSize; ++r) {
        if (r != param.myRank) {
            CHK_RET(HcommWriteWithNotifyOnThread(thread, param.channels[r], At(param.remoteCcl[r], mySlot),
                                                 At(param.cclAddr, mySlot), bytes, NOTIFY_IDX_DATA));
        }
    }
    for (uint32_t r = 0; r < param.rankSize; ++r) {
        if (r != param.myRank) {
            CHK_RET(HcommChannelNotifyWaitOnThread(thread, param.channels[r], NOTIFY_IDX_DATA, CUSTOM_TIMEOUT));
        }
        CHK_RET(HcommLocalCopyOnThread(thread, At(reinterpret_cast<uint64_t>(param.outputPtr), r * bytes),
                                       At(param.cclAddr, param.slotBytes * r), bytes));
    }
    for (uint32_t r = 0; r < param.rankSize; ++r) {
        if (r != param.myRank) {
            CHK_RET(HcommChannelNotifyRecordOnThread(thread, param.channels[r], NOTIFY_IDX_ACK));
        }
    }
    for (uint32_t r = 0; r < param.rankSize; ++r) {
        if (r != param.myRank) {
            CHK_RET(HcommChannelNotifyWaitOnThread(thread, param.channels[r], NOTIFY_IDX_ACK, CUSTOM_TIMEOUT));
        }
    }
    CHK_RET(HcommThreadNotifyRecordOnThread(thread, param.cpuThreadOnAicpu, CONTROL_NOTIFY_IDX));
    return HCCL_SUCCESS;
}

// The kernel: checks its parameters, then runs ExecOp in one batch. 0 on success.
unsigned int RunKernel(void *args, const char *name)
{
    const OpParam *param = static_cast<const OpParam *>(args);
    if (param == nullptr || param->rankSize == 0 || param->rankSize > MAX_RANK_SIZE ||
        param->myRank >= param->rankSize) {
        HCCL_ERROR("[%s] bad parameters", name);
        return 1;
    }
    // The kernel reads the block as the host wrote it.
    const std::string summary = ParamText(param->tag, *param).Str();
    if (summary != param->summary) {
        HCCL_ERROR("[%s] parameters read as '%s', the host wrote '%s'", name, summary.c_str(), param->summary);
        return 4;
    }
    if (HcommBatchModeStart(param->tag) != HCCL_SUCCESS) {
        return 2;
    }
    const HcclResult ret = ExecOp(*param);
    if (HcommBatchModeEnd(param->tag) != HCCL_SUCCESS) {
        return 3;
    }
    return ret == HCCL_SUCCESS ? 0 : 100 + static_cast<unsigned int>(ret);
}

} // namespace

#endif
