// softverbs' rdma_cm in one process: connect / accept / reject / disconnect with
// private data and a SEND over the connected QPs, a missing listener, peer death,
// hostile bytes on the CM port, and the calls it refuses. Every wait has a deadline.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "loopback.h"

namespace {

using Clock = std::chrono::steady_clock;

// The next event of ch within ms milliseconds (nullptr if none), copied and acked.
struct Event {
    rdma_cm_event_type type{};
    int status = 0;
    rdma_cm_id *id = nullptr;
    rdma_cm_id *listen_id = nullptr;
    std::string data;
    uint8_t responder_resources = 0, initiator_depth = 0;
};

bool next_event(rdma_event_channel *ch, int ms, Event *out)
{
    pollfd p{ch->fd, POLLIN, 0};
    if (poll(&p, 1, ms) != 1)
        return false;
    rdma_cm_event *e = nullptr;
    if (rdma_get_cm_event(ch, &e) != 0)
        return false;
    out->type = e->event;
    out->status = e->status;
    out->id = e->id;
    out->listen_id = e->listen_id;
    const auto *pd = static_cast<const char *>(e->param.conn.private_data);
    out->data = pd ? std::string(pd, e->param.conn.private_data_len) : std::string();
    out->responder_resources = e->param.conn.responder_resources;
    out->initiator_depth = e->param.conn.initiator_depth;
    rdma_ack_cm_event(e);
    return true;
}

Event expect_event(rdma_event_channel *ch, rdma_cm_event_type type, int ms = 5000)
{
    Event e;
    if (!next_event(ch, ms, &e)) {
        ADD_FAILURE() << "no event within " << ms << " ms, expected " << rdma_event_str(type);
        return e;
    }
    EXPECT_EQ(e.type, type) << rdma_event_str(e.type) << " (status " << e.status << ") instead of "
                            << rdma_event_str(type);
    return e;
}

ibv_qp_init_attr qp_attr(ibv_cq *cq)
{
    ibv_qp_init_attr a{};
    a.send_cq = a.recv_cq = cq;
    a.qp_type = IBV_QPT_RC;
    a.cap.max_send_wr = a.cap.max_recv_wr = 4;
    a.cap.max_send_sge = a.cap.max_recv_sge = 1;
    return a;
}

class RdmaCm : public ::testing::Test {
  protected:
    rdma_event_channel *ch = nullptr;
    rdma_cm_id *listener = nullptr;
    uint16_t port = 0;

    void SetUp() override
    {
        ch = rdma_create_event_channel();
        ASSERT_NE(ch, nullptr) << std::strerror(errno);
        ASSERT_EQ(rdma_create_id(ch, &listener, this, RDMA_PS_TCP), 0);
        sockaddr_in a = loopback(0);
        ASSERT_EQ(rdma_bind_addr(listener, reinterpret_cast<sockaddr *>(&a)), 0) << std::strerror(errno);
        ASSERT_EQ(rdma_listen(listener, 8), 0) << std::strerror(errno);
        port = ntohs(rdma_get_src_port(listener));
        ASSERT_NE(port, 0);
        ASSERT_NE(listener->verbs, nullptr);
    }
    void TearDown() override
    {
        if (listener)
            rdma_destroy_id(listener);
        if (ch)
            rdma_destroy_event_channel(ch);
    }

    // A client id with the route resolved toward the listener.
    rdma_cm_id *resolved_client(uint16_t to)
    {
        rdma_cm_id *id = nullptr;
        EXPECT_EQ(rdma_create_id(ch, &id, nullptr, RDMA_PS_TCP), 0);
        sockaddr_in dst = loopback(to);
        EXPECT_EQ(rdma_resolve_addr(id, nullptr, reinterpret_cast<sockaddr *>(&dst), 1000), 0);
        expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED);
        EXPECT_EQ(rdma_resolve_route(id, 1000), 0);
        expect_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
        EXPECT_NE(id->verbs, nullptr);
        return id;
    }
};

