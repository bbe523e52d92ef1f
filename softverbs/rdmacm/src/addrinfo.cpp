// rdma_getaddrinfo / rdma_freeaddrinfo: the system resolver, IPv4 only, RC over RDMA_PS_TCP
// unless the hints say otherwise.
#include <netdb.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "cm.h"
#include "guard.h"

extern "C" {

void rdma_freeaddrinfo(rdma_addrinfo *res)
{
    while (res) {
        rdma_addrinfo *next = res->ai_next;
        std::free(res->ai_src_addr);
        std::free(res->ai_dst_addr);
        std::free(res->ai_src_canonname);
        std::free(res->ai_dst_canonname);
        std::free(res->ai_route);
        std::free(res->ai_connect);
        std::free(res);
        res = next;
    }
}

namespace {

bool copy_addr(sockaddr **to, socklen_t *to_len, const sockaddr *from, socklen_t len)
{
    if (!from)
        return true;
    if (len != sizeof(sockaddr_in) || from->sa_family != AF_INET)
        return false;
    *to = static_cast<sockaddr *>(std::malloc(len));
    if (!*to)
        return false;
    std::memcpy(*to, from, len);
    *to_len = len;
    return true;
}

// No node and no service: the addresses come in the hints (libfabric's verbs provider).
int from_hints(const rdma_addrinfo *hints, rdma_addrinfo **res)
{
    if (!hints || (!hints->ai_src_addr && !hints->ai_dst_addr))
        return svcm::fail(EINVAL);
    auto *r = static_cast<rdma_addrinfo *>(std::calloc(1, sizeof(rdma_addrinfo)));
    if (!r)
        return svcm::fail(ENOMEM);
    r->ai_flags = hints->ai_flags;
    r->ai_family = AF_INET;
    r->ai_qp_type = hints->ai_qp_type ? hints->ai_qp_type : IBV_QPT_RC;
    r->ai_port_space = hints->ai_port_space ? hints->ai_port_space : RDMA_PS_TCP;
    if (!copy_addr(&r->ai_src_addr, &r->ai_src_len, hints->ai_src_addr, hints->ai_src_len) ||
        !copy_addr(&r->ai_dst_addr, &r->ai_dst_len, hints->ai_dst_addr, hints->ai_dst_len)) {
        rdma_freeaddrinfo(r);
        return svcm::fail(EAFNOSUPPORT); // IPv4 addresses only
    }
    *res = r;
    return 0;
}

} // namespace

namespace {

int get_addrinfo(const char *node, const char *service, const rdma_addrinfo *hints, rdma_addrinfo **res)
{
    if (!res)
        return svcm::fail(EINVAL);
    if (!node && !service)
        return from_hints(hints, res);
    int flags = hints ? hints->ai_flags : 0;
    if (hints && hints->ai_family != 0 && hints->ai_family != AF_INET)
        return svcm::fail(EAFNOSUPPORT); // softverbs addresses are IPv4
    addrinfo h{};
    h.ai_family = AF_INET;
    h.ai_socktype = SOCK_STREAM;
    h.ai_flags = (flags & RAI_PASSIVE ? AI_PASSIVE : 0) | (flags & RAI_NUMERICHOST ? AI_NUMERICHOST : 0);
    addrinfo *ai = nullptr;
    if (int rc = getaddrinfo(node, service, &h, &ai); rc != 0)
        return rc; // as rdma-core: the resolver's EAI_* code
    auto *r = static_cast<rdma_addrinfo *>(std::calloc(1, sizeof(rdma_addrinfo)));
    auto *sa = static_cast<sockaddr *>(std::calloc(1, sizeof(sockaddr_in)));
    if (!r || !sa) {
        std::free(r);
        std::free(sa);
        freeaddrinfo(ai);
        return svcm::fail(ENOMEM);
    }
    std::memcpy(sa, ai->ai_addr, sizeof(sockaddr_in));
    freeaddrinfo(ai);
    r->ai_flags = flags;
    r->ai_family = AF_INET;
    r->ai_qp_type = hints && hints->ai_qp_type ? hints->ai_qp_type : IBV_QPT_RC;
    r->ai_port_space = hints && hints->ai_port_space ? hints->ai_port_space : RDMA_PS_TCP;
    if (flags & RAI_PASSIVE) {
        r->ai_src_addr = sa;
        r->ai_src_len = sizeof(sockaddr_in);
    } else {
        r->ai_dst_addr = sa;
        r->ai_dst_len = sizeof(sockaddr_in);
        if (hints && hints->ai_src_addr && hints->ai_src_len == sizeof(sockaddr_in)) {
            r->ai_src_addr = static_cast<sockaddr *>(std::malloc(sizeof(sockaddr_in)));
            if (!r->ai_src_addr) {
                rdma_freeaddrinfo(r);
                return svcm::fail(ENOMEM);
            }
            std::memcpy(r->ai_src_addr, hints->ai_src_addr, sizeof(sockaddr_in));
            r->ai_src_len = sizeof(sockaddr_in);
        }
    }
    *res = r;
    return 0;
}

} // namespace

// Nothing in it throws today (malloc and the system resolver); guarded all the same, so that a
// later change cannot let an exception out.
int rdma_getaddrinfo(const char *node, const char *service, const rdma_addrinfo *hints, rdma_addrinfo **res)
{
    return svcm::guarded("rdma_getaddrinfo", -1, [&] { return get_addrinfo(node, service, hints, res); });
}

} // extern "C"
