// Hostile peers against softverbs: each case performs one attack and
// checks that it is refused with 0 bytes changed, 0 forged completions, and the
// victim QP still working for its real peer. The raw-socket attacker speaks the
// wire format below (a copy of transport.cpp's) and, as the worst case, knows the
// job secret; refusals that depend on the secret are checked with a wrong one.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <vector>

#include "../src/secret_file.h"
#include "../src/siphash.h"
#include "../src/ud_wire.h"
#include "../src/wire.h"
#include "two_process.h"
#include "ud_fixture.h"
#include "verbs_fixture.h"

using namespace svt;

namespace {

// ---- the wire (softverbs/src/wire.h) ----
using sv::Answer;
using sv::Challenge;
using sv::Frame;
using sv::handshake_proof;
using sv::Hello;
using sv::HelloReply;
using sv::kHelloMagic;
using sv::Proof;
using enum sv::WireOp;

struct Gid {
    uint32_t ip; // network order
    uint16_t port, salt;
};
Gid parse(const ibv_gid &g)
{
    Gid r{};
    std::memcpy(&r.ip, g.raw + 8, 4);
    r.port = static_cast<uint16_t>(g.raw[12] << 8 | g.raw[13]);
    r.salt = static_cast<uint16_t>(g.raw[14] << 8 | g.raw[15]);
    return r;
}
ibv_gid make(const Gid &x)
{
    ibv_gid g{};
    g.raw[0] = 0xfe;
    g.raw[1] = 0x80;
    std::memcpy(g.raw + 8, &x.ip, 4);
    g.raw[12] = static_cast<uint8_t>(x.port >> 8);
    g.raw[13] = static_cast<uint8_t>(x.port);
    g.raw[14] = static_cast<uint8_t>(x.salt >> 8);
    g.raw[15] = static_cast<uint8_t>(x.salt);
    return g;
}

// The secret softverbs uses here: SOFTVERBS_SECRET, else the per-user secret file (which
// the library has made when it loaded), else the random one it exported.
std::string job_secret()
{
    if (const char *s = std::getenv("SOFTVERBS_SECRET"); s && *s)
        return s;
    const sv::SecretFile f = sv::read_secret_file(sv::default_secret_path());
    if (f.status != sv::SecretFile::kOk)
        fail("no SOFTVERBS_SECRET and no usable secret file: " + f.why);
    return f.secret;
}

// A TCP client speaking softverbs' wire by hand.
struct Attacker {
    int fd = -1;
    explicit Attacker(uint16_t port)
    {
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons(port);
        timeval tv{5, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0)
            fail("attacker cannot connect to the victim's listener");
    }
    ~Attacker() { close(fd); }
    // Returns the reply's status, or -1 when the victim answered nothing.
    int hello(uint32_t dest_qpn, uint32_t src_qpn, const std::string &secret, const Gid &claim)
    {
        Hello h{};
        h.magic = kHelloMagic;
        h.dest_qpn = dest_qpn;
        h.src_qpn = src_qpn;
        h.rnr_retry = 7;
        h.nonce[0] = 0x5a;
        h.src_ip = claim.ip;
        h.src_port = claim.port;
        h.src_salt = claim.salt;
        if (send(fd, &h, sizeof h, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof h))
            return -1;
        Challenge ch{};
        if (recv(fd, &ch, sizeof ch, MSG_WAITALL) != static_cast<ssize_t>(sizeof ch))
            return -1;
        if (ch.status != 0)
            return static_cast<int>(ch.status);
        Answer ans{};
        ans.magic = kHelloMagic;
        ans.proof = handshake_proof(secret, 'C', h.nonce, ch.nonce, dest_qpn, src_qpn);
        if (send(fd, &ans, sizeof ans, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof ans))
            return -1;
        HelloReply rep{};
        return recv(fd, &rep, sizeof rep, MSG_WAITALL) == static_cast<ssize_t>(sizeof rep)
                   ? static_cast<int>(rep.status)
                   : -1;
    }
    // false when not all of it was sent (the victim stopped reading)
    bool frame(const Frame &f, const void *payload, size_t n)
    {
        std::vector<uint8_t> b(sizeof f + n);
        std::memcpy(b.data(), &f, sizeof f);
        if (n)
            std::memcpy(b.data() + sizeof f, payload, n);
        return send(fd, b.data(), b.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(b.size());
    }
    // true when the victim closed the connection within the deadline (reading and
    // discarding what it sent first); false when it is still open.
    bool closed_by_victim(int ms = 3000)
    {
        auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
        while (std::chrono::steady_clock::now() < end) {
            pollfd p{fd, POLLIN, 0};
            if (poll(&p, 1, 50) <= 0)
                continue;
            uint8_t junk[4096];
            ssize_t k = recv(fd, junk, sizeof junk, MSG_DONTWAIT);
            if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR))
                return true;
        }
        return false;
    }
    // The next reply frame (skipping nothing); false on timeout or close.
    bool reply(Frame *f) { return recv(fd, f, sizeof *f, MSG_WAITALL) == static_cast<ssize_t>(sizeof *f); }
};

