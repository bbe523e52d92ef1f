// memcpy between two private buffers on rank 0, the bound of any same-host
// transport (P2: hcomm bandwidth >= 0.5x memcpy). Rank 1 does nothing.
// "Latency" is the time of one copy; a round trip is two copies.
#include <mpi.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "method.h"

namespace hcts::bench {

namespace {

class MemcpyMethod final : public Method {
  public:
    explicit MemcpyMethod(uint64_t max) : a_(max, std::byte{1}), b_(max, std::byte{2})
    {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        std::memcpy(b_.data(), a_.data(), max); // both buffers faulted in
    }
    std::string_view name() const override { return "memcpy"; }
    std::string describe() const override { return "memcpy between two private buffers on rank 0"; }
    uint64_t max_size() const override { return a_.size(); }
    double ping_pong(uint64_t size, uint32_t n) override { return copies(size, 2 * static_cast<uint64_t>(n)); }
    double stream(uint64_t size, uint32_t n, uint32_t) override { return copies(size, n); }

  private:
    double copies(uint64_t size, uint64_t n)
    {
        if (rank_ != 0)
            return 0;
        const auto t0 = std::chrono::steady_clock::now();
        for (uint64_t i = 0; i < n; ++i) {
            std::memcpy(b_.data(), a_.data(), size);
            asm volatile("" ::"r"(b_.data()) : "memory"); // the copy is not optimised away
        }
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    std::vector<std::byte> a_, b_;
    int rank_ = 0;
};

} // namespace

std::unique_ptr<Method> make_memcpy(uint64_t max_size) { return std::make_unique<MemcpyMethod>(max_size); }

} // namespace hcts::bench
