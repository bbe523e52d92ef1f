// fuzz_rdmacm_wire: hostile byte streams through softverbs' rdma_cm message decoder
// (svcm::parse_msg, the step the CM thread runs on every byte a peer sends). The input
// is the stream, cut message by message as the CM thread does. Promises checked: a
// decoded message lies within the bytes received and has exactly the length its type
// and private data say; every field is in range; the encoding is canonical (encoding
// the decoded message gives back the very bytes consumed); more input is asked for
// only while a message is incomplete.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "wire.h"

namespace {

void require(bool ok, const char *promise)
{
    if (!ok) {
        std::fprintf(stderr, "fuzz_rdmacm_wire: broken promise: %s\n", promise);
        std::abort();
    }
}

size_t body_len(const svcm::Msg &m)
{
    switch (m.type) {
    case svcm::MsgType::Req:
    case svcm::MsgType::Rep: return svcm::kConnBodyLen + m.private_data_len;
    case svcm::MsgType::Rej: return 1 + size_t{m.private_data_len};
    default: return 0;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data;
    size_t n = size;
    for (;;) {
        svcm::Msg m{};
        size_t used = 0;
        const char *why = nullptr;
        svcm::Parse r = svcm::parse_msg(p, n, &m, &used, &why);
        if (r == svcm::Parse::Bad) {
            require(why != nullptr && why[0] != '\0', "a refusal says why");
            break; // the connection closes: nothing after it is read
        }
        if (r == svcm::Parse::NeedMore) {
            if (n >= svcm::kHeaderLen) {
                uint32_t declared = uint32_t{p[8]} << 24 | uint32_t{p[9]} << 16 | uint32_t{p[10]} << 8 | p[11];
                require(n < svcm::kHeaderLen + declared, "more is needed only when the message is incomplete");
                require(declared <= svcm::kMaxMsgLen - svcm::kHeaderLen,
                        "an impossible length is refused, not waited for");
            }
            break;
        }
        require(used >= svcm::kHeaderLen && used <= n, "a message lies within the bytes received");
        require(used == svcm::kHeaderLen + body_len(m), "its length is what its type and private data say");
        require(m.qpn <= 0xffffff && m.psn <= 0xffffff, "QPN and PSN fit 24 bits");
        require(m.retry_count <= 7 && m.rnr_retry_count <= 7, "retry counts fit 3 bits");
        uint8_t again[svcm::kMaxMsgLen];
        size_t len = svcm::encode_msg(m, again);
        require(len == used && std::memcmp(again, p, used) == 0, "the encoding is canonical");
        p += used;
        n -= used;
    }
    return 0;
}
