// The same-host rings on their own (src/shm_ring.cpp compiled in): both ends in one
// process, the requester end mapped through /proc/self/fd as a peer maps it.
// Messages arrive whole and in order across wrap-around and chunking; a full ring
// keeps the rest in order and asks to be woken; a hostile producer's ring is refused.
#include "shm_ring.h"
#include "sv.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstring>
#include <deque>
#include <numeric>
#include <string>
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

// A producer and a consumer that checks each message as it arrives: whole, in
// order, its bytes intact.
struct Stream {
    Pair p;
    std::deque<std::pair<uint64_t, std::vector<uint8_t>>> pending; // sent, not yet arrived
    uint64_t seq = 0, arrived = 0;
    std::string bad; // the first message that arrived wrong

    void send(size_t n)
    {
        auto data = pattern(n, static_cast<uint8_t>(seq * 31 + n));
        p.requester->send(frame(++seq, static_cast<uint32_t>(n)), data.data(), n);
        pending.emplace_back(seq, std::move(data));
    }
    // A message whose one record takes exactly `rec` bytes (64 <= rec <= kRingChunk).
    void send_record(uint64_t rec) { send(static_cast<size_t>(rec - sizeof(Frame))); }
    // Consumes at most `limit` records; false on a refused ring.
    bool drain(size_t limit)
    {
        size_t taken = 0;
        bool wake = false;
        return p.responder->drain(
                   [&](const Frame &f, const uint8_t *d) {
                       ++taken;
                       ++arrived;
                       if (!bad.empty())
                           return RingVerdict::kGo;
                       if (pending.empty()) {
                           bad = "message seq " + std::to_string(f.seq) + " arrived, none was pending";
                           return RingVerdict::kGo;
                       }
                       const auto &[want_seq, want] = pending.front();
                       if (f.seq != want_seq || f.plen != want.size() || std::memcmp(d, want.data(), want.size()) != 0)
                           bad = "message seq " + std::to_string(want_seq) + " (" + std::to_string(want.size()) +
                                 " bytes) arrived as seq " + std::to_string(f.seq) + " with " + std::to_string(f.plen) +
                                 " bytes, not intact";
                       pending.pop_front();
                       return RingVerdict::kGo;
                   },
                   [&] { return taken < limit; }, &wake) >= 0;
    }
    // Drains and flushes until every message sent arrived; "" or what went wrong.
    std::string finish()
    {
        for (int i = 0; i < 10000 && !pending.empty() && bad.empty(); ++i) {
            p.requester->flush();
            if (!drain(SIZE_MAX))
                return "the consumer refused the ring (a record was overwritten) after " + std::to_string(arrived) +
                       " messages";
        }
        if (!bad.empty())
            return bad;
        if (!pending.empty())
            return std::to_string(pending.size()) + " of " + std::to_string(seq) + " messages never arrived";
        return {};
    }
};

// Fills `bytes` (a multiple of kRingAlign) of the ring with whole records.
void fill(Stream &s, uint64_t bytes)
{
    while (bytes > 0) {
        const uint64_t rec = std::min<uint64_t>(bytes, kRingChunk);
        s.send_record(rec);
        bytes -= rec;
    }
}

// The wrap point for every alignment: a record of `rec` bytes that does not fit in
// the `to_end` bytes left before the end needs rec + to_end bytes of room (the
// padding, then the record at the start). For every to_end (each 64-byte position
// of the ring's last chunk) and records just longer and mid-size or the largest, with
// payloads of every length modulo 64, the unread bytes are set so the room is one
// alignment unit short of that, then exactly that: short, the message must wait in
// the overflow queue; either way every message arrives whole and in order. A
// producer that forgets the padding writes over the oldest unread record.
TEST(ShmRing, WrapPointEveryAlignmentNeedsRoomForThePadding)
{
    const uint64_t largest = (sizeof(Frame) + kRingChunk + kRingAlign - 1) / kRingAlign * kRingAlign;
    int runs = 0;
    for (uint64_t to_end = kRingAlign; to_end < largest; to_end += kRingAlign) {
        const uint64_t k = to_end / kRingAlign;
        for (uint64_t rec :
             {to_end + kRingAlign, k % 2 ? std::min(largest, to_end + kRingAlign * (1 + k % 97)) : largest}) {
            // Every payload length modulo 64 that still takes `rec` bytes.
            const size_t n = static_cast<size_t>(rec - sizeof(Frame) -
                                                 (k * 7) % std::min<uint64_t>(kRingAlign, rec - sizeof(Frame) + 1));
            ASSERT_EQ((sizeof(Frame) + n + kRingAlign - 1) / kRingAlign * kRingAlign, rec);
            for (const uint64_t short_by : {uint64_t{kRingAlign}, uint64_t{0}}) {
                Stream s;
                ASSERT_TRUE(s.p.requester);
                // Unread records [pos - used, pos) with pos = kRingBytes - to_end, so the room is
                // rec + to_end - short_by; the bytes before them were produced and consumed.
                const uint64_t used = kRingBytes - (rec + to_end - short_by);
                const uint64_t before = kRingBytes - to_end - used;
                fill(s, before);
                ASSERT_TRUE(s.drain(SIZE_MAX));
                ASSERT_TRUE(s.pending.empty() && s.bad.empty()) << s.bad;
                fill(s, used);
                s.send(n);
                if (short_by != 0) {
                    EXPECT_TRUE(s.p.requester->has_overflow())
                        << "to_end " << to_end << ", record " << rec << ": room " << (rec + to_end - short_by)
                        << " bytes is short of the record and its padding (" << (rec + to_end)
                        << "), but the producer wrote the record";
                }
                const std::string bad = s.finish();
                ASSERT_EQ(bad, "") << "to_end " << to_end << ", record " << rec << " (payload " << n << "), room "
                                   << (rec + to_end - short_by) << " bytes";
                ++runs;
            }
        }
    }
    EXPECT_EQ(runs, 4 * 1024);
}

// Traffic whose sizes walk across the wrap point while the consumer lags by a
// varying number of records: sizes 0..3 chunks (every length modulo 64), the
// consumer taking 0..5 records between sends, long enough to wrap the ring
// hundreds of times. Every message arrives whole and in order.
TEST(ShmRing, LaggingConsumerAcrossManyWraps)
{
    Stream s;
    ASSERT_TRUE(s.p.requester);
    uint64_t x = 12345;
    const auto next = [&] {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        return x >> 33;
    };
    size_t bytes = 0;
    for (int i = 0; i < 6000; ++i) {
        const uint64_t pick = next() % 8;
        const size_t n = pick < 4 ? next() % 256 : pick < 7 ? next() % kRingChunk : next() % (3 * kRingChunk);
        s.send(n);
        bytes += n;
        s.p.requester->flush();
        ASSERT_TRUE(s.drain(next() % 6)) << "message " << i << ": the consumer refused the ring";
    }
    EXPECT_GT(bytes, 200 * size_t{kRingBytes});
    EXPECT_EQ(s.finish(), "");
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
