// Test support: several ranks of one job in this process, device launches from
// lambdas, and stamped payloads.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <future>
#include <thread>
#include <vector>

#include "hccl/hccl_channel.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_res.h"
#include "hcomm/hcomm_primitives.h"
#include "hcomm/hcomm_primitives_expt.h"
#include "hcomm_ref/hcomm_ref.h"

namespace hcts_test {

// n ranks of one job, each with its own communicator, created concurrently
// (initialisation is collective) and destroyed at the end.
class Job {
  public:
    explicit Job(uint32_t n) : comms_(n, nullptr)
    {
        HcclRootInfo root{};
        init_result_ = HcclGetRootInfo(&root);
        if (init_result_ != HCCL_SUCCESS)
            return;
        std::vector<std::future<HcclResult>> results;
        for (uint32_t r = 0; r < n; ++r) {
            results.push_back(
                std::async(std::launch::async, [&, r] { return HcclCommInitRootInfo(n, &root, r, &comms_[r]); }));
        }
        for (auto &f : results) {
            const HcclResult rc = f.get();
            if (rc != HCCL_SUCCESS)
                init_result_ = rc;
        }
    }
    ~Job()
    {
        for (HcclComm c : comms_) {
            if (c != nullptr)
                HcclCommDestroy(c);
        }
    }
    Job(const Job &) = delete;
    Job &operator=(const Job &) = delete;

    HcclResult init_result() const { return init_result_; }
    HcclComm operator[](size_t r) const { return comms_[r]; }
    size_t size() const { return comms_.size(); }
    // Destroys one comm early (its slot becomes null).
    HcclResult destroy(size_t r)
    {
        const HcclResult rc = HcclCommDestroy(comms_[r]);
        comms_[r] = nullptr;
        return rc;
    }

  private:
    std::vector<HcclComm> comms_;
    HcclResult init_result_ = HCCL_SUCCESS;
};

using Program = std::function<uint32_t()>;

inline uint32_t run_program(void *args) { return (*static_cast<Program *>(args))(); }

// Runs `program` as a device program of `comm` and returns the launch result.
inline HcommRefLaunchResult launch(HcclComm comm, Program program, uint32_t timeout_ms = 30000,
                                   HcclResult *launch_rc = nullptr)
{
    HcommRefLaunchResult result{};
    const HcclResult rc = HcommRefDeviceLaunch(comm, run_program, &program, timeout_ms, &result);
    if (launch_rc != nullptr)
        *launch_rc = rc;
    return result;
}

// Launches one program per rank concurrently (as every rank's kernel runs at once).
inline std::vector<HcommRefLaunchResult> launch_all(const Job &job, const std::vector<Program> &programs,
                                                    uint32_t timeout_ms = 30000)
{
    std::vector<HcommRefLaunchResult> results(programs.size());
    std::vector<std::thread> threads;
    for (size_t r = 0; r < programs.size(); ++r) {
        threads.emplace_back([&, r] { results[r] = launch(job[r], programs[r], timeout_ms); });
    }
    for (auto &t : threads)
        t.join();
    return results;
}

inline HcommRefStats stats(HcclComm comm)
{
    HcommRefStats s{};
    s.size = sizeof(s);
    EXPECT_EQ(HcommRefGetStats(comm, &s), HCCL_SUCCESS);
    return s;
}

// Stamped words: (run, iteration, sender, offset) plus a check value, so a reader
// tells current, stale, foreign, torn and absent data apart.
inline uint64_t stamp(uint32_t run, uint32_t iteration, uint32_t sender, uint64_t offset)
{
    const uint64_t word = (static_cast<uint64_t>(run & 0xff) << 56) |
                          (static_cast<uint64_t>(iteration & 0xffff) << 40) |
                          (static_cast<uint64_t>(sender & 0xff) << 32) | ((offset / 8) & 0xffffff) << 8;
    return word | ((word * 0x9E3779B97F4A7C15ULL) >> 56);
}

// Fills [dst, dst+len) with the stamp's bytes for its offset (any alignment).
inline void fill_stamped(uint8_t *dst, uint64_t len, uint32_t run, uint32_t iteration, uint32_t sender,
                         uint64_t base_offset = 0)
{
    for (uint64_t i = 0; i < len; ++i) {
        const uint64_t off = base_offset + i;
        const uint64_t word = stamp(run, iteration, sender, off & ~7ULL);
        dst[i] = static_cast<uint8_t>(word >> ((off & 7) * 8));
    }
}

// Index of the first byte that is not the stamp, or len when all match.
inline uint64_t first_bad_stamp(const uint8_t *data, uint64_t len, uint32_t run, uint32_t iteration, uint32_t sender,
                                uint64_t base_offset = 0)
{
    for (uint64_t i = 0; i < len; ++i) {
        const uint64_t off = base_offset + i;
        const uint64_t word = stamp(run, iteration, sender, off & ~7ULL);
        if (data[i] != static_cast<uint8_t>(word >> ((off & 7) * 8)))
            return i;
    }
    return len;
}

struct Buffer {
    uint8_t *base = nullptr;
    uint64_t size = 0;
};

inline Buffer buffer_of(HcclComm comm)
{
    Buffer b;
    void *p = nullptr;
    EXPECT_EQ(HcclGetHcclBuffer(comm, &p, &b.size), HCCL_SUCCESS);
    b.base = static_cast<uint8_t *>(p);
    return b;
}

inline ThreadHandle acquire_thread(HcclComm comm, CommEngine engine = COMM_ENGINE_AICPU_TS, uint32_t notifies = 4)
{
    ThreadHandle t = 0;
    EXPECT_EQ(HcclThreadAcquire(comm, engine, 1, notifies, &t), HCCL_SUCCESS);
    return t;
}

} // namespace hcts_test
