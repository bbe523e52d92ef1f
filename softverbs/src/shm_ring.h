// The same-host notify path: one shared-memory segment per connection (requester
// QP -> responder QP) holding two single-producer single-consumer rings of frames,
// requests one way and replies the other, in the wire format of wire.h. Either
// side consumes them from whichever of its threads gets there first (ibv_poll_cq,
// or the process's shm waiter, which sleeps on the process's futex doorbell).
// The peer's ring contents are untrusted input: every record is checked.
#pragma once

#include "wire.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace sv {

struct MrTable;

inline constexpr uint32_t kRingBytes = 256u << 10;     // per direction
inline constexpr uint32_t kRingAlign = 64;             // records start on this boundary
inline constexpr uint32_t kRingChunk = kRingBytes / 4; // larger payloads travel in chunks (kMore)
inline constexpr uint32_t kRingMaxMessage = 1u << 30;  // kMaxMsg
inline constexpr uint64_t kRingMagic = 0x31474e4952565300ULL;

struct RingDir {
    alignas(64) std::atomic<uint64_t> head;             // bytes consumed; written by the consumer only
    alignas(64) std::atomic<uint64_t> tail;             // bytes produced; written by the producer only
    alignas(64) std::atomic<uint32_t> producer_waiting; // the producer has frames the ring could not take
};
struct RingSeg {
    uint64_t magic;
    RingDir dir[2]; // 0: requests, 1: replies
};
inline constexpr size_t kRingDataOff = 4096;
static_assert(sizeof(RingSeg) <= kRingDataOff);
inline constexpr size_t kRingSegBytes = kRingDataOff + 2 * size_t{kRingBytes};

// What a consumer callback says about one message.
enum class RingVerdict { kGo, kBad };

class ShmRing {
  public:
    // The responder creates the segment (a memfd); the requester opens it through
    // /proc/<pid>/fd/<fd>. null on failure.
    static std::unique_ptr<ShmRing> create();
    static std::unique_ptr<ShmRing> open_peer(int pid, int fd, bool requester);
    ~ShmRing();
    ShmRing(const ShmRing &) = delete;
    ShmRing &operator=(const ShmRing &) = delete;

    int fd() const { return fd_; }
    void close_fd(); // once the peer has mapped it, nobody else should reach it via /proc
    bool used() const { return used_; }

    // Producer: queues the message (in chunks if long); what the ring cannot take now
    // waits in a private overflow queue. Returns whether the peer must be woken.
    bool send(const Frame &f, const void *payload, size_t len);
    // Moves overflow into the ring; true if some moved.
    bool flush();
    bool has_overflow() const { return !overflow_.empty(); }

    // Consumer: hands every complete message to fn(frame, payload) while keep_going()
    // holds. Returns -1 on a malformed ring (the stream must close), else the number of
    // records consumed. *wake_producer: the producer waited for room and must be woken.
    template <typename Fn, typename Keep>
    int drain(Fn fn, Keep keep_going, bool *wake_producer);
    bool has_input() const;

  private:
    ShmRing() = default;
    RingDir &out() const { return seg_->dir[out_]; }
    RingDir &in() const { return seg_->dir[1 - out_]; }
    uint8_t *data(int dir) const { return base_ + kRingDataOff + size_t(dir) * kRingBytes; }
    bool put(const Frame &f, const uint8_t *chunk, uint32_t n); // one record; false: no room
    // Pushes msg from *off on; false when the ring filled up.
    bool push(const Frame &f, const uint8_t *payload, size_t len, size_t *off);
    int next_record(Frame *f, const uint8_t **payload, uint64_t *rec); // 1 record, 0 empty, -1 bad

    uint8_t *base_ = nullptr;
    RingSeg *seg_ = nullptr;
    int fd_ = -1;
    int out_ = 0; // the direction this side produces: 0 requester, 1 responder
    // The consumer's head as the producer last read it (validated then). Heads only grow,
    // so room it shows is there; put reads the shared head only when it shows too little,
    // which spares the cache line the consumer writes at every record.
    uint64_t head_seen_ = 0;
    bool used_ = false;
    struct Msg {
        Frame f;
        std::vector<uint8_t> payload;
        size_t off = 0;
    };
    std::deque<Msg> overflow_;
    bool assembling_ = false;
    Frame asm_f_{};
    std::vector<uint8_t> asm_buf_;
};

// The process's doorbell in its published table: peers ring it after producing.
void doorbell_ring(const MrTable *t);
// Waits on our own doorbell until it differs from `seen` (bounded spin, then futex),
// at most timeout_ms. While a poller of ours holds the lease: until the lease runs out,
// the doorbell notwithstanding.
void doorbell_wait(MrTable *t, uint32_t seen, int timeout_ms);
// A poller of ours renews its lease (it consumes the rings itself, so producers need
// not wake the waiter) or gives it up before it blocks. The waiter sleeps no longer
// than the lease, so it wakes once per lease while a poller keeps renewing: 2 ms, not
// 500 us, because those wake-ups preempted the busy pollers of a 2-core machine 2000-4000
// times a second (hcts-bench 1 MiB write-with-notify stream 21-24 -> 27-32 GB/s). The
// price: a program that stops polling without arming its CQ has peers' frames consumed
// up to 2 ms late.
inline constexpr uint64_t kPollLeaseNs = 2'000'000;
void poll_lease_renew(MrTable *t);
void poll_lease_drop(MrTable *t);
bool poll_lease_held(const MrTable *t);

template <typename Fn, typename Keep>
int ShmRing::drain(Fn fn, Keep keep_going, bool *wake_producer)
{
    int n = 0;
    while (keep_going()) {
        Frame f;
        const uint8_t *payload = nullptr;
        uint64_t rec = 0;
        int k = next_record(&f, &payload, &rec);
        if (k <= 0) {
            if (k < 0)
                return -1;
            break;
        }
        used_ = true;
        RingVerdict v = RingVerdict::kGo;
        if (f.op == 0) {
            // padding up to the end of the ring
        } else if (assembling_ || (f.flags & kMore)) {
            if (!assembling_) {
                if (f.len > kRingMaxMessage)
                    return -1;
                assembling_ = true;
                asm_f_ = f;
                asm_buf_.clear();
            } else if (f.seq != asm_f_.seq || f.op != asm_f_.op || f.len != asm_f_.len) {
                return -1;
            }
            if (asm_buf_.size() + f.plen > f.len)
                return -1;
            asm_buf_.insert(asm_buf_.end(), payload, payload + f.plen);
            if (!(f.flags & kMore)) {
                assembling_ = false;
                Frame whole = asm_f_;
                whole.flags = f.flags;
                whole.plen = static_cast<uint32_t>(asm_buf_.size());
                v = fn(whole, asm_buf_.data());
            }
        } else {
            v = fn(f, payload);
        }
        // The payload has been used (or copied) by now: the producer may overwrite it.
        in().head.store(in().head.load(std::memory_order_relaxed) + rec, std::memory_order_seq_cst);
        ++n;
        if (v == RingVerdict::kBad)
            return -1;
    }
    if (n && in().producer_waiting.load(std::memory_order_seq_cst)) {
        in().producer_waiting.store(0, std::memory_order_relaxed);
        *wake_producer = true;
    }
    return n;
}

} // namespace sv
