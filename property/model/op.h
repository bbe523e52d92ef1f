// op.h: one hcomm operation as the property tests generate it. A plain,
// fixed-size struct so that it can be broadcast between MPI ranks unchanged and
// shown in a counterexample.
#pragma once

#include <cstdint>
#include <string>

namespace hcts::prop {

enum class OpKind : uint32_t {
    Wwn,       // HcommWriteWithNotifyOnThread(rank -> peer)
    Write,     // HcommWriteOnThread(rank -> peer)
    Read,      // HcommReadOnThread: rank reads peer memory into its own
    Record,    // HcommChannelNotifyRecordOnThread(rank -> peer, idx)
    Wait,      // HcommChannelNotifyWaitOnThread on rank, channel to peer; then a device-side snapshot
    PostWait,  // as Wait, but launched asynchronously; Join collects it
    Join,      // collect rank's posted wait
    LocalCopy, // HcommLocalCopyOnThread within rank's window
    Fence,     // HcommChannelFenceOnThread(rank, channel to peer)
    Stamp,     // harness: write a fresh stamped pattern into rank's memory (not an hcomm call)
    Check,     // harness: read every rank's memory and compare with the model's allowed set
};

// How an address argument is formed. Everything but InWindow must be rejected.
enum class Addr : uint32_t {
    InWindow,    // inside the window of communication memory the model tracks
    StraddleEnd, // starts inside the registered buffer, ends past its end
    PastEnd,     // starts past the end of the registered buffer
    Overflow,    // addr + len wraps around 2^64
    Null,        // nullptr
};

// Where the call is made from and on which kind of thread.
enum class Side : uint32_t {
    Device,      // in the emulated AICPU_TS device context, AICPU_TS thread
    Host,        // from the host, AICPU_TS thread (device-only calls must be rejected)
    WrongEngine, // in the device context, but on a thread of another engine (CPU_TS, else CPU)
};

struct Op {
    OpKind kind = OpKind::Check;
    uint32_t rank = 0;    // the rank that issues the call
    uint32_t peer = 0;    // the remote end of the channel used
    uint32_t src_off = 0; // offset in the window (source side)
    uint32_t dst_off = 0; // offset in the window (destination side)
    uint32_t len = 0;     // bytes
    uint32_t idx = 0;     // notify index
    uint32_t timeout_ms = 0;
    Addr src_addr = Addr::InWindow;
    Addr dst_addr = Addr::InWindow;
    Side side = Side::Device;
    uint32_t stamp_id = 0; // Stamp: the id that seeds the pattern
};

std::string show(const Op &op);
const char *kind_name(OpKind k);

} // namespace hcts::prop
