// What the report tests share: where the recorded documents are, and the seed
// of a randomised test with the command that reruns it.
#pragma once

#include <cstdlib>
#include <iostream>
#include <string>

#include <gtest/gtest.h>

namespace hcts::report::test {

inline std::string fixture(const std::string &name) { return std::string(HCTS_REPORT_FIXTURES) + "/" + name; }

// HCTS_SEED when set, else `fallback`; printed with the command that reruns the
// current test with it, so a failure found by one seed can be replayed.
inline unsigned test_seed(unsigned fallback)
{
    unsigned seed = fallback;
    if (const char *s = std::getenv("HCTS_SEED"))
        seed = static_cast<unsigned>(std::strtoul(s, nullptr, 10));
    const auto *test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::cout << "seed " << seed << "; reproduce: HCTS_SEED=" << seed
              << " build/bin/hcts_report_test --gtest_filter=" << test->test_suite_name() << '.' << test->name()
              << '\n';
    return seed;
}

} // namespace hcts::report::test