TEST_F(RdmaCm, ConnectAcceptSendDisconnect)
{
    rdma_cm_id *client = resolved_client(port);
    ibv_pd *pd = ibv_alloc_pd(client->verbs);
    ibv_cq *ccq = ibv_create_cq(client->verbs, 8, nullptr, nullptr, 0);
    ibv_cq *scq = ibv_create_cq(client->verbs, 8, nullptr, nullptr, 0);
    ASSERT_TRUE(pd && ccq && scq);
    ibv_qp_init_attr ca = qp_attr(ccq);
    ASSERT_EQ(rdma_create_qp(client, pd, &ca), 0) << std::strerror(errno);

    rdma_conn_param too_long{};
    char big[57] = {};
    too_long.private_data = big;
    too_long.private_data_len = sizeof big;
    EXPECT_EQ(rdma_connect(client, &too_long), -1);
    EXPECT_EQ(errno, EINVAL) << "57 bytes of REQ private data (56 allowed)";

    rdma_conn_param cp{};
    cp.private_data = "hello";
    cp.private_data_len = 5;
    cp.responder_resources = 1;
    cp.initiator_depth = 1;
    cp.rnr_retry_count = 7;
    ASSERT_EQ(rdma_connect(client, &cp), 0) << std::strerror(errno);
    Event req = expect_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
    ASSERT_NE(req.id, nullptr);
    EXPECT_EQ(req.listen_id, listener);
    EXPECT_EQ(req.data.substr(0, 5), "hello");
    EXPECT_EQ(req.id->context, this) << "a connect request's id inherits the listener's context";
    EXPECT_EQ(req.responder_resources, 1);
    rdma_cm_id *server = req.id;
    // Both ends' addresses, as the kernel reports them: the request's id has the
    // listener's address and the client's, the client the listener's and its own.
    EXPECT_EQ(ntohs(rdma_get_src_port(server)), port);
    EXPECT_EQ(ntohs(rdma_get_dst_port(client)), port);
    EXPECT_EQ(rdma_get_dst_port(server), rdma_get_src_port(client));
    EXPECT_NE(rdma_get_src_port(client), 0);
    auto *peer = reinterpret_cast<sockaddr_in *>(rdma_get_peer_addr(server));
    EXPECT_EQ(peer->sin_family, AF_INET);
    EXPECT_EQ(ntohl(peer->sin_addr.s_addr), INADDR_LOOPBACK);
    EXPECT_EQ(reinterpret_cast<sockaddr_in *>(rdma_get_local_addr(client))->sin_family, AF_INET);
    ibv_qp_init_attr sa = qp_attr(scq);
    ASSERT_EQ(rdma_create_qp(server, pd, &sa), 0) << std::strerror(errno);

    char rbuf[16] = {};
    ibv_mr *rmr = ibv_reg_mr(pd, rbuf, sizeof rbuf, IBV_ACCESS_LOCAL_WRITE);
    char sbuf[16] = "over rdma_cm";
    ibv_mr *smr = ibv_reg_mr(pd, sbuf, sizeof sbuf, 0);
    ASSERT_TRUE(rmr && smr);
    ibv_sge rs{reinterpret_cast<uintptr_t>(rbuf), sizeof rbuf, rmr->lkey};
    ibv_recv_wr rwr{};
    rwr.sg_list = &rs;
    rwr.num_sge = 1;
    ibv_recv_wr *rbad = nullptr;
    ASSERT_EQ(ibv_post_recv(server->qp, &rwr, &rbad), 0);

    rdma_conn_param ap{};
    ap.private_data = "world";
    ap.private_data_len = 5;
    ap.responder_resources = 1;
    ap.initiator_depth = 1;
    ap.rnr_retry_count = 7;
    ASSERT_EQ(rdma_accept(server, &ap), 0) << std::strerror(errno);
    // Both ESTABLISHED events arrive on the one channel, in either order.
    Event e1 = expect_event(ch, RDMA_CM_EVENT_ESTABLISHED);
    Event e2 = expect_event(ch, RDMA_CM_EVENT_ESTABLISHED);
    Event &at_client = e1.id == client ? e1 : e2;
    EXPECT_TRUE((e1.id == client && e2.id == server) || (e1.id == server && e2.id == client));
    EXPECT_EQ(at_client.data.substr(0, 5), "world");

    ibv_sge ss{reinterpret_cast<uintptr_t>(sbuf), sizeof sbuf, smr->lkey};
    ibv_send_wr swr{};
    swr.sg_list = &ss;
    swr.num_sge = 1;
    swr.opcode = IBV_WR_SEND;
    swr.send_flags = IBV_SEND_SIGNALED;
    ibv_send_wr *sbad = nullptr;
    ASSERT_EQ(ibv_post_send(client->qp, &swr, &sbad), 0);
    ibv_wc wc{};
    auto until = Clock::now() + std::chrono::seconds(10);
    int got = 0;
    while (got < 2 && Clock::now() < until) {
        for (ibv_cq *cq : {ccq, scq}) {
            if (ibv_poll_cq(cq, 1, &wc) == 1) {
                EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
                got++;
            }
        }
    }
    ASSERT_EQ(got, 2) << "the SEND and its RECV did not complete within 10 s";
    EXPECT_STREQ(rbuf, "over rdma_cm");

    ASSERT_EQ(rdma_disconnect(client), 0);
    Event d1 = expect_event(ch, RDMA_CM_EVENT_DISCONNECTED);
    Event d2 = expect_event(ch, RDMA_CM_EVENT_DISCONNECTED);
    EXPECT_TRUE((d1.id == client && d2.id == server) || (d1.id == server && d2.id == client));
    EXPECT_EQ(rdma_disconnect(server), 0) << "the answer to the peer's disconnect";
    Event none;
    EXPECT_FALSE(next_event(ch, 200, &none)) << "a second DISCONNECTED: " << rdma_event_str(none.type);

    ibv_dereg_mr(rmr);
    ibv_dereg_mr(smr);
    rdma_destroy_qp(client);
    rdma_destroy_qp(server);
    rdma_destroy_id(client);
    rdma_destroy_id(server);
    ibv_destroy_cq(ccq);
    ibv_destroy_cq(scq);
    ibv_dealloc_pd(pd);
}

