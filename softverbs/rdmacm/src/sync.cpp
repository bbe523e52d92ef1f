// Synchronous ids (rdma_create_id without a channel, as libfabric's verbs provider
// makes them): resolve_addr, resolve_route, connect and accept wait for their event on
// the id's own channel and turn it into the return value; rdma_get_request takes a
// listener's next connect request. Every wait ends: the CM thread's deadlines
// (cm.h) bound each step.
#include <cerrno>

#include "cm.h"
#include "guard.h"

using namespace svcm;

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

int get_request(rdma_cm_id *listen, rdma_cm_id **id)
{
    if (!listen || !id)
        return fail(EINVAL);
    Channel *ch = own_channel(listen);
    if (!ch)
        return fail(EINVAL); // only for synchronous listeners, as in rdma-core
    // The new id is synchronous too. Its channel is made before the request is taken: if
    // that fails, the request stays queued for the next call.
    Channel *own = new_channel();
    if (!own)
        return -1;
    rdma_cm_event *e = nullptr;
    if (rdma_get_cm_event(&ch->pub, &e) != 0) {
        int err = errno;
        rdma_destroy_event_channel(&own->pub);
        return fail(err);
    }
    if (e->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
        log_msg("rdma_get_request: %s on a listener", rdma_event_str(e->event));
        rdma_ack_cm_event(e);
        rdma_destroy_event_channel(&own->pub);
        return fail(EINVAL);
    }
    rdma_cm_id *child = e->id;
    {
        std::lock_guard lk(cm().mu);
        child->channel = &own->pub;
        reinterpret_cast<Id *>(child)->own_channel = own;
    }
    // The program reads the request from child->event and acks it (rdma_accept/rdma_reject do not).
    child->event = e;
    *id = child;
    return 0;
}

} // namespace

extern "C" {

int rdma_resolve_addr(rdma_cm_id *id, sockaddr *src_addr, sockaddr *dst_addr, int /*timeout_ms*/)
{
    return guarded("rdma_resolve_addr", -1, [&] {
        int rc = resolve_addr_async(id, src_addr, dst_addr);
        Channel *ch = rc == 0 ? own_channel(id) : nullptr;
        return ch ? await(ch, RDMA_CM_EVENT_ADDR_RESOLVED) : rc;
    });
}

int rdma_resolve_route(rdma_cm_id *id, int /*timeout_ms*/)
{
    return guarded("rdma_resolve_route", -1, [&] {
        int rc = resolve_route_async(id);
        Channel *ch = rc == 0 ? own_channel(id) : nullptr;
        return ch ? await(ch, RDMA_CM_EVENT_ROUTE_RESOLVED) : rc;
    });
}

int rdma_connect(rdma_cm_id *id, rdma_conn_param *conn_param)
{
    return guarded("rdma_connect", -1, [&] {
        int rc = connect_async(id, conn_param);
        Channel *ch = rc == 0 ? own_channel(id) : nullptr;
        if (!ch)
            return rc;
        // Without a QP on the id the program moves its own and calls rdma_establish.
        return await(ch, id->qp ? RDMA_CM_EVENT_ESTABLISHED : RDMA_CM_EVENT_CONNECT_RESPONSE);
    });
}

int rdma_accept(rdma_cm_id *id, rdma_conn_param *conn_param)
{
    return guarded("rdma_accept", -1, [&] {
        if (id && id->event && own_channel(id)) { // the request rdma_get_request left there, as rdma-core
            rdma_ack_cm_event(id->event);
            id->event = nullptr;
        }
        int rc = accept_async(id, conn_param);
        Channel *ch = rc == 0 ? own_channel(id) : nullptr;
        return ch ? await(ch, RDMA_CM_EVENT_ESTABLISHED) : rc;
    });
}

int rdma_get_request(rdma_cm_id *listen, rdma_cm_id **id)
{
    return guarded("rdma_get_request", -1, [&] { return get_request(listen, id); });
}

} // extern "C"
