// The wire: one listener per process, one TCP connection per (requester QP ->
// responder QP) pair, and a progress thread that moves bytes without ever
// blocking on a write. Same-host peers are recognised at the handshake and get
// direct placement instead (see mr.cpp).
#include "dma.h"
#include "siphash.h"
#include "sv.h"
#include "ud.h"

#include <hcts/mutant.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <utility>

namespace sv {

Clock::time_point responder_timers_locked();

namespace {

void random_bytes(uint8_t *p, size_t n)
{
    if (getrandom(p, n, 0) != static_cast<ssize_t>(n)) {
        std::random_device rd;
        for (size_t i = 0; i < n; ++i)
            p[i] = static_cast<uint8_t>(rd());
    }
}

struct Engine {
    int listen_fd = -1;
    int epoll_fd = -1;
    int wake_fd = -1;
    // A second epoll set over the TCP-only connections, which a spinning CQ poller reads with
    // a zero timeout (see tcp_progress): it consumes frames itself instead of waiting for the
    // progress thread to be woken.
    int poller_fd = -1;
    // While a poller holds the lease (g_tcp_lease), the progress thread does not watch the
    // TCP-only connections for input: being woken for frames the poller has already taken
    // cost a context switch per frame (8 B raw verbs across two simulated nodes: 45 us one
    // way with both threads reading, 28 us with only the poller). Guarded by G().mu.
    bool muted = false;
    Identity id;
    std::map<int, std::shared_ptr<Conn>> conns; // guarded by G().mu
    struct Pending {                            // inbound connections still in their handshake
        std::vector<uint8_t> in;
        Clock::time_point deadline; // a peer that has not authenticated by then is dropped
        bool challenged = false;    // Hello received, Challenge sent: waiting for the Answer
        Hello hello{};
        Proof expect{};          // the requester's proof, if it knows the QP's secret
        bool own_secret = false; // the QP's secret was set by the program (for the message)
    };
    std::map<int, Pending> handshakes;
    // shm_progress_locked's list of ring connections, kept between calls so that a poll
    // allocates nothing: it runs on every ibv_poll_cq of a spinning poller. Guarded by G().mu.
    std::vector<std::shared_ptr<Conn>> rings;
    // Each started once per process (a forked child's Engine starts its own); a failed start
    // (no fds, no threads) is tried again by the next caller.
    std::mutex start_mu, shm_start_mu;
    std::atomic<bool> started{false};     // the listener and the progress thread (transport_start)
    std::atomic<bool> shm_started{false}; // the shm waiter thread (shm_start)
    Engine *inherited = nullptr;          // in a forked child: the parent's, disowned (never used again)
};

// Lives as long as the progress thread; a forked child gets its own.
std::atomic<Engine *> g_engine{new Engine};

Engine &E() { return *g_engine.load(std::memory_order_relaxed); }

void host_facts(uint8_t boot_id[40], uint64_t *netns)
{
    std::memset(boot_id, 0, 40);
    if (FILE *f = std::fopen("/proc/sys/kernel/random/boot_id", "re")) {
        if (!std::fgets(reinterpret_cast<char *>(boot_id), 40, f))
            boot_id[0] = 0;
        std::fclose(f);
    }
    struct stat st {};
    *netns = stat("/proc/self/ns/net", &st) == 0 ? st.st_ino : 0;
}

void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

// A connection refused because the two sides' secrets differ is said on stderr, once per
// program, as requester or responder, whichever sees it first (not only at SOFTVERBS_LOG=1):
// what the program sees is only a completion with IBV_WC_RETRY_EXC_ERR, which does not
// name the cause. Further refusals are logged at SOFTVERBS_LOG=1.
std::string secret_origin(bool own_secret)
{
    return own_secret ? "the QP's own secret, which the program set (softverbs_set_qp_secret)" : config().secret_from;
}

std::atomic<bool> g_said_secrets_differ{false};

void say_secrets_differ(const std::string &what, bool own_secret)
{
    if (g_said_secrets_differ.exchange(true))
        return;
    const Config &c = config();
    const std::string file = c.secret_file.empty() ? "~/.config/softverbs/secret" : c.secret_file;
    std::fprintf(stderr,
                 "softverbs: %s: the two programs do not have the same secret (this one uses %s). Programs that "
                 "connect must share one: the same SOFTVERBS_SECRET in both, or SOFTVERBS_SECRET unset in both and "
                 "the same user, who shares the secret file %s. (Said once per program.)\n",
                 what.c_str(), secret_origin(own_secret).c_str(), file.c_str());
}

std::string peer_text(int fd)
{
    sockaddr_in a{};
    socklen_t len = sizeof a;
    char ip[INET_ADDRSTRLEN] = "?";
    if (getpeername(fd, reinterpret_cast<sockaddr *>(&a), &len) != 0 || a.sin_family != AF_INET)
        return "an unknown address";
    inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
    return std::string(ip) + ":" + std::to_string(ntohs(a.sin_port));
}

std::atomic<bool> g_tcp{false}; // some connection has no ring: spinning pollers read sockets too
// Until this time (steady clock, ns) a spinning poller of ours reads the TCP-only sockets; the
// progress thread takes over when it runs out or is dropped. Like the shm lease (shm_ring.h),
// it bounds how long a poller that stops polling without arming its CQ can hold frames up.
std::atomic<int64_t> g_tcp_lease{0};

int64_t steady_ns()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// Input the progress thread watches on c: none while paused, none while a poller reads it.
uint32_t in_events(const Conn &c) { return c.paused || (E().muted && !c.ring) ? 0u : uint32_t{EPOLLIN}; }

// A connection without a ring carries its frames on the socket: spinning pollers watch it.
void poller_watch(const Conn &c)
{
    if (c.ring)
        return;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = c.fd;
    epoll_ctl(E().poller_fd, EPOLL_CTL_ADD, c.fd, &ev);
    g_tcp.store(true, std::memory_order_relaxed);
}

void unwatch(int fd)
{
    epoll_ctl(E().epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
    epoll_ctl(E().poller_fd, EPOLL_CTL_DEL, fd, nullptr); // ENOENT for ring and handshake fds
}

// Moves all n bytes through `io` (one send or recv), retrying interrupted calls;
// false once the peer closed or the socket failed.
template <typename Byte, typename Io>
bool transfer_all(Byte *b, size_t n, Io io)
{
    while (n) {
        ssize_t k = io(b, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        b += k;
        n -= static_cast<size_t>(k);
    }
    return true;
}

bool write_all(int fd, const void *p, size_t n)
{
    return transfer_all(static_cast<const uint8_t *>(p), n,
                        [fd](const uint8_t *b, size_t k) { return ::send(fd, b, k, MSG_NOSIGNAL); });
}

bool read_all(int fd, void *p, size_t n)
{
    return transfer_all(static_cast<uint8_t *>(p), n, [fd](uint8_t *b, size_t k) { return ::recv(fd, b, k, 0); });
}

// A connection keeps up to this much buffer between messages (more only while a huge one passes).
constexpr size_t kKeepBuffer = 32u << 20;
// Each read of a connection goes into at least this much spare room of its frame buffer.
constexpr size_t kReadRoom = 256u << 10;
// An outgoing buffer grown past kKeepBuffer is given back only once it has stayed empty this
// long. Given back whenever it went empty, a window of eight 16 MiB writes regrew it through
// 64, 128 and 256 MiB, copying and page faulting, at every window: the reference's 16 MiB
// stream over TCP ran at 0.15-0.24 GB/s (1.2 GB/s with the buffer kept).
constexpr auto kKeepIdle = std::chrono::seconds(1);

// A responder stops reading a peer's requests while this much of its replies (READ
// responses) is still unsent, or this much of its requests waits for RECVs, and
// resumes below half of it: a peer that asks but does not read, or sends into a QP
// with no RECVs, cannot make us queue without bound.
constexpr size_t kOutHigh = 64u << 20;

void set_events(Conn *c)
{
    epoll_event ev{};
    ev.events = in_events(*c) | (c->out_armed ? uint32_t{EPOLLOUT} : 0u);
    ev.data.fd = c->fd;
    epoll_ctl(E().epoll_fd, EPOLL_CTL_MOD, c->fd, &ev);
}

// Hands the TCP-only connections' input to the lease holder (on) or back to the progress thread.
void set_muted_locked(bool on)
{
    if (E().muted == on)
        return;
    E().muted = on;
    for (auto &[fd, c] : E().conns)
        if (!c->ring && !c->closed)
            set_events(c.get());
}

void want_out(Conn *c, bool on)
{
    if (c->out_armed == on)
        return;
    c->out_armed = on;
    set_events(c);
}

// Whether a responder connection must stop reading (and pauses it): too many of our
// replies unsent, or too many of its requests held (SENDs waiting for a RECV).
bool should_pause(Conn *c)
{
    if (c->outbound || c->paused ||
        (c->out.size() <= kOutHigh && (!c->responder || c->responder->pending_bytes <= kOutHigh)))
        return false;
    c->paused = true;
    set_events(c);
    return true;
}

void flush_locked(Conn *c)
{
    while (!c->out.empty()) {
        ssize_t k = ::send(c->fd, c->out.data(), c->out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            // Mutant: the rest waits for the connection's next frame instead of EPOLLOUT.
            if (!hcts::mutant("sv_tcp_send_not_resumed"))
                want_out(c, true);
            return;
        }
        if (k <= 0) {
            c->closed = true;
            return;
        }
        c->out.consume(static_cast<size_t>(k));
        log(3, "fd %d sent %zd, %zu left", c->fd, k, c->out.size());
    }
    if (c->out.capacity() > kKeepBuffer) {
        c->out_emptied = Clock::now();
        transport_kick(); // the progress thread gives it back (out_buffer_timers_locked) if it stays empty
    }
    want_out(c, false);
}

int ring_drain_locked(const std::shared_ptr<Conn> &c);

void conn_failed_locked(const std::shared_ptr<Conn> &c)
{
    if (c->ring && !c->closed)
        ring_drain_locked(c); // what the peer put in the ring before it went still counts
    c->closed = true;
    unwatch(c->fd);
    E().conns.erase(c->fd);
    if (c->outbound && c->qp) {
        // The peer is gone: everything in flight exhausts its retries.
        Qp *qp = c->qp;
        log(1, "QP 0x%x: connection to the peer lost", qp->qpx.qp_base.qp_num);
        for (Wqe &w : qp->sq)
            if (w.executed && !w.done) {
                w.done = true;
                w.status = IBV_WC_RETRY_EXC_ERR;
                qp->sq_failed = true; // nothing behind it may run while its completion waits out the retry time
            }
        sq_advance_locked(qp);
    }
    if (!c->outbound && c->responder) {
        c->responder->broken = true;
        c->responder->conn.reset();
    }
}

void handle_frames_locked(const std::shared_ptr<Conn> &c)
{
    while (c->in.size() >= sizeof(Frame)) {
        if (c->paused || should_pause(c.get()))
            break; // resumed by resume_locked once the replies drain
        Frame f;
        const FrameCut cut = cut_frame(c->outbound, c->in.data(), c->in.size(), &f);
        if (cut == FrameCut::kMalformed) {
            log(1, "fd %d: malformed frame (op %u, len %u, payload %u): closing the connection", c->fd, f.op, f.len,
                f.plen);
            c->closed = true;
            break;
        }
        if (cut == FrameCut::kNeedMore) {
            // Room for the rest in one piece, and for the reads after it (each reserves
            // kReadRoom: without the slack the last reads of a large frame reallocated the
            // whole buffer, a copy of the frame and fresh page faults).
            c->in.reserve(sizeof f + f.plen - c->in.size() + kReadRoom);
            break;
        }
        const uint8_t *payload = c->in.data() + sizeof f;
        if (c->outbound) {
            if (!requester_reply_locked(c->qp, f, payload)) {
                log(1, "fd %d: a reply (op %u, seq %llu) does not match its request: closing the connection", c->fd,
                    f.op, static_cast<unsigned long long>(f.seq));
                c->closed = true;
                break;
            }
        } else if (c->responder) {
            responder_deliver_locked(c->responder, f, payload, f.plen);
        }
        c->in.consume(sizeof f + f.plen);
        if (c->closed)
            break;
    }
    c->in.trim(kKeepBuffer);
}

std::shared_ptr<PeerProc> same_host_peer_locked(const uint8_t boot_id[40], uint64_t peer_netns, uint32_t peer_pid,
                                                int32_t table_fd, uint64_t cookie);
bool shm_start();

// After a valid Answer: the requester knows the secret of the QP it names.
void accept_hello_locked(int fd, const Hello &h)
{
    HelloReply rep{};
    rep.magic = kHelloMagic;
    rep.ring_fd = -1;
    host_facts(rep.boot_id, &rep.netns);
    rep.pid = static_cast<uint32_t>(getpid());
    rep.table_fd = local_mr_table_fd();
    rep.cookie = local_mr_table()->cookie;
    // The requester must know the secret of the very QP it names, claim to be that QP's
    // peer (checked now if the QP is connected, else before its first request runs), and
    // the QP must not already have a live stream: a connected QP accepts only its peer.
    auto r = std::make_unique<Responder>();
    r->src_qpn = h.src_qpn;
    r->src_ip = h.src_ip;
    r->src_port = h.src_port;
    r->src_salt = h.src_salt;
    Qp *qp = find_qp_locked(h.dest_qpn);
    const char *why = nullptr;
    if (!qp) {
        why = "no such QP";
    } else if (ibv_qp_state st = qp->qpx.qp_base.state;
               (st == IBV_QPS_RTR || st == IBV_QPS_RTS) && !responder_peer_ok_locked(qp, r.get())) {
        why = "not the QP's connected peer";
    } else {
        for (const auto &o : qp->responders)
            if (!o->broken)
                why = "the QP already has a connected peer";
    }
    rep.status = why ? 1 : 0;
    if (why) {
        log(1, "refusing a connection from QP 0x%x for QP 0x%x: %s", h.src_qpn, h.dest_qpn, why);
        (void)::send(fd, &rep, sizeof rep, MSG_NOSIGNAL | MSG_DONTWAIT);
        epoll_ctl(E().epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
        close(fd);
        return;
    }
    rep.qp_slot = qp->slot;
    auto c = std::make_shared<Conn>();
    c->fd = fd;
    r->qp = qp;
    r->conn = c;
    r->rnr_retry = h.rnr_retry;
    c->responder = r.get();
    // A requester on this host (it proved the secret above) gets a ring for its frames;
    // we ring its doorbell through its table, which we map as it maps ours.
    if (config().transport != Transport::Tcp) {
        if (auto peer = same_host_peer_locked(h.boot_id, h.netns, h.pid, h.table_fd, h.cookie)) {
            if ((c->ring = ShmRing::create()) && shm_start()) {
                c->peer = std::move(peer);
                rep.ring_fd = c->ring->fd();
            } else {
                c->ring.reset(); // frames on the socket
            }
        }
    }
    qp->responders.push_back(std::move(r));
    E().conns[fd] = c;
    poller_watch(*c);
    if (E().muted && !c->ring)
        set_events(c.get());
    c->out.append(&rep, sizeof rep);
    flush_locked(c.get());
}

void on_readable_locked(int fd)
{
    Engine &e = E();
    if (auto h = e.handshakes.find(fd); h != e.handshakes.end()) {
        Engine::Pending &pd = h->second;
        const size_t want = pd.challenged ? sizeof(Answer) : sizeof(Hello);
        uint8_t buf[sizeof(Hello)];
        ssize_t k = ::recv(fd, buf, want - pd.in.size(), MSG_DONTWAIT);
        auto drop = [&] {
            epoll_ctl(e.epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
            close(fd);
            e.handshakes.erase(h);
        };
        if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR))
            return drop();
        if (k > 0)
            pd.in.insert(pd.in.end(), buf, buf + k);
        if (pd.in.size() < want)
            return;
        if (!pd.challenged) {
            std::memcpy(&pd.hello, pd.in.data(), sizeof pd.hello);
            pd.in.clear();
            if (pd.hello.magic != kHelloMagic)
                return drop();
            Challenge ch{};
            ch.magic = kHelloMagic;
            Qp *qp = find_qp_locked(pd.hello.dest_qpn);
            ch.status = qp ? 0 : 1;
            if (qp) {
                random_bytes(ch.nonce, sizeof ch.nonce);
                ch.proof =
                    handshake_proof(qp->secret, 'S', pd.hello.nonce, ch.nonce, pd.hello.dest_qpn, pd.hello.src_qpn);
                pd.expect =
                    handshake_proof(qp->secret, 'C', pd.hello.nonce, ch.nonce, pd.hello.dest_qpn, pd.hello.src_qpn);
                pd.own_secret = qp->own_secret;
                pd.challenged = true;
            }
            // A fresh socket has room for these few bytes.
            if (::send(fd, &ch, sizeof ch, MSG_NOSIGNAL | MSG_DONTWAIT) != static_cast<ssize_t>(sizeof ch) || !qp) {
                if (!qp)
                    log(1, "refusing a connection for QP 0x%x: no such QP", pd.hello.dest_qpn);
                return drop();
            }
            return;
        }
        Answer ans;
        std::memcpy(&ans, pd.in.data(), sizeof ans);
        Hello hello = pd.hello;
        const bool own_secret = pd.own_secret;
        bool ok = ans.magic == kHelloMagic && ans.status == 0 && same_proof(ans.proof, pd.expect);
        e.handshakes.erase(h);
        if (!ok) {
            log(1, "refusing a connection from QP 0x%x for QP 0x%x: wrong secret", hello.src_qpn, hello.dest_qpn);
            if (ans.magic == kHelloMagic) {
                char what[160];
                std::snprintf(what, sizeof what, "%s the connection from QP 0x%x at %s to QP 0x%x",
                              ans.status == kAnswerRefused ? "the requester refused" : "refused", hello.src_qpn,
                              peer_text(fd).c_str(), hello.dest_qpn);
                say_secrets_differ(what, own_secret);
            }
            HelloReply rep{};
            rep.magic = kHelloMagic;
            rep.status = 1;
            (void)::send(fd, &rep, sizeof rep, MSG_NOSIGNAL | MSG_DONTWAIT);
            epoll_ctl(e.epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
            close(fd);
            return;
        }
        accept_hello_locked(fd, hello);
        return;
    }
    auto it = e.conns.find(fd);
    if (it == e.conns.end())
        return;
    std::shared_ptr<Conn> c = it->second;
    for (;;) {
        if (c->paused)
            return;
        // Read straight into the frame buffer's spare room.
        c->in.reserve(kReadRoom);
        ssize_t k = ::recv(fd, c->in.tail(), c->in.room(), MSG_DONTWAIT);
        if (k > 0) {
            log(3, "fd %d received %zd", fd, k);
            c->in.commit(static_cast<size_t>(k));
            // Hand complete frames on at once: the responder acks sooner and the buffer stays small.
            handle_frames_locked(c);
            if (c->closed)
                break;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        handle_frames_locked(c);
        conn_failed_locked(c);
        return;
    }
    handle_frames_locked(c);
    if (c->closed)
        conn_failed_locked(c);
}

// A paused connection whose replies drained below half the mark reads again, starting
// with the frames it already holds.
void resume_locked(const std::shared_ptr<Conn> &c)
{
    if (!c->paused || c->closed || c->out.size() > kOutHigh / 2 ||
        (c->responder && c->responder->pending_bytes > kOutHigh / 2))
        return;
    c->paused = false;
    set_events(c.get());
    handle_frames_locked(c);
    if (c->closed)
        conn_failed_locked(c);
}

// Gives back outgoing buffers that stayed empty for kKeepIdle; returns when the next one may be due.
Clock::time_point out_buffer_timers_locked()
{
    Clock::time_point next = Clock::time_point::max(), now = Clock::now();
    for (auto &[fd, c] : E().conns) {
        if (c->out.capacity() <= kKeepBuffer || !c->out.empty())
            continue; // kept, or in use (its flush stamps out_emptied when it goes empty)
        if (now - c->out_emptied >= kKeepIdle)
            c->out.trim(kKeepBuffer);
        else
            next = std::min(next, c->out_emptied + kKeepIdle);
    }
    return next;
}

// Before authentication a peer gets little: a short deadline for its hello and a
// bounded number of handshakes (the oldest is dropped to make room for a new one).
constexpr auto kHandshakeDeadline = std::chrono::seconds(2);
constexpr size_t kMaxHandshakes = 64;

void drop_handshake_locked(std::map<int, Engine::Pending>::iterator it)
{
    epoll_ctl(E().epoll_fd, EPOLL_CTL_DEL, it->first, nullptr);
    close(it->first);
    E().handshakes.erase(it);
}

// Drops expired handshakes; returns the nearest deadline of the others.
Clock::time_point handshake_timers_locked()
{
    Clock::time_point next = Clock::time_point::max(), now = Clock::now();
    auto &hs = E().handshakes;
    for (auto it = hs.begin(); it != hs.end();) {
        auto cur = it++;
        if (cur->second.deadline <= now) {
            log(1, "dropping a connection that sent no valid hello in time");
            drop_handshake_locked(cur);
        } else {
            next = std::min(next, cur->second.deadline);
        }
    }
    return next;
}

void progress_loop()
{
    pthread_setname_np(pthread_self(), "sv-progress"); // for top -H, perf and gdb
    Engine &e = E();
    epoll_event evs[64];
    for (;;) {
        int timeout = -1;
        {
            std::lock_guard lk(G().mu);
            Clock::time_point next = std::min({responder_timers_locked(), handshake_timers_locked(),
                                               out_buffer_timers_locked(), retry_timers_locked()});
            if (e.muted) { // wake when the lease runs out, to read the sockets again
                const int64_t lease = g_tcp_lease.load(std::memory_order_seq_cst);
                if (lease <= steady_ns())
                    set_muted_locked(false);
                else
                    next = std::min(next, Clock::time_point(std::chrono::nanoseconds(lease)));
            }
            if (next != Clock::time_point::max()) {
                auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count();
                timeout = static_cast<int>(std::clamp<long long>(ms + 1, 1, 1000));
            }
        }
        int n = epoll_wait(e.epoll_fd, evs, 64, timeout);
        std::lock_guard lk(G().mu);
        for (int i = 0; i < n; ++i) {
            int fd = evs[i].data.fd;
            if (fd == e.wake_fd) {
                uint64_t v;
                if (read(e.wake_fd, &v, sizeof v) < 0)
                    continue;
                for (auto &[cfd, c] : e.conns)
                    if (!c->out.empty())
                        flush_locked(c.get());
                std::vector<std::shared_ptr<Conn>> paused;
                for (auto &[cfd, c] : e.conns)
                    if (c->paused)
                        paused.push_back(c);
                for (auto &c : paused)
                    resume_locked(c);
            } else if (fd == e.listen_fd) {
                for (;;) {
                    int cfd = accept4(e.listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
                    if (cfd < 0)
                        break;
                    int one = 1;
                    setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    if (e.handshakes.size() >= kMaxHandshakes) {
                        auto oldest = std::min_element(
                            e.handshakes.begin(), e.handshakes.end(),
                            [](const auto &a, const auto &b) { return a.second.deadline < b.second.deadline; });
                        drop_handshake_locked(oldest);
                    }
                    e.handshakes[cfd].deadline = Clock::now() + kHandshakeDeadline;
                    epoll_event ev{};
                    ev.events = EPOLLIN;
                    ev.data.fd = cfd;
                    epoll_ctl(e.epoll_fd, EPOLL_CTL_ADD, cfd, &ev);
                }
            } else {
                if (evs[i].events & EPOLLOUT) {
                    auto it = e.conns.find(fd);
                    if (it != e.conns.end()) {
                        std::shared_ptr<Conn> c = it->second;
                        flush_locked(c.get());
                        resume_locked(c);
                    }
                }
                if (auto it = e.conns.find(fd);
                    it != e.conns.end() && it->second->paused && (evs[i].events & (EPOLLHUP | EPOLLERR))) {
                    std::shared_ptr<Conn> c = it->second; // not reading, and the peer is gone: drop it
                    conn_failed_locked(c);
                    continue;
                }
                if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                    on_readable_locked(fd);
            }
        }
        // Connections closed by QP destruction: forget them.
        for (auto it = e.conns.begin(); it != e.conns.end();) {
            if (it->second->closed && it->second->out.empty()) {
                unwatch(it->first);
                it = e.conns.erase(it);
            } else {
                ++it;
            }
        }
    }
}

// Opens the listener, the epoll sets and the wake-up eventfd and starts the progress
// thread. On failure (no file descriptors, no threads) it undoes what it did, says why
// once, sets errno and returns false: the device cannot be opened, the program gets
// an error instead of an abort. Called again by the next ibv_open_device.
bool start()
{
    Engine &e = E();
    sockaddr_in a{};
    const char *what = nullptr;
    auto fail = [&](const char *step) {
        const int err = errno ? errno : EAGAIN;
        what = step;
        for (int *fd : {&e.listen_fd, &e.epoll_fd, &e.wake_fd, &e.poller_fd})
            if (*fd >= 0) {
                close(*fd);
                *fd = -1;
            }
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
        std::fprintf(stderr, "softverbs: cannot open the device: %s (listening on %s): %s\n", what, ip,
                     std::strerror(err));
        errno = err;
        return false;
    };
    // UD datagrams use a UDP socket on the same port (the GID names one port): a port
    // whose UDP twin is taken is given back, a few times; then UD QPs are unavailable.
    for (int attempt = 0;; ++attempt) {
        e.listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        a = sockaddr_in{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = listen_ip();
        if (e.listen_fd < 0)
            return fail("socket");
        if (bind_listener(e.listen_fd, &a) != 0 || listen(e.listen_fd, 128) != 0)
            return fail("bind/listen");
        socklen_t len = sizeof a;
        getsockname(e.listen_fd, reinterpret_cast<sockaddr *>(&a), &len);
        if (ud_reserve_port(a.sin_addr.s_addr, ntohs(a.sin_port)) || attempt == 15)
            break;
        close(e.listen_fd);
    }
    e.id.ip = a.sin_addr.s_addr;
    e.id.port = ntohs(a.sin_port);
    std::random_device rd;
    e.id.salt = static_cast<uint16_t>(rd() | 1);
    e.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    e.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    e.poller_fd = epoll_create1(EPOLL_CLOEXEC);
    if (e.epoll_fd < 0 || e.wake_fd < 0 || e.poller_fd < 0)
        return fail("epoll_create1/eventfd");
    for (int fd : {e.listen_fd, e.wake_fd}) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = fd;
        epoll_ctl(e.epoll_fd, EPOLL_CTL_ADD, fd, &ev);
    }
    local_mr_table();
    // Under Yama ptrace_scope=1, let same-host peers use process_vm_* and /proc/<pid>/fd on us.
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    try {
        std::thread(run_thread, "progress", progress_loop).detach();
    } catch (const std::system_error &ex) {
        errno = ex.code().value();
        return fail("starting the progress thread");
    } catch (const std::bad_alloc &) {
        errno = ENOMEM;
        return fail("starting the progress thread");
    }
    log(1, "listening on port %u, salt 0x%04x, seed %llu", e.id.port, e.id.salt,
        static_cast<unsigned long long>(config().seed));
    return true;
}

std::shared_ptr<PeerProc> same_host_peer_locked(const uint8_t boot_id[40], uint64_t peer_netns, uint32_t peer_pid,
                                                int32_t table_fd, uint64_t cookie)
{
    if (config().transport == Transport::Tcp)
        return nullptr;
    uint8_t boot[40];
    uint64_t netns;
    host_facts(boot, &netns);
    if (std::memcmp(boot, boot_id, 40) != 0 || netns != peer_netns || peer_netns == 0 || table_fd < 0)
        return nullptr;
    auto &peers = G().peers;
    int pid = static_cast<int>(peer_pid);
    if (auto it = peers.find(pid); it != peers.end()) {
        if (it->second->table->cookie == cookie)
            return it->second;
        peers.erase(it); // the pid was reused by another process
    }
    // Read-write: the in-flight counts fence deregistration.
    void *m = map_peer_fd(pid, static_cast<int>(table_fd), sizeof(MrTable), "MR table");
    if (!m)
        return nullptr;
    auto p = std::make_shared<PeerProc>();
    p->pid = pid;
    p->table = static_cast<const MrTable *>(m);
    p->allow_map = config().transport != Transport::Cma;
    if (p->table->magic != kMrMagic || p->table->pid != peer_pid || p->table->cookie != cookie)
        return nullptr;
    peers[pid] = p;
    return p;
}

std::atomic<bool> g_rings{false};   // some connection has a ring: poll_cq looks at the doorbell
std::atomic<uint32_t> g_seen{0};    // our doorbell as of the last complete pass over the rings
std::atomic<bool> g_backlog{false}; // a ring was left with work (full, or its responder paused)

// Consumes what the peer put into c's ring; -1 when the ring is malformed (the caller
// closes the connection). Overflow of ours moves on first.
int ring_drain_locked(const std::shared_ptr<Conn> &c)
{
    ShmRing &r = *c->ring;
    if (r.has_overflow() && r.flush() && c->peer)
        doorbell_ring(c->peer->table);
    bool wake = false;
    bool was_used = r.used();
    int n = r.drain(
        [&](const Frame &f, const uint8_t *payload) {
            if (!frame_ok(c->outbound, f)) {
                log(1, "ring of fd %d: malformed frame (op %u, len %u, payload %u): closing the connection", c->fd,
                    f.op, f.len, f.plen);
                return RingVerdict::kBad;
            }
            if (c->outbound) {
                if (!requester_reply_locked(c->qp, f, payload)) {
                    log(1, "ring of fd %d: a reply (op %u, seq %llu) does not match its request: closing", c->fd, f.op,
                        static_cast<unsigned long long>(f.seq));
                    return RingVerdict::kBad;
                }
            } else if (c->responder) {
                responder_deliver_locked(c->responder, f, payload, f.plen);
            }
            return RingVerdict::kGo;
        },
        [&] { return !c->closed && (c->outbound || !c->responder || c->responder->pending_bytes <= kOutHigh); }, &wake);
    if (!was_used && r.used())
        r.close_fd(); // the requester has mapped it: nobody else may open it through /proc any more
    if (wake && c->peer)
        doorbell_ring(c->peer->table);
    if (n < 0)
        log(1, "ring of fd %d: malformed: closing the connection", c->fd);
    return n;
}

void shm_waiter()
{
    pthread_setname_np(pthread_self(), "sv-shm-waiter");
    MrTable *t = local_mr_table();
    for (;;) {
        uint32_t seen = t->doorbell.load(std::memory_order_seq_cst);
        if (!poll_lease_held(t)) { // else the poller consumes the rings
            std::lock_guard lk(G().mu);
            shm_progress_locked();
        }
        // A ring left with work is looked at again soon; otherwise a peer's doorbell wakes us
        // (the timeout only bounds the harm of a peer that produced without ringing).
        doorbell_wait(t, seen, g_backlog.load() ? 1 : 200);
    }
}

// Starts the ring waiter thread once; false when no thread can be made (the connection
// then carries its frames on the socket, without a ring).
bool shm_start()
{
    Engine &e = E();
    if (!e.shm_started.load(std::memory_order_acquire)) {
        std::lock_guard lk(e.shm_start_mu);
        if (!e.shm_started.load(std::memory_order_relaxed)) {
            try {
                std::thread(run_thread, "ring", shm_waiter).detach();
            } catch (const std::exception &ex) { // std::system_error, or std::bad_alloc for its state
                log(1, "no shared-memory ring: cannot start its thread: %s", ex.what());
                return false;
            }
            e.shm_started.store(true, std::memory_order_release);
        }
    }
    g_rings.store(true);
    return true;
}

} // namespace

Conn::~Conn()
{
    if (fd >= 0)
        close(fd);
}

const Identity &identity()
{
    transport_start();
    return E().id;
}

bool shm_work_hint()
{
    return g_rings.load(std::memory_order_relaxed) &&
           (g_backlog.load(std::memory_order_relaxed) ||
            local_mr_table()->doorbell.load(std::memory_order_acquire) != g_seen.load(std::memory_order_relaxed));
}

namespace {
// The thread that renewed the leases last. Only it gives them up when it stops polling: a
// thread that sleeps on a completion channel (the reference's progress thread takes every
// event with ibv_get_cq_event) must not take the lease from a thread that still spins, whose
// peers would then wake our shm waiter at every frame until its next renewal.
thread_local char t_lease_tag;
std::atomic<const char *> g_lease_holder{nullptr};
} // namespace

void poller_lease_renew()
{
    if (g_lease_holder.load(std::memory_order_relaxed) != &t_lease_tag)
        g_lease_holder.store(&t_lease_tag, std::memory_order_relaxed);
    if (g_rings.load(std::memory_order_relaxed))
        poll_lease_renew(local_mr_table());
    if (!g_tcp.load(std::memory_order_relaxed))
        return;
    const int64_t now = steady_ns(), lease = g_tcp_lease.load(std::memory_order_relaxed);
    if (lease >= now + int64_t{kPollLeaseNs} / 2)
        return;
    g_tcp_lease.store(now + int64_t{kPollLeaseNs}, std::memory_order_seq_cst);
    std::lock_guard lk(G().mu);
    if (!E().muted) {
        set_muted_locked(true);
        transport_kick(); // the progress thread may sleep without a deadline: it needs the lease's
    }
}

void poller_lease_drop_locked()
{
    if (g_lease_holder.load(std::memory_order_relaxed) != &t_lease_tag)
        return; // another thread polls (or nobody has since the last drop)
    g_lease_holder.store(nullptr, std::memory_order_relaxed);
    if (g_rings.load(std::memory_order_relaxed))
        poll_lease_drop(local_mr_table());
    if (!g_tcp.load(std::memory_order_relaxed) || g_tcp_lease.load(std::memory_order_relaxed) == 0)
        return;
    g_tcp_lease.store(0, std::memory_order_seq_cst);
    set_muted_locked(false);
}

void shm_progress_locked()
{
    g_seen.store(local_mr_table()->doorbell.load(std::memory_order_seq_cst), std::memory_order_relaxed);
    // Taken out of E() for the walk: draining may fail a connection, which erases it from
    // conns, and a nested call (none today) would find the list empty and build its own.
    std::vector<std::shared_ptr<Conn>> rings = std::move(E().rings);
    rings.clear();
    for (auto &[fd, c] : E().conns)
        if (c->ring && !c->closed)
            rings.push_back(c);
    bool backlog = false;
    for (auto &c : rings) {
        if (c->closed)
            continue;
        if (ring_drain_locked(c) < 0)
            c->closed = true;
        if (c->closed) {
            conn_failed_locked(c);
            continue;
        }
        backlog |= c->ring->has_overflow() || c->ring->has_input();
    }
    g_backlog.store(backlog, std::memory_order_relaxed);
    rings.clear(); // no connection outlives its erasure in this list
    E().rings = std::move(rings);
}

void transport_kick()
{
    uint64_t one = 1;
    if (write(E().wake_fd, &one, sizeof one) < 0)
        log(2, "progress wake-up failed: %s", std::strerror(errno));
}

bool transport_start()
{
    Engine &e = E();
    if (e.started.load(std::memory_order_acquire))
        return true;
    std::lock_guard lk(e.start_mu);
    if (!e.started.load(std::memory_order_relaxed) && start())
        e.started.store(true, std::memory_order_release);
    return e.started.load(std::memory_order_relaxed);
}

void transport_after_fork_in_child()
{
    // Close only this process's copies: the parent's listener, epoll sets, connections and
    // handshakes stay open there. Nothing is written, shut down or removed from an epoll set
    // (the sets are shared with the parent).
    Engine *parent = g_engine.load();
    for (int *fd : {&parent->listen_fd, &parent->epoll_fd, &parent->wake_fd, &parent->poller_fd})
        if (*fd >= 0)
            close(std::exchange(*fd, -1));
    for (auto &[fd, c] : parent->conns) {
        if (c->fd >= 0)
            close(std::exchange(c->fd, -1));
        if (c->ring)
            c->ring->close_fd();
    }
    for (auto &[fd, h] : parent->handshakes)
        close(fd);
    parent->handshakes.clear();
    auto *own = new Engine;
    own->inherited = parent;
    g_engine.store(own);
    g_tcp.store(false);
    g_tcp_lease.store(0);
    g_rings.store(false);
    g_seen.store(0);
    g_backlog.store(false);
    g_lease_holder.store(nullptr);
}

void conn_send_locked(const std::shared_ptr<Conn> &c, const Frame &f0, const void *payload, size_t len)
{
    if (c->ring && (c->outbound || c->ring->used())) {
        c->ring->send(f0, payload, len);
        if (c->peer)
            doorbell_ring(c->peer->table);
        return;
    }
    Frame f = f0;
    if (len != 0 && hcts::mutant("sv_tcp_plen_16bit")) {
        // Mutant: the payload length is framed in 16 bits: a frame of 64 KiB or more
        // carries (and claims) only the low 16 bits' worth of its bytes.
        len = static_cast<uint16_t>(len);
        if (f.len > len)
            f.len = static_cast<uint32_t>(len);
    }
    f.plen = static_cast<uint32_t>(len);
    bool idle = c->out.empty();
    c->out.append(&f, sizeof f);
    if (len) {
        dma_copy(c->out.reserve(len), payload, len); // may read application memory
        c->out.commit(len);
    }
    if (idle)
        flush_locked(c.get());
}

void qp_connect(Qp *qp, uint32_t ip, uint16_t port, uint32_t dest_qpn)
{
    const Identity &me = identity();
    uint8_t rnr_retry;
    uint32_t src_qpn;
    {
        std::lock_guard lk(G().mu);
        rnr_retry = qp->attr.rnr_retry;
        src_qpn = qp->qpx.qp_base.qp_num;
        bool self = ip == me.ip && port == me.port && (qp->dest_salt == 0 || qp->dest_salt == me.salt);
        if (self && config().transport != Transport::Tcp) {
            Qp *peer = find_qp_locked(dest_qpn);
            if (!peer) {
                log(1, "QP 0x%x: destination QP 0x%x does not exist in this process", src_qpn, dest_qpn);
                return; // sends will complete with RETRY_EXC_ERR
            }
            auto r = std::make_unique<Responder>();
            r->qp = peer;
            r->local_requester = qp;
            r->src_qpn = src_qpn;
            r->src_ip = me.ip;
            r->src_port = me.port;
            r->src_salt = me.salt;
            r->rnr_retry = rnr_retry;
            qp->local_peer = peer;
            qp->local_resp = r.get();
            peer->responders.push_back(std::move(r));
            return;
        }
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = ip;
    a.sin_port = htons(port);
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    Hello h{};
    h.magic = kHelloMagic;
    h.dest_qpn = dest_qpn;
    h.src_qpn = src_qpn;
    h.rnr_retry = rnr_retry;
    std::string secret;
    bool own_secret;
    {
        std::lock_guard lk(G().mu);
        secret = qp->secret;
        own_secret = qp->own_secret;
    }
    random_bytes(h.nonce, sizeof h.nonce);
    h.src_ip = me.ip;
    h.src_port = me.port;
    h.src_salt = me.salt;
    host_facts(h.boot_id, &h.netns);
    h.pid = static_cast<uint32_t>(getpid());
    h.table_fd = local_mr_table_fd();
    h.cookie = local_mr_table()->cookie;
    HelloReply rep{};
    char ipstr[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &a.sin_addr, ipstr, sizeof ipstr);
    Challenge ch{};
    Answer ans{};
    ans.magic = kHelloMagic;
    auto server_proved = [&] {
        if (ch.magic != kHelloMagic || ch.status != 0)
            return false;
        if (!same_proof(ch.proof, handshake_proof(secret, 'S', h.nonce, ch.nonce, dest_qpn, src_qpn))) {
            log(1, "QP 0x%x: the peer at port %u does not know the secret of QP 0x%x: not connecting", src_qpn, port,
                dest_qpn);
            // Tell the responder why (no proof: nothing it could reuse), so it says so too.
            Answer no{};
            no.magic = kHelloMagic;
            no.status = kAnswerRefused;
            (void)write_all(fd, &no, sizeof no);
            char what[160];
            std::snprintf(what, sizeof what, "QP 0x%x refused to connect to QP 0x%x at %s:%u", src_qpn, dest_qpn, ipstr,
                          port);
            say_secrets_differ(what, own_secret);
            return false;
        }
        ans.proof = handshake_proof(secret, 'C', h.nonce, ch.nonce, dest_qpn, src_qpn);
        return true;
    };
    if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || !write_all(fd, &h, sizeof h) ||
        !read_all(fd, &ch, sizeof ch) || !server_proved() || !write_all(fd, &ans, sizeof ans) ||
        !read_all(fd, &rep, sizeof rep) || rep.magic != kHelloMagic || rep.status != 0) {
        log(0 + 1, "QP 0x%x: cannot connect to %s:%u QP 0x%x (%s, status %u)", src_qpn, ipstr, port, dest_qpn,
            std::strerror(errno), rep.status);
        close(fd);
        return; // sends will complete with RETRY_EXC_ERR
    }
    set_nonblock(fd);
    auto c = std::make_shared<Conn>();
    c->fd = fd;
    c->outbound = true;
    c->qp = qp;
    std::lock_guard lk(G().mu);
    if (qp->dead)
        return;
    qp->conn = c;
    qp->peer = same_host_peer_locked(rep.boot_id, rep.netns, rep.pid, rep.table_fd, rep.cookie);
    if (qp->peer && rep.ring_fd >= 0 && (c->ring = ShmRing::open_peer(static_cast<int>(rep.pid), rep.ring_fd, true))) {
        if (shm_start())
            c->peer = qp->peer;
        else
            c->ring.reset(); // frames on the socket: the responder answers there too
    }
    qp->peer_slot = rep.qp_slot < kMaxQpSlots ? rep.qp_slot : 0;
    log(2, "QP 0x%x -> %s:%u QP 0x%x connected (%s%s)", src_qpn, ipstr, port, dest_qpn,
        qp->peer ? (qp->peer->allow_map ? "same host: map/CMA" : "same host: CMA") : "TCP",
        c->ring ? ", shm ring" : "");
    E().conns[fd] = c;
    epoll_event ev{};
    ev.events = in_events(*c);
    ev.data.fd = fd;
    epoll_ctl(E().epoll_fd, EPOLL_CTL_ADD, fd, &ev);
    poller_watch(*c);
}

namespace {

template <typename Lock>
void tcp_progress_with(Lock lock)
{
    if (!g_tcp.load(std::memory_order_relaxed))
        return;
    epoll_event evs[16];
    int n = epoll_wait(E().poller_fd, evs, 16, 0);
    if (n <= 0)
        return;
    [[maybe_unused]] auto held = lock();
    for (int i = 0; i < n; ++i)
        on_readable_locked(evs[i].data.fd); // an fd closed (or reused) meanwhile is read as what it is now
}

} // namespace

void tcp_progress()
{
    tcp_progress_with([] { return std::lock_guard(G().mu); });
}

void tcp_progress_locked()
{
    tcp_progress_with([] { return 0; });
}

} // namespace sv
