// UD queue pairs: their state machine, posting datagrams, and receiving them.
// Transport: one UDP socket per process, bound to the TCP listener's address and
// port (so the GID names it too); within one process datagrams are handed over
// directly (SOFTVERBS_TRANSPORT=tcp: through the socket as well). A receiver
// thread reads the socket. Every datagram is hostile until ud_parse and the
// address checks below pass; UD has no authentication beyond the Q_Key.
#include "ud.h"
#include "dma.h"
#include "ud_wire.h"

#include <hcts/mutant.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <thread>
#include <utility>

namespace sv {

// requester.cpp: a WQE's message out of its inline copy or local SGEs; 0 or an ibv_wc_status.
int gather(const Wqe &w, uint64_t off, uint64_t len, uint8_t *dst);
// requester.cpp: bytes into local SGEs (LOCAL_WRITE checked); 0 or an ibv_wc_status.
int scatter(const std::vector<ibv_sge> &sges, const uint8_t *src, uint64_t len);

namespace {

constexpr unsigned kKnownSendFlags = IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE;
constexpr size_t kGrh = sizeof(ibv_grh);
static_assert(kGrh == 40);

// A datagram the adversary holds back (network delay; later ones may overtake it).
struct Delayed {
    std::vector<uint8_t> bytes;
    uint32_t ip = 0;
    uint16_t port = 0;
};

struct Net {
    int fd = -1;   // the UDP socket (set once, before any UD QP exists)
    int wake = -1; // eventfd: the receiver re-computes its timeout
    bool started = false;
    // Under G().mu:
    std::multimap<Clock::time_point, Delayed> delayed;
    uint64_t refused = 0;     // malformed, misaddressed, spoofed or for no UD QP in RTR/RTS
    Net *inherited = nullptr; // in a forked child: the parent's, disowned
};
// Never destroyed: the receiver thread outlives static destructors. A forked child gets its own.
std::atomic<Net *> g_net{new Net};
Net &N() { return *g_net.load(std::memory_order_relaxed); }

void set_state_locked(Qp *qp, ibv_qp_state s)
{
    qp->qpx.qp_base.state = s;
    qp->attr.qp_state = s;
    qp->attr.cur_qp_state = s;
}

ibv_gid gid_of(uint32_t ip, uint16_t port, uint16_t salt)
{
    ibv_gid g{};
    g.raw[0] = 0xfe;
    g.raw[1] = 0x80;
    std::memcpy(g.raw + 8, &ip, 4);
    g.raw[12] = static_cast<uint8_t>(port >> 8);
    g.raw[13] = static_cast<uint8_t>(port);
    g.raw[14] = static_cast<uint8_t>(salt >> 8);
    g.raw[15] = static_cast<uint8_t>(salt);
    return g;
}

// ---- receiving ----

void deliver_locked(const uint8_t *p, size_t n, uint32_t from_ip, uint16_t from_port)
{
    UdHeader h;
    if (!ud_parse(p, n, &h)) {
        ++N().refused;
        log(1, "UD: malformed datagram of %zu bytes from port %u refused", n, from_port);
        return;
    }
    // The source GID must be the socket the datagram came from (no spoofed reply address),
    // and the destination GID ours (a stale GID of an earlier process on this port is not).
    const Identity &me = identity();
    uint32_t sip = 0, dip = 0;
    uint16_t sport = 0, ssalt = 0, dport = 0, dsalt = 0;
    ibv_gid sg, dg;
    std::memcpy(sg.raw, h.sgid, 16);
    std::memcpy(dg.raw, h.dgid, 16);
    if (!decode_gid(sg, &sip, &sport, &ssalt) || sip != from_ip || sport != from_port ||
        !decode_gid(dg, &dip, &dport, &dsalt) || dip != me.ip || dport != me.port || (dsalt != 0 && dsalt != me.salt)) {
        ++N().refused;
        log(1, "UD: datagram from port %u with a source GID not its own or a destination GID not ours refused",
            from_port);
        return;
    }
    Qp *qp = find_qp_locked(h.dst_qpn);
    ibv_qp_state st = qp ? qp->qpx.qp_base.state : IBV_QPS_RESET;
    if (!qp || qp->qpx.qp_base.qp_type != IBV_QPT_UD || (st != IBV_QPS_RTR && st != IBV_QPS_RTS)) {
        ++N().refused;
        log(2, "UD: datagram for QP 0x%x, which is no UD QP ready to receive, dropped", h.dst_qpn);
        return;
    }
    if (h.qkey != qp->attr.qkey && !hcts::mutant("sv_ud_qkey_ignored")) { // Mutant: any Q_Key is accepted.
        ++qp->ud_drop_qkey;
        log(2, "UD: QP 0x%x dropped a datagram with Q_Key 0x%x (its own: 0x%x)", h.dst_qpn, h.qkey, qp->attr.qkey);
        return;
    }
    // The QP's RECV or its SRQ's, even one the adversary still hides: its late RECVs model
    // RC's receiver-not-ready, and here they would make UD's drops depend on timing
    // instead of only on the seed (the adversary drops datagrams itself).
    Clock::time_point later;
    if (!next_recv_locked(qp, Clock::time_point::max(), &later)) {
        ++qp->ud_drop_norecv;
        log(2, "UD: QP 0x%x dropped a datagram: no RECV posted", h.dst_qpn);
        return;
    }
    RecvWqe rw = consume_recv_locked(qp);
    // The receive buffer gets the 40-byte GRH first (IPv6 form: our GIDs are not IPv4-mapped).
    std::vector<uint8_t> msg(kGrh + h.len);
    ibv_grh g{};
    bool imm = h.flags & kUdImm;
    g.version_tclass_flow = htobe32(6u << 28 | uint32_t{h.tclass} << 20 | h.flow_label);
    g.paylen = htobe16(static_cast<uint16_t>(12 + 8 + (imm ? 4 : 0) + h.len + 4)); // BTH, DETH, [imm], data, ICRC
    g.next_hdr = 0x1b;
    g.hop_limit = h.hop_limit;
    g.sgid = sg;
    g.dgid = dg;
    std::memcpy(msg.data(), &g, kGrh);
    if (hcts::mutant("sv_ud_grh_swapped")) {
        std::swap(g.sgid, g.dgid); // Mutant: the GRH names the receiver as the source.
        std::memcpy(msg.data(), &g, kGrh);
    }
    std::memcpy(msg.data() + kGrh, p + sizeof h, h.len);
    Cqe e;
    e.qp = qp;
    e.wc.wr_id = rw.wr_id;
    e.wc.opcode = IBV_WC_RECV;
    e.wc.qp_num = qp->qpx.qp_base.qp_num;
    e.wc.src_qp = h.src_qpn;
    e.wc.slid = from_port; // the sender's LID is its listener port
    e.wc.pkey_index = 0;
    e.wc.byte_len = static_cast<uint32_t>(msg.size());
    e.wc.wc_flags = IBV_WC_GRH | (imm ? IBV_WC_WITH_IMM : 0);
    if (imm)
        e.wc.imm_data = h.imm;
    e.wc.status = static_cast<ibv_wc_status>(scatter(rw.sge, msg.data(), msg.size()));
    cq_push_locked(qp->rcq, e);
    if (e.wc.status != IBV_WC_SUCCESS) {
        // A RECV too small for GRH + message, or a bad lkey: the QP's error, as on any QP.
        log(1, "UD: QP 0x%x RECV wr_id %llu failed with %s; QP to ERR", h.dst_qpn,
            static_cast<unsigned long long>(rw.wr_id), ibv_wc_status_str(e.wc.status));
        qp_to_error_locked(qp, IBV_EVENT_QP_FATAL);
    }
}

void send_now_locked(const std::vector<uint8_t> &d, uint32_t ip, uint16_t port)
{
    const Identity &me = identity();
    if (ip == me.ip && port == me.port && config().transport != Transport::Tcp) {
        deliver_locked(d.data(), d.size(), me.ip, me.port);
        return;
    }
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_addr.s_addr = ip;
    to.sin_port = htons(port);
    // Never blocks: a full socket buffer loses the datagram, as a congested network may.
    if (sendto(N().fd, d.data(), d.size(), MSG_DONTWAIT, reinterpret_cast<sockaddr *>(&to), sizeof to) < 0)
        log(2, "UD: datagram to port %u lost: %s", port, std::strerror(errno));
}

void receiver_loop()
{
    pthread_setname_np(pthread_self(), "sv-ud-receiver");
    Net &n = N();
    std::vector<uint8_t> buf(sizeof(UdHeader) + kUdMtu + 1);
    for (;;) {
        timespec ts{}, *tp = nullptr;
        {
            std::lock_guard lk(G().mu);
            auto now = Clock::now();
            while (!n.delayed.empty() && n.delayed.begin()->first <= now) {
                Delayed d = std::move(n.delayed.begin()->second);
                n.delayed.erase(n.delayed.begin());
                send_now_locked(d.bytes, d.ip, d.port);
            }
            if (!n.delayed.empty()) {
                auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(n.delayed.begin()->first - now).count();
                ts.tv_sec = ns / 1000000000;
                ts.tv_nsec = ns % 1000000000;
                tp = &ts;
            }
        }
        pollfd p[2] = {{n.fd, POLLIN, 0}, {n.wake, POLLIN, 0}};
        if (ppoll(p, 2, tp, nullptr) < 0 && errno != EINTR)
            continue;
        if (p[1].revents & POLLIN) {
            uint64_t v;
            if (read(n.wake, &v, sizeof v) < 0)
                log(2, "UD: wake-up read failed");
        }
        for (int i = 0; i < 256; ++i) {
            sockaddr_in from{};
            socklen_t fl = sizeof from;
            ssize_t got = recvfrom(n.fd, buf.data(), buf.size(), MSG_DONTWAIT | MSG_TRUNC,
                                   reinterpret_cast<sockaddr *>(&from), &fl);
            if (got < 0)
                break;
            std::lock_guard lk(G().mu);
            if (static_cast<size_t>(got) > buf.size() || fl != sizeof from || from.sin_family != AF_INET) {
                ++n.refused; // longer than any valid datagram (MSG_TRUNC gives the real length)
                log(1, "UD: datagram of %zd bytes refused (at most %zu)", got, buf.size() - 1);
                continue;
            }
            deliver_locked(buf.data(), static_cast<size_t>(got), from.sin_addr.s_addr, ntohs(from.sin_port));
        }
    }
}

// Hands one datagram to the network. The adversary drops some and delays the others
// by independent random times, so later ones overtake earlier ones (IBTA allows both).
// Its choice for the k-th WQE posted on a QP depends on the seed and k alone, so
// every QP created under one seed drops the same datagrams of its sequence.
void transmit_locked(Qp *qp, std::vector<uint8_t> d, uint32_t ip, uint16_t port)
{
    uint64_t seed = qp->ud_seed;
    if (!seed)
        return send_now_locked(d, ip, port);
    uint64_t x = seed ^ (static_cast<uint64_t>(qp->posted) * 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL; // splitmix64's finaliser
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    if (x % 16 == 0) {
        log(2, "UD: adversary dropped datagram %ld of QP 0x%x", qp->posted, qp->qpx.qp_base.qp_num);
        return;
    }
    auto due = Clock::now() + std::chrono::microseconds((x >> 8) % 2000);
    N().delayed.emplace(due, Delayed{std::move(d), ip, port});
    uint64_t one = 1;
    if (write(N().wake, &one, sizeof one) < 0)
        log(1, "UD: wake-up write failed");
}

int validate_wr(const Qp *qp, const ibv_send_wr *wr)
{
    if (wr->opcode != IBV_WR_SEND && wr->opcode != IBV_WR_SEND_WITH_IMM) {
        log(1, "UD post_send: opcode %d; a UD QP sends SEND and SEND_WITH_IMM only", wr->opcode);
        return EINVAL;
    }
    if (wr->num_sge < 0 || static_cast<uint32_t>(wr->num_sge) > qp->cap.max_send_sge || (wr->num_sge && !wr->sg_list))
        return EINVAL;
    if (wr->send_flags & ~kKnownSendFlags)
        return EINVAL;
    if (!wr->wr.ud.ah || wr->wr.ud.remote_qpn > 0xffffff) {
        log(1, "UD post_send: ah %p, remote_qpn 0x%x; an AH and a 24-bit QPN are required",
            static_cast<void *>(wr->wr.ud.ah), wr->wr.ud.remote_qpn);
        return EINVAL;
    }
    if (wr->send_flags & IBV_SEND_INLINE) {
        uint64_t total = 0;
        for (int i = 0; i < wr->num_sge; ++i)
            total += wr->sg_list[i].length;
        if (total > qp->cap.max_inline_data)
            return EINVAL;
    }
    return 0;
}

// Runs one posted WQE to its end (a datagram leaves at once); its status.
ibv_wc_status send_one_locked(Qp *qp, Wqe &w, const ibv_send_wr *wr, uint64_t total)
{
    if (w.inject_fail)
        return IBV_WC_LOC_QP_OP_ERR;
    if (total > kUdMtu) {
        log(1, "UD post_send: message of %llu bytes exceeds the active MTU (%u)",
            static_cast<unsigned long long>(total), kUdMtu);
        return IBV_WC_LOC_LEN_ERR;
    }
    Ah *ah = to_ah(wr->wr.ud.ah);
    UdHeader h{};
    h.magic = kUdMagic;
    h.version = kUdVersion;
    h.flags = static_cast<uint8_t>((w.op == IBV_WR_SEND_WITH_IMM ? kUdImm : 0) |
                                   (w.flags & IBV_SEND_SOLICITED ? kUdSolicited : 0));
    h.hop_limit = ah->attr.is_global ? ah->attr.grh.hop_limit : 0xff;
    h.tclass = ah->attr.is_global ? ah->attr.grh.traffic_class : 0;
    h.flow_label = ah->attr.is_global ? ah->attr.grh.flow_label & 0xfffff : 0;
    h.src_qpn = qp->qpx.qp_base.qp_num;
    h.dst_qpn = wr->wr.ud.remote_qpn;
    // IBTA: a Q_Key with the high-order bit set means the QP's own Q_Key.
    h.qkey = (wr->wr.ud.remote_qkey & 0x80000000u) ? qp->attr.qkey : wr->wr.ud.remote_qkey;
    h.imm = w.op == IBV_WR_SEND_WITH_IMM ? w.imm : 0;
    h.len = static_cast<uint32_t>(total);
    ibv_gid sg, dg = gid_of(ah->ip, ah->port, ah->salt);
    make_gid(&sg);
    std::memcpy(h.sgid, sg.raw, 16);
    std::memcpy(h.dgid, dg.raw, 16);
    std::vector<uint8_t> d(sizeof h + total);
    std::memcpy(d.data(), &h, sizeof h);
    if (int st = gather(w, 0, total, d.data() + sizeof h))
        return static_cast<ibv_wc_status>(st);
    if (!ah->routable) {
        log(2, "UD: datagram of QP 0x%x to a GID that is not softverbs' lost", h.src_qpn);
        return IBV_WC_SUCCESS; // it left; nobody receives it
    }
    transmit_locked(qp, std::move(d), ah->ip, ah->port);
    return IBV_WC_SUCCESS;
}

// IBTA attribute masks of UD transitions (RESET/ERR targets take only STATE/CUR_STATE).
struct Transition {
    ibv_qp_state from, to;
    int required, optional;
};
constexpr int kInit = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;
constexpr Transition kTable[] = {
    {IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_STATE | kInit, 0},
    {IBV_QPS_INIT, IBV_QPS_INIT, IBV_QP_STATE, kInit},
    {IBV_QPS_INIT, IBV_QPS_RTR, IBV_QP_STATE, IBV_QP_PKEY_INDEX | IBV_QP_QKEY},
    {IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_STATE | IBV_QP_SQ_PSN, IBV_QP_CUR_STATE | IBV_QP_QKEY},
    {IBV_QPS_RTS, IBV_QPS_RTS, IBV_QP_STATE, IBV_QP_CUR_STATE | IBV_QP_QKEY},
};

int check_transition(ibv_qp_state from, ibv_qp_state to, int mask)
{
    if (to == IBV_QPS_RESET || to == IBV_QPS_ERR)
        return (mask & ~(IBV_QP_STATE | IBV_QP_CUR_STATE)) ? EINVAL : 0;
    for (const Transition &t : kTable)
        if (t.from == from && t.to == to) {
            if ((mask & t.required) != t.required || (mask & ~(t.required | t.optional))) {
                log(1, "UD modify_qp %d->%d: mask 0x%x; required 0x%x, optional 0x%x", from, to, mask, t.required,
                    t.optional);
                return EINVAL;
            }
            return 0;
        }
    log(1, "UD modify_qp: transition %d->%d is not allowed", from, to);
    return EINVAL;
}

} // namespace

bool ud_reserve_port(uint32_t ip, uint16_t port)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = ip;
    a.sin_port = htons(port);
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    // Room for bursts (ud_bw): a full receive buffer drops datagrams. Root may exceed rmem_max.
    int sz = 8 << 20;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof sz) != 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
    if (N().fd >= 0)
        close(N().fd);
    N().fd = fd;
    return true;
}

