// A first-in first-out queue that keeps its storage: a ring over a vector that
// doubles when full and never shrinks. A thread's task queue takes one task per
// call; std::deque allocated a block every few tasks and freed it on the worker.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace hcomm_ref {

template <typename T>
class Fifo {
  public:
    bool empty() const { return size_ == 0; }
    size_t size() const { return size_; }
    size_t capacity() const { return slots_.size(); }

    void push_back(T value)
    {
        if (size_ == slots_.size())
            grow();
        slots_[(head_ + size_) % slots_.size()].emplace(std::move(value));
        ++size_;
    }
    // The oldest element; the queue must not be empty.
    T &front() { return *slots_[head_]; }
    void pop_front()
    {
        slots_[head_].reset();
        head_ = (head_ + 1) % slots_.size();
        --size_;
    }

  private:
    void grow()
    {
        std::vector<std::optional<T>> bigger(slots_.empty() ? kFirstCapacity : 2 * slots_.size());
        for (size_t i = 0; i < size_; ++i)
            bigger[i] = std::move(slots_[(head_ + i) % slots_.size()]);
        slots_ = std::move(bigger);
        head_ = 0;
    }

    static constexpr size_t kFirstCapacity = 16;
    std::vector<std::optional<T>> slots_;
    size_t head_ = 0;
    size_t size_ = 0;
};

} // namespace hcomm_ref
