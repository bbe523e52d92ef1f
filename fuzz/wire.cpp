// fuzz_wire: hostile byte streams through softverbs' frame decoder (sv::cut_frame,
// the step every TCP and in-process connection runs before acting on a frame).
// The first byte picks the direction (requests arriving at a responder, or replies
// arriving at a requester); the rest is the stream, cut frame by frame as the
// transport does. Every payload byte a cut frame claims is read, so a frame whose
// declared length exceeds what arrived is a heap-buffer-overflow under asan, and
// every promise of docs/security.md "Frames are length-checked" is asserted.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "wire.h"

namespace {

// A broken promise is a crash, which libFuzzer records with its input.
void require(bool ok, const char *promise)
{
    if (!ok) {
        std::fprintf(stderr, "fuzz_wire: broken promise: %s\n", promise);
        std::abort();
    }
}

// What a frame of this direction may carry (the documented contract, restated
// independently of frame_ok so a regression in either shows).
void check_frame(bool outbound, const sv::Frame &f)
{
    require(f.plen <= sv::kMaxFramePayload && f.len <= sv::kMaxFramePayload, "len and payload <= 1 GiB");
    require((f.flags & ~(sv::kPlaced | sv::kMore)) == 0, "only known flags");
    if (outbound) {
        require(f.op == sv::kAck || f.op == sv::kNak || f.op == sv::kAtomicResp || f.op == sv::kReadResp,
                "a requester receives only replies");
        require(f.op == sv::kReadResp ? f.plen == f.len : f.plen == 0, "a reply carries exactly its READ's bytes");
        return;
    }
    require(f.op >= sv::kWrite && f.op <= sv::kFetchAdd, "a responder receives only requests");
    if (f.op == sv::kRead || f.op == sv::kCmpSwp || f.op == sv::kFetchAdd)
        require(f.plen == 0, "READs and atomics carry no payload");
    if (f.op == sv::kCmpSwp || f.op == sv::kFetchAdd)
        require(f.len == 8, "atomics are 8 bytes");
    if (f.op == sv::kSend || f.op == sv::kSendImm)
        require(!(f.flags & sv::kPlaced), "a SEND is never placed");
    if ((f.op == sv::kWrite || f.op == sv::kWriteImm || f.op == sv::kSend || f.op == sv::kSendImm) &&
        !(f.flags & sv::kPlaced))
        require(f.plen == f.len, "an unplaced WRITE/SEND carries its len");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const bool outbound = (data[0] & 1) != 0;
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    uint64_t sum = 0;
    for (;;) {
        sv::Frame f{};
        const sv::FrameCut cut = sv::cut_frame(outbound, p, n, &f);
        if (cut == sv::FrameCut::kMalformed)
            break; // the connection closes: nothing after it is read
        if (cut == sv::FrameCut::kNeedMore) {
            // Only a header too short, or a payload not all here yet.
            require(n < sizeof f || n - sizeof f < f.plen, "more is needed only when the frame is incomplete");
            break;
        }
        check_frame(outbound, f);
        require(sizeof f + f.plen <= n, "a cut frame's payload lies within the bytes received");
        const uint8_t *payload = p + sizeof f;
        for (uint32_t i = 0; i < f.plen; ++i) // as the responder's copy into memory would
            sum += payload[i];
        p += sizeof f + f.plen;
        n -= sizeof f + f.plen;
    }
    // Keeps the payload reads from being optimised away.
    volatile uint64_t sink = sum;
    (void)sink;
    return 0;
}
