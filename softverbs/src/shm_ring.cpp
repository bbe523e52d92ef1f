// Shared-memory rings between same-host peers and the futex doorbell that wakes a
// sleeping consumer; see shm_ring.h.
#include "shm_ring.h"

#include <hcts/mutant.h>

#include "dma.h"
#include "sv.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <new>

namespace sv {

namespace {

constexpr uint64_t round_up(uint64_t n) { return (n + kRingAlign - 1) / kRingAlign * kRingAlign; }

uint32_t *futex_word(const std::atomic<uint32_t> &a)
{
    return reinterpret_cast<uint32_t *>(const_cast<std::atomic<uint32_t> *>(&a));
}

} // namespace

std::unique_ptr<ShmRing> ShmRing::create()
{
    int fd = memfd_create("softverbs-ring", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(kRingSegBytes)) != 0) {
        log(1, "cannot create a shared-memory ring: %s", std::strerror(errno));
        if (fd >= 0)
            close(fd);
        return nullptr;
    }
    void *m = mmap(nullptr, kRingSegBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        close(fd);
        return nullptr;
    }
    std::unique_ptr<ShmRing> r(new ShmRing);
    r->base_ = static_cast<uint8_t *>(m);
    r->seg_ = new (m) RingSeg{};
    r->seg_->magic = kRingMagic;
    r->fd_ = fd;
    r->out_ = 1;
    return r;
}

void *map_peer_fd(int pid, int fd, size_t bytes, const char *what)
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    int f = open(path, O_RDWR | O_CLOEXEC);
    if (f < 0) {
        log(1, "cannot open the peer's %s %s (%s); using TCP", what, path, std::strerror(errno));
        return nullptr;
    }
    struct stat st {};
    void *m = MAP_FAILED;
    if (fstat(f, &st) == 0 && static_cast<size_t>(st.st_size) == bytes)
        m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
    else
        log(1, "the peer's %s %s is %lld bytes, not %zu; using TCP", what, path, static_cast<long long>(st.st_size),
            bytes);
    close(f);
    return m == MAP_FAILED ? nullptr : m;
}

std::unique_ptr<ShmRing> ShmRing::open_peer(int pid, int fd, bool requester)
{
    void *m = map_peer_fd(pid, fd, kRingSegBytes, "ring");
    if (!m)
        return nullptr;
    std::unique_ptr<ShmRing> r(new ShmRing);
    r->base_ = static_cast<uint8_t *>(m);
    r->seg_ = static_cast<RingSeg *>(m);
    r->out_ = requester ? 0 : 1;
    if (r->seg_->magic != kRingMagic)
        return nullptr;
    return r;
}

ShmRing::~ShmRing()
{
    if (base_)
        munmap(base_, kRingSegBytes);
    close_fd();
}

void ShmRing::close_fd()
{
    if (fd_ >= 0)
        close(fd_);
    fd_ = -1;
}

bool ShmRing::put(const Frame &f0, const uint8_t *chunk, uint32_t n)
{
    RingDir &d = out();
    uint64_t tail = d.tail.load(std::memory_order_relaxed);
    uint64_t rec = round_up(sizeof(Frame) + n);
    uint64_t pos = tail % kRingBytes, to_end = kRingBytes - pos;
    // A record that does not fit before the end needs the padding up to it as well.
    // Mutant (selftest/catalogue/blind3.yaml): the padding is left out of the room needed.
    uint64_t need = rec + (to_end < rec && !hcts::mutant("sv_ring_wrap_room_without_pad") ? to_end : 0);
    // A hostile consumer may publish any head: never trust it beyond the ring's size.
    const auto room = [&](uint64_t head) {
        return head <= tail && tail - head <= kRingBytes && kRingBytes - (tail - head) >= need;
    };
    if (!room(head_seen_)) {
        // seq_cst: pairs with the consumer (head store, then producer_waiting load) so that
        // a producer that just asked to be woken either sees the room made or is woken.
        uint64_t head = d.head.load(std::memory_order_seq_cst);
        if (!room(head))
            return false;
        head_seen_ = head;
    }
    uint8_t *base = data(out_);
    if (to_end < rec) {
        Frame pad{};
        pad.plen = static_cast<uint32_t>(to_end - sizeof(Frame));
        std::memcpy(base + pos, &pad, sizeof pad);
        tail += to_end;
        pos = 0;
    }
    Frame f = f0;
    f.plen = n;
    std::memcpy(base + pos, &f, sizeof f);
    if (n)
        dma_copy(base + pos + sizeof f, chunk, n); // may read application memory
    d.tail.store(tail + rec, std::memory_order_seq_cst);
    return true;
}

