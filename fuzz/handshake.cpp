// fuzz_handshake: softverbs' connection handshake and the responder's MR/rkey handling,
// as a hostile TCP peer reaches them. The library runs in this process (softverbs'
// libibverbs.so.1 on LD_LIBRARY_PATH) with a victim RC QP connected to "the attacker";
// an input is one connection to the victim's listener: raw bytes, or a Hello whose fields
// the input may change, the Answer (a valid proof, a wrong one, a refusal or raw bytes),
// and, once accepted, frames (WRITE, READ, SEND, atomics, replies, any op) whose address,
// rkey, lengths and payload the input chooses around the victim's registered memory.
// Never the same-host route: the Hello claims no boot id, so no pid or fd is ever used.
// Promises checked: memory outside the MR and a second MR of another access stays
// untouched (a canary), nothing crashes, leaks or hangs.
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "../softverbs/src/siphash.h"
#include "../softverbs/src/wire.h"
#include "../softverbs/tests/verbs_fixture.h"
#include "input_reader.h"

using hcts_fuzz::InputReader;
using namespace sv;
using namespace svt;

namespace {

constexpr char kSecret[] = "fuzz_handshake secret";
constexpr size_t kMrBytes = 1 << 16;
constexpr size_t kCanary = 4096; // bytes of guard on each side of the MR
constexpr uint8_t kCanaryByte = 0xc5;

using SetSecret = int (*)(ibv_qp *, const void *, size_t);

struct World {
    Device dev;
    std::vector<uint8_t> mem = std::vector<uint8_t>(kMrBytes + 2 * kCanary, kCanaryByte);
    Mr mr{dev.pd, mem.data() + kCanary, kMrBytes, kAllAccess};
    std::vector<uint8_t> ro = std::vector<uint8_t>(4096, 0x3c); // registered without remote access
    Mr ro_mr{dev.pd, ro.data(), ro.size(), IBV_ACCESS_LOCAL_WRITE};
    int dead_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0); // "the attacker's" GID port
    uint16_t dead_port = 0;
    SetSecret set_secret = reinterpret_cast<SetSecret>(dlsym(RTLD_DEFAULT, "softverbs_set_qp_secret"));
    World()
    {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t n = sizeof a;
        if (bind(dead_fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 ||
            getsockname(dead_fd, reinterpret_cast<sockaddr *>(&a), &n) != 0)
            fail("bind");
        dead_port = ntohs(a.sin_port);
        if (!set_secret)
            fail("softverbs_set_qp_secret not found: is softverbs' libibverbs.so.1 on LD_LIBRARY_PATH?");
    }
};

World &world()
{
    static World *w = new World; // lives as long as the library's threads
    return *w;
}

struct Gid {
    uint32_t ip;
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

bool send_all(int fd, const void *p, size_t n) { return send(fd, p, n, MSG_NOSIGNAL) == static_cast<ssize_t>(n); }

// Reads exactly n bytes within ms, else false.
bool recv_within(int fd, void *p, size_t n, int ms)
{
    size_t got = 0;
    while (got < n) {
        pollfd q{fd, POLLIN, 0};
        if (poll(&q, 1, ms) <= 0)
            return false;
        const ssize_t k = recv(fd, static_cast<uint8_t *>(p) + got, n - got, MSG_DONTWAIT);
        if (k <= 0)
            return false;
        got += static_cast<size_t>(k);
    }
    return true;
}

void drain(int fd, int ms)
{
    uint8_t junk[4096];
    for (;;) {
        pollfd q{fd, POLLIN, 0};
        if (poll(&q, 1, ms) <= 0 || recv(fd, junk, sizeof junk, MSG_DONTWAIT) <= 0)
            return;
    }
}

Frame fuzzed_frame(InputReader &in, World &w, uint64_t &seq)
{
    static const uint8_t kOps[] = {kWrite,    kWriteImm, kSend, kSendImm,  kRead,      kCmpSwp,
                                   kFetchAdd, kAck,      kNak,  kReadResp, kAtomicResp};
    Frame f{};
    const uint8_t pick = in.u8();
    f.op = pick < 240 ? kOps[pick % sizeof kOps] : in.u8();
    f.flags = in.below(8) == 0 ? in.u8() : 0;
    f.seq = in.below(8) == 0 ? in.u64() : ++seq;
    const uint64_t base = reinterpret_cast<uintptr_t>(w.mr.mr->addr);
    switch (in.below(6)) {
    case 0: f.raddr = in.u64(); break;
    case 1: f.raddr = base - in.u16(); break;                                    // before the MR
    case 2: f.raddr = base + kMrBytes - in.u16() % 256; break;                   // straddling its end
    case 3: f.raddr = reinterpret_cast<uintptr_t>(w.ro.data()) + in.u8(); break; // the MR without remote access
    default: f.raddr = base + in.u32() % kMrBytes; break;
    }
    switch (in.below(6)) {
    case 0: f.rkey = in.u32(); break;
    case 1: f.rkey = w.mr.mr->rkey ^ (1u << (in.u8() % 32)); break; // another generation or index
    case 2: f.rkey = w.ro_mr.mr->rkey; break;
    default: f.rkey = w.mr.mr->rkey; break;
    }
    f.imm = in.u32();
    f.a = in.u64();
    f.b = in.u64();
    const bool carries = f.op == kWrite || f.op == kWriteImm || f.op == kSend || f.op == kSendImm || f.op == kReadResp;
    f.len = in.below(4) == 0 ? in.u32() : in.u16() % 8192;
    f.plen = carries ? f.len : 0;
    if (in.below(8) == 0)
        f.plen = in.u16() % 8192; // inconsistent with len
    return f;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    InputReader in(data, size);
    World &w = world();
    // A fresh victim per input: the last input's connection, state and queued work go with it.
    auto v = std::make_unique<Qp>(w.dev, 16);
    if (w.set_secret(v->qp, kSecret, sizeof kSecret - 1) != 0)
        fail("softverbs_set_qp_secret");
    const Gid me = parse(v->endpoint().gid);
    const Gid claim{me.ip, w.dead_port, 0x1235};
    Endpoint fake{};
    fake.gid = v->endpoint().gid;
    fake.gid.raw[12] = static_cast<uint8_t>(claim.port >> 8);
    fake.gid.raw[13] = static_cast<uint8_t>(claim.port);
    fake.gid.raw[14] = static_cast<uint8_t>(claim.salt >> 8);
    fake.gid.raw[15] = static_cast<uint8_t>(claim.salt);
    fake.qpn = 0x4242;
    v->connect(fake); // its own connection to the dead port fails; it stays RTS and waits for its peer
    for (int i = 0; i < 4; ++i)
        v->recv(100 + i, w.mr.mr, static_cast<uint64_t>(i) * 4096, 4096);

    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = me.ip;
    a.sin_port = htons(me.port);
    if (fd < 0 || connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0)
        fail("cannot connect to the victim's listener");
    if (in.below(6) == 0) { // raw bytes where the Hello goes
        std::vector<uint8_t> raw(in.u16() % 400);
        for (auto &b : raw)
            b = in.u8();
        send_all(fd, raw.data(), raw.size());
    } else {
        Hello h{};
        h.magic = kHelloMagic;
        h.dest_qpn = v->qp->qp_num;
        h.src_qpn = fake.qpn;
        h.rnr_retry = 7;
        h.src_ip = claim.ip;
        h.src_port = claim.port;
        h.src_salt = claim.salt;
        h.table_fd = -1;
        for (auto &b : h.nonce)
            b = in.u8();
        switch (in.below(8)) {
        case 0: { // any Hello at all, but never a same-host claim
            in.overwrite(h);
            std::memset(h.boot_id, 0, sizeof h.boot_id);
            h.pid = 0;
            h.table_fd = -1;
            break;
        }
        case 1: h.dest_qpn = in.u32(); break;
        case 2: h.src_qpn = in.u32(); break;
        case 3: h.src_port = in.u16(), h.src_salt = in.u16(); break;
        case 4: h.rnr_retry = in.u8(); break;
        default: break;
        }
        Challenge ch{};
        if (send_all(fd, &h, sizeof h) && recv_within(fd, &ch, sizeof ch, 500) && ch.status == 0) {
            Answer ans{};
            ans.magic = kHelloMagic;
            ans.proof = handshake_proof(kSecret, 'C', h.nonce, ch.nonce, h.dest_qpn, h.src_qpn);
            switch (in.below(8)) {
            case 0: in.overwrite(ans); break;
            case 1: ans.proof.w[in.below(2)] ^= 1; break;
            case 2:
                ans.status = kAnswerRefused;
                ans.proof = {};
                break;
            default: break;
            }
            HelloReply rep{};
            if (send_all(fd, &ans, sizeof ans) && recv_within(fd, &rep, sizeof rep, 500) && rep.status == 0) {
                uint64_t seq = 0;
                const int frames = 1 + static_cast<int>(in.below(8));
                for (int i = 0; i < frames && !in.empty(); ++i) {
                    const Frame f = fuzzed_frame(in, w, seq);
                    std::vector<uint8_t> b(sizeof f + std::min<uint32_t>(f.plen, 8192));
                    std::memcpy(b.data(), &f, sizeof f);
                    for (size_t k = sizeof f; k < b.size(); ++k)
                        b[k] = in.u8();
                    if (!send_all(fd, b.data(), b.size()))
                        break;
                }
            }
        }
    }
    drain(fd, 20);
    close(fd);
    ibv_wc wc[16];
    while (ibv_poll_cq(v->rcq, 16, wc) > 0 || ibv_poll_cq(v->scq, 16, wc) > 0) {
    }
    v.reset();
    // Nothing outside the MR, and nothing in the MR without remote access, was written.
    for (size_t i = 0; i < kCanary; ++i)
        if (w.mem[i] != kCanaryByte || w.mem[kCanary + kMrBytes + i] != kCanaryByte) {
            std::fprintf(stderr, "fuzz_handshake: a byte outside the MR was written\n");
            std::abort();
        }
    for (uint8_t b : w.ro)
        if (b != 0x3c) {
            std::fprintf(stderr, "fuzz_handshake: the MR without remote access was written\n");
            std::abort();
        }
    return 0;
}