TEST_F(RdmaCm, RejectCarriesPrivateData)
{
    rdma_cm_id *client = resolved_client(port);
    rdma_conn_param cp{};
    cp.qp_num = 0x42; // no QP on the id: the program names its own
    ASSERT_EQ(rdma_connect(client, &cp), 0);
    Event req = expect_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
    ASSERT_NE(req.id, nullptr);
    ASSERT_EQ(rdma_reject(req.id, "busy", 4), 0);
    Event rej = expect_event(ch, RDMA_CM_EVENT_REJECTED);
    EXPECT_EQ(rej.id, client);
    EXPECT_EQ(rej.status, 28) << "IB CM reason 28: consumer reject";
    EXPECT_EQ(rej.data.substr(0, 4), "busy");
    EXPECT_EQ(rdma_accept(req.id, nullptr), -1) << "accept after reject";
    rdma_destroy_id(req.id);
    rdma_destroy_id(client);
}

TEST_F(RdmaCm, NoListenerIsRejectedWithReason8)
{
    rdma_cm_id *other = nullptr;
    ASSERT_EQ(rdma_create_id(ch, &other, nullptr, RDMA_PS_TCP), 0);
    sockaddr_in a = loopback(0);
    ASSERT_EQ(rdma_bind_addr(other, reinterpret_cast<sockaddr *>(&a)), 0);
    uint16_t closed = ntohs(rdma_get_src_port(other)); // bound, never listening
    rdma_cm_id *client = resolved_client(closed);
    rdma_conn_param cp{};
    cp.qp_num = 0x42;
    auto t0 = Clock::now();
    ASSERT_EQ(rdma_connect(client, &cp), 0);
    Event rej = expect_event(ch, RDMA_CM_EVENT_REJECTED, 5000);
    EXPECT_EQ(rej.status, 8);
    EXPECT_LT(Clock::now() - t0, std::chrono::seconds(4)) << "retries refused connects for 2 s only";
    rdma_destroy_id(client);
    rdma_destroy_id(other);
}

TEST_F(RdmaCm, PeerDeathDisconnects)
{
    rdma_cm_id *client = resolved_client(port);
    rdma_conn_param cp{};
    cp.qp_num = 0x42;
    ASSERT_EQ(rdma_connect(client, &cp), 0);
    Event req = expect_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
    rdma_conn_param ap{};
    ap.qp_num = 0x43;
    ASSERT_EQ(rdma_accept(req.id, &ap), 0);
    Event resp = expect_event(ch, RDMA_CM_EVENT_CONNECT_RESPONSE); // no QP: the program moves its own
    EXPECT_EQ(resp.id, client);
    ibv_qp_attr qa{};
    int mask = 0;
    qa.qp_state = IBV_QPS_RTR;
    ASSERT_EQ(rdma_init_qp_attr(client, &qa, &mask), 0);
    EXPECT_EQ(qa.dest_qp_num, 0x43u);
    EXPECT_TRUE(mask & IBV_QP_AV);
    ASSERT_EQ(rdma_establish(client), 0);
    Event est = expect_event(ch, RDMA_CM_EVENT_ESTABLISHED);
    EXPECT_EQ(est.id, req.id);
    rdma_destroy_id(client); // no disconnect: the server must still learn of it
    Event d = expect_event(ch, RDMA_CM_EVENT_DISCONNECTED);
    EXPECT_EQ(d.id, req.id);
    rdma_destroy_id(req.id);
}

