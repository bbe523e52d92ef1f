// MPI one-sided, the yardstick of P1 and P2: MPI_Put into the peer's window,
// MPI_Win_flush (the data is at the target), then a 0-byte MPI_Send as the
// notify, as an application without hcomm would do it. The window comes from
// MPI_Win_allocate, so Open MPI picks osc sm on one host (across nodes osc ucx
// over TCP, bench/README.md); mpi_harness/launch keeps MPI off verbs (pml ob1,
// btl self,vader,tcp).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "method.h"

namespace hcts::bench {

namespace {

class MpiOscMethod final : public Method {
  public:
    explicit MpiOscMethod(uint64_t max) : src_(max, std::byte{1})
    {
        if (max > static_cast<uint64_t>(INT32_MAX))
            throw std::invalid_argument("mpi_osc: messages above 2 GiB are not measured");
        MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
        MPI_Comm_rank(comm_, &rank_);
        // A window MPI cannot make (osc pt2pt refuses MPI_THREAD_MULTIPLE across nodes) is
        // this method's failure, reported, not the job's abort.
        MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
        void *base = nullptr;
        if (MPI_Win_allocate(static_cast<MPI_Aint>(max), 1, MPI_INFO_NULL, comm_, &base, &win_) != MPI_SUCCESS)
            throw std::runtime_error("mpi_osc: MPI_Win_allocate failed (across nodes osc pt2pt refuses "
                                     "MPI_THREAD_MULTIPLE: HCTS_MPIRUN_ARGS='--mca osc ucx --mca "
                                     "opal_common_ucx_tls any --mca opal_common_ucx_devices any', bench/README.md)");
        MPI_Win_lock_all(0, win_);
        max_ = max;
    }
    ~MpiOscMethod() override
    {
        MPI_Win_unlock_all(win_);
        MPI_Win_free(&win_);
        MPI_Comm_free(&comm_);
    }
    std::string_view name() const override { return "mpi_osc"; }
    std::string describe() const override
    {
        return "MPI_Put + MPI_Win_flush + 0-byte MPI_Send (window from MPI_Win_allocate, lock_all)";
    }
    uint64_t max_size() const override { return max_; }

    double ping_pong(uint64_t size, uint32_t n) override
    {
        const auto t0 = Clock::now();
        for (uint32_t i = 0; i < n; ++i) {
            if (rank_ == 0) {
                put(size, 1);
                notify(0);
                wait_notify(0);
            } else {
                wait_notify(0);
                put(size, 1);
                notify(0);
            }
        }
        return std::chrono::duration<double>(Clock::now() - t0).count();
    }

    double stream(uint64_t size, uint32_t n, uint32_t window) override
    {
        window = std::max<uint32_t>(window, 1);
        const auto t0 = Clock::now();
        for (uint32_t done = 0; done < n;) {
            const uint32_t w = std::min(window, n - done);
            if (rank_ == 0) {
                // The window's puts complete together at one flush; then a notify each.
                for (uint32_t j = 0; j < w; ++j)
                    put(size, 0);
                MPI_Win_flush(peer(), win_);
                std::vector<MPI_Request> req(w);
                for (uint32_t j = 0; j < w; ++j)
                    MPI_Isend(nullptr, 0, MPI_BYTE, peer(), static_cast<int>(j), comm_, &req[j]);
                MPI_Waitall(static_cast<int>(w), req.data(), MPI_STATUSES_IGNORE);
                wait_notify(kAckTag);
            } else {
                for (uint32_t j = 0; j < w; ++j)
                    wait_notify(static_cast<int>(j));
                notify(kAckTag);
            }
            done += w;
        }
        return std::chrono::duration<double>(Clock::now() - t0).count();
    }

  private:
    using Clock = std::chrono::steady_clock;
    static constexpr int kAckTag = 1000;
    int peer() const { return 1 - rank_; }
    void put(uint64_t size, int flush)
    {
        MPI_Put(src_.data(), static_cast<int>(size), MPI_BYTE, peer(), 0, static_cast<int>(size), MPI_BYTE, win_);
        if (flush != 0)
            MPI_Win_flush(peer(), win_);
    }
    void notify(int tag) { MPI_Send(nullptr, 0, MPI_BYTE, peer(), tag, comm_); }
    void wait_notify(int tag) { MPI_Recv(nullptr, 0, MPI_BYTE, peer(), tag, comm_, MPI_STATUS_IGNORE); }
    std::vector<std::byte> src_;
    MPI_Comm comm_ = MPI_COMM_NULL;
    MPI_Win win_ = MPI_WIN_NULL;
    int rank_ = 0;
    uint64_t max_ = 0;
};

} // namespace

std::unique_ptr<Method> make_mpi_osc(uint64_t max_size) { return std::make_unique<MpiOscMethod>(max_size); }

} // namespace hcts::bench
