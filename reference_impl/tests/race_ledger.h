// Test support for destroy races: what every racing call returned, checked
// against what the reference promises while a comm is destroyed.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "hccl/hccl_types.h"

namespace hcts_test {

// Every call of every round: counts per call and code, and the failures (an
// unexpected code, or a success after the caller already saw the comm gone).
class RaceLedger {
  public:
    void count(const std::string &call, int32_t rc)
    {
        std::lock_guard lock(mutex_);
        ++counts_[call][rc];
    }
    void fail(std::string what)
    {
        std::lock_guard lock(mutex_);
        failures_.push_back(std::move(what));
    }
    // The failures since the last call (and forgets them).
    std::vector<std::string> take_failures()
    {
        std::lock_guard lock(mutex_);
        return std::exchange(failures_, {});
    }
    void print_summary() const
    {
        std::lock_guard lock(mutex_);
        for (const auto &[call, codes] : counts_) {
            std::string line = "  " + call + ":";
            for (const auto &[rc, n] : codes)
                line += " " + std::to_string(n) + "x" + std::to_string(rc);
            std::printf("%s\n", line.c_str());
        }
    }

  private:
    mutable std::mutex mutex_;
    std::map<std::string, std::map<int32_t, uint64_t>> counts_;
    std::vector<std::string> failures_;
};

// One racing thread's view of the victim comm: each call returns HCCL_SUCCESS or
// HCCL_E_PARA (the comm is gone), or HCCL_E_INTERNAL where the call may block and
// the destroy interrupted it; once the comm is gone it stays gone for this racer.
class Racer {
  public:
    Racer(RaceLedger &ledger, std::string where) : ledger_(ledger), where_(std::move(where)) {}

    // Records `rc` of `call`; returns it.
    int32_t note(const char *call, int32_t rc, bool may_be_interrupted = false)
    {
        ledger_.count(call, rc);
        const bool allowed = rc == HCCL_SUCCESS || rc == HCCL_E_PARA || (may_be_interrupted && rc == HCCL_E_INTERNAL);
        if (!allowed)
            ledger_.fail(where_ + ": " + call + " returned " + std::to_string(rc) +
                         " (allowed: HCCL_SUCCESS, HCCL_E_PARA" +
                         (may_be_interrupted ? ", HCCL_E_INTERNAL when interrupted)" : ")"));
        if (gone_ && rc == HCCL_SUCCESS)
            ledger_.fail(where_ + ": " + call + " succeeded after an earlier call saw the comm gone (HCCL_E_PARA)");
        if (rc == HCCL_E_PARA)
            gone_ = true;
        return rc;
    }
    bool gone() const { return gone_; }

  private:
    RaceLedger &ledger_;
    std::string where_;
    bool gone_ = false;
};

} // namespace hcts_test