bool ShmRing::push(const Frame &f0, const uint8_t *payload, size_t len, size_t *off)
{
    do {
        size_t n = std::min<size_t>(len - *off, kRingChunk);
        Frame f = f0;
        f.flags = static_cast<uint8_t>((f0.flags & ~kMore) | (*off + n < len ? kMore : 0));
        if (!put(f, payload + *off, static_cast<uint32_t>(n)))
            return false;
        *off += n;
    } while (*off < len);
    return true;
}

bool ShmRing::send(const Frame &f, const void *payload, size_t len)
{
    const auto *p = static_cast<const uint8_t *>(payload);
    size_t off = 0;
    if (overflow_.empty() && push(f, p, len, &off))
        return true;
    // The ring is full: the rest waits here (copied: the caller's buffer may go), and the
    // consumer wakes us when it has made room.
    // Mutant: the whole payload is queued, so the chunks already in the ring travel twice.
    const size_t from = hcts::mutant("sv_ring_overflow_queues_whole") ? 0 : off;
    overflow_.push_back({f, std::vector<uint8_t>(p + from, p + len), 0});
    overflow_.back().f.len = f.len;
    out().producer_waiting.store(1, std::memory_order_seq_cst);
    bool moved = flush(); // the consumer may have made room meanwhile
    return off > 0 || moved;
}

bool ShmRing::flush()
{
    bool moved = false;
    while (!overflow_.empty()) {
        Msg &m = overflow_.front();
        size_t before = m.off;
        // The message's chunks already in the ring carried kMore; the rest continue it.
        bool all = push(m.f, m.payload.data(), m.payload.size(), &m.off);
        moved |= m.off != before || all;
        if (!all) {
            out().producer_waiting.store(1, std::memory_order_seq_cst);
            return moved;
        }
        overflow_.pop_front();
    }
    return moved;
}

bool ShmRing::has_input() const
{
    return in().tail.load(std::memory_order_acquire) != in().head.load(std::memory_order_relaxed);
}

int ShmRing::next_record(Frame *f, const uint8_t **payload, uint64_t *rec)
{
    RingDir &d = in();
    uint64_t head = d.head.load(std::memory_order_relaxed);
    uint64_t tail = d.tail.load(std::memory_order_acquire);
    if (head == tail)
        return 0;
    if (tail < head || tail - head > kRingBytes || (tail - head) % kRingAlign)
        return -1;
    uint64_t pos = head % kRingBytes;
    const uint8_t *base = data(1 - out_);
    std::memcpy(f, base + pos, sizeof *f); // one copy: the producer may change the ring under us
    if (f->plen > kRingChunk || sizeof(Frame) + uint64_t{f->plen} > kRingBytes - pos)
        return -1;
    *rec = round_up(sizeof(Frame) + f->plen);
    if (f->op == 0 && *rec != kRingBytes - pos)
        return -1; // padding must reach exactly the end of the ring
    if (*rec > tail - head)
        return -1;
    *payload = base + pos + sizeof(Frame);
    return 1;
}

namespace {

uint64_t now_ns()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

} // namespace

void poll_lease_renew(MrTable *t)
{
    uint64_t now = now_ns();
    if (t->poll_lease.load(std::memory_order_relaxed) < now + kPollLeaseNs / 2)
        t->poll_lease.store(now + kPollLeaseNs, std::memory_order_seq_cst);
}

void poll_lease_drop(MrTable *t)
{
    if (t->poll_lease.load(std::memory_order_relaxed))
        t->poll_lease.store(0, std::memory_order_seq_cst);
}

