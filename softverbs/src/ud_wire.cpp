// Decoding a UD datagram: every field is checked before any of it is used.
#include "ud_wire.h"

#include <cstring>

namespace sv {

bool ud_parse(const uint8_t *p, size_t n, UdHeader *h)
{
    if (!p || n < sizeof(UdHeader))
        return false;
    UdHeader x;
    std::memcpy(&x, p, sizeof x);
    if (x.magic != kUdMagic || x.version != kUdVersion || (x.flags & ~(kUdImm | kUdSolicited)))
        return false;
    if (x.len > kUdMtu || x.len != n - sizeof x)
        return false;
    if (x.src_qpn > 0xffffff || x.dst_qpn > 0xffffff || x.flow_label > 0xfffff)
        return false;
    *h = x;
    return true;
}

} // namespace sv
