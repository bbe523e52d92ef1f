#include "poll.h"

#include "runtime.h"

#include <algorithm>
#include <thread>

namespace hcts::mpi::detail {

void Backoff::pause()
{
    std::this_thread::sleep_for(step_);
    step_ = std::min(step_ * 2, std::chrono::microseconds{2000});
}

WaitResult wait_all(int count, MPI_Request *requests, std::optional<std::chrono::steady_clock::time_point> deadline,
                    int *error)
{
    Backoff backoff;
    for (;;) {
        int done = 0;
        int rc = MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS) {
            if (error)
                *error = rc;
            return WaitResult::Error;
        }
        if (done)
            return WaitResult::Done;
        if (deadline && std::chrono::steady_clock::now() >= *deadline)
            return WaitResult::TimedOut;
        if (auto *rt = Runtime::current(); rt && rt->expired())
            return WaitResult::TimedOut;
        backoff.pause();
    }
}

} // namespace hcts::mpi::detail