// A TCP socket bound to a free loopback port: a dead port, where connecting is
// refused at once, until listen() makes it a peer that the test plays by hand.
struct LoopbackPort {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    uint16_t port = 0;
    LoopbackPort()
    {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t n = sizeof a;
        if (bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 ||
            getsockname(fd, reinterpret_cast<sockaddr *>(&a), &n) != 0)
            fail("bind");
        port = ntohs(a.sin_port);
    }
    ~LoopbackPort() { close_now(); }
    LoopbackPort(const LoopbackPort &) = delete;
    LoopbackPort &operator=(const LoopbackPort &) = delete;
    bool listen() const { return ::listen(fd, 4) == 0; }
    void close_now()
    {
        if (fd >= 0)
            close(fd);
        fd = -1;
    }
};

// The endpoint of a peer QP `qpn` whose GID is `gid`.
Endpoint endpoint_of(const Gid &gid, uint32_t qpn)
{
    Endpoint e{};
    e.gid = make(gid);
    e.qpn = qpn;
    return e;
}

bool all_equal(const uint8_t *p, size_t n, uint8_t v)
{
    for (size_t i = 0; i < n; ++i)
        if (p[i] != v)
            return false;
    return true;
}

ibv_qp_state state_of(ibv_qp *qp)
{
    ibv_qp_attr a{};
    ibv_qp_init_attr i{};
    ibv_query_qp(qp, &a, IBV_QP_STATE, &i);
    return a.qp_state;
}

// No completion arrives on cq within ms.
bool stays_empty(ibv_cq *cq, int ms = 300)
{
    ibv_wc wc{};
    return !wait_wc(cq, &wc, std::chrono::milliseconds(ms));
}

} // namespace

// Priority 1: a frame whose header is inconsistent with its payload (or any oversize
// or misdirected header) closes that connection; nothing is read past the payload,
// nothing lands, the responder QP is untouched. Before the fix the responder copied
// `len` bytes from a `plen`-byte payload: heap contents into the victim's memory (or
// a SIGSEGV), and a READ response of the same shape leaked the requester's heap.
TEST(Security, ForgedFramesCloseTheConnection)
{
    Device dev;
    Buffer buf(1 << 16, true);
    Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
    Buffer rbuf(1 << 16, true);
    Mr rmr(dev.pd, rbuf.p, rbuf.n, kAllAccess);
    Qp v(dev);
    LoopbackPort dead;
    // The victim's peer is "the attacker" itself: a hostile or broken peer of the job.
    Gid me = parse(v.endpoint().gid);
    Gid claim{me.ip, dead.port, 0x1235};
    Endpoint fake = endpoint_of(claim, 0x4242);
    v.connect(fake); // its own connection attempt is refused at once; it stays RTS
    for (int i = 0; i < 4; ++i)
        ASSERT_EQ(v.recv(100 + i, rmr.mr, 0, 4096), 0);
    const uint64_t base = reinterpret_cast<uintptr_t>(buf.p);
    uint8_t small[16];
    std::memset(small, 0xee, sizeof small);

    struct Case {
        const char *what;
        Frame f;
        size_t sent; // payload bytes actually sent
    };
    std::vector<Case> cases;
    Frame f{};
    f.op = kWrite;
    f.seq = 1;
    f.raddr = base;
    f.rkey = mr.mr->rkey;
    f.len = 1 << 16;
    f.plen = 16;
    cases.push_back({"WRITE declaring 64 KiB with a 16-byte payload", f, 16});
    f = {};
    f.op = kSend;
    f.seq = 1;
    f.len = 4096;
    f.plen = 16;
    cases.push_back({"SEND declaring 4 KiB with a 16-byte payload", f, 16});
    f = {};
    f.op = kWriteImm;
    f.seq = 1;
    f.raddr = base;
    f.rkey = mr.mr->rkey;
    f.len = 4096;
    f.plen = 16;
    cases.push_back({"WRITE_WITH_IMM declaring 4 KiB with a 16-byte payload", f, 16});
    f = {};
    f.op = kWrite;
    f.seq = 1;
    f.raddr = base;
    f.rkey = mr.mr->rkey;
    f.len = 16;
    f.plen = 0xfffffff0u;
    cases.push_back({"WRITE with a 4 GiB payload length", f, 16});
    f = {};
    f.op = kReadResp;
    f.seq = 1;
    f.len = 16;
    f.plen = 16;
    cases.push_back({"a READ response sent to a responder", f, 16});
    f = {};
    f.op = 0x7f;
    f.seq = 1;
    cases.push_back({"an unknown opcode", f, 0});

    for (const Case &c : cases) {
        SCOPED_TRACE(c.what);
        Attacker at(me.port);
        ASSERT_EQ(at.hello(v.qp->qp_num, fake.qpn, job_secret(), claim), 0)
            << "the victim must accept its own peer's identity for this case to mean anything";
        at.frame(c.f, small, c.sent);
        EXPECT_TRUE(at.closed_by_victim()) << "the connection stayed open";
        EXPECT_TRUE(all_equal(buf.p, buf.n, 0)) << "bytes changed in the victim's MR";
        EXPECT_TRUE(all_equal(rbuf.p, rbuf.n, 0)) << "bytes changed in the victim's RECV buffer";
        EXPECT_TRUE(stays_empty(v.rcq, 100)) << "a completion was forged at the victim";
        EXPECT_EQ(state_of(v.qp), IBV_QPS_RTS);
    }
    // The same attacker with a well-formed WRITE is served: the refusals above came from
    // the frame checks, not from the handshake.
    Attacker ok(me.port);
    ASSERT_EQ(ok.hello(v.qp->qp_num, fake.qpn, job_secret(), claim), 0);
    f = {};
    f.op = kWrite;
    f.seq = 7;
    f.raddr = base + 64;
    f.rkey = mr.mr->rkey;
    f.len = 16;
    f.plen = 16;
    ok.frame(f, small, 16);
    Frame ack{};
    ASSERT_TRUE(ok.reply(&ack));
    EXPECT_EQ(ack.op, kAck);
    EXPECT_EQ(ack.seq, 7u);
    EXPECT_EQ(std::memcmp(buf.p + 64, small, 16), 0);
}