// Bytes that are not the protocol on the CM port: no event, the connection is closed,
// and the listener still serves a real client afterwards.
TEST_F(RdmaCm, HostileBytesAreDropped)
{
    const std::string attacks[] = {
        std::string("GET / HTTP/1.0\r\n\r\n"),
        // right magic ("MCVS" on the wire) and version, a REQ whose length lies (huge)
        std::string("MCVS\x01\x01\0\0\x7f\xff\xff\xff", 12),
        // a well-formed RTU where a REQ is due
        std::string("MCVS", 4) + std::string("\x01\x04\0\0\0\0\0\0", 8),
    };
    for (const std::string &bytes : attacks) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ASSERT_GE(fd, 0);
        sockaddr_in a = loopback(port);
        ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
        ASSERT_EQ(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
        pollfd p{fd, POLLIN, 0};
        ASSERT_EQ(poll(&p, 1, 5000), 1) << "the CM did not close a hostile connection within 5 s";
        char c;
        EXPECT_LE(recv(fd, &c, 1, 0), 0) << "the CM answered garbage";
        close(fd);
        Event e;
        EXPECT_FALSE(next_event(ch, 100, &e)) << "an event for garbage: " << rdma_event_str(e.type);
    }
    rdma_cm_id *client = resolved_client(port);
    rdma_conn_param cp{};
    cp.qp_num = 0x42;
    ASSERT_EQ(rdma_connect(client, &cp), 0);
    Event req = expect_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
    ASSERT_EQ(rdma_reject(req.id, nullptr, 0), 0);
    expect_event(ch, RDMA_CM_EVENT_REJECTED);
    rdma_destroy_id(req.id);
    rdma_destroy_id(client);
}

// rping 44's teardown: its CM thread handles the client's own DISCONNECTED while the main
// thread destroys the id, then the channel, then the context the handler reads.
TEST_F(RdmaCm, DestroyIdWaitsForTheAckOfATakenEvent)
{
    rdma_cm_id *id = nullptr;
    ASSERT_EQ(rdma_create_id(ch, &id, nullptr, RDMA_PS_TCP), 0);
    sockaddr_in dst = loopback(port);
    ASSERT_EQ(rdma_resolve_addr(id, nullptr, reinterpret_cast<sockaddr *>(&dst), 1000), 0);
    std::atomic<bool> taken{false}, handled{false};
    std::thread handler([&] {
        rdma_cm_event *e = nullptr;
        pollfd p{ch->fd, POLLIN, 0};
        if (poll(&p, 1, 5000) != 1 || rdma_get_cm_event(ch, &e) != 0)
            return;
        taken = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(300)); // a slow handler
        handled = true;
        rdma_ack_cm_event(e);
    });
    for (auto end = Clock::now() + std::chrono::seconds(5); !taken && Clock::now() < end;)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_TRUE(taken) << "ADDR_RESOLVED not delivered within 5 s";
    auto t0 = Clock::now();
    EXPECT_EQ(rdma_destroy_id(id), 0);
    EXPECT_TRUE(handled) << "rdma_destroy_id returned while a thread still held its event";
    EXPECT_LT(Clock::now() - t0, std::chrono::seconds(5));
    handler.join();
}

