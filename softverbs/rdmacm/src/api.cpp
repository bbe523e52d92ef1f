// The rdma_cm entry points for connected (RDMA_PS_TCP / RDMA_PS_IB, RC) ids: event
// channels, address and route resolution against softverbs0, connect / listen / accept /
// reject / disconnect, and the QP the id owns. Every call checks the id's state and
// its arguments; the peer's half happens in the CM thread (engine.cpp).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <memory>

#include "cm.h"
#include "guard.h"

using namespace svcm;

namespace {

// The IB CM's private data limits for RDMA_PS_TCP (the message minus the 36-byte IP header).
constexpr uint8_t kMaxConnectData = 56, kMaxAcceptData = 196, kMaxRejectData = 148;

Id *as_id(rdma_cm_id *id) { return reinterpret_cast<Id *>(id); }

// The id of a call allowed only in the states `allowed`; nullptr with errno EINVAL
// for a null id or one in another state. Under cm().mu.
Id *id_in_locked(rdma_cm_id *id, std::initializer_list<State> allowed)
{
    if (!id || std::find(allowed.begin(), allowed.end(), as_id(id)->state) == allowed.end()) {
        errno = EINVAL;
        return nullptr;
    }
    return as_id(id);
}

uint32_t random_psn()
{
    uint32_t v = 0;
    if (getrandom(&v, sizeof v, 0) != sizeof v)
        v = static_cast<uint32_t>(getpid()) * 2654435761u;
    return v & 0xffffff;
}

bool copy_private(Msg *m, const void *data, uint8_t len, uint8_t max)
{
    if (len > max || (len && !data)) {
        log_msg("private data of %u bytes refused: at most %u allowed here, and a non-NULL pointer", len, max);
        return false;
    }
    m->private_data_len = len;
    if (len)
        std::memcpy(m->private_data, data, len);
    return true;
}

void set_local_identity_locked(Id *id)
{
    ibv_gid gid{};
    local_gid(&gid);
    id->pub.verbs = device();
    id->pub.port_num = 1;
    id->pub.route.addr.addr.ibaddr.sgid = gid;
    std::memcpy(id->path.sgid.raw, gid.raw, 16);
}

int bind_locked(Id *id, const sockaddr *addr)
{
    if (!addr)
        return fail(EINVAL);
    if (addr->sa_family != AF_INET)
        return fail(EAFNOSUPPORT); // softverbs0 has an IPv4 address only
    sockaddr_in sin{};
    std::memcpy(&sin, addr, sizeof sin);
    if (!is_local_ipv4(sin.sin_addr.s_addr)) {
        char s[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &sin.sin_addr, s, sizeof s);
        log_msg("bind to %s refused: not softverbs0's address (its GID's IPv4, loopback or any)", s);
        return fail(EADDRNOTAVAIL);
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (bind(fd, reinterpret_cast<sockaddr *>(&sin), sizeof sin) != 0) {
        int e = errno;
        close(fd);
        return fail(e);
    }
    socklen_t len = sizeof sin;
    getsockname(fd, reinterpret_cast<sockaddr *>(&sin), &len); // the port the kernel chose for port 0
    std::memcpy(&id->pub.route.addr.src_sin, &sin, sizeof sin);
    id->fd = fd;
    set_local_identity_locked(id);
    id->state = State::Bound;
    return 0;
}

uint8_t rd_atom(uint8_t asked, uint8_t peer_limit) { return std::min(clamp_rd_atom(asked), peer_limit); }

// Frees a destroyed channel (one no longer in live_channels) once no thread is inside
// rdma_get_cm_event on it.
void release_channel_locked(Channel *ch)
{
    if (ch->getters > 0)
        return;
    close(ch->pub.fd);
    delete ch;
}

// rdma_get_cm_event on a channel destroyed before or while it waited. The kernel's
// librdmacm leaves such a reader blocked on the closed fd for good; so does this one,
// whatever the timing, rather than fail a thread the program never meant to wake
// (rping 44 exits on any error of its CM thread's rdma_get_cm_event).
[[noreturn]] void wait_forever_on_destroyed_channel()
{
    log_msg("rdma_get_cm_event on a destroyed event channel: the caller waits forever");
    for (;;)
        pause();
}

} // namespace

Channel *svcm::new_channel()
{
    if (!device()) {
        errno = ENODEV;
        return nullptr;
    }
    if (!start_engine())
        return nullptr;
    auto ch = std::make_unique<Channel>();
    ch->pub.fd = eventfd(0, EFD_CLOEXEC);
    if (ch->pub.fd < 0)
        return nullptr;
    std::lock_guard lk(cm().mu);
    try {
        cm().live_channels.insert(ch.get());
    } catch (...) {
        close(ch->pub.fd);
        throw;
    }
    cm().destroyed_channels.erase(ch.get()); // its address is a live channel's again
    return ch.release();
}

namespace {

int create_id(rdma_event_channel *channel, rdma_cm_id **id, void *context, rdma_port_space ps)
{
    if (!id)
        return fail(EINVAL);
    if (ps != RDMA_PS_TCP && ps != RDMA_PS_IB)
        return fail(ENOSYS); // UDP / IPoIB port spaces: UD QPs are not supported by softverbs
    // The id first: if it cannot be made, no channel was made for it either.
    auto i = std::make_unique<Id>();
    if (!channel) { // a synchronous id: calls wait for their event on a channel of its own
        i->own_channel = new_channel();
        if (!i->own_channel)
            return -1;
        channel = &i->own_channel->pub;
    }
    i->pub.channel = channel;
    i->pub.context = context;
    i->pub.ps = ps;
    i->pub.qp_type = IBV_QPT_RC;
    *id = &i.release()->pub;
    return 0;
}

int migrate_id(rdma_cm_id *id, rdma_event_channel *channel)
{
    if (!id)
        return fail(EINVAL);
    Id *i = as_id(id);
    Channel *own = nullptr;
    if (!channel) { // becomes synchronous
        if (i->own_channel)
            return 0;
        own = new_channel();
        if (!own)
            return -1;
        channel = &own->pub;
    }
    Channel *old = nullptr;
    {
        std::lock_guard lk(cm().mu);
        // Events already queued stay on the old channel (a synchronous id's own has none:
        // its calls consume their events).
        id->channel = channel;
        old = i->own_channel;
        i->own_channel = own;
    }
    if (old)
        rdma_destroy_event_channel(&old->pub);
    return 0;
}

int reject(rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
    std::lock_guard lk(cm().mu);
    Id *i = id_in_locked(id, {State::ReqReceived});
    if (!i)
        return -1;
    Msg m{};
    m.type = MsgType::Rej;
    if (!copy_private(&m, private_data, private_data_len, kMaxRejectData))
        return fail(EINVAL);
    send_msg_locked(i, m); // best effort: a requester that left needs no answer
    close_socket_locked(i);
    i->state = State::Rejected;
    return 0;
}

} // namespace

extern "C" {

rdma_event_channel *rdma_create_event_channel()
{
    return guarded("rdma_create_event_channel", static_cast<rdma_event_channel *>(nullptr),
                   []() -> rdma_event_channel * {
                       Channel *ch = new_channel();
                       return ch ? &ch->pub : nullptr;
                   });
}

void rdma_destroy_event_channel(rdma_event_channel *channel)
{
    guarded_void("rdma_destroy_event_channel", [&] {
        if (!channel)
            return;
        auto *ch = reinterpret_cast<Channel *>(channel);
        std::lock_guard lk(cm().mu);
        if (!cm().live_channels.contains(ch))
            return; // destroyed already (or never a channel): nothing of it is ours to free
        // Remembered before anything goes: if that allocation fails, the channel stays whole.
        cm().destroyed_channels.insert(ch);
        cm().live_channels.erase(ch);
        for (EventBox *b : ch->queue)
            delete b;
        ch->queue.clear();
        release_channel_locked(ch);
    });
}

int rdma_create_id(rdma_event_channel *channel, rdma_cm_id **id, void *context, rdma_port_space ps)
{
    return guarded("rdma_create_id", -1, [&] { return create_id(channel, id, context, ps); });
}

int rdma_destroy_id(rdma_cm_id *id)
{
    return guarded("rdma_destroy_id", -1, [&] {
        if (!id)
            return fail(EINVAL);
        Id *i = as_id(id);
        if (i->pub.event) { // left by rdma_get_request
            rdma_ack_cm_event(i->pub.event);
            i->pub.event = nullptr;
        }
        {
            std::unique_lock lk(cm().mu);
            forget_id_locked(i); // the peer sees the connection close: its DISCONNECTED
            drop_queued_events_locked(i);
            // As rdma-core: an event a program has taken is acked before its id goes, so that
            // the thread handling it (rping's CM thread) never reads a freed id or context.
            cm().acked.wait(lk, [i] { return i->events_acked >= i->events_reported; });
        }
        if (i->own_channel)
            rdma_destroy_event_channel(&i->own_channel->pub);
        delete i;
        return 0;
    });
}

int rdma_bind_addr(rdma_cm_id *id, sockaddr *addr)
{
    return guarded("rdma_bind_addr", -1, [&] {
        std::lock_guard lk(cm().mu);
        Id *i = id_in_locked(id, {State::Idle});
        if (!i)
            return -1;
        return bind_locked(i, addr);
    });
}

} // extern "C"

int svcm::resolve_addr_async(rdma_cm_id *id, sockaddr *src_addr, sockaddr *dst_addr)
{
    if (!id || !dst_addr)
        return fail(EINVAL);
    if (dst_addr->sa_family != AF_INET || (src_addr && src_addr->sa_family != AF_INET))
        return fail(EAFNOSUPPORT);
    std::lock_guard lk(cm().mu);
    Id *i = as_id(id);
    if (i->state == State::Idle && src_addr && bind_locked(i, src_addr) != 0)
        return -1;
    if (i->state != State::Idle && i->state != State::Bound)
        return fail(EINVAL);
    // First: if the event cannot be queued, the id stays as it was (bound, if src_addr bound it).
    queue_event_locked(i, nullptr, RDMA_CM_EVENT_ADDR_RESOLVED, 0, nullptr);
    std::memcpy(&i->pub.route.addr.dst_sin, dst_addr, sizeof(sockaddr_in));
    if (i->state == State::Idle) { // the source is softverbs0's address toward dst
        sockaddr_in src{};
        src.sin_family = AF_INET;
        uint32_t dst = i->pub.route.addr.dst_sin.sin_addr.s_addr;
        ibv_gid gid{};
        if ((ntohl(dst) >> 24) == 127)
            src.sin_addr.s_addr = dst;
        else if (local_gid(&gid))
            std::memcpy(&src.sin_addr.s_addr, gid.raw + 8, 4);
        std::memcpy(&i->pub.route.addr.src_sin, &src, sizeof src);
        set_local_identity_locked(i);
    }
    i->state = State::AddrResolved;
    return 0;
}

int svcm::resolve_route_async(rdma_cm_id *id)
{
    std::lock_guard lk(cm().mu);
    Id *i = id_in_locked(id, {State::AddrResolved});
    if (!i)
        return -1;
    queue_event_locked(i, nullptr, RDMA_CM_EVENT_ROUTE_RESOLVED, 0, nullptr); // first, as above
    i->pub.route.path_rec = &i->path;
    i->pub.route.num_paths = 1;
    i->state = State::RouteResolved;
    return 0;
}

int svcm::connect_async(rdma_cm_id *id, rdma_conn_param *conn_param)
{
    std::lock_guard lk(cm().mu);
    Id *i = id_in_locked(id, {State::RouteResolved});
    if (!i)
        return -1;
    if (!i->pub.qp && !conn_param)
        return fail(EINVAL); // without a QP the program must name its own in conn_param
    Msg m{};
    m.type = MsgType::Req;
    ibv_gid gid{};
    local_gid(&gid);
    std::memcpy(m.gid, gid.raw, 16);
    m.qpn = (i->pub.qp ? i->pub.qp->qp_num : conn_param->qp_num) & 0xffffff;
    m.psn = random_psn();
    m.retry_count = 7;
    m.rnr_retry_count = 7;
    if (conn_param) {
        if (!copy_private(&m, conn_param->private_data, conn_param->private_data_len, kMaxConnectData))
            return fail(EINVAL);
        m.responder_resources = clamp_rd_atom(conn_param->responder_resources);
        m.initiator_depth = clamp_rd_atom(conn_param->initiator_depth);
        m.retry_count = std::min<uint8_t>(conn_param->retry_count, 7);
        m.rnr_retry_count = std::min<uint8_t>(conn_param->rnr_retry_count, 7);
    }
    // The usual allocations first, so that they fail before the id changes: the CM thread's
    // entry and room for the REQ.
    track_locked(i);
    i->out.reserve(kMaxMsgLen);
    i->local = m;
    i->state = State::Connecting;
    i->rep_deadline = Clock::now() + kRepDeadline;
    i->refused_until = Clock::now() + kRefusedBudget;
    try {
        start_connect_locked(i); // failures arrive as events: rdma_connect itself succeeded
    } catch (...) {
        // Its failure event could not be queued: no attempt is left, and the id is back at
        // its resolved route (without the socket rdma_bind_addr may have made).
        close_socket_locked(i);
        i->retry_pending = false;
        i->state = State::RouteResolved;
        throw;
    }
    return 0;
}

extern "C" {

int rdma_establish(rdma_cm_id *id)
{
    return guarded("rdma_establish", -1, [&] {
        std::lock_guard lk(cm().mu);
        Id *i = id_in_locked(id, {State::RespReceived});
        if (!i)
            return -1;
        Msg rtu{};
        rtu.type = MsgType::Rtu;
        if (!send_msg_locked(i, rtu))
            return fail(ECONNRESET);
        i->state = State::Connected;
        return 0;
    });
}

int rdma_listen(rdma_cm_id *id, int backlog)
{
    return guarded("rdma_listen", -1, [&] {
        if (!id)
            return fail(EINVAL);
        std::lock_guard lk(cm().mu);
        Id *i = as_id(id);
        if (i->state != State::Idle && i->state != State::Bound)
            return fail(EINVAL);
        track_locked(i);               // the one allocation, before the id changes
        if (i->state == State::Idle) { // as the kernel: an unbound id listens on any address
            sockaddr_in any{};
            any.sin_family = AF_INET;
            if (bind_locked(i, reinterpret_cast<sockaddr *>(&any)) != 0)
                return -1;
        }
        if (listen(i->fd, backlog > 0 ? backlog : SOMAXCONN) != 0)
            return -1;
        i->state = State::Listening;
        watch_locked(i, EPOLLIN);
        return 0;
    });
}

} // extern "C"

int svcm::accept_async(rdma_cm_id *id, rdma_conn_param *conn_param)
{
    std::lock_guard lk(cm().mu);
    Id *i = id_in_locked(id, {State::ReqReceived});
    if (!i)
        return -1;
    if (i->fd < 0)
        return fail(ECONNRESET); // the requester went away before the program accepted
    if (!i->pub.qp && !conn_param)
        return fail(EINVAL);
    Msg m{};
    m.type = MsgType::Rep;
    ibv_gid gid{};
    local_gid(&gid);
    std::memcpy(m.gid, gid.raw, 16);
    m.qpn = (i->pub.qp ? i->pub.qp->qp_num : conn_param->qp_num) & 0xffffff;
    m.psn = random_psn();
    m.retry_count = i->peer.retry_count; // ignored when accepting: the requester's applies
    m.rnr_retry_count = 7;
    m.responder_resources = rd_atom(RDMA_MAX_RESP_RES, i->peer.initiator_depth);
    m.initiator_depth = rd_atom(RDMA_MAX_INIT_DEPTH, i->peer.responder_resources);
    if (conn_param) {
        if (!copy_private(&m, conn_param->private_data, conn_param->private_data_len, kMaxAcceptData))
            return fail(EINVAL);
        m.responder_resources = rd_atom(conn_param->responder_resources, i->peer.initiator_depth);
        m.initiator_depth = rd_atom(conn_param->initiator_depth, i->peer.responder_resources);
        m.rnr_retry_count = std::min<uint8_t>(conn_param->rnr_retry_count, 7);
    }
    i->local = m;
    if (i->pub.qp && (qp_to_rtr(i->pub.qp, i->peer, m.responder_resources) != 0 ||
                      qp_to_rts(i->pub.qp, m, i->peer, m.initiator_depth) != 0)) {
        log_msg("accept: cannot move QP 0x%x to RTR/RTS for peer QP 0x%x: %s", i->pub.qp->qp_num, i->peer.qpn,
                std::strerror(errno));
        return -1;
    }
    if (!send_msg_locked(i, m))
        return fail(ECONNRESET);
    i->state = State::RepSent;
    i->deadline = Clock::now() + kRtuDeadline;
    wake_engine();
    return 0;
}

extern "C" {

int rdma_reject(rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
    return guarded("rdma_reject", -1, [&] { return reject(id, private_data, private_data_len); });
}

int rdma_reject_ece(rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
    return guarded("rdma_reject_ece", -1, [&] { return reject(id, private_data, private_data_len); });
}

int rdma_disconnect(rdma_cm_id *id)
{
    return guarded("rdma_disconnect", -1, [&] {
        std::lock_guard lk(cm().mu);
        Id *i = id_in_locked(id, {State::Connected, State::RespReceived, State::RepSent, State::Disconnected});
        if (!i)
            return -1;
        qp_to_error(i->pub.qp); // as the kernel's CM: no more work on a disconnected QP
        if (i->state == State::Disconnected)
            return 0; // the peer disconnected first: this is the reply, no second event
        Msg dreq{};
        dreq.type = MsgType::Dreq;
        send_msg_locked(i, dreq);
        // If its event cannot be queued the id stays connected: the DREQ is out, and the
        // peer's closing the connection brings the DISCONNECTED later.
        disconnected_locked(i);
        return 0;
    });
}

int rdma_get_cm_event(rdma_event_channel *channel, rdma_cm_event **event)
{
    return guarded("rdma_get_cm_event", -1, [&] {
        if (!channel || !event)
            return fail(EINVAL);
        auto *ch = reinterpret_cast<Channel *>(channel);
        std::unique_lock lk(cm().mu);
        for (;;) {
            // Checked before ch is touched: a destroyed channel may be freed.
            if (!cm().live_channels.contains(ch)) {
                if (!cm().destroyed_channels.contains(ch))
                    return fail(EINVAL); // never one of ours
                lk.unlock();
                wait_forever_on_destroyed_channel();
            }
            if (!ch->queue.empty())
                break;
            int fd = ch->pub.fd;
            // Blocks, or fails with EAGAIN, as the program set the channel's fd.
            int flags = fcntl(fd, F_GETFL);
            if (flags < 0)
                return -1;
            if (flags & O_NONBLOCK)
                return fail(EAGAIN);
            ch->getters++;
            lk.unlock();
            pollfd p{fd, POLLIN, 0};
            int n = poll(&p, 1, -1);
            int err = errno;
            lk.lock();
            ch->getters--;
            if (!cm().live_channels.contains(ch)) { // destroyed while we waited
                release_channel_locked(ch);
                continue; // and parks, below
            }
            if (n < 0 && err != EINTR)
                return fail(err);
        }
        EventBox *box = ch->queue.front();
        ch->queue.pop_front();
        sync_readable_locked(ch);
        if (box->counted)
            box->counted->events_reported++;
        *event = &box->ev;
        return 0;
    });
}

int rdma_ack_cm_event(rdma_cm_event *event)
{
    return guarded("rdma_ack_cm_event", -1, [&] {
        if (!event)
            return fail(EINVAL);
        auto *box = reinterpret_cast<EventBox *>(event);
        if (box->counted) {
            std::lock_guard lk(cm().mu);
            box->counted->events_acked++;
            cm().acked.notify_all();
        }
        delete box;
        return 0;
    });
}

__be16 rdma_get_src_port(rdma_cm_id *id) { return id ? id->route.addr.src_sin.sin_port : 0; }

__be16 rdma_get_dst_port(rdma_cm_id *id) { return id ? id->route.addr.dst_sin.sin_port : 0; }

int rdma_set_option(rdma_cm_id *id, int level, int optname, void *optval, size_t optlen)
{
    if (!id || !optval)
        return fail(EINVAL);
    if (level != RDMA_OPTION_ID)
        return fail(ENOSYS); // RDMA_OPTION_IB_PATH: no IB path records here
    switch (optname) {
    case RDMA_OPTION_ID_TOS:
    case RDMA_OPTION_ID_ACK_TIMEOUT:
        return optlen == sizeof(uint8_t) ? 0 : fail(EINVAL); // accepted; no effect on softverbs
    case RDMA_OPTION_ID_REUSEADDR:
    case RDMA_OPTION_ID_AFONLY: return optlen == sizeof(int) ? 0 : fail(EINVAL);
    default: return fail(ENOSYS);
    }
}

int rdma_migrate_id(rdma_cm_id *id, rdma_event_channel *channel)
{
    return guarded("rdma_migrate_id", -1, [&] { return migrate_id(id, channel); });
}

int rdma_init_qp_attr(rdma_cm_id *id, ibv_qp_attr *qp_attr, int *qp_attr_mask)
{
    return guarded("rdma_init_qp_attr", -1, [&] {
        if (!id || !qp_attr || !qp_attr_mask)
            return fail(EINVAL);
        std::lock_guard lk(cm().mu);
        Id *i = as_id(id);
        ibv_qp_state want = qp_attr->qp_state;
        if (want != IBV_QPS_INIT && i->state != State::RespReceived && i->state != State::RepSent &&
            i->state != State::Connected)
            return fail(EINVAL); // RTR/RTS need the peer's QP: after the REP
        return fill_qp_attr(qp_attr, qp_attr_mask, want, i->local, i->peer);
    });
}

int rdma_notify(rdma_cm_id *id, ibv_event_type)
{
    return id ? 0 : fail(EINVAL); // the RTU is always sent: nothing to notify
}

} // extern "C"