void ud_after_fork_in_child()
{
    Net *parent = g_net.load();
    for (int *fd : {&parent->fd, &parent->wake}) // the child's copies only; nothing is sent
        if (*fd >= 0)
            close(std::exchange(*fd, -1));
    auto *own = new Net;
    own->inherited = parent;
    g_net.store(own);
}

bool ud_start()
{
    Net &n = N();
    if (n.fd < 0) {
        errno = EADDRINUSE;
        return false;
    }
    if (!n.started) { // under G().mu
        if (n.wake < 0)
            n.wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (n.wake < 0) {
            log(0, "UD unavailable: eventfd: %s", std::strerror(errno));
            return false;
        }
        try {
            std::thread(run_thread, "ud", receiver_loop).detach();
        } catch (const std::exception &ex) { // std::system_error, or std::bad_alloc for its state
            std::fprintf(stderr, "softverbs: UD unavailable: cannot start its receiver thread: %s\n", ex.what());
            errno = EAGAIN;
            return false;
        }
        n.started = true;
    }
    return true;
}

int ud_modify_qp_locked(Qp *qp, ibv_qp_attr *attr, int mask)
{
    ibv_qp_state cur = qp->qpx.qp_base.state;
    if (!(mask & IBV_QP_STATE) || ((mask & IBV_QP_CUR_STATE) && attr->cur_qp_state != cur))
        return EINVAL;
    ibv_qp_state to = attr->qp_state;
    if (int rc = check_transition(cur, to, mask))
        return rc;
    if ((mask & IBV_QP_PORT) && attr->port_num != 1)
        return EINVAL;
    if ((mask & IBV_QP_PKEY_INDEX) && attr->pkey_index != 0)
        return EINVAL;
    ibv_qp_attr &s = qp->attr;
    if (mask & IBV_QP_QKEY)
        s.qkey = attr->qkey;
    if (mask & IBV_QP_PKEY_INDEX)
        s.pkey_index = attr->pkey_index;
    if (mask & IBV_QP_PORT)
        s.port_num = attr->port_num;
    if (mask & IBV_QP_SQ_PSN)
        s.sq_psn = attr->sq_psn & 0xffffff;
    if (to == IBV_QPS_RESET) {
        qp->sq.clear();
        qp->rq.clear();
        qp->sq_failed = false;
        qp->sq_used = 0;
        qp->unsignaled_run = 0;
    }
    set_state_locked(qp, to);
    if (to == IBV_QPS_ERR) {
        // Send WQEs complete at post time; only RECVs can be outstanding.
        for (Wqe &w : qp->sq)
            finish(w, IBV_WC_WR_FLUSH_ERR);
        sq_advance_locked(qp);
        flush_recvs_locked(qp);
    }
    return 0;
}