TEST_F(RdmaCm, DestroyIdDropsTheEventsNobodyTook)
{
    rdma_cm_id *id = nullptr;
    ASSERT_EQ(rdma_create_id(ch, &id, nullptr, RDMA_PS_TCP), 0);
    sockaddr_in dst = loopback(port);
    ASSERT_EQ(rdma_resolve_addr(id, nullptr, reinterpret_cast<sockaddr *>(&dst), 1000), 0);
    pollfd p{ch->fd, POLLIN, 0};
    ASSERT_EQ(poll(&p, 1, 5000), 1) << "ADDR_RESOLVED not queued within 5 s";
    EXPECT_EQ(rdma_destroy_id(id), 0);
    int flags = fcntl(ch->fd, F_GETFL);
    ASSERT_EQ(fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK), 0);
    rdma_cm_event *e = nullptr;
    EXPECT_EQ(rdma_get_cm_event(ch, &e), -1) << "an event of a destroyed id: " << rdma_event_str(e->event);
    EXPECT_EQ(errno, EAGAIN);
    // A request the program never saw goes with its listener: the client learns of it.
    rdma_cm_id *client = resolved_client(port);
    rdma_conn_param cp{};
    cp.qp_num = 0x42;
    ASSERT_EQ(rdma_connect(client, &cp), 0);
    ASSERT_EQ(poll(&p, 1, 5000), 1) << "CONNECT_REQUEST not queued within 5 s";
    ASSERT_EQ(rdma_destroy_id(listener), 0);
    listener = nullptr;
    Event gone;
    ASSERT_TRUE(next_event(ch, 5000, &gone)) << "the client heard nothing of its dropped request";
    EXPECT_EQ(gone.id, client);
    EXPECT_NE(gone.type, RDMA_CM_EVENT_CONNECT_REQUEST) << "the dropped request was delivered";
    EXPECT_NE(gone.type, RDMA_CM_EVENT_ESTABLISHED);
    rdma_destroy_id(client);
}

// A thread waiting in rdma_get_cm_event when its channel is destroyed is neither woken nor
// failed (the kernel's librdmacm leaves it blocked on the closed fd); rping 44 exits if it is.
TEST_F(RdmaCm, ADestroyedChannelLeavesItsWaiterWaiting)
{
    rdma_event_channel *other = rdma_create_event_channel();
    ASSERT_NE(other, nullptr);
    // -2: still waiting. Detached: it stays parked until the process ends.
    auto result = std::make_shared<std::atomic<int>>(-2);
    auto err = std::make_shared<std::atomic<int>>(0);
    std::thread([other, result, err] {
        rdma_cm_event *e = nullptr;
        int rc = rdma_get_cm_event(other, &e);
        *err = errno;
        *result = rc;
    }).detach();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    rdma_destroy_event_channel(other);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_EQ(result->load(), -2) << "the waiter returned (" << std::strerror(err->load()) << ")";
    // A pointer that was never a channel is refused, not waited on.
    rdma_event_channel bogus{};
    rdma_cm_event *e = nullptr;
    EXPECT_EQ(rdma_get_cm_event(&bogus, &e), -1);
    EXPECT_EQ(errno, EINVAL);
}

TEST_F(RdmaCm, RefusedCallsFailCleanly)
{
    int flags = fcntl(ch->fd, F_GETFL);
    ASSERT_EQ(fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK), 0);
    rdma_cm_event *e = nullptr;
    EXPECT_EQ(rdma_get_cm_event(ch, &e), -1);
    EXPECT_EQ(errno, EAGAIN) << "an empty non-blocking channel";

    rdma_cm_id *id = nullptr;
    ASSERT_EQ(rdma_create_id(ch, &id, nullptr, RDMA_PS_TCP), 0);
    sockaddr_in foreign{};
    foreign.sin_family = AF_INET;
    inet_pton(AF_INET, "192.0.2.1", &foreign.sin_addr); // TEST-NET-1: never softverbs0's
    EXPECT_EQ(rdma_bind_addr(id, reinterpret_cast<sockaddr *>(&foreign)), -1);
    EXPECT_EQ(errno, EADDRNOTAVAIL);
    EXPECT_EQ(rdma_connect(id, nullptr), -1) << "connect before resolve_route";
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(rdma_accept(id, nullptr), -1) << "accept without a connect request";
    rdma_destroy_id(id);

    EXPECT_EQ(rdma_create_id(ch, &id, nullptr, RDMA_PS_UDP), -1);
    EXPECT_EQ(errno, ENOSYS) << "UD port space";
    EXPECT_EQ(rdma_create_ep(&id, nullptr, nullptr, nullptr), -1);
    EXPECT_EQ(errno, ENOSYS);
    EXPECT_EQ(rsocket(AF_INET, SOCK_STREAM, 0), -1);
    EXPECT_EQ(errno, ENOSYS);
    EXPECT_STREQ(rdma_event_str(RDMA_CM_EVENT_ESTABLISHED), "RDMA_CM_EVENT_ESTABLISHED");
    int n = 0;
    ibv_context **devs = rdma_get_devices(&n);
    ASSERT_NE(devs, nullptr);
    EXPECT_EQ(n, 1);
    EXPECT_STREQ(ibv_get_device_name(devs[0]->device), "softverbs0");
    rdma_free_devices(devs);
}

} // namespace