// Priority 2: a connection is authenticated to the QP it names, and a connected QP
// accepts only its peer. Before the fix any process (empty default secret) could
// connect to any QP and a third QP of the job could write into a connected QP's
// memory and deliver WRITE_WITH_IMM notifies.
TEST(Security, ConnectedQpAcceptsOnlyItsPeer)
{
    Device dev;
    Buffer vbuf(1 << 16, true), pbuf(1 << 16, true);
    Mr vmr(dev.pd, vbuf.p, vbuf.n, kAllAccess), pmr(dev.pd, pbuf.p, pbuf.n, kAllAccess);
    Qp v(dev), p(dev);
    v.connect(p.endpoint());
    p.connect(v.endpoint());
    for (int i = 0; i < 8; ++i)
        ASSERT_EQ(v.recv(100 + i), 0);
    std::memset(pbuf.p, 0xaa, pbuf.n);
    Gid me = parse(v.endpoint().gid);

    {
        SCOPED_TRACE("raw socket, wrong secret");
        Attacker at(me.port);
        EXPECT_NE(at.hello(v.qp->qp_num, p.qp->qp_num, "not-the-secret", me), 0);
        EXPECT_TRUE(at.closed_by_victim());
    }
    {
        SCOPED_TRACE("raw socket, empty secret (the old default)");
        Attacker at(me.port);
        EXPECT_NE(at.hello(v.qp->qp_num, p.qp->qp_num, "", me), 0);
        EXPECT_TRUE(at.closed_by_victim());
    }
    {
        SCOPED_TRACE("raw socket, right secret, a QP that is not the peer");
        Attacker at(me.port);
        EXPECT_NE(at.hello(v.qp->qp_num, 0x777, job_secret(), me), 0);
        EXPECT_TRUE(at.closed_by_victim());
    }
    {
        SCOPED_TRACE("raw socket, right secret, impersonating the connected peer");
        Attacker at(me.port);
        EXPECT_NE(at.hello(v.qp->qp_num, p.qp->qp_num, job_secret(), me), 0);
        EXPECT_TRUE(at.closed_by_victim());
    }
    {
        SCOPED_TRACE("a third QP connecting to the connected QP");
        Qp c(dev);
        c.connect(v.endpoint());
        ASSERT_EQ(
            c.post(IBV_WR_RDMA_WRITE, 1, pmr.mr, 0, 4096, reinterpret_cast<uintptr_t>(vbuf.p), vmr.mr->rkey, 0, 0), 0);
        ASSERT_EQ(c.post(IBV_WR_RDMA_WRITE_WITH_IMM, 2, pmr.mr, 0, 64, reinterpret_cast<uintptr_t>(vbuf.p),
                         vmr.mr->rkey, 0xbad),
                  0);
        ibv_wc wc{};
        ASSERT_TRUE(wait_wc(c.scq, &wc)) << "the third QP got no completion";
        EXPECT_NE(wc.status, IBV_WC_SUCCESS) << "the third QP's WRITE succeeded";
    }
    EXPECT_TRUE(all_equal(vbuf.p, vbuf.n, 0)) << "bytes changed in the victim's MR";
    EXPECT_TRUE(stays_empty(v.rcq)) << "a notify was delivered to the victim";
    EXPECT_EQ(state_of(v.qp), IBV_QPS_RTS);

    // The real peer is still served.
    ASSERT_EQ(
        p.post(IBV_WR_RDMA_WRITE_WITH_IMM, 3, pmr.mr, 0, 128, reinterpret_cast<uintptr_t>(vbuf.p), vmr.mr->rkey, 42),
        0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(p.scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
    ASSERT_TRUE(wait_wc(v.rcq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    EXPECT_EQ(ntohl(wc.imm_data), 42u);
    EXPECT_TRUE(all_equal(vbuf.p, 128, 0xaa));
}

#if defined(__SANITIZE_THREAD__)
constexpr bool kRssMeaningful = false; // TSan's shadow memory is several times what the program touches
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kRssMeaningful = false;
#else
constexpr bool kRssMeaningful = true;
#endif
#else
constexpr bool kRssMeaningful = true;
#endif

long rss_kib()
{
    FILE *f = std::fopen("/proc/self/status", "re");
    long kib = -1;
    char line[256];
    while (f && std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "VmRSS: %ld", &kib) == 1)
            break;
    if (f)
        std::fclose(f);
    return kib;
}

// Priority 5: a peer that asks for READs but never reads the responses cannot make the
// responder queue them without bound (before the fix: every response was appended to
// the connection's send queue, here 512 MiB).
TEST(Security, UnreadReadResponsesAreBounded)
{
    if (!kRssMeaningful)
        GTEST_SKIP() << "resident memory does not measure queues under TSan";
    Device dev;
    constexpr size_t kSize = 16 << 20;
    Buffer buf(kSize, true);
    std::memset(buf.p, 0x3c, kSize);
    Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
    Qp v(dev);
    LoopbackPort dead;
    Gid me = parse(v.endpoint().gid);
    Gid claim{me.ip, dead.port, 0x1237};
    Endpoint fake = endpoint_of(claim, 0x4243);
    v.connect(fake);
    Attacker at(me.port);
    ASSERT_EQ(at.hello(v.qp->qp_num, fake.qpn, job_secret(), claim), 0);
    int small = 4096;
    setsockopt(at.fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    long before = rss_kib();
    for (int i = 0; i < 32; ++i) {
        Frame f{};
        f.op = kRead;
        f.seq = static_cast<uint64_t>(i + 1);
        f.raddr = reinterpret_cast<uintptr_t>(buf.p);
        f.rkey = mr.mr->rkey;
        f.len = kSize;
        at.frame(f, nullptr, 0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    long grown = rss_kib() - before;
    EXPECT_LT(grown, 200L << 10) << "the responder queued " << grown / 1024 << " MiB of unread READ responses";
    EXPECT_EQ(state_of(v.qp), IBV_QPS_RTS);
}

// Beyond the list: SENDs into a QP with no RECVs posted wait (receiver not ready, rnr_retry 7:
// forever); a peer that keeps sending them cannot make the responder hold them without
// bound (before: every one was copied into the responder's queue, here 384 MiB).
TEST(Security, SendsWithoutRecvsAreBounded)
{
    if (!kRssMeaningful)
        GTEST_SKIP() << "resident memory does not measure queues under TSan";
    Device dev;
    Qp v(dev);
    LoopbackPort dead;
    Gid me = parse(v.endpoint().gid);
    Gid claim{me.ip, dead.port, 0x1239};
    Endpoint fake = endpoint_of(claim, 0x4244);
    v.connect(fake);
    Attacker at(me.port);
    ASSERT_EQ(at.hello(v.qp->qp_num, fake.qpn, job_secret(), claim), 0);
    timeval tv{0, 300000};
    setsockopt(at.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    constexpr uint32_t kLen = 16 << 20;
    std::vector<uint8_t> payload(kLen, 0x77);
    long before = rss_kib();
    for (int i = 0; i < 24; ++i) {
        Frame f{};
        f.op = kSend;
        f.seq = static_cast<uint64_t>(i + 1);
        f.len = kLen;
        f.plen = kLen;
        if (!at.frame(f, payload.data(), payload.size()))
            break; // the victim stopped reading us: what it holds is bounded
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    long grown = rss_kib() - before;
    EXPECT_LT(grown, 200L << 10) << "the responder holds " << grown / 1024 << " MiB of SENDs waiting for RECVs";
    EXPECT_TRUE(stays_empty(v.rcq, 50));
    EXPECT_EQ(state_of(v.qp), IBV_QPS_RTS);
}

// Priority 2 (before authentication): idle connections that never send a hello are
// dropped after a short deadline and cannot crowd out a real peer.
TEST(Security, IdleUnauthenticatedConnectionsAreDropped)
{
    Device dev;
    Qp probe(dev);
    Gid me = parse(probe.endpoint().gid);
    std::vector<std::unique_ptr<Attacker>> idle;
    for (int i = 0; i < 80; ++i)
        idle.push_back(std::make_unique<Attacker>(me.port));
    // A real pair connects (over TCP in the tcp variant) while they sit there.
    Buffer b(4096, true);
    Mr mr(dev.pd, b.p, b.n, kAllAccess);
    Qp x(dev), y(dev);
    x.connect(y.endpoint());
    y.connect(x.endpoint());
    ASSERT_EQ(x.post(IBV_WR_RDMA_WRITE, 1, mr.mr, 0, 64, reinterpret_cast<uintptr_t>(b.p) + 1024, mr.mr->rkey), 0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(x.scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
    int dropped = 0;
    for (auto &a : idle)
        dropped += a->closed_by_victim(4000) ? 1 : 0;
    EXPECT_EQ(dropped, 80) << "idle unauthenticated connections kept open";
}

// Priority 5: a requester issues at most max_rd_atomic READs before answers come back
// (IBTA), so a responder never has to hold more READ responses for it. The responder
// here is a raw socket that counts the READ requests it receives before answering.
TEST(Security, ReadsLimitedToMaxRdAtomic)
{
    Device dev;
    Buffer buf(4096, true);
    Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
    LoopbackPort listener;
    ASSERT_TRUE(listener.listen());
    const int lfd = listener.fd;
    Qp v(dev);
    Gid me = parse(v.endpoint().gid);
    Endpoint fake = endpoint_of(Gid{me.ip, listener.port, 0x123b}, 0x4245);
    std::vector<Frame> reads;
    int cfd = -1;
    std::thread server([&] { // accepts the QP's connection and says yes
        cfd = accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
        Hello h{};
        if (cfd < 0 || recv(cfd, &h, sizeof h, MSG_WAITALL) != static_cast<ssize_t>(sizeof h))
            return;
        // The handshake, knowing the job secret as a real peer does.
        Challenge ch{};
        ch.magic = kHelloMagic;
        ch.nonce[3] = 7;
        ch.proof = handshake_proof(job_secret(), 'S', h.nonce, ch.nonce, h.dest_qpn, h.src_qpn);
        Answer ans{};
        if (send(cfd, &ch, sizeof ch, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof ch) ||
            recv(cfd, &ans, sizeof ans, MSG_WAITALL) != static_cast<ssize_t>(sizeof ans))
            return;
        HelloReply rep{};
        rep.magic = kHelloMagic; // boot id left empty: not the same host, so everything goes over TCP
        (void)send(cfd, &rep, sizeof rep, MSG_NOSIGNAL);
    });
    ASSERT_EQ(v.to_init(), 0);
    ASSERT_EQ(v.to_rtr(fake), 0);
    ibv_qp_attr at{};
    at.qp_state = IBV_QPS_RTS;
    at.timeout = 14;
    at.retry_cnt = 7;
    at.rnr_retry = 7;
    at.max_rd_atomic = 2;
    ASSERT_EQ(ibv_modify_qp(v.qp, &at,
                            IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                                IBV_QP_MAX_QP_RD_ATOMIC),
              0);
    server.join();
    ASSERT_GE(cfd, 0);
    for (int i = 0; i < 8; ++i)
        ASSERT_EQ(v.post(IBV_WR_RDMA_READ, static_cast<uint64_t>(i), mr.mr, static_cast<uint64_t>(i) * 64, 64,
                         0x1000 + static_cast<uint64_t>(i) * 64, 0x2001),
                  0);
    auto drain = [&](int ms) { // collects the requests that arrive within ms
        auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
        while (std::chrono::steady_clock::now() < end) {
            pollfd p{cfd, POLLIN, 0};
            if (poll(&p, 1, 20) <= 0)
                continue;
            Frame f{};
            if (recv(cfd, &f, sizeof f, MSG_WAITALL) != static_cast<ssize_t>(sizeof f))
                return;
            reads.push_back(f);
        }
    };
    drain(400);
    EXPECT_EQ(reads.size(), 2u) << "READs outstanding before any answer (max_rd_atomic 2)";
    // One answer (to the oldest: completions are in order) lets exactly one more READ out.
    ASSERT_FALSE(reads.empty());
    Frame r{};
    r.op = kReadResp;
    r.seq =
        std::min_element(reads.begin(), reads.end(), [](const Frame &x, const Frame &y) { return x.seq < y.seq; })->seq;
    r.len = 64;
    r.plen = 64;
    std::vector<uint8_t> b(sizeof r + 64, 0x42);
    std::memcpy(b.data(), &r, sizeof r);
    ASSERT_EQ(send(cfd, b.data(), b.size(), MSG_NOSIGNAL), static_cast<ssize_t>(b.size()));
    drain(400);
    EXPECT_EQ(reads.size(), 3u);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(v.scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc.status);
    close(cfd);
}

// Port takeover: whoever listens where a QP connects (e.g. on the port of a peer that
// died) learns nothing of the secret from the handshake, and a QP does not connect to
// a listener that cannot prove it knows the secret. Before: the secret was sent in the
// clear and the requester trusted any answer.
TEST(Security, ImpostorListenerLearnsNoSecretAndIsRefused)
{
    Device dev;
    Buffer buf(4096, true);
    std::memset(buf.p, 0x61, buf.n);
    Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
    LoopbackPort listener;
    ASSERT_TRUE(listener.listen());
    const int lfd = listener.fd;
    Qp v(dev);
    Gid me = parse(v.endpoint().gid);
    Endpoint fake = endpoint_of(Gid{me.ip, listener.port, 0x123d}, 0x4246);
    std::vector<uint8_t> seen;
    std::vector<uint8_t> later;
    std::thread impostor([&] {
        int cfd = accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
        Hello h{};
        if (cfd < 0 || recv(cfd, &h, sizeof h, MSG_WAITALL) != static_cast<ssize_t>(sizeof h))
            return;
        seen.assign(reinterpret_cast<uint8_t *>(&h), reinterpret_cast<uint8_t *>(&h) + sizeof h);
        Challenge ch{}; // a proof made without the secret
        ch.magic = kHelloMagic;
        ch.proof = handshake_proof("guess", 'S', h.nonce, ch.nonce, h.dest_qpn, h.src_qpn);
        (void)send(cfd, &ch, sizeof ch, MSG_NOSIGNAL);
        uint8_t b[4096];
        timeval tv{1, 0};
        setsockopt(cfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        for (ssize_t k; (k = recv(cfd, b, sizeof b, 0)) > 0;)
            later.insert(later.end(), b, b + k);
        close(cfd);
    });
    v.connect(fake);
    impostor.join();
    listener.close_now(); // the QP's reconnection attempts are refused from here on
    ASSERT_EQ(seen.size(), sizeof(Hello)) << "the impostor got no handshake";
    const std::string secret = job_secret();
    ASSERT_FALSE(secret.empty());
    auto contains = [&](const std::vector<uint8_t> &b) {
        return std::search(b.begin(), b.end(), secret.begin(), secret.end()) != b.end();
    };
    EXPECT_FALSE(contains(seen)) << "the handshake carried the secret";
    // All it may say after the wrong proof is that it refuses (so that a real peer with
    // another secret can name the cause): an Answer with the refusal status and no proof.
    Answer refusal{};
    refusal.magic = kHelloMagic;
    refusal.status = sv::kAnswerRefused;
    EXPECT_TRUE(later.size() == sizeof refusal && std::memcmp(later.data(), &refusal, sizeof refusal) == 0)
        << "the QP went on talking to a listener that did not prove the secret (" << later.size()
        << " bytes after the Challenge; only a " << sizeof refusal << "-byte refusal without a proof is allowed)";
    ASSERT_EQ(v.post(IBV_WR_RDMA_WRITE, 1, mr.mr, 0, 64, 0x1000, 0x2001), 0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(v.scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_RETRY_EXC_ERR) << ibv_wc_status_str(wc.status);
}

// Priority 3: an rkey of another protection domain is a remote access error for WRITE
// and READ (IBTA); before the fix PDs were not compared at all.
TEST(Security, RkeyOfAnotherPdIsRefused)
{
    Device dev;
    ibv_pd *other = ibv_alloc_pd(dev.ctx);
    ASSERT_NE(other, nullptr);
    {
        Buffer local(1 << 16, true), foreign(1 << 16, true);
        std::memset(local.p, 0x11, local.n);
        std::memset(foreign.p, 0x5a, foreign.n);
        Mr lmr(dev.pd, local.p, local.n, kAllAccess);
        Mr fmr(other, foreign.p, foreign.n, kAllAccess);
        for (ibv_wr_opcode op : {IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ}) {
            SCOPED_TRACE(op == IBV_WR_RDMA_WRITE ? "WRITE" : "READ");
            Qp a(dev), b(dev);
            a.connect(b.endpoint());
            b.connect(a.endpoint());
            ASSERT_EQ(a.post(op, 1, lmr.mr, 0, 4096, reinterpret_cast<uintptr_t>(foreign.p), fmr.mr->rkey), 0);
            ibv_wc wc{};
            ASSERT_TRUE(wait_wc(a.scq, &wc));
            EXPECT_EQ(wc.status, IBV_WC_REM_ACCESS_ERR) << ibv_wc_status_str(wc.status);
            EXPECT_TRUE(all_equal(foreign.p, foreign.n, 0x5a)) << "the other PD's memory changed";
            EXPECT_TRUE(all_equal(local.p, local.n, 0x11)) << "READ data of the other PD arrived";
        }
    }
    ibv_dealloc_pd(other);
}

// Priority 3, same-host route: two processes; the responder's QP allows no remote
// access, or the MR is in another PD. Before the fix the requester placed the data
// itself through the shared mapping, checking only the MR's access bits.
TEST(SecurityTwoProcess, SameHostRouteChecksQpAccessAndPd)
{
    constexpr size_t kSize = 1 << 16;
    std::string err = run_two(
        [&](Link link) { // requester
            Device dev;
            Buffer buf(kSize, true);
            std::memset(buf.p, 0x11, kSize);
            Mr mr(dev.pd, buf.p, kSize, kAllAccess);
            Qp a1(dev), a2(dev), a3(dev);
            Endpoint e[3];
            for (auto &x : e)
                x = link.get<Endpoint>();
            link.put(a1.endpoint());
            link.put(a2.endpoint());
            link.put(a3.endpoint());
            a1.connect(e[0]);
            a2.connect(e[1]);
            a3.connect(e[2]);
            if (link.get<int>() != 1)
                fail("peer not ready");
            auto expect_refused = [](Qp &q, const char *what) {
                ibv_wc wc{};
                if (!wait_wc(q.scq, &wc))
                    fail(std::string(what) + ": no completion");
                if (wc.status != IBV_WC_REM_ACCESS_ERR)
                    fail(std::string(what) + ": " + ibv_wc_status_str(wc.status) + ", expected REM_ACCESS_ERR");
            };
            if (a1.post(IBV_WR_RDMA_WRITE, 1, mr.mr, 0, 4096, e[0].addr, e[0].rkey) != 0)
                fail("post");
            expect_refused(a1, "WRITE to a QP without remote write access");
            if (a2.post(IBV_WR_RDMA_WRITE, 2, mr.mr, 0, 4096, e[1].addr, e[1].rkey) != 0)
                fail("post");
            expect_refused(a2, "WRITE with an rkey of another PD");
            if (a3.post(IBV_WR_RDMA_READ, 3, mr.mr, 0, 4096, e[2].addr, e[2].rkey) != 0)
                fail("post");
            expect_refused(a3, "READ with an rkey of another PD");
            if (!all_equal(buf.p, kSize, 0x11))
                fail("READ data of another PD arrived");
            link.put(2);
            if (link.get<int>() != 3)
                fail("peer found changed bytes");
        },
        [&](Link link) { // responder
            Device dev;
            ibv_pd *other = ibv_alloc_pd(dev.ctx);
            Buffer mine(kSize, true), theirs(kSize, true);
            std::memset(theirs.p, 0x5a, kSize);
            Mr mmr(dev.pd, mine.p, kSize, kAllAccess);
            Mr tmr(other, theirs.p, kSize, kAllAccess);
            Qp b1(dev), b2(dev), b3(dev);
            link.put(b1.endpoint(&*mmr.mr));
            link.put(b2.endpoint(&*tmr.mr));
            link.put(b3.endpoint(&*tmr.mr));
            Endpoint a1 = link.get<Endpoint>(), a2 = link.get<Endpoint>(), a3 = link.get<Endpoint>();
            if (b1.to_init(IBV_ACCESS_LOCAL_WRITE) || b1.to_rtr(a1) || b1.to_rts())
                fail("connect b1");
            b2.connect(a2);
            b3.connect(a3);
            link.put(1);
            if (link.get<int>() != 2)
                fail("requester failed");
            bool same = all_equal(mine.p, kSize, 0) && all_equal(theirs.p, kSize, 0x5a);
            link.put(same ? 3 : 4);
            ibv_dealloc_pd(other);
        });
    EXPECT_EQ(err, "");
}

// Priority 5: no byte lands after ibv_dereg_mr returns. The requester keeps an 8 MiB
// WRITE in flight (alternating two patterns) over the same-host route while the
// responder deregisters at a random moment, snapshots the memory and looks again
// 50 ms later. Before the fix a mapped memcpy already under way kept landing.
TEST(SecurityTwoProcess, NoWriteLandsAfterDeregistration)
{
    constexpr size_t kSize = 8 << 20;
    constexpr int kTries = 12;
    std::string err = run_two(
        [&](Link link) { // requester
            Device dev;
            Buffer one(kSize, true), two(kSize, true);
            std::memset(one.p, 1, kSize);
            std::memset(two.p, 2, kSize);
            Mr m1(dev.pd, one.p, kSize, kAllAccess), m2(dev.pd, two.p, kSize, kAllAccess);
            for (int t = 0; t < kTries; ++t) {
                Qp a(dev);
                Endpoint peer = link.get<Endpoint>();
                link.put(a.endpoint());
                a.connect(peer);
                if (link.get<int>() != 1)
                    fail("peer not ready");
                for (int i = 0;; ++i) {
                    const ibv_mr *src = (i & 1) ? m2.mr : m1.mr;
                    if (a.post(IBV_WR_RDMA_WRITE, 1, src, 0, kSize, peer.addr, peer.rkey) != 0)
                        fail("post");
                    ibv_wc wc{};
                    if (!wait_wc(a.scq, &wc, std::chrono::milliseconds(20000)))
                        fail("no completion");
                    if (i == 0)
                        link.put(2); // data is flowing: deregister whenever you like
                    if (wc.status != IBV_WC_SUCCESS)
                        break; // refused once deregistered
                }
                if (link.get<int>() != 3)
                    fail("bytes landed after ibv_dereg_mr returned (try " + std::to_string(t) + ")");
            }
        },
        [&](Link link) { // responder
            Device dev;
            Buffer buf(kSize, true);
            std::vector<uint8_t> snap(kSize);
            for (int t = 0; t < kTries; ++t) {
                ibv_mr *mr = ibv_reg_mr(dev.pd, buf.p, kSize, kAllAccess);
                Qp b(dev);
                link.put(b.endpoint(mr));
                b.connect(link.get<Endpoint>());
                link.put(1);
                if (link.get<int>() != 2)
                    fail("requester failed");
                std::this_thread::sleep_for(std::chrono::microseconds(137 * t % 1500));
                ibv_dereg_mr(mr);
                std::memcpy(snap.data(), buf.p, kSize);
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                link.put(std::memcmp(snap.data(), buf.p, kSize) == 0 ? 3 : 4);
            }
        },
        std::chrono::seconds(90));
    EXPECT_EQ(err, "");
}

// Priority 4: an rkey never comes back. Before the fix an index's 8-bit generation
// wrapped after 255 re-registrations and a stale rkey was valid again.
TEST(Security, StaleRkeyNeverComesBack)
{
    Device dev;
    Buffer src(4096, true), target(4096, true);
    std::memset(src.p, 0xcc, 4096);
    Mr smr(dev.pd, src.p, 4096, kAllAccess);
    ibv_mr *first = ibv_reg_mr(dev.pd, target.p, 4096, kAllAccess);
    ASSERT_NE(first, nullptr);
    const uint32_t stale = first->rkey;
    ASSERT_EQ(ibv_dereg_mr(first), 0);
    std::set<uint32_t> seen{stale};
    ibv_mr *m = nullptr;
    for (int i = 0; i < 600; ++i) {
        m = ibv_reg_mr(dev.pd, target.p, 4096, kAllAccess);
        ASSERT_NE(m, nullptr);
        ASSERT_TRUE(seen.insert(m->rkey).second)
            << "rkey 0x" << std::hex << m->rkey << " repeated after " << std::dec << i + 1 << " re-registrations";
        if (i + 1 == 255)
            break; // keep the 256th registration: the one the old 8-bit generation collided with
        ASSERT_EQ(ibv_dereg_mr(m), 0);
    }
    Qp a(dev), b(dev);
    a.connect(b.endpoint());
    b.connect(a.endpoint());
    ASSERT_EQ(a.post(IBV_WR_RDMA_WRITE, 1, smr.mr, 0, 64, reinterpret_cast<uintptr_t>(target.p), stale), 0);
    ibv_wc wc{};
    ASSERT_TRUE(wait_wc(a.scq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_REM_ACCESS_ERR) << ibv_wc_status_str(wc.status);
    EXPECT_TRUE(all_equal(target.p, 4096, 0)) << "a stale rkey wrote into a newer registration";
    ibv_dereg_mr(m);
    // Many more re-registrations: still no repeat.
    for (int i = 0; i < 2000; ++i) {
        ibv_mr *x = ibv_reg_mr(dev.pd, target.p, 4096, kAllAccess);
        ASSERT_NE(x, nullptr);
        ASSERT_TRUE(seen.insert(x->rkey).second) << "rkey repeated";
        ibv_dereg_mr(x);
    }
}

// UD: datagrams from a plain UDP socket, as anyone on the host can send
// them. Malformed, oversized, spoofed or misaddressed ones are refused before any QP
// sees them; a well-formed one with the right Q_Key is delivered: UD has no
// authentication beyond the Q_Key (docs/security.md).
TEST(UdSecurity, HostileDatagramsAreRefusedBeforeAnyQpSeesThem)
{
    using Refused = uint64_t (*)();
    static Refused refused = private_symbol<Refused>("softverbs_ud_refused");
    Device dev;
    Buffer buf(1 << 16, true);
    Mr mr(dev.pd, buf.p, buf.n, kAllAccess);
    std::unique_ptr<UdQp> b;
    {
        SaneQps sane;
        b = std::make_unique<UdQp>(dev);
    }
    b->ready();
    Qp rc(dev); // an RC QP: no datagram may reach it
    for (uint32_t i = 0; i < 8; ++i)
        ASSERT_EQ(b->recv(i, mr.mr, 4096 * i, 4096), 0);
    ibv_gid gid{};
    ASSERT_EQ(ibv_query_gid(dev.ctx, 1, 0, &gid), 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    std::memcpy(&to.sin_addr.s_addr, gid.raw + 8, 4);
    to.sin_port = htons(static_cast<uint16_t>(gid.raw[12] << 8 | gid.raw[13]));
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in me{};
    me.sin_family = AF_INET;
    me.sin_addr = to.sin_addr;
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr *>(&me), sizeof me), 0);
    socklen_t ml = sizeof me;
    ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr *>(&me), &ml), 0);
    // The attacker's honest GID: its own address and port (salt 0).
    ibv_gid mine = gid;
    mine.raw[12] = static_cast<uint8_t>(ntohs(me.sin_port) >> 8);
    mine.raw[13] = static_cast<uint8_t>(ntohs(me.sin_port));
    mine.raw[14] = mine.raw[15] = 0;
    auto datagram = [&](uint32_t len) {
        sv::UdHeader h{};
        h.magic = sv::kUdMagic;
        h.version = sv::kUdVersion;
        h.hop_limit = 64;
        h.src_qpn = 0x77;
        h.dst_qpn = b->qp->qp_num;
        h.qkey = kQkey;
        h.len = len;
        std::memcpy(h.sgid, mine.raw, 16);
        std::memcpy(h.dgid, gid.raw, 16);
        return h;
    };
    auto send = [&](const sv::UdHeader &h, size_t payload) {
        std::vector<uint8_t> d(sizeof h + payload, 0x5a);
        std::memcpy(d.data(), &h, sizeof h);
        ASSERT_EQ(sendto(fd, d.data(), d.size(), 0, reinterpret_cast<sockaddr *>(&to), sizeof to),
                  static_cast<ssize_t>(d.size()));
    };
    auto wait_refused = [&](uint64_t want) {
        auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (refused() < want && std::chrono::steady_clock::now() < end)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return refused();
    };
    uint64_t base = refused();
    uint8_t junk[10] = {};
    ASSERT_EQ(sendto(fd, junk, sizeof junk, 0, reinterpret_cast<sockaddr *>(&to), sizeof to), 10);
    EXPECT_EQ(wait_refused(base + 1), base + 1) << "shorter than the header";
    send(datagram(100), 50);
    EXPECT_EQ(wait_refused(base + 2), base + 2) << "length field beyond the datagram";
    send(datagram(5000), 5000);
    EXPECT_EQ(wait_refused(base + 3), base + 3) << "longer than the MTU";
    send(datagram(60000), 60000);
    EXPECT_EQ(wait_refused(base + 4), base + 4) << "longer than any datagram (truncated read)";
    sv::UdHeader h = datagram(8);
    std::memcpy(h.sgid, gid.raw, 16); // claims to be the receiver's own process
    send(h, 8);
    EXPECT_EQ(wait_refused(base + 5), base + 5) << "spoofed source GID";
    h = datagram(8);
    h.dgid[15] ^= 1;
    send(h, 8);
    EXPECT_EQ(wait_refused(base + 6), base + 6) << "destination GID of another process (salt)";
    h = datagram(8);
    h.dst_qpn = rc.qp->qp_num;
    send(h, 8);
    EXPECT_EQ(wait_refused(base + 7), base + 7) << "an RC QP";
    h = datagram(8);
    h.flags = 0x80;
    send(h, 8);
    EXPECT_EQ(wait_refused(base + 8), base + 8) << "unknown flags";
    ibv_wc wc{};
    EXPECT_FALSE(wait_wc(b->rcq, &wc, std::chrono::milliseconds(100))) << "a refused datagram reached the QP";
    // Well-formed, from where it claims, right Q_Key: delivered (no other authentication).
    send(datagram(8), 8);
    ASSERT_TRUE(wait_wc(b->rcq, &wc));
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS);
    EXPECT_EQ(wc.src_qp, 0x77u);
    EXPECT_EQ(refused(), base + 8);
    close(fd);
}
