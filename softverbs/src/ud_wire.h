// The UD datagram format: one UDP datagram (or one in-process hand-over) per
// message, this header then the payload. One definition for the library and for
// tests that forge datagrams as an attacker would.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sv {

inline constexpr uint32_t kUdMagic = 0x44555653; // "SVUD"
inline constexpr uint8_t kUdVersion = 1;
inline constexpr uint32_t kUdMtu = 4096; // the port's active MTU: the largest UD message
enum UdFlag : uint8_t { kUdImm = 1, kUdSolicited = 2 };

struct UdHeader {
    uint32_t magic;
    uint8_t version, flags;
    uint8_t tclass, hop_limit; // from the sender's AH, reported in the GRH
    uint32_t flow_label;       // 20 bits
    uint32_t src_qpn, dst_qpn; // 24 bits each
    uint32_t qkey;
    uint32_t imm; // opaque, network order as posted
    uint32_t len; // payload bytes after the header
    uint8_t sgid[16], dgid[16];
};
static_assert(sizeof(UdHeader) == 64);

// Checks a received datagram of n bytes: size, magic, version, flags, field ranges
// and that len is exactly the rest. On success copies the header to *h.
bool ud_parse(const uint8_t *p, size_t n, UdHeader *h);

} // namespace sv
