// One way of moving bytes from rank 0 to rank 1 and back, measured by the bench.
// Every call is collective: both ranks call it with the same arguments (rank 0
// initiates, rank 1 answers), and rank 0's wall time is the measurement.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace hcts {
class World;
}

namespace hcts::bench {

class Method {
  public:
    virtual ~Method() = default;
    // "hcomm", "verbs", "mpi_osc", "memcpy": the names in results.json and in baselines.
    virtual std::string_view name() const = 0;
    // One line for the results: what exactly is measured.
    virtual std::string describe() const = 0;
    // The largest message this method can move.
    virtual uint64_t max_size() const = 0;
    // `n` round trips of `size` bytes (ping, then pong): seconds on rank 0.
    virtual double ping_pong(uint64_t size, uint32_t n) = 0;
    // `n` messages of `size` bytes from rank 0, at most `window` in flight before
    // rank 1 acknowledges: seconds on rank 0.
    virtual double stream(uint64_t size, uint32_t n, uint32_t window) = 0;
};

// Write-with-notify through the library under test, as scripts of the device
// program (hcts_prog_ops) launched through the adapter on the world's thread.
std::unique_ptr<Method> make_hcomm(const World &world);
// WRITE_WITH_IMM on the verbs device the process sees (softverbs here), memfd
// memory like the reference's, endpoints exchanged over MPI.
std::unique_ptr<Method> make_verbs(uint64_t max_size);
// MPI one-sided: MPI_Put + MPI_Win_flush + a 0-byte MPI_Send as the notify.
std::unique_ptr<Method> make_mpi_osc(uint64_t max_size);
// memcpy on rank 0 between two private buffers: the copy every transport pays at least once.
std::unique_ptr<Method> make_memcpy(uint64_t max_size);

} // namespace hcts::bench
