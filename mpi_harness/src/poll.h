// Completion of MPI requests without busy-waiting: test, then sleep with a
// growing back-off (tens of microseconds up to 2 ms).
#pragma once

#include <mpi.h>

#include <chrono>
#include <optional>

namespace hcts::mpi::detail {

class Backoff {
  public:
    void pause();
    void reset() { step_ = std::chrono::microseconds{20}; }

  private:
    std::chrono::microseconds step_{20};
};

enum class WaitResult { Done, TimedOut, Error };

// Waits for all requests; stops early when `deadline` passes or the runtime
// expired. Error carries the MPI error code in *error.
WaitResult wait_all(int count, MPI_Request *requests, std::optional<std::chrono::steady_clock::time_point> deadline,
                    int *error);

} // namespace hcts::mpi::detail
