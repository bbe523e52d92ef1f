// fuzz_ud_wire: hostile UDP datagrams through softverbs' UD decoder (sv::ud_parse,
// the step every received datagram passes before any field of it is used). Every
// payload byte an accepted datagram claims is read, so a length check that lets a
// datagram claim more than arrived is a heap-buffer-overflow under asan; every
// promise of docs/security.md "UD datagrams are parsed before use" is asserted.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ud_wire.h"

namespace {

void require(bool ok, const char *promise)
{
    if (!ok) {
        std::fprintf(stderr, "fuzz_ud_wire: broken promise: %s\n", promise);
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // A copy of exactly the datagram's size, as recvfrom leaves it: reads past it are caught.
    std::vector<uint8_t> d(data, data + size);
    sv::UdHeader h{};
    if (!sv::ud_parse(d.data(), d.size(), &h))
        return 0;
    require(h.magic == sv::kUdMagic && h.version == sv::kUdVersion, "magic and version");
    require((h.flags & ~(sv::kUdImm | sv::kUdSolicited)) == 0, "only known flags");
    require(h.len <= sv::kUdMtu, "at most the MTU");
    require(sizeof h + h.len == size, "the payload is exactly the rest of the datagram");
    require(h.src_qpn <= 0xffffff && h.dst_qpn <= 0xffffff && h.flow_label <= 0xfffff, "field ranges");
    uint64_t sum = 0;
    for (uint32_t i = 0; i < h.len; ++i) // as the copy into the RECV would
        sum += d[sizeof h + i];
    volatile uint64_t sink = sum;
    (void)sink;
    return 0;
}
