// The same-host rings on their own (src/shm_ring.cpp compiled in): both ends in one
// process, the requester end mapped through /proc/self/fd as a peer maps it.
// Messages arrive whole and in order across wrap-around and chunking; a full ring
// keeps the rest in order and asks to be woken; a hostile producer's ring is refused.
#include "shm_ring.h"
#include "sv.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdarg>
#include <cstring>
#include <numeric>
#include <vector>

namespace sv {
void log(int, const char *, ...) {} // the library's logger is not linked in
} // namespace sv

using namespace sv;

namespace {

struct Got {
    Frame f;
    std::vector<uint8_t> payload;
};

struct Pair {
    std::unique_ptr<ShmRing> responder = ShmRing::create();
    std::unique_ptr<ShmRing> requester =
        responder ? ShmRing::open_peer(static_cast<int>(getpid()), responder->fd(), true) : nullptr;

    // Drains the responder end; -1 on a refused ring.
    int drain(std::vector<Got> *out, bool *wake)
    {
        return responder->drain(
            [&](const Frame &f, const uint8_t *p) {
                out->push_back({f, std::vector<uint8_t>(p, p + f.plen)});
                return RingVerdict::kGo;
            },
            [] { return true; }, wake);
    }
};

Frame frame(uint64_t seq, uint32_t len)
{
    Frame f{};
    f.op = kSend;
    f.seq = seq;
    f.len = len;
    return f;
}

std::vector<uint8_t> pattern(size_t n, uint8_t salt)
{
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = static_cast<uint8_t>(i * 7 + salt);
    return v;
}

TEST(ShmRing, MessagesArriveWholeInOrderAcrossWrapAndChunks)
{
    Pair p;
    ASSERT_TRUE(p.requester) << "cannot map the ring through /proc/self/fd";
    // Sizes that wrap the ring many times, including ones cut into chunks (> kRingChunk).
    const size_t sizes[] = {0, 1, 8, 100, 4000, kRingChunk - 56, kRingChunk, kRingChunk + 1, 3 * kRingChunk + 5, 777};
    uint64_t seq = 0;
    for (int round = 0; round < 20; ++round) {
        for (size_t n : sizes) {
            auto data = pattern(n, static_cast<uint8_t>(seq));
            p.requester->send(frame(++seq, static_cast<uint32_t>(n)), data.data(), n);
            std::vector<Got> got;
            bool wake = false;
            // A message larger than the ring's free room waits in the overflow queue.
            for (int i = 0; i < 16 && got.empty(); ++i) {
                ASSERT_GE(p.drain(&got, &wake), 0);
                p.requester->flush();
            }
            ASSERT_EQ(got.size(), 1u) << "size " << n << " round " << round;
            EXPECT_EQ(got[0].f.seq, seq);
            EXPECT_EQ(got[0].f.plen, n);
            EXPECT_EQ(got[0].f.flags & kMore, 0);
            EXPECT_EQ(got[0].payload, data) << "size " << n;
        }
    }
}

TEST(ShmRing, FullRingKeepsOrderAndAsksToBeWoken)
{
    Pair p;
    ASSERT_TRUE(p.requester);
    const size_t n = 10000;
    const int count = 3 * kRingBytes / n; // three rings' worth: most of it overflows
    for (int i = 0; i < count; ++i) {
        auto data = pattern(n, static_cast<uint8_t>(i));
        p.requester->send(frame(static_cast<uint64_t>(i), n), data.data(), n);
    }
    EXPECT_TRUE(p.requester->has_overflow());
    std::vector<Got> got;
    bool wake = false;
    ASSERT_GT(p.drain(&got, &wake), 0);
    EXPECT_TRUE(wake) << "a consumer that made room must wake the waiting producer";
    while (static_cast<int>(got.size()) < count) {
        size_t before = got.size();
        p.requester->flush();
        ASSERT_GE(p.drain(&got, &wake), 0);
        ASSERT_GT(got.size(), before) << "no progress after " << before << " messages";
    }
    EXPECT_FALSE(p.requester->has_overflow());
    for (int i = 0; i < count; ++i) {
        EXPECT_EQ(got[static_cast<size_t>(i)].f.seq, static_cast<uint64_t>(i));
        EXPECT_EQ(got[static_cast<size_t>(i)].payload, pattern(n, static_cast<uint8_t>(i)));
    }
}

TEST(ShmRing, RepliesTravelTheOtherWay)
{
    Pair p;
    ASSERT_TRUE(p.requester);
    Frame ack{};
    ack.op = kAck;
    ack.seq = 42;
    p.responder->send(ack, nullptr, 0);
    std::vector<Got> got;
    bool wake = false;
    EXPECT_EQ(p.drain(&got, &wake), 0) << "the responder must not read its own replies";
    int n = p.requester->drain(
        [&](const Frame &f, const uint8_t *) {
            got.push_back({f, {}});
            return RingVerdict::kGo;
        },
        [] { return true; }, &wake);
    ASSERT_EQ(n, 1);
    EXPECT_EQ(got[0].f.op, kAck);
    EXPECT_EQ(got[0].f.seq, 42u);
}

// The producer's side of the segment, written as a hostile peer would.
struct Forge {
    uint8_t *base;
    RingDir &d() { return reinterpret_cast<RingSeg *>(base)->dir[0]; }
    uint8_t *data() { return base + kRingDataOff; }
};

TEST(ShmRing, HostileProducerIsRefused)
{
    auto check = [](const char *what, auto forge) {
        Pair p;
        ASSERT_TRUE(p.requester);
        // Reach the segment through a fresh requester mapping: one message to learn the layout.
        p.requester->send(frame(1, 0), nullptr, 0);
        std::vector<Got> got;
        bool wake = false;
        ASSERT_EQ(p.drain(&got, &wake), 1);
        void *m = mmap(nullptr, kRingSegBytes, PROT_READ | PROT_WRITE, MAP_SHARED, p.responder->fd(), 0);
        ASSERT_NE(m, MAP_FAILED);
        Forge f{static_cast<uint8_t *>(m)};
        forge(f);
        EXPECT_EQ(p.drain(&got, &wake), -1) << what;
        munmap(m, kRingSegBytes);
    };
    check("tail beyond a full ring", [](Forge f) { f.d().tail.store(f.d().head.load() + kRingBytes + kRingAlign); });
    check("tail not on a record boundary", [](Forge f) { f.d().tail.store(f.d().head.load() + 8); });
    check("payload longer than a chunk", [](Forge f) {
        Frame x = frame(2, 1u << 20);
        x.plen = 1u << 20;
        std::memcpy(f.data() + f.d().head.load() % kRingBytes, &x, sizeof x);
        f.d().tail.store(f.d().head.load() + kRingAlign);
    });
    check("record longer than what was published", [](Forge f) {
        Frame x = frame(2, 1000);
        x.plen = 1000;
        std::memcpy(f.data() + f.d().head.load() % kRingBytes, &x, sizeof x);
        f.d().tail.store(f.d().head.load() + kRingAlign);
    });
    check("padding that does not reach the end", [](Forge f) {
        Frame x{};
        std::memcpy(f.data() + f.d().head.load() % kRingBytes, &x, sizeof x);
        f.d().tail.store(f.d().head.load() + kRingAlign);
    });
    check("chunks of a message beyond its length", [](Forge f) {
        uint64_t h = f.d().head.load();
        for (int i = 0; i < 2; ++i) {
            Frame x = frame(2, 8);
            x.flags = kMore;
            x.plen = 8;
            std::memcpy(f.data() + (h + uint64_t(i) * kRingAlign) % kRingBytes, &x, sizeof x);
        }
        f.d().tail.store(h + 2 * kRingAlign);
    });
}

// The consumer's side of the segment, written as a hostile peer would: a head that claims
// room the producer never gave (beyond its tail) is never trusted, though the producer keeps
// the last head it validated and reads the shared one only when that shows no room.
TEST(ShmRing, HostileConsumerHeadIsNotTrusted)
{
    Pair p;
    ASSERT_TRUE(p.requester);
    const size_t n = 10000;
    for (int i = 0; i < static_cast<int>(2 * kRingBytes / n); ++i) {
        auto data = pattern(n, static_cast<uint8_t>(i));
        p.requester->send(frame(static_cast<uint64_t>(i), n), data.data(), n);
    }
    ASSERT_TRUE(p.requester->has_overflow()) << "the ring should be full";
    void *m = mmap(nullptr, kRingSegBytes, PROT_READ | PROT_WRITE, MAP_SHARED, p.responder->fd(), 0);
    ASSERT_NE(m, MAP_FAILED);
    Forge f{static_cast<uint8_t *>(m)};
    const uint64_t tail = f.d().tail.load();
    for (uint64_t bogus : {tail + kRingAlign, tail + kRingBytes, ~uint64_t{0} - kRingAlign + 1}) {
        f.d().head.store(bogus);
        EXPECT_FALSE(p.requester->flush()) << "head " << bogus << " beyond tail " << tail;
        EXPECT_EQ(f.d().tail.load(), tail) << "the producer wrote on the strength of head " << bogus;
        EXPECT_TRUE(p.requester->has_overflow());
    }
    munmap(m, kRingSegBytes);
}

TEST(ShmRing, ReachableOnlyWhileTheFdIsOpen)
{
    Pair p;
    ASSERT_TRUE(p.requester);
    int fd = p.responder->fd();
    p.responder->close_fd();
    EXPECT_EQ(ShmRing::open_peer(static_cast<int>(getpid()), fd, true), nullptr)
        << "once the requester has mapped it, the ring must not be reachable through /proc any more";
}

} // namespace
