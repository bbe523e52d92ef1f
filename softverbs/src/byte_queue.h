// A FIFO of bytes for a connection's send and receive sides: bytes are appended at
// the tail and consumed from the head. Growing never zero-fills and capacity is
// kept between messages, so a 1 MiB frame costs no memset and no fresh page faults
// (std::string/std::vector resizes did both and capped TCP near 0.1 GB/s).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include <hcts/mutant.h>

namespace sv {

class ByteQueue {
  public:
    const uint8_t *data() const { return buf_.get() + head_; }
    size_t size() const { return tail_ - head_; }
    bool empty() const { return head_ == tail_; }
    size_t capacity() const { return cap_; }

    // At least n writable bytes at tail(); the caller fills some and calls commit().
    uint8_t *reserve(size_t n)
    {
        if (cap_ - tail_ < n)
            make_room(n);
        return buf_.get() + tail_;
    }
    uint8_t *tail() { return buf_.get() + tail_; }
    size_t room() const { return cap_ - tail_; }
    void commit(size_t n) { tail_ += n; }
    void append(const void *p, size_t n)
    {
        std::memcpy(reserve(n), p, n);
        commit(n);
    }
    void consume(size_t n)
    {
        head_ += n;
        if (head_ == tail_)
            head_ = tail_ = 0;
    }
    void clear() { head_ = tail_ = 0; }
    // Gives memory back after an unusually large message, once nothing is queued.
    void trim(size_t keep)
    {
        if (empty() && cap_ > keep) {
            buf_.reset();
            cap_ = 0;
        }
    }

  private:
    void make_room(size_t n)
    {
        size_t live = size();
        if (cap_ - live >= n) { // enough in total: slide the live bytes down
            std::memmove(buf_.get(), buf_.get() + head_, live);
        } else {
            size_t cap = std::max({cap_ * 2, live + n, size_t{4096}});
            auto nb = std::make_unique_for_overwrite<uint8_t[]>(cap);
            if (live)
                // Mutant: the live bytes are copied from the buffer's start, not its head.
                std::memcpy(nb.get(), buf_.get() + (hcts::mutant("sv_tcp_queue_grows_from_start") ? 0 : head_), live);
            buf_ = std::move(nb);
            cap_ = cap;
        }
        head_ = 0;
        tail_ = live;
    }

    std::unique_ptr<uint8_t[]> buf_;
    size_t cap_ = 0, head_ = 0, tail_ = 0;
};

} // namespace sv
