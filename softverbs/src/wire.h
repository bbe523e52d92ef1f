// softverbs' wire format: the frames of the TCP and in-process routes, and the
// connection handshake. One definition for the library and for the tests that
// speak it as an attacker would (security_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "siphash.h"

namespace sv {

// ---- frames (TCP and in-process alike) ----
enum WireOp : uint8_t {
    kWrite = 1,
    kWriteImm,
    kSend,
    kSendImm,
    kRead,
    kCmpSwp,
    kFetchAdd,
    kAck = 16,
    kNak,
    kReadResp,
    kAtomicResp,
};
enum WireFlag : uint8_t { kPlaced = 1, kMore = 2 };
struct Frame {
    uint8_t op, flags, status, pad;
    uint32_t len; // payload bytes that follow (or placed byte count)
    uint64_t seq;
    uint64_t raddr;
    uint32_t rkey;
    uint32_t imm;
    uint64_t a, b; // compare/add, swap
    uint32_t plen; // payload bytes on the wire after this header
    uint32_t reserved;
};
static_assert(sizeof(Frame) == 56);

// The largest message, so the largest payload a frame may carry (the device's max_msg_sz).
inline constexpr uint32_t kMaxFramePayload = 1u << 30;

// A frame must be one this side of the connection can receive (`outbound`: replies to our
// requests), with its payload length consistent with its header: anything else comes
// from a broken or hostile peer.
bool frame_ok(bool outbound, const Frame &f);

// What the head of a received byte stream holds.
enum class FrameCut {
    kNeedMore,  // not yet a whole frame; *f holds the header once n >= sizeof(Frame)
    kMalformed, // the header is not frame_ok: the connection must close
    kFrame,     // *f, then f->plen payload bytes at data + sizeof(Frame), all within the n bytes
};
// Cuts the first frame off the n bytes at `data` (the one decode step of every route, and
// what fuzz/ feeds hostile bytes to): never reads past data + n.
FrameCut cut_frame(bool outbound, const uint8_t *data, size_t n, Frame *f);

// ---- the handshake ----
constexpr uint32_t kHelloMagic = 0x53564833; // "SVH3"

// The handshake: Hello (requester) -> Challenge (responder: its nonce and its proof of
// the QP's secret) -> Answer (requester's proof) -> HelloReply. The secret itself never
// travels; each side refuses a peer whose proof is wrong.
struct Hello {
    uint32_t magic;
    uint32_t dest_qpn;
    uint32_t src_qpn;
    uint8_t rnr_retry;
    uint8_t pad[3];
    uint8_t nonce[16];
    uint8_t boot_id[40];
    uint64_t netns;
    uint32_t pid;
    int32_t table_fd;
    // The requester's GID parts: the responder QP must be connected to exactly this peer.
    uint32_t src_ip; // network order
    uint16_t src_port, src_salt;
    uint64_t cookie; // the requester's MR table cookie (same host: the responder maps it for its doorbell)
};
struct Challenge {
    uint32_t magic;
    uint32_t status; // 0: go on, 1: refused (no such QP)
    uint8_t nonce[16];
    Proof proof;
};
struct Answer {
    uint32_t magic;
    // 0: `proof` follows. kAnswerRefused: the requester found the Challenge's proof wrong
    // (the two sides have different secrets) and is not connecting; `proof` is zero, and
    // the responder only says why, so both sides name the cause.
    uint32_t status;
    Proof proof;
};
inline constexpr uint32_t kAnswerRefused = 1;
struct HelloReply {
    uint32_t magic;
    uint32_t status; // 0 ok, 1 refused (wrong secret, no such QP, or not this QP's peer)
    uint8_t boot_id[40];
    uint64_t netns;
    uint32_t pid;
    int32_t table_fd;
    uint64_t cookie;
    uint32_t qp_slot; // the responder QP's entry in the published table
    int32_t ring_fd;  // same host: the shared-memory ring segment of this connection (-1: none)
};

} // namespace sv
