// Binding the process's listener. The kernel's own choice (port 0) is taken from
// the ephemeral range, and a port there is refused while any socket holds it,
// TIME-WAIT ones included: on a loaded host (fuzzing, thousands of short test
// connections) the whole range can be in TIME-WAIT for a minute, and every
// process loading softverbs then failed with EADDRINUSE. Connections still work
// then (the kernel reuses TIME-WAIT ports for outgoing connections on loopback),
// so only the listener needs another place: the ports above the ephemeral range,
// which neither outgoing connections nor the kernel's choice ever use.
#include "sv.h"

#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdio>

namespace sv {

namespace {

// The ephemeral range's upper end (net.ipv4.ip_local_port_range); 60999 if unreadable.
unsigned ephemeral_top()
{
    unsigned lo = 0;
    unsigned hi = 60999;
    if (FILE *f = std::fopen("/proc/sys/net/ipv4/ip_local_port_range", "re")) {
        if (std::fscanf(f, "%u %u", &lo, &hi) != 2 || hi > 65535)
            hi = 60999;
        std::fclose(f);
    }
    return hi;
}

} // namespace

int bind_listener(int fd, sockaddr_in *a)
{
    a->sin_port = 0;
    if (bind(fd, reinterpret_cast<sockaddr *>(a), sizeof *a) == 0)
        return 0;
    if (errno != EADDRINUSE)
        return -1;
    // Up to 65534: the port is also our LID, and LID 0xffff is the permissive LID.
    const unsigned first = ephemeral_top() + 1;
    if (first > 65534)
        return -1; // errno is still EADDRINUSE
    const unsigned count = 65535 - first;
    unsigned start = 0;
    if (getrandom(&start, sizeof start, 0) != sizeof start)
        start = 0;
    for (unsigned i = 0; i < count; ++i) { // every port once, from a random one (processes start together)
        a->sin_port = htons(static_cast<uint16_t>(first + (start + i) % count));
        if (bind(fd, reinterpret_cast<sockaddr *>(a), sizeof *a) == 0) {
            log(1, "the ephemeral port range is exhausted (TIME-WAIT?): listening on port %u above it",
                ntohs(a->sin_port));
            return 0;
        }
        if (errno != EADDRINUSE)
            return -1;
    }
    errno = EADDRINUSE;
    return -1;
}

} // namespace sv
