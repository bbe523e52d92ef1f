// The CM thread: one per process, started by the first event channel. It sleeps in
// epoll_wait on every CM socket (listeners and connections) with a timeout that is the
// nearest id deadline, so nothing polls; it turns each message from a peer into the
// state change and event rdma_cm programs expect.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "../../src/settings.h" // softverbs' table: SOFTVERBS_LOG
#include "cm.h"

namespace svcm {
namespace {

std::unordered_map<uint64_t, Id *> &registry() { return cm().ids; }

int log_level()
{
    static int level = sv::settings::log_level(); // softverbs' SOFTVERBS_LOG
    return level;
}

} // namespace

void log_msg(const char *fmt, ...)
{
    if (log_level() < 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    std::fputs("softverbs rdma_cm: ", stderr);
    std::vfprintf(stderr, fmt, ap);
    std::fputc('\n', stderr);
    va_end(ap);
}

Cm &cm()
{
    static auto *c = new Cm; // never destroyed, as the registry
    return *c;
}

void wake_engine()
{
    uint64_t one = 1;
    if (cm().wake_fd >= 0)
        (void)!write(cm().wake_fd, &one, sizeof one);
}

// Known to the CM thread: its deadline counts, its socket events find it.
void track_locked(Id *id)
{
    if (id->serial == 0)
        id->serial = cm().next_serial++;
    registry()[id->serial] = id;
}

void watch_locked(Id *id, uint32_t events)
{
    track_locked(id);
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = id->serial;
    if (epoll_ctl(cm().epoll_fd, EPOLL_CTL_MOD, id->fd, &ev) != 0)
        epoll_ctl(cm().epoll_fd, EPOLL_CTL_ADD, id->fd, &ev);
    wake_engine(); // its deadline may be the nearest now
}

void unwatch_locked(Id *id)
{
    if (id->fd >= 0)
        epoll_ctl(cm().epoll_fd, EPOLL_CTL_DEL, id->fd, nullptr);
}

void close_socket_locked(Id *id)
{
    unwatch_locked(id);
    if (id->fd >= 0)
        close(id->fd);
    id->fd = -1;
    id->connect_pending = false;
    id->deadline = Clock::time_point::max();
    id->in.clear();
    id->out.clear();
}

namespace {

// An id the program never saw (a connection not yet requested, or whose request was
// dropped): its socket closes, so the peer learns of it, and nothing refers to it after.
void discard_unseen_id_locked(Id *id)
{
    close_socket_locked(id);
    registry().erase(id->serial);
    delete id;
}

} // namespace

void forget_id_locked(Id *id)
{
    close_socket_locked(id);
    registry().erase(id->serial);
    // A listener going away takes the connections the program has not seen yet with it.
    // Erased in place, not collected first: rdma_destroy_id must not allocate.
    for (auto it = registry().begin(); it != registry().end();) {
        Id *other = it->second;
        if (other->listener != id) {
            ++it;
            continue;
        }
        close_socket_locked(other);
        it = registry().erase(it);
        delete other;
    }
}

void queue_event_locked(Id *id, Id *listen_id, rdma_cm_event_type type, int status, const Msg *param)
{
    auto *ch = reinterpret_cast<Channel *>(id->pub.channel);
    if (!ch)
        return;
    auto box = std::make_unique<EventBox>();
    box->ev.id = &id->pub;
    box->ev.listen_id = listen_id ? &listen_id->pub : nullptr;
    box->ev.event = type;
    box->ev.status = status;
    box->counted = type == RDMA_CM_EVENT_CONNECT_REQUEST && listen_id ? listen_id : id;
    if (param) {
        rdma_conn_param &c = box->ev.param.conn;
        std::memcpy(box->private_data, param->private_data, param->private_data_len);
        c.private_data = param->private_data_len ? box->private_data : nullptr;
        c.private_data_len = param->private_data_len;
        // As the IB CM reports them: what the peer offers, seen from this side.
        c.responder_resources = param->initiator_depth;
        c.initiator_depth = param->responder_resources;
        c.flow_control = 1;
        c.retry_count = param->retry_count;
        c.rnr_retry_count = param->rnr_retry_count;
        c.qp_num = param->qpn;
    }
    ch->queue.push_back(box.get());
    box.release();
    sync_readable_locked(ch);
}

void sync_readable_locked(Channel *ch)
{
    bool want = !ch->queue.empty();
    if (want == ch->readable)
        return;
    uint64_t v = 1;
    if (want) {
        (void)!write(ch->pub.fd, &v, sizeof v);
    } else {
        // Only this function reads or writes the counter, always under cm().mu, so it is 1
        // here; the poll only keeps a program that read the fd itself from blocking us.
        pollfd p{ch->pub.fd, POLLIN, 0};
        if (poll(&p, 1, 0) == 1)
            (void)!read(ch->pub.fd, &v, sizeof v);
    }
    ch->readable = want;
}

void drop_queued_events_locked(Id *id)
{
    // Every channel: rdma_migrate_id leaves the events already queued on the old one.
    for (Channel *c : cm().live_channels) {
        std::erase_if(c->queue, [id](EventBox *b) {
            if (b->counted != id)
                return false;
            if (b->ev.event == RDMA_CM_EVENT_CONNECT_REQUEST) // a connection the program never saw
                discard_unseen_id_locked(reinterpret_cast<Id *>(b->ev.id));
            delete b;
            return true;
        });
        sync_readable_locked(c);
    }
}

bool send_msg_locked(Id *id, const Msg &m)
{
    uint8_t buf[kMaxMsgLen];
    size_t len = encode_msg(m, buf);
    if (id->connect_pending) {
        id->out.append(reinterpret_cast<const char *>(buf), len);
        return true;
    }
    if (id->fd < 0)
        return false;
    // Messages are a few hundred bytes on a socket that carries nothing else: they fit.
    ssize_t n = send(id->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    return n == static_cast<ssize_t>(len);
}

// These three queue their event before they change the id: an event that cannot be queued
// leaves the id as it was.
void established_locked(Id *id)
{
    queue_event_locked(id, nullptr, RDMA_CM_EVENT_ESTABLISHED, 0, nullptr);
    id->state = State::Connected;
    id->deadline = Clock::time_point::max();
}

void disconnected_locked(Id *id)
{
    if (id->state == State::Disconnected)
        return;
    // The QP is left alone: as with the kernel's CM, only rdma_disconnect moves it to ERR
    // (a program may still be reaping its completions).
    queue_event_locked(id, nullptr, RDMA_CM_EVENT_DISCONNECTED, 0, nullptr);
    close_socket_locked(id);
    id->state = State::Disconnected;
}

namespace {

// The connection failed before it was established: one event, then the id is inert.
void failed_locked(Id *id, rdma_cm_event_type type, int status, const Msg *param)
{
    queue_event_locked(id, nullptr, type, status, param);
    close_socket_locked(id);
    id->state = State::Rejected;
}

void drop_child_locked(Id *id, const char *why)
{
    log_msg("dropping an incoming connection: %s", why);
    if (id->listener)
        id->listener->pending_children--;
    discard_unseen_id_locked(id);
}

// The peer closed, broke the protocol, or sent garbage.
void peer_gone_locked(Id *id, const char *why)
{
    log_msg("peer connection of id %p closed (%s)", static_cast<void *>(&id->pub), why);
    switch (id->state) {
    case State::ReqWaiting: drop_child_locked(id, why); return;
    case State::Connecting: failed_locked(id, RDMA_CM_EVENT_UNREACHABLE, -ECONNRESET, nullptr); return;
    case State::RepSent: failed_locked(id, RDMA_CM_EVENT_CONNECT_ERROR, -ECONNRESET, nullptr); return;
    case State::Connected:
    case State::RespReceived: disconnected_locked(id); return;
    default: // ReqReceived: rdma_accept will report it
        close_socket_locked(id);
        return;
    }
}

void on_req_locked(Id *id, const Msg &m)
{
    Id *l = id->listener;
    l->pending_children--;
    id->listener = nullptr;
    id->deadline = Clock::time_point::max();
    id->peer = m;
    id->pub.verbs = device();
    id->pub.channel = l->pub.channel;
    id->pub.context = l->pub.context;
    id->pub.ps = l->pub.ps;
    id->pub.port_num = 1;
    id->pub.qp_type = IBV_QPT_RC;
    socklen_t sl = sizeof(sockaddr_in);
    getsockname(id->fd, &id->pub.route.addr.src_addr, &sl);
    sl = sizeof(sockaddr_in);
    getpeername(id->fd, &id->pub.route.addr.dst_addr, &sl);
    ibv_gid gid{};
    local_gid(&gid);
    id->pub.route.addr.addr.ibaddr.sgid = gid;
    std::memcpy(id->pub.route.addr.addr.ibaddr.dgid.raw, m.gid, 16);
    std::memcpy(id->path.sgid.raw, gid.raw, 16);
    std::memcpy(id->path.dgid.raw, m.gid, 16);
    id->pub.route.path_rec = &id->path;
    id->pub.route.num_paths = 1;
    id->state = State::ReqReceived;
    queue_event_locked(id, l, RDMA_CM_EVENT_CONNECT_REQUEST, 0, &m);
}

void on_rep_locked(Id *id, const Msg &m)
{
    id->peer = m;
    std::memcpy(id->pub.route.addr.addr.ibaddr.dgid.raw, m.gid, 16);
    std::memcpy(id->path.dgid.raw, m.gid, 16);
    id->deadline = Clock::time_point::max();
    if (!id->pub.qp) { // the program moves its own QP, then calls rdma_establish
        id->state = State::RespReceived;
        queue_event_locked(id, nullptr, RDMA_CM_EVENT_CONNECT_RESPONSE, 0, &m);
        return;
    }
    if (qp_to_rtr(id->pub.qp, m, id->local.responder_resources) != 0 ||
        qp_to_rts(id->pub.qp, id->local, m, id->local.initiator_depth) != 0) {
        int e = errno;
        log_msg("cannot move QP 0x%x to RTR/RTS for peer QP 0x%x: %s", id->pub.qp->qp_num, m.qpn, std::strerror(e));
        Msg rej{};
        rej.type = MsgType::Rej;
        send_msg_locked(id, rej);
        failed_locked(id, RDMA_CM_EVENT_CONNECT_ERROR, -e, nullptr);
        return;
    }
    Msg rtu{};
    rtu.type = MsgType::Rtu;
    if (!send_msg_locked(id, rtu)) {
        failed_locked(id, RDMA_CM_EVENT_CONNECT_ERROR, -ECONNRESET, nullptr);
        return;
    }
    id->state = State::Connected;
    queue_event_locked(id, nullptr, RDMA_CM_EVENT_ESTABLISHED, 0, &m);
}

// One whole, well-formed message; is it one this id expects now?
void dispatch_locked(Id *id, const Msg &m)
{
    State s = id->state;
    if (s == State::ReqWaiting && m.type == MsgType::Req)
        return on_req_locked(id, m);
    if (s == State::Connecting && m.type == MsgType::Rep)
        return on_rep_locked(id, m);
    if (s == State::Connecting && m.type == MsgType::Rej)
        return failed_locked(id, RDMA_CM_EVENT_REJECTED, 28 /* IB: consumer reject */, &m);
    if (s == State::RepSent && m.type == MsgType::Rtu)
        return established_locked(id);
    if ((s == State::Connected || s == State::RespReceived || s == State::RepSent) && m.type == MsgType::Dreq)
        return disconnected_locked(id);
    peer_gone_locked(id, "message out of order for the connection's state");
}

void accept_children_locked(Id *l)
{
    for (;;) {
        int fd = accept4(l->fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        if (l->pending_children >= kMaxPendingPerListener) {
            log_msg("listener has %d connections that sent no REQ yet: refusing another", l->pending_children);
            close(fd);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        // Known to the CM thread before the listener counts it: an allocation failing here
        // leaves neither an id nor an open socket behind (the peer sees its connection closed).
        std::unique_ptr<Id> c;
        try {
            c = std::make_unique<Id>();
            track_locked(c.get());
        } catch (...) {
            close(fd);
            throw;
        }
        c->fd = fd;
        c->listener = l;
        c->state = State::ReqWaiting;
        c->deadline = Clock::now() + kReqDeadline;
        l->pending_children++;
        watch_locked(c.release(), EPOLLIN);
    }
}

void connect_failed_locked(Id *id, int err)
{
    if (err == ECONNREFUSED && Clock::now() < id->refused_until) {
        close_socket_locked(id);
        track_locked(id);
        id->retry_pending = true;
        id->deadline = Clock::now() + kRefusedRetry;
        wake_engine();
        return;
    }
    // No listener: the IB CM's reject reason 8, "invalid service ID".
    if (err == ECONNREFUSED)
        return failed_locked(id, RDMA_CM_EVENT_REJECTED, 8, nullptr);
    failed_locked(id, RDMA_CM_EVENT_UNREACHABLE, -err, nullptr);
}

void finish_connect_locked(Id *id)
{
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(id->fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err == EINPROGRESS || err == EALREADY)
        return;
    if (err != 0)
        return connect_failed_locked(id, err);
    id->connect_pending = false;
    std::string out;
    out.swap(id->out);
    if (send(id->fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT) != static_cast<ssize_t>(out.size()))
        return failed_locked(id, RDMA_CM_EVENT_UNREACHABLE, -ECONNRESET, nullptr);
    watch_locked(id, EPOLLIN);
}

void readable_locked(Id *id)
{
    char buf[4096];
    for (;;) {
        ssize_t n = recv(id->fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n == 0)
            return peer_gone_locked(id, "end of stream");
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;
            if (errno == EINTR)
                continue;
            return peer_gone_locked(id, std::strerror(errno));
        }
        id->in.append(buf, static_cast<size_t>(n));
        while (!id->in.empty()) {
            Msg m{};
            size_t used = 0;
            const char *why = "";
            Parse p = parse_msg(reinterpret_cast<const uint8_t *>(id->in.data()), id->in.size(), &m, &used, &why);
            if (p == Parse::NeedMore)
                break;
            if (p == Parse::Bad)
                return peer_gone_locked(id, why);
            id->in.erase(0, used);
            int fd = id->fd;
            uint64_t serial = id->serial;
            dispatch_locked(id, m);
            // The id may be gone (a dropped child: not even its serial may be read) or its
            // socket closed: stop reading it.
            if (registry().count(serial) == 0 || id->fd != fd)
                return;
        }
    }
}

void handle_locked(Id *id, uint32_t events)
{
    if (id->fd < 0)
        return;
    if (id->state == State::Listening)
        return accept_children_locked(id);
    if (id->connect_pending)
        return finish_connect_locked(id);
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
        readable_locked(id);
}

void expire_locked(Id *id)
{
    id->deadline = Clock::time_point::max();
    switch (id->state) {
    case State::ReqWaiting: return drop_child_locked(id, "no REQ within the deadline");
    case State::Connecting:
        if (id->retry_pending) {
            id->retry_pending = false;
            return start_connect_locked(id);
        }
        return failed_locked(id, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, nullptr);
    case State::RepSent: return failed_locked(id, RDMA_CM_EVENT_CONNECT_ERROR, -ETIMEDOUT, nullptr);
    default: return;
    }
}

// Runs one step of the CM thread for the id keyed `serial`. A step that throws (an
// allocation failing) ends that id's connection as if its peer had gone, so the program
// gets the event it waits for, and the thread goes on with every other id; only a
// listener is kept (its accepted socket was closed where the step failed). Returns
// whether the step failed, for the caller's back-off.
template <class Step>
bool survive_locked(uint64_t serial, const char *what, Step step) noexcept
{
    try {
        step();
        return false;
    } catch (const std::exception &e) {
        log_msg("%s failed (%s): that connection is dropped", what, e.what());
    } catch (...) {
        log_msg("%s failed on an unknown exception: that connection is dropped", what);
    }
    try {
        if (auto it = registry().find(serial); it != registry().end() && it->second->state != State::Listening)
            peer_gone_locked(it->second, "the CM thread ran out of memory");
    } catch (...) {
        // Not even the event could be queued: the id's socket goes, and with it its deadline's
        // reason to wait (rdma_destroy_id still works).
        if (auto it = registry().find(serial); it != registry().end())
            close_socket_locked(it->second);
    }
    return true;
}

[[noreturn]] void engine_loop()
{
    epoll_event evs[32];
    for (;;) {
        int timeout = -1;
        {
            std::lock_guard lk(cm().mu);
            auto next = Clock::time_point::max();
            for (auto &[serial, id] : registry())
                next = std::min(next, id->deadline);
            if (next != Clock::time_point::max()) {
                auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count() + 1;
                timeout = ms < 0 ? 0 : static_cast<int>(ms);
            }
        }
        int n = epoll_wait(cm().epoll_fd, evs, 32, timeout);
        bool failed = false;
        {
            std::lock_guard lk(cm().mu);
            for (int i = 0; i < n; i++) {
                const uint64_t serial = evs[i].data.u64;
                if (serial == 0) {
                    uint64_t v;
                    (void)!read(cm().wake_fd, &v, sizeof v);
                    continue;
                }
                auto it = registry().find(serial);
                if (it != registry().end())
                    failed |= survive_locked(serial, "a connection event",
                                             [&, id = it->second] { handle_locked(id, evs[i].events); });
            }
            const auto now = Clock::now();
            std::vector<uint64_t> due; // serials: an expiry may delete ids
            for (auto &[serial, id] : registry())
                if (id->deadline <= now)
                    due.push_back(serial);
            for (uint64_t serial : due)
                if (auto it = registry().find(serial); it != registry().end())
                    failed |= survive_locked(serial, "a connection deadline", [id = it->second] { expire_locked(id); });
        }
        // Memory is short: give the rest of the process a moment before the next round.
        if (failed)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

} // namespace

void start_connect_locked(Id *id)
{
    int fd = id->fd; // bound by rdma_bind_addr / resolve_addr with a source, or none
    if (fd < 0) {
        fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return failed_locked(id, RDMA_CM_EVENT_UNREACHABLE, -errno, nullptr);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        id->fd = fd;
    }
    id->deadline = id->rep_deadline;
    id->connect_pending = true;
    id->out.clear();
    send_msg_locked(id, id->local); // queued until the socket is connected
    if (connect(fd, &id->pub.route.addr.dst_addr, sizeof(sockaddr_in)) != 0 && errno != EINPROGRESS)
        return connect_failed_locked(id, errno);
    sockaddr_in src{};
    socklen_t len = sizeof src;
    if (getsockname(fd, reinterpret_cast<sockaddr *>(&src), &len) == 0)
        std::memcpy(&id->pub.route.addr.src_sin, &src, sizeof src);
    watch_locked(id, EPOLLOUT); // finish_connect_locked sends the REQ once connected
}

bool start_engine()
{
    // Not std::call_once: a start the system refuses must leave nothing behind and be tried
    // again by the next channel, and the descriptors are made only once across such tries.
    static std::mutex mu;
    static bool started = false;
    std::lock_guard lk(mu);
    if (started)
        return true;
    if (cm().epoll_fd < 0) {
        int ep = epoll_create1(EPOLL_CLOEXEC);
        int wake = ep < 0 ? -1 : eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = 0;
        if (wake < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, wake, &ev) != 0) {
            int e = errno;
            log_msg("cannot start the CM thread: its epoll set or wake-up eventfd: %s", std::strerror(e));
            if (ep >= 0)
                close(ep);
            if (wake >= 0)
                close(wake);
            errno = e;
            return false;
        }
        cm().epoll_fd = ep;
        cm().wake_fd = wake;
    }
    // Lives as long as the process, as rdma-core's CM state. A step that fails drops its
    // connection (survive_locked); an exception that still gets out (the loop's own
    // bookkeeping) ends this thread, not the process: connection events stop, and it is
    // said once.
    std::thread([] {
        try {
            engine_loop();
        } catch (const std::exception &e) {
            std::fprintf(stderr, "softverbs rdma_cm: its event thread stopped: %s; no further connection events\n",
                         e.what());
        } catch (...) {
            std::fprintf(stderr, "softverbs rdma_cm: its event thread stopped on an unknown exception; no further "
                                 "connection events\n");
        }
    }).detach();
    started = true;
    return true;
}

} // namespace svcm
