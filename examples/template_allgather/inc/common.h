// What the host part and the AICPU kernel of HcclTemplateAllGather share, laid out as the
// vendor's custom-operator samples lay out theirs: constants of the operator's own (the
// samples define COMM_INDENTIFIER_MAX_LENGTH themselves, with that spelling, so no hcomm
// header may define the name) and the one parameter block the host hands the kernel.
#ifndef TEMPLATE_ALLGATHER_COMMON_H
#define TEMPLATE_ALLGATHER_COMMON_H

#include <acl/acl_rt.h>
#include <sstream>
#include <string>

#include <hccl/hccl_res.h>
#include <hccl/hccl_types.h>
#include <hccl/hcomm_primitives.h>

namespace ops_template_allgather {

constexpr uint32_t COMM_INDENTIFIER_MAX_LENGTH = 128;
constexpr uint32_t OP_NAME_LENGTH = 32;
constexpr uint32_t TAG_LENGTH = OP_NAME_LENGTH + COMM_INDENTIFIER_MAX_LENGTH;
constexpr uint32_t MAX_RANK_SIZE = 8;
constexpr uint32_t INVALID_RANK = 0xFFFFFFFF;
// Channel notifies: DATA says "your slot in my HCCL buffer is written", ACK says "I copied
// your slot out" (the next call may write it again).
constexpr uint32_t NOTIFY_IDX_DATA = 0;
constexpr uint32_t NOTIFY_IDX_ACK = 1;
constexpr uint32_t CHANNEL_NOTIFY_NUM = 2;
// Host <-> device control: the host raises the kernel thread's notify 0 to start it, the
// kernel raises the host thread's notify 0 when it is done.
constexpr uint32_t CONTROL_NOTIFY_IDX = 0;
// Every wait's timeout in seconds (the vendor's samples use 1836).
constexpr uint32_t CUSTOM_TIMEOUT = 120;

// The parameter block aclrtKernelArgsAppend copies to the kernel: plain data only.
struct OpParam {
    char tag[TAG_LENGTH];
    char commName[COMM_INDENTIFIER_MAX_LENGTH];
    void *inputPtr;
    void *outputPtr;
    uint64_t count;
    HcclDataType dataType;
    HcclCMDType opType;
    uint32_t myRank;
    uint32_t rankSize;
    ThreadHandle cpuThread;        // the stream's CPU_TS thread (host side)
    ThreadHandle aicpuThreadOnCpu; // the kernel's thread, exported to the CPU_TS engine
    ThreadHandle cpuThreadOnAicpu; // the stream's thread, exported to the AICPU_TS engine
    ThreadHandle aicpuThread;      // the kernel's AICPU_TS thread
    uint64_t cclAddr;              // this rank's HCCL buffer: rank r's slot at r * slotBytes
    uint64_t slotBytes;
    ChannelHandle channels[MAX_RANK_SIZE]; // to rank r (unused at myRank)
    uint64_t remoteCcl[MAX_RANK_SIZE];     // rank r's HCCL buffer
    char summary[64];                      // ParamText of this block, as the host wrote it
};

// A text form of the parameters, which the host writes into the block and the kernel checks
// against its own reading: standard-library types in an inline class both sides instantiate,
// as the vendor's samples share their BinaryStream. The host library is built with the
// vendor's old string ABI and the kernel is not, so each side must run its own copy.
class ParamText {
  public:
    ParamText(const std::string &label, const OpParam &p)
    {
        out_ << label << ": rank " << p.myRank << "/" << p.rankSize << ", " << p.count << " x type " << p.dataType;
    }
    std::string Str() const { return out_.str(); }

  private:
    std::ostringstream out_;
};

inline uint64_t DataTypeSize(HcclDataType type)
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

} // namespace ops_template_allgather

#endif
