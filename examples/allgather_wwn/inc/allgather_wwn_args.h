// What the host part hands the AICPU kernel: one packed block (aclrtKernelArgsAppend),
// addresses and handles as 64-bit numbers, as the device sees them.
#pragma once

#include <cstdint>

namespace allgather_wwn {

constexpr uint32_t kMaxRanks = 16;
// Channel notifies, per direction: DATA+s says "slot s holds your next chunk",
// CREDIT+s says "I copied slot s out: you may write it again".
constexpr uint32_t kNotifyData = 0;
constexpr uint32_t kNotifyCredit = 2;
constexpr uint32_t kNotifyNum = 4;
// Two slots per source rank in each rank's HCCL buffer, each at most this large.
constexpr uint64_t kMaxSlotBytes = 32 * 1024;

struct KernelArgs {
    char commName[128];   // HcclGetCommName
    uint32_t rank;        // this rank
    uint32_t rankSize;    // ranks in the communicator, at most kMaxRanks
    uint64_t bytes;       // bytes each rank contributes
    uint64_t slotBytes;   // bytes of one slot
    uint64_t sendBuf;     // bytes, device memory registered with the communicator
    uint64_t recvBuf;     // rankSize * bytes, device memory
    uint64_t localBuffer; // this rank's HCCL buffer: rank r's slots at r * 2 * slotBytes
    uint32_t waitTimeout; // of every notify wait, in the reference's unit (seconds by default)
    uint32_t reserved;
    uint64_t threads[kMaxRanks];       // AICPU_TS thread serving rank r (threads[rank]: the local copy)
    uint64_t channels[kMaxRanks];      // channel to rank r (unused at [rank])
    uint64_t remoteBuffers[kMaxRanks]; // rank r's HCCL buffer, as this rank writes it
};

} // namespace allgather_wwn
