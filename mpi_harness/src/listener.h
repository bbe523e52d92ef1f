// The GoogleTest event listener that turns each rank's case result into one
// agreed verdict and prints only on rank 0.
#pragma once

#include <gtest/gtest.h>

namespace hcts::mpi::detail {

class Runtime;

class MpiListener : public testing::EmptyTestEventListener {
  public:
    explicit MpiListener(Runtime &rt) : rt_(rt) {}

    void OnTestProgramStart(const testing::UnitTest &unit) override;
    void OnTestStart(const testing::TestInfo &info) override;
    void OnTestPartResult(const testing::TestPartResult &result) override;
    void OnTestEnd(const testing::TestInfo &info) override;
    void OnTestProgramEnd(const testing::UnitTest &unit) override;

    int failed() const { return failed_; }

  private:
    Runtime &rt_;
    int index_ = 0;
    int total_ = 0;
    int passed_ = 0;
    int failed_ = 0;
    int skipped_ = 0;
    std::vector<std::string> failed_names_;
    std::chrono::steady_clock::time_point run_start_{};
};

} // namespace hcts::mpi::detail