void doorbell_ring(const MrTable *t)
{
    auto &bell = const_cast<MrTable *>(t)->doorbell;
    bell.fetch_add(1, std::memory_order_seq_cst);
    if (!t->sleepers.load(std::memory_order_seq_cst))
        return;
    // A polling thread of the peer will find the frame; the sleeping waiter need not be
    // woken if it wakes by itself before that poller's lease runs out.
    uint64_t lease = t->poll_lease.load(std::memory_order_seq_cst);
    if (lease > now_ns() && t->waiter_until.load(std::memory_order_seq_cst) <= lease)
        return;
    syscall(SYS_futex, futex_word(bell), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

bool poll_lease_held(const MrTable *t) { return t->poll_lease.load(std::memory_order_seq_cst) > now_ns(); }

namespace {

// Sleeps on the doorbell while it still reads `seen`, `wait_ns` at most (from `now`); producers
// wake us unless a poller's lease outlasts our deadline.
void doorbell_sleep(MrTable *t, uint32_t seen, uint64_t now, uint64_t wait_ns)
{
    t->waiter_until.store(now + wait_ns, std::memory_order_seq_cst);
    t->sleepers.fetch_add(1, std::memory_order_seq_cst);
    timespec ts{static_cast<time_t>(wait_ns / 1000000000u), static_cast<long>(wait_ns % 1000000000u)};
    syscall(SYS_futex, futex_word(t->doorbell), FUTEX_WAIT, seen, &ts, nullptr, 0);
    t->sleepers.fetch_sub(1, std::memory_order_seq_cst);
}

} // namespace

void doorbell_wait(MrTable *t, uint32_t seen, int timeout_ms)
{
    if (const uint64_t now = now_ns(), lease = t->poll_lease.load(std::memory_order_seq_cst); lease > now) {
        // A poller of ours consumes the rings: sleep until its lease runs out, whatever the
        // doorbell does meanwhile (producers do not wake us before then). Waking at every ring
        // to find the rings' lock held by the poller cost a stream of 1 MiB writes 1.2-1.6
        // context switches per message, each a mutex hand-off between waiter and poller.
        doorbell_sleep(t, t->doorbell.load(std::memory_order_seq_cst), now,
                       std::min(lease - now, uint64_t(timeout_ms) * 1000000u));
        return;
    }
    auto rung = [&] { return t->doorbell.load(std::memory_order_acquire) != seen; };
    // A short spin catches a peer answering at once.
    for (int i = 0; i < 200; ++i) {
        if (rung())
            return;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    // Adaptive: while frames keep arriving within a few microseconds of each other (a
    // ping-pong with a peer whose program does not poll for us), the waiter keeps looking
    // a little longer, yielding the CPU at every look (the machine may have two cores);
    // when the doorbell goes quiet the spin shrinks away and the waiter sleeps at once.
    // Not while a poller of ours holds the lease: that poller consumes the rings.
    static thread_local uint64_t spin_ns = 0;
    constexpr uint64_t kMaxSpinNs = 20'000;
    uint64_t start = now_ns();
    if (spin_ns && t->poll_lease.load(std::memory_order_relaxed) <= start) {
        while (now_ns() - start < spin_ns) {
            sched_yield();
            if (rung()) {
                spin_ns = std::min(kMaxSpinNs, spin_ns * 2);
                return;
            }
        }
    }
    uint64_t now = now_ns(), wait = uint64_t(timeout_ms) * 1000000u;
    uint64_t lease = t->poll_lease.load(std::memory_order_seq_cst);
    if (lease > now)
        wait = std::min(wait, lease - now); // a poller may stop polling: take over when its lease ends
    // A poller that took the lease after we read it: producers then wake us (our deadline is later).
    doorbell_sleep(t, seen, now, wait);
    // Rung soon after we gave up spinning: traffic is dense enough to spin for next time.
    uint64_t slept = now_ns() - start;
    if (rung() && slept < 2 * kMaxSpinNs)
        spin_ns = std::clamp<uint64_t>(spin_ns * 2, 2'000, kMaxSpinNs);
    else
        spin_ns /= 2;
}

} // namespace sv
