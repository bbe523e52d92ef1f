// What the host part hands the AICPU kernel: one packed block (aclrtKernelArgsAppend),
// addresses and handles as 64-bit numbers, as the device sees them.
#pragma once

#include <cstdint>

namespace broadcast_read {

constexpr uint32_t kMaxRanks = 16;
// Channel notifies, per direction: the root raises READY+s at a rank when slot s of its HCCL
// buffer holds the next chunk; the rank raises DONE+s at the root once it read the slot.
constexpr uint32_t kNotifyReady = 0;
constexpr uint32_t kNotifyDone = 2;
constexpr uint32_t kNotifyNum = 4;
// Two slots in the root's HCCL buffer, each at most this large.
constexpr uint64_t kMaxSlotBytes = 32 * 1024;

struct KernelArgs {
    char commName[128];           // HcclGetCommName
    uint32_t rank;                // this rank
    uint32_t rankSize;            // ranks in the communicator, at most kMaxRanks
    uint32_t root;                // the rank whose buf is broadcast
    uint32_t waitTimeout;         // of every notify wait, in the reference's unit (seconds by default)
    uint64_t bytes;               // bytes of buf
    uint64_t slotBytes;           // bytes of one slot
    uint64_t buf;                 // device memory: the source on the root, registered with the communicator elsewhere
    uint64_t rootBuffer;          // the root's HCCL buffer, as this rank sees it (its own on the root)
    uint64_t thread;              // this rank's AICPU_TS thread
    uint64_t channels[kMaxRanks]; // on the root: to every other rank; elsewhere [root]: to the root
};

} // namespace broadcast_read
