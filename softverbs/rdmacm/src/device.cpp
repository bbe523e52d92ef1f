// The device side of rdma_cm: softverbs0 opened once, its GID, which addresses are
// its own, and rdma_get_devices / rdma_event_str.
#include <arpa/inet.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "cm.h"
#include "guard.h"

namespace svcm {
namespace {

struct Device {
    ibv_context *ctx = nullptr;
    ibv_pd *pd = nullptr;
};

// Opened on first use and kept. An open that failed (out of memory, a thread refused) is
// tried again by the next call rather than leaving the process without its device.
Device dev()
{
    static std::mutex mu;
    static Device d;
    std::lock_guard lk(mu);
    if (!d.ctx) {
        int n = 0;
        ibv_device **list = ibv_get_device_list(&n);
        if (list && n > 0)
            d.ctx = ibv_open_device(list[0]); // contexts outlive the list
        if (list)
            ibv_free_device_list(list);
    }
    if (d.ctx && !d.pd)
        d.pd = ibv_alloc_pd(d.ctx);
    return d;
}

} // namespace

ibv_context *device() { return dev().ctx; }

ibv_pd *default_pd() { return dev().pd; }

bool local_gid(ibv_gid *gid) { return device() && ibv_query_gid(device(), 1, 0, gid) == 0; }

bool is_local_ipv4(uint32_t addr)
{
    if (addr == htonl(INADDR_ANY) || (ntohl(addr) >> 24) == 127)
        return true;
    ibv_gid gid{};
    return local_gid(&gid) && std::memcmp(gid.raw + 8, &addr, 4) == 0;
}

} // namespace svcm

using namespace svcm;

extern "C" {

ibv_context **rdma_get_devices(int *num_devices)
{
    return guarded("rdma_get_devices", static_cast<ibv_context **>(nullptr), [&]() -> ibv_context ** {
        ibv_context *ctx = device();
        auto **list = static_cast<ibv_context **>(std::calloc(2, sizeof(ibv_context *)));
        if (!list) {
            errno = ENOMEM;
            return nullptr;
        }
        list[0] = ctx;
        if (num_devices)
            *num_devices = ctx ? 1 : 0;
        return list;
    });
}

void rdma_free_devices(ibv_context **list)
{
    std::free(list); // the contexts stay open for the ids, as in rdma-core
}

const char *rdma_event_str(rdma_cm_event_type event)
{
    static const char *const names[] = {
        "RDMA_CM_EVENT_ADDR_RESOLVED",  "RDMA_CM_EVENT_ADDR_ERROR",      "RDMA_CM_EVENT_ROUTE_RESOLVED",
        "RDMA_CM_EVENT_ROUTE_ERROR",    "RDMA_CM_EVENT_CONNECT_REQUEST", "RDMA_CM_EVENT_CONNECT_RESPONSE",
        "RDMA_CM_EVENT_CONNECT_ERROR",  "RDMA_CM_EVENT_UNREACHABLE",     "RDMA_CM_EVENT_REJECTED",
        "RDMA_CM_EVENT_ESTABLISHED",    "RDMA_CM_EVENT_DISCONNECTED",    "RDMA_CM_EVENT_DEVICE_REMOVAL",
        "RDMA_CM_EVENT_MULTICAST_JOIN", "RDMA_CM_EVENT_MULTICAST_ERROR", "RDMA_CM_EVENT_ADDR_CHANGE",
        "RDMA_CM_EVENT_TIMEWAIT_EXIT"};
    auto i = static_cast<unsigned>(event);
    return i < sizeof names / sizeof names[0] ? names[i] : "UNKNOWN EVENT";
}

} // extern "C"
