// Invalid writes with notify, each made from a valid one by breaking one
// argument (two, for the vendor's check order): the error-path cases and litmus
// L16 draw them from this one table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "hcomm/hcomm_res_defs.h"

namespace hcts {

class World;

enum class Fault {
    DstNull,
    SrcNull,
    ChannelZero,
    ThreadZero,
    ForeignChannel, // a handle no acquisition returned
    ForeignThread,
    StaleChannel,           // a channel acquired and destroyed (with_fault's stale_channel)
    SrcUnregistered,        // ordinary host memory
    SrcPastLocalEnd,        // running past the end of local communication memory
    DstPastPeerEnd,         // running past the end of the peer's
    SrcOneByteOverLocalEnd, // ending exactly one byte past the end of local communication memory
    DstOneByteOverPeerEnd,  // ending exactly one byte past the end of the peer's
    DstBeforePeer,          // before the peer's communication memory
    LenNearMax,             // len UINT64_MAX - 7: dst + len overflows
    LenHalfRange,           // len 2^63
    IdxAtNotifyNum,         // remoteNotifyIdx = the channel's notifyNum (World::kNotifyNum)
    DstNullIdxMax,          // check order: a null dst decides before the index
    SrcNullLenZero,         // check order: a null src decides before len 0
    ThreadZeroLenZero,
};

struct WwnCall {
    ThreadHandle thread;
    ChannelHandle channel;
    std::byte *dst;
    const std::byte *src;
    uint64_t len;
    uint32_t idx;
};

std::string_view fault_name(Fault f);
// `valid` with `f` applied, as rank `sender` of `w` would make it towards
// `receiver`; `host_memory` is ordinary memory for SrcUnregistered, `stale_channel`
// a destroyed channel's handle for StaleChannel.
WwnCall with_fault(const World &w, int receiver, WwnCall valid, Fault f, std::span<std::byte> host_memory,
                   ChannelHandle stale_channel = 0);

} // namespace hcts
