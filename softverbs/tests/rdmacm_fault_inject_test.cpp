// No exception crosses the C ABI of softverbs' rdma_cm (librdmacm.so.1): each rdma_* entry
// point runs with its n-th allocation failing (std::bad_alloc) and, separately, its n-th
// thread creation failing, for n = 1, 2, ... until the call no longer reaches the n-th, each
// run in a child process under a deadline (hcts/testing/fault_sweep.h). A call must answer
// as rdma_cm does - 0, or -1 or NULL with errno set - never let an exception out, abort,
// hang or (under asan) leak. A call that failed must have left its id or channel as it was:
// made again (the fault fires once) it succeeds. Every address is loopback (127.0.0.1).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "hcts/testing/fault_sweep.h"

using hcts::fault::Fault;
using hcts::fault::Scenario;

#include "loopback.h"

namespace {

// What one scenario builds in its child; made by setup (unfaulted), undone by cleanup.
rdma_event_channel *g_ch = nullptr, *g_ch2 = nullptr;
rdma_cm_id *g_id = nullptr, *g_listener = nullptr, *g_client = nullptr, *g_server = nullptr;
uint16_t g_port = 0;
int g_raw_fd = -1;

// rdma_cm's convention: 0, or -1 with errno set; the errno is the code, -1 marks a failure
// without one, -2 any other value.
long int_code(int rc)
{
    if (rc == 0)
        return 0;
    if (rc == -1)
        return errno > 0 ? errno : -1;
    return -2;
}
long object_code(const void *p) { return p != nullptr ? 0 : (errno > 0 ? errno : -1); }
bool is_errno_code(long rc) { return rc >= 0 && rc < 4096; }

// The setup is valid, so a call fails only through the fault, which has fired by then: the
// same call made again must succeed, or the failure changed what the call works on. The
// first code if so; else -3, which is no code (the run fails).
template <typename Call>
long again_if_failed(const char *what, Call call)
{
    const long first = call();
    if (first == 0)
        return 0;
    const long again = call();
    if (again == 0)
        return first;
    std::fprintf(stderr, "%s failed (%s), then again (%s) with the fault spent: the failure left its state changed\n",
                 what, first > 0 ? strerrorname_np(static_cast<int>(first)) : "no errno",
                 again > 0 ? strerrorname_np(static_cast<int>(again)) : "no errno");
    return -3;
}

// Setup runs unfaulted: a step that fails there is no finding, the run is reported as such.
void need(bool ok, const char *step)
{
    if (!ok)
        throw std::runtime_error(std::string(step) + " failed: " + std::strerror(errno));
}

sockaddr *as_sa(sockaddr_in *a) { return reinterpret_cast<sockaddr *>(a); }
// A destination that is resolved, never connected: resolution is local.
sockaddr *nowhere()
{
    static sockaddr_in a = loopback(9);
    return as_sa(&a);
}

// The next event on ch (within 5 s), acked; its id through `id`.
void take_event(rdma_event_channel *ch, rdma_cm_event_type want, rdma_cm_id **id = nullptr)
{
    pollfd p{ch->fd, POLLIN, 0};
    need(poll(&p, 1, 5000) == 1, "waiting for an event (5 s)");
    rdma_cm_event *e = nullptr;
    need(rdma_get_cm_event(ch, &e) == 0, "rdma_get_cm_event");
    const rdma_cm_event_type got = e->event;
    if (id != nullptr)
        *id = e->id;
    rdma_ack_cm_event(e);
    if (got != want)
        throw std::runtime_error(std::string(rdma_event_str(got)) + " instead of " + rdma_event_str(want));
}

ibv_qp_init_attr rc_attr()
{
    ibv_qp_init_attr a{};
    a.qp_type = IBV_QPT_RC;
    a.cap.max_send_wr = a.cap.max_recv_wr = 4;
    a.cap.max_send_sge = a.cap.max_recv_sge = 1;
    return a; // no CQs: rdma_create_qp makes them
}

rdma_conn_param conn_param()
{
    rdma_conn_param p{};
    p.responder_resources = p.initiator_depth = 1;
    p.retry_count = p.rnr_retry_count = 7;
    return p;
}

// Nothing made: the call meets the library as a program's first call does.
void fresh() {}
// The device open and the CM thread started, so that a call's sweep covers its own work.
void started()
{
    rdma_event_channel *ch = rdma_create_event_channel();
    need(ch != nullptr, "rdma_create_event_channel");
    rdma_destroy_event_channel(ch);
}
void channel() { need((g_ch = rdma_create_event_channel()) != nullptr, "rdma_create_event_channel"); }
void with_id()
{
    channel();
    need(rdma_create_id(g_ch, &g_id, nullptr, RDMA_PS_TCP) == 0, "rdma_create_id");
}
void bound_id()
{
    with_id();
    sockaddr_in a = loopback(0);
    need(rdma_bind_addr(g_id, as_sa(&a)) == 0, "rdma_bind_addr");
}
void second_channel()
{
    with_id();
    need((g_ch2 = rdma_create_event_channel()) != nullptr, "rdma_create_event_channel");
}
void addr_resolved()
{
    with_id();
    need(rdma_resolve_addr(g_id, nullptr, nowhere(), 1000) == 0, "rdma_resolve_addr");
}
void route_resolvable()
{
    addr_resolved();
    take_event(g_ch, RDMA_CM_EVENT_ADDR_RESOLVED);
}
void synchronous_id()
{
    started();
    need(rdma_create_id(nullptr, &g_id, nullptr, RDMA_PS_TCP) == 0, "rdma_create_id without a channel");
}
// g_listener on 127.0.0.1 (an ephemeral port, g_port); a synchronous one without a channel.
void listen_on(rdma_event_channel *ch)
{
    need(rdma_create_id(ch, &g_listener, nullptr, RDMA_PS_TCP) == 0, "rdma_create_id");
    sockaddr_in a = loopback(0);
    need(rdma_bind_addr(g_listener, as_sa(&a)) == 0, "rdma_bind_addr");
    need(rdma_listen(g_listener, 8) == 0, "rdma_listen");
    g_port = ntohs(rdma_get_src_port(g_listener));
}
void listening()
{
    channel();
    listen_on(g_ch);
}
// g_client on g_ch with its route resolved toward the listener.
void client_route()
{
    need(rdma_create_id(g_ch, &g_client, nullptr, RDMA_PS_TCP) == 0, "rdma_create_id");
    sockaddr_in dst = loopback(g_port);
    need(rdma_resolve_addr(g_client, nullptr, as_sa(&dst), 1000) == 0, "rdma_resolve_addr");
    take_event(g_ch, RDMA_CM_EVENT_ADDR_RESOLVED);
    need(rdma_resolve_route(g_client, 1000) == 0, "rdma_resolve_route");
    take_event(g_ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
}
// ... and a QP.
void client_resolved()
{
    listening();
    client_route();
    ibv_qp_init_attr a = rc_attr();
    need(rdma_create_qp(g_client, nullptr, &a) == 0, "rdma_create_qp");
}
// The listener's side holds the client's CONNECT_REQUEST (g_server, with a QP).
void requested()
{
    client_resolved();
    rdma_conn_param p = conn_param();
    need(rdma_connect(g_client, &p) == 0, "rdma_connect");
    take_event(g_ch, RDMA_CM_EVENT_CONNECT_REQUEST, &g_server);
    ibv_qp_init_attr a = rc_attr();
    need(rdma_create_qp(g_server, nullptr, &a) == 0, "rdma_create_qp");
}
void established()
{
    requested();
    rdma_conn_param p = conn_param();
    need(rdma_accept(g_server, &p) == 0, "rdma_accept");
    take_event(g_ch, RDMA_CM_EVENT_ESTABLISHED);
    take_event(g_ch, RDMA_CM_EVENT_ESTABLISHED);
}
// A TCP connection to the listener that never sends its REQ: the CM thread holds it as an
// unseen child of the listener, which rdma_destroy_id of the listener must take along.
void listener_with_unseen_connection()
{
    listening();
    g_raw_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = loopback(g_port);
    need(g_raw_fd >= 0 && connect(g_raw_fd, as_sa(&a), sizeof a) == 0, "connecting to the listener");
    // The CM thread accepts at once; the time only makes it certain before the call.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
}
// A synchronous listener whose own channel holds a client's CONNECT_REQUEST.
void synchronous_listener_requested()
{
    started();
    listen_on(nullptr);
    channel();
    client_route();
    rdma_conn_param p = conn_param();
    p.qp_num = 0x42; // no QP: only the request matters here
    need(rdma_connect(g_client, &p) == 0, "rdma_connect");
    pollfd pf{g_listener->channel->fd, POLLIN, 0};
    need(poll(&pf, 1, 5000) == 1, "waiting for the CONNECT_REQUEST (5 s)");
}

void destroy(rdma_cm_id *&id)
{
    if (id == nullptr)
        return;
    rdma_destroy_qp(id);
    rdma_destroy_id(id);
    id = nullptr;
}
void release_all()
{
    destroy(g_server);
    destroy(g_client);
    destroy(g_id);
    destroy(g_listener);
    if (g_raw_fd >= 0)
        close(g_raw_fd);
    for (rdma_event_channel *ch : {g_ch, g_ch2})
        if (ch != nullptr)
            rdma_destroy_event_channel(ch);
    g_ch = g_ch2 = nullptr;
}

// An rdma_* call in rdma_cm's convention (0, or -1 with errno), as a code.
long code_of(int (*call)())
{
    errno = 0;
    return int_code(call());
}

// A scenario whose call is made once; `retried` makes a failed call again (again_if_failed).
Scenario once(const char *name, void (*setup)(), int (*call)())
{
    return {name, setup, [call] { return code_of(call); }, release_all};
}
Scenario retried(const char *name, void (*setup)(), int (*call)())
{
    return {name, setup, [name, call] { return again_if_failed(name, [call] { return code_of(call); }); }, release_all};
}

// rdma_destroy_id; the id is forgotten only if it went (else cleanup destroys it).
int destroy_id(rdma_cm_id *&id)
{
    const int rc = rdma_destroy_id(id);
    if (rc == 0)
        id = nullptr;
    return rc;
}

std::vector<Scenario> scenarios()
{
    return {
        retried("rdma_create_event_channel (opens the device, starts the CM thread)", fresh,
                [] { return (g_ch = rdma_create_event_channel()) != nullptr ? 0 : -1; }),
        once("rdma_destroy_event_channel", channel,
             [] {
                 rdma_destroy_event_channel(g_ch);
                 g_ch = nullptr;
                 return 0;
             }),
        retried("rdma_create_id", channel, [] { return rdma_create_id(g_ch, &g_id, nullptr, RDMA_PS_TCP); }),
        retried("rdma_create_id without a channel (synchronous)", started,
                [] { return rdma_create_id(nullptr, &g_id, nullptr, RDMA_PS_TCP); }),
        once("rdma_destroy_id", with_id, [] { return destroy_id(g_id); }),
        once("rdma_destroy_id of a listener holding an unseen connection", listener_with_unseen_connection,
             [] { return destroy_id(g_listener); }),
        once("rdma_bind_addr", with_id,
             [] {
                 sockaddr_in a = loopback(0);
                 return rdma_bind_addr(g_id, as_sa(&a));
             }),
        retried("rdma_listen", bound_id, [] { return rdma_listen(g_id, 8); }),
        retried("rdma_resolve_addr", with_id, [] { return rdma_resolve_addr(g_id, nullptr, nowhere(), 1000); }),
        retried("rdma_resolve_route", route_resolvable, [] { return rdma_resolve_route(g_id, 1000); }),
        {"rdma_resolve_addr + rdma_resolve_route on a synchronous id", synchronous_id,
         [] {
             const long rc = again_if_failed("rdma_resolve_addr", [] {
                 return code_of([] { return rdma_resolve_addr(g_id, nullptr, nowhere(), 1000); });
             });
             if (rc != 0)
                 return rc;
             return again_if_failed("rdma_resolve_route",
                                    [] { return code_of([] { return rdma_resolve_route(g_id, 1000); }); });
         },
         release_all},
        once("rdma_get_cm_event + rdma_ack_cm_event", addr_resolved,
             [] {
                 rdma_cm_event *e = nullptr;
                 const int rc = rdma_get_cm_event(g_ch, &e);
                 return rc != 0 ? rc : rdma_ack_cm_event(e);
             }),
        once("rdma_getaddrinfo + rdma_freeaddrinfo", fresh,
             [] {
                 rdma_addrinfo hints{};
                 hints.ai_flags = RAI_NUMERICHOST;
                 hints.ai_port_space = RDMA_PS_TCP;
                 rdma_addrinfo *res = nullptr;
                 const int rc = rdma_getaddrinfo("127.0.0.1", "7471", &hints, &res);
                 rdma_freeaddrinfo(res);
                 return rc;
             }),
        {"rdma_get_devices + rdma_free_devices (opens the device)", fresh,
         [] {
             errno = 0;
             int n = 0;
             ibv_context **list = rdma_get_devices(&n);
             const long rc = object_code(list);
             rdma_free_devices(list);
             if (rc != 0 || n == 1)
                 return rc;
             // No device: the open failed. The next call must open it.
             list = rdma_get_devices(&n);
             rdma_free_devices(list);
             if (n == 1)
                 return 0L;
             std::fprintf(stderr, "rdma_get_devices found no device, twice: the failed open was kept\n");
             return -3L;
         },
         release_all},
        {"rdma_create_qp (with its CQs) + rdma_destroy_qp", bound_id,
         [] {
             const long rc = again_if_failed("rdma_create_qp", [] {
                 return code_of([] {
                     ibv_qp_init_attr a = rc_attr();
                     return rdma_create_qp(g_id, nullptr, &a);
                 });
             });
             rdma_destroy_qp(g_id);
             return rc;
         },
         release_all},
        retried("rdma_create_qp_ex (with its CQs)", bound_id,
                [] {
                    ibv_qp_init_attr_ex a{};
                    a.qp_type = IBV_QPT_RC;
                    a.cap.max_send_wr = a.cap.max_recv_wr = 4;
                    a.cap.max_send_sge = a.cap.max_recv_sge = 1;
                    return rdma_create_qp_ex(g_id, &a);
                }),
        retried("rdma_connect (loopback)", client_resolved,
                [] {
                    rdma_conn_param p = conn_param();
                    return rdma_connect(g_client, &p);
                }),
        // The CM thread's own allocations too (the count is the process's): whichever step
        // fails, the program still gets an event, the listener's request or the client's
        // failure, and does not wait for the 30 s deadline of a lost REP.
        once("rdma_connect (loopback) and the first event it brings within 5 s", client_resolved,
             [] {
                 rdma_conn_param p = conn_param();
                 if (const int rc = rdma_connect(g_client, &p); rc != 0)
                     return rc;
                 pollfd pf{g_ch->fd, POLLIN, 0};
                 if (poll(&pf, 1, 5000) == 1)
                     return 0;
                 std::fprintf(stderr, "no connection event within 5 s of rdma_connect\n");
                 return -4;
             }),
        // Made once: an allocation failing inside ibv_modify_qp may leave the QP at RTR, from
        // where rdma_accept cannot move it again.
        once("rdma_accept (loopback)", requested,
             [] {
                 rdma_conn_param p = conn_param();
                 return rdma_accept(g_server, &p);
             }),
        once("rdma_reject (loopback)", requested, [] { return rdma_reject(g_server, "no", 2); }),
        retried("rdma_disconnect (loopback)", established, [] { return rdma_disconnect(g_client); }),
        retried("rdma_migrate_id to a synchronous id", with_id, [] { return rdma_migrate_id(g_id, nullptr); }),
        once("rdma_migrate_id to another channel", second_channel, [] { return rdma_migrate_id(g_id, g_ch2); }),
        retried("rdma_get_request (synchronous listener, loopback)", synchronous_listener_requested,
                [] { return rdma_get_request(g_listener, &g_server); }),
        once("rdma_create_ep (not supported)", fresh,
             [] {
                 rdma_addrinfo ai{};
                 rdma_cm_id *id = nullptr;
                 return rdma_create_ep(&id, &ai, nullptr, nullptr);
             }),
    };
}

void sweep_all(Fault fault, uint64_t limit)
{
    for (const auto &r : hcts::fault::sweep_each(scenarios(), fault, limit, is_errno_code))
        EXPECT_EQ(r.failure, "");
}

} // namespace

TEST(RdmaCmFaultInject, AllocationFailuresBecomeErrorCodes) { sweep_all(Fault::allocation, 3000); }

TEST(RdmaCmFaultInject, ThreadCreationFailuresBecomeErrorCodes) { sweep_all(Fault::thread, 50); }