int ud_post_send_locked(Qp *qp, ibv_send_wr *wr, ibv_send_wr **bad)
{
    // A datagram leaves at post time: its WQE is complete when it is queued.
    const int rc = post_chain_locked(qp, wr, bad, validate_wr, [qp](Wqe w, const ibv_send_wr *one, uint64_t total) {
        w.executed = true;
        w.done = true;
        w.status = sq_flushing_locked(qp) ? IBV_WC_WR_FLUSH_ERR : send_one_locked(qp, w, one, total);
        if (w.status != IBV_WC_SUCCESS && w.status != IBV_WC_WR_FLUSH_ERR)
            qp->sq_failed = true; // later WQEs flush; the QP enters ERR when this one completes
        qp->sq.push_back(std::move(w));
    });
    if (rc != 0)
        return rc;
    sq_advance_locked(qp);
    return 0;
}

} // namespace sv

using namespace sv;

extern "C" {

// Private (SOFTVERBS_PRIVATE_1, dlsym): datagrams a UD QP dropped on arrival because
// of a wrong Q_Key or no posted RECV (IBTA: silently), for tests to count.
int softverbs_ud_drops(ibv_qp *ibqp, uint64_t *qkey_mismatch, uint64_t *no_recv)
{
    if (!ibqp || ibqp->qp_type != IBV_QPT_UD || !qkey_mismatch || !no_recv)
        return EINVAL;
    std::lock_guard lk(G().mu);
    *qkey_mismatch = to_qp(ibqp)->ud_drop_qkey;
    *no_recv = to_qp(ibqp)->ud_drop_norecv;
    return 0;
}

// Private: datagrams this process refused before any QP saw them (malformed, spoofed
// source GID, not addressed to us, or for no UD QP ready to receive).
uint64_t softverbs_ud_refused(void)
{
    std::lock_guard lk(G().mu);
    return N().refused;
}

} // extern "C"
