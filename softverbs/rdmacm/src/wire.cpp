#include "wire.h"

#include <cstring>

namespace svcm {
namespace {

void put32(uint8_t *p, uint32_t v)
{
    p[0] = static_cast<uint8_t>(v >> 24);
    p[1] = static_cast<uint8_t>(v >> 16);
    p[2] = static_cast<uint8_t>(v >> 8);
    p[3] = static_cast<uint8_t>(v);
}

uint32_t get32(const uint8_t *p) { return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3]; }

bool has_conn_body(MsgType t) { return t == MsgType::Req || t == MsgType::Rep; }

} // namespace

size_t encode_msg(const Msg &m, uint8_t *out)
{
    size_t body = 0;
    uint8_t *b = out + kHeaderLen;
    if (has_conn_body(m.type)) {
        std::memcpy(b, m.gid, 16);
        put32(b + 16, m.qpn & 0xffffff);
        put32(b + 20, m.psn & 0xffffff);
        b[24] = m.responder_resources;
        b[25] = m.initiator_depth;
        b[26] = m.retry_count & 7;
        b[27] = m.rnr_retry_count & 7;
        b[28] = m.private_data_len;
        std::memcpy(b + kConnBodyLen, m.private_data, m.private_data_len);
        body = kConnBodyLen + m.private_data_len;
    } else if (m.type == MsgType::Rej) {
        b[0] = m.private_data_len;
        std::memcpy(b + 1, m.private_data, m.private_data_len);
        body = 1 + size_t{m.private_data_len};
    }
    put32(out, kMagic);
    out[4] = kVersion;
    out[5] = static_cast<uint8_t>(m.type);
    out[6] = out[7] = 0;
    put32(out + 8, static_cast<uint32_t>(body));
    return kHeaderLen + body;
}

Parse parse_msg(const uint8_t *buf, size_t len, Msg *m, size_t *used, const char **why)
{
    if (len < kHeaderLen)
        return Parse::NeedMore;
    if (get32(buf) != kMagic)
        return *why = "bad magic (not a softverbs rdma_cm peer)", Parse::Bad;
    if (buf[4] != kVersion)
        return *why = "unsupported protocol version (1 allowed)", Parse::Bad;
    if (buf[6] != 0 || buf[7] != 0)
        return *why = "non-zero reserved header bytes", Parse::Bad;
    uint8_t t = buf[5];
    if (t < static_cast<uint8_t>(MsgType::Req) || t > static_cast<uint8_t>(MsgType::Dreq))
        return *why = "unknown message type (1..5 allowed)", Parse::Bad;
    auto type = static_cast<MsgType>(t);
    uint32_t body = get32(buf + 8);
    if (body > kMaxMsgLen - kHeaderLen)
        return *why = "body longer than any message", Parse::Bad;
    if (len < kHeaderLen + body)
        return Parse::NeedMore;
    const uint8_t *b = buf + kHeaderLen;
    *m = Msg{};
    m->type = type;
    if (has_conn_body(type)) {
        if (body < kConnBodyLen || body != kConnBodyLen + b[28])
            return *why = "REQ/REP body length does not match its private data length", Parse::Bad;
        std::memcpy(m->gid, b, 16);
        m->qpn = get32(b + 16);
        m->psn = get32(b + 20);
        if (m->qpn > 0xffffff || m->psn > 0xffffff)
            return *why = "QPN or PSN wider than 24 bits", Parse::Bad;
        if (b[26] > 7 || b[27] > 7)
            return *why = "retry or RNR retry count above 7", Parse::Bad;
        m->responder_resources = b[24];
        m->initiator_depth = b[25];
        m->retry_count = b[26];
        m->rnr_retry_count = b[27];
        m->private_data_len = b[28];
        std::memcpy(m->private_data, b + kConnBodyLen, m->private_data_len);
    } else if (type == MsgType::Rej) {
        if (body < 1 || body != 1 + size_t{b[0]})
            return *why = "REJ body length does not match its private data length", Parse::Bad;
        m->private_data_len = b[0];
        std::memcpy(m->private_data, b + 1, m->private_data_len);
    } else if (body != 0) {
        return *why = "RTU/DREQ with a body", Parse::Bad;
    }
    *used = kHeaderLen + body;
    return Parse::Ok;
}

} // namespace svcm
