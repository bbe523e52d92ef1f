// The CM exchange between two softverbs rdma_cm processes, carried over one TCP
// connection per connected rdma_cm_id. Every message is a 12-byte header and a body
// whose length the header states; parse_msg() is the one decode step and checks
// every length and field before anything of the message is used.
#pragma once
#include <cstddef>
#include <cstdint>

namespace svcm {

constexpr uint32_t kMagic = 0x4d435653; // "SVCM"
constexpr uint8_t kVersion = 1;
constexpr size_t kHeaderLen = 12;
constexpr size_t kMaxPrivateData = 255; // rdma_conn_param::private_data_len is a uint8_t

enum class MsgType : uint8_t {
    Req = 1,  // active → passive: connect request
    Rep = 2,  // passive → active: accept
    Rej = 3,  // passive → active: reject (private data only)
    Rtu = 4,  // active → passive: ready to use (connection established)
    Dreq = 5, // either way: disconnect
};

// What a REQ or REP carries: the sender's QP as softverbs addresses it, and its conn_param.
struct Msg {
    MsgType type{};
    uint8_t gid[16]{};
    uint32_t qpn = 0; // 24 bits
    uint32_t psn = 0; // 24 bits
    uint8_t responder_resources = 0;
    uint8_t initiator_depth = 0;
    uint8_t retry_count = 0;     // 3 bits
    uint8_t rnr_retry_count = 0; // 3 bits
    uint8_t private_data_len = 0;
    uint8_t private_data[kMaxPrivateData]{};
};

constexpr size_t kConnBodyLen = 16 + 4 + 4 + 4 + 1; // gid, qpn, psn, four params, private_data_len
constexpr size_t kMaxMsgLen = kHeaderLen + kConnBodyLen + kMaxPrivateData;

// Encodes m into out (at least kMaxMsgLen bytes); returns the length.
size_t encode_msg(const Msg &m, uint8_t *out);

enum class Parse { NeedMore, Ok, Bad };
// Decodes the first message of buf[0, len). Ok: *m filled and *used set to its length.
// Bad: *why says what was wrong (the connection must be closed).
Parse parse_msg(const uint8_t *buf, size_t len, Msg *m, size_t *used, const char **why);

} // namespace svcm
