// Communication memory ("HCCL buffer"): a memfd mapped MAP_SHARED. Sparse: pages
// cost nothing until touched, so the 400 MB default is free when unused, and a
// same-host verbs device (softverbs) can map the same pages for one-copy writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace hcomm_ref {

class CommMemory {
  public:
    // nullptr (with errno set) when the memfd or the mapping cannot be made.
    static std::unique_ptr<CommMemory> create(uint64_t size, const std::string &name);
    ~CommMemory();
    CommMemory(const CommMemory &) = delete;
    CommMemory &operator=(const CommMemory &) = delete;

    void *base() const { return base_; }
    uint64_t size() const { return size_; }
    bool contains(const void *addr, uint64_t len) const;
    // Gives the pages back to the kernel: reads return zero, nothing is touched.
    bool clear();

  private:
    CommMemory(int fd, void *base, uint64_t size) : fd_(fd), base_(base), size_(size) {}
    int fd_;
    void *base_;
    uint64_t size_;
};

// The most memory this process may use: RAM and swap, or its cgroup's memory.max when
// lower; 0 when unknown. Communication memory beyond it is refused (HCCL_BUFFSIZE).
uint64_t memory_limit();

// [addr, addr+len) inside [base, base+size), without overflow; len 0 is never inside.
bool range_inside(uint64_t addr, uint64_t len, uint64_t base, uint64_t size);

} // namespace hcomm_ref
