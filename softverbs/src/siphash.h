// SipHash-2-4 (Aumasson & Bernstein), the keyed hash of the connection handshake:
// each side proves it knows the QP's secret without sending it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace sv {

inline uint64_t siphash24(uint64_t k0, uint64_t k1, const void *data, size_t n)
{
    auto rotl = [](uint64_t x, int b) { return (x << b) | (x >> (64 - b)); };
    uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
    uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
    auto round = [&] {
        v0 += v1;
        v1 = rotl(v1, 13) ^ v0;
        v0 = rotl(v0, 32);
        v2 += v3;
        v3 = rotl(v3, 16) ^ v2;
        v0 += v3;
        v3 = rotl(v3, 21) ^ v0;
        v2 += v1;
        v1 = rotl(v1, 17) ^ v2;
        v2 = rotl(v2, 32);
    };
    const auto *p = static_cast<const uint8_t *>(data);
    size_t full = n & ~size_t{7};
    for (size_t i = 0; i < full; i += 8) {
        uint64_t m = 0;
        for (int b = 0; b < 8; ++b)
            m |= uint64_t{p[i + b]} << (8 * b);
        v3 ^= m;
        round();
        round();
        v0 ^= m;
    }
    uint64_t last = uint64_t{n & 0xff} << 56;
    for (size_t b = 0; b < (n & 7); ++b)
        last |= uint64_t{p[full + b]} << (8 * b);
    v3 ^= last;
    round();
    round();
    v0 ^= last;
    v2 ^= 0xff;
    for (int i = 0; i < 4; ++i)
        round();
    return v0 ^ v1 ^ v2 ^ v3;
}

// A 128-bit proof that the sender knows `secret`, bound to the handshake's nonces, the
// two QPs and the direction ('C' requester, 'S' responder).
struct Proof {
    uint64_t w[2];
};
inline Proof handshake_proof(std::string_view secret, char dir, const uint8_t nonce_c[16], const uint8_t nonce_s[16],
                             uint32_t dest_qpn, uint32_t src_qpn)
{
    // Keys derived from the secret with fixed public keys (SipHash is a PRF).
    uint64_t k[4];
    for (int i = 0; i < 4; ++i)
        k[i] = siphash24(0x5356534543524554ULL + static_cast<uint64_t>(i), 0x4b44462d534f4654ULL, secret.data(),
                         secret.size());
    uint8_t msg[1 + 16 + 16 + 4 + 4];
    msg[0] = static_cast<uint8_t>(dir);
    std::memcpy(msg + 1, nonce_c, 16);
    std::memcpy(msg + 17, nonce_s, 16);
    std::memcpy(msg + 33, &dest_qpn, 4);
    std::memcpy(msg + 37, &src_qpn, 4);
    return Proof{{siphash24(k[0], k[1], msg, sizeof msg), siphash24(k[2], k[3], msg, sizeof msg)}};
}

inline bool same_proof(const Proof &a, const Proof &b) { return ((a.w[0] ^ b.w[0]) | (a.w[1] ^ b.w[1])) == 0; }

} // namespace sv
