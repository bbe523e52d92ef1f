#include <mpi.h>

#include <algorithm>

#include "measurement.h"

namespace hcts::bench {

Sample take_sample(Method &m, Test t, uint64_t size, uint32_t n, uint32_t window)
{
    MPI_Barrier(MPI_COMM_WORLD);
    // Untimed warm-up, as OSU's skipped iterations: the first messages after the barrier
    // pay for threads that slept through it (a wake-up is ~15 us on a 2-vCPU VM), which
    // says more about the barrier than about the method.
    const uint32_t warm = std::max<uint32_t>(1, n / kWarmupDivisor);
    if (t == Test::Latency)
        m.ping_pong(size, warm);
    else
        m.stream(size, warm, window);
    const Usage before = usage_now();
    Sample s;
    s.seconds = t == Test::Latency ? m.ping_pong(size, n) : m.stream(size, n, window);
    const Usage mine = usage_now() - before;
    s.messages = t == Test::Latency ? 2 * static_cast<uint64_t>(n) : n;
    double sent[2] = {mine.cpu_s, mine.switches}, sum[2] = {0, 0};
    MPI_Reduce(sent, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    s.used = {sum[0], sum[1]};
    return s;
}

} // namespace hcts::bench
