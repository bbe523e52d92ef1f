#include "bad_calls.h"

#include "world.h"

namespace hcts {

namespace {
// A plausible-looking pointer-sized value no acquisition returned.
constexpr uint64_t kForeign = 0x00007f5a5a5a0000ULL;
} // namespace

std::string_view fault_name(Fault f)
{
    switch (f) {
    case Fault::DstNull: return "dst NULL";
    case Fault::SrcNull: return "src NULL";
    case Fault::ChannelZero: return "channel 0";
    case Fault::ThreadZero: return "thread 0";
    case Fault::ForeignChannel: return "a foreign channel handle";
    case Fault::ForeignThread: return "a foreign thread handle";
    case Fault::StaleChannel: return "a destroyed (stale) channel handle";
    case Fault::SrcUnregistered: return "src in unregistered host memory";
    case Fault::SrcPastLocalEnd: return "src running past the end of local communication memory";
    case Fault::DstPastPeerEnd: return "dst running past the end of the peer's communication memory";
    case Fault::SrcOneByteOverLocalEnd: return "src ending one byte past the end of local communication memory";
    case Fault::DstOneByteOverPeerEnd: return "dst ending one byte past the end of the peer's communication memory";
    case Fault::DstBeforePeer: return "dst before the peer's communication memory";
    case Fault::LenNearMax: return "len UINT64_MAX - 7 (dst + len overflows)";
    case Fault::LenHalfRange: return "len 2^63";
    case Fault::IdxAtNotifyNum: return "remoteNotifyIdx = notifyNum";
    case Fault::DstNullIdxMax: return "dst NULL with index UINT32_MAX";
    case Fault::SrcNullLenZero: return "src NULL with len 0";
    case Fault::ThreadZeroLenZero: return "thread 0 with len 0";
    }
    return "?";
}

WwnCall with_fault(const World &w, int receiver, WwnCall c, Fault f, std::span<std::byte> host_memory,
                   ChannelHandle stale_channel)
{
    const Peer &p = w.peers.at(static_cast<size_t>(receiver));
    switch (f) {
    case Fault::DstNull: c.dst = nullptr; break;
    case Fault::SrcNull: c.src = nullptr; break;
    case Fault::ChannelZero: c.channel = 0; break;
    case Fault::ThreadZero: c.thread = 0; break;
    case Fault::ForeignChannel: c.channel = kForeign; break;
    case Fault::ForeignThread: c.thread = kForeign; break;
    case Fault::StaleChannel: c.channel = stale_channel; break;
    case Fault::SrcUnregistered:
        c.src = host_memory.data(), c.len = std::min<uint64_t>(c.len, host_memory.size());
        break;
    case Fault::SrcPastLocalEnd: c.src = w.local_base + w.local_size - 32, c.len = 64; break;
    case Fault::DstPastPeerEnd: c.dst = p.remote_base + p.remote_size - 32, c.len = 64; break;
    // [addr, addr + 64) ends at base + size + 1: an inclusive end check lets it through.
    case Fault::SrcOneByteOverLocalEnd: c.src = w.local_base + w.local_size - 63, c.len = 64; break;
    case Fault::DstOneByteOverPeerEnd: c.dst = p.remote_base + p.remote_size - 63, c.len = 64; break;
    case Fault::DstBeforePeer: c.dst = p.remote_base - 4096, c.len = 64; break;
    case Fault::LenNearMax: c.len = UINT64_MAX - 7; break;
    case Fault::LenHalfRange: c.len = 1ULL << 63; break;
    case Fault::IdxAtNotifyNum: c.idx = World::kNotifyNum; break;
    case Fault::DstNullIdxMax: c.dst = nullptr, c.idx = UINT32_MAX; break;
    case Fault::SrcNullLenZero: c.src = nullptr, c.len = 0; break;
    case Fault::ThreadZeroLenZero: c.thread = 0, c.len = 0; break;
    }
    return c;
}

} // namespace hcts
