// Synchronous ids (rdma_create_id without a channel, as libfabric's verbs provider
// makes them): resolve_addr, resolve_route, connect and accept wait for their event on
// the id's own channel and turn it into the return value; rdma_get_request takes a
// listener's next connect request. Every wait ends: the CM thread's deadlines
// (cm.h) bound each step.
#include <cerrno>

#include "cm.h"

using namespace svcm;

extern "C" {
int svcm_resolve_addr_async(rdma_cm_id *id, sockaddr *src_addr, sockaddr *dst_addr, int timeout_ms);
int svcm_resolve_route_async(rdma_cm_id *id, int timeout_ms);
int svcm_connect_async(rdma_cm_id *id, rdma_conn_param *conn_param);
int svcm_accept_async(rdma_cm_id *id, rdma_conn_param *conn_param);
}

namespace {

Channel *own_channel(rdma_cm_id *id)
{
    std::lock_guard lk(cm().mu);
    return reinterpret_cast<Id *>(id)->own_channel;
}

// Waits for the id's next event: 0 if it is `want`, else -1 with an errno that says why.
int await(Channel *ch, rdma_cm_event_type want)
{
    rdma_cm_event *e = nullptr;
    if (rdma_get_cm_event(&ch->pub, &e) != 0)
        return -1;
    rdma_cm_event_type got = e->event;
    int status = e->status;
    rdma_ack_cm_event(e);
    if (got == want)
        return 0;
    log_msg("synchronous id: %s (status %d) instead of %s", rdma_event_str(got), status, rdma_event_str(want));
    if (got == RDMA_CM_EVENT_REJECTED)
        return fail(ECONNREFUSED);
    return fail(status < 0 ? -status : ECONNABORTED);
}

} // namespace

extern "C" {

int rdma_resolve_addr(rdma_cm_id *id, sockaddr *src_addr, sockaddr *dst_addr, int timeout_ms)
{
    int rc = svcm_resolve_addr_async(id, src_addr, dst_addr, timeout_ms);
    Channel *ch = rc == 0 ? own_channel(id) : nullptr;
    return ch ? await(ch, RDMA_CM_EVENT_ADDR_RESOLVED) : rc;
}

int rdma_resolve_route(rdma_cm_id *id, int timeout_ms)
{
    int rc = svcm_resolve_route_async(id, timeout_ms);
    Channel *ch = rc == 0 ? own_channel(id) : nullptr;
    return ch ? await(ch, RDMA_CM_EVENT_ROUTE_RESOLVED) : rc;
}

int rdma_connect(rdma_cm_id *id, rdma_conn_param *conn_param)
{
    int rc = svcm_connect_async(id, conn_param);
    Channel *ch = rc == 0 ? own_channel(id) : nullptr;
    if (!ch)
        return rc;
    // Without a QP on the id the program moves its own and calls rdma_establish.
    return await(ch, id->qp ? RDMA_CM_EVENT_ESTABLISHED : RDMA_CM_EVENT_CONNECT_RESPONSE);
}

int rdma_accept(rdma_cm_id *id, rdma_conn_param *conn_param)
{
    if (id && id->event && own_channel(id)) { // the request rdma_get_request left there, as rdma-core
        rdma_ack_cm_event(id->event);
        id->event = nullptr;
    }
    int rc = svcm_accept_async(id, conn_param);
    Channel *ch = rc == 0 ? own_channel(id) : nullptr;
    return ch ? await(ch, RDMA_CM_EVENT_ESTABLISHED) : rc;
}

int rdma_get_request(rdma_cm_id *listen, rdma_cm_id **id)
{
    if (!listen || !id)
        return fail(EINVAL);
    Channel *ch = own_channel(listen);
    if (!ch)
        return fail(EINVAL); // only for synchronous listeners, as in rdma-core
    rdma_cm_event *e = nullptr;
    if (rdma_get_cm_event(&ch->pub, &e) != 0)
        return -1;
    if (e->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
        log_msg("rdma_get_request: %s on a listener", rdma_event_str(e->event));
        rdma_ack_cm_event(e);
        return fail(EINVAL);
    }
    rdma_cm_id *child = e->id;
    // The new id is synchronous too; the program reads the request from child->event
    // and acks it (rdma_accept/rdma_reject do not).
    if (rdma_migrate_id(child, nullptr) != 0) {
        rdma_ack_cm_event(e);
        return -1;
    }
    child->event = e;
    *id = child;
    return 0;
}

} // extern "C"
