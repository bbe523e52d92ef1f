// Decoding softverbs' frames: the checks every received frame passes before anything
// acts on it. Free of the library's state, so fuzz/fuzz_wire runs it alone.
#include "wire.h"

#include <cstring>

namespace sv {

bool frame_ok(bool outbound, const Frame &f)
{
    if (f.plen > kMaxFramePayload || f.len > kMaxFramePayload || (f.flags & ~(kPlaced | kMore)))
        return false;
    if (outbound) { // replies to our requests
        switch (f.op) {
        case kAck:
        case kNak:
        case kAtomicResp: return f.plen == 0;
        case kReadResp: return f.plen == f.len;
        default: return false;
        }
    }
    switch (f.op) {
    case kWrite:
    case kWriteImm: return (f.flags & kPlaced) ? f.plen == 0 : f.plen == f.len;
    case kSend:
    case kSendImm: return !(f.flags & kPlaced) && f.plen == f.len;
    case kRead: return f.plen == 0;
    case kCmpSwp:
    case kFetchAdd: return f.plen == 0 && f.len == 8;
    default: return false;
    }
}

FrameCut cut_frame(bool outbound, const uint8_t *data, size_t n, Frame *f)
{
    if (n < sizeof(Frame))
        return FrameCut::kNeedMore;
    std::memcpy(f, data, sizeof *f); // the stream has no alignment
    if (!frame_ok(outbound, *f))
        return FrameCut::kMalformed;
    if (n - sizeof *f < f->plen)
        return FrameCut::kNeedMore;
    return FrameCut::kFrame;
}

} // namespace sv
