// Test support for the ACL runtime's tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "acl/acl.h"

namespace acl_test {

// The device count this process should see, from HCTS_ACL_DEVICES as the runtime
// documents it (acl_runtime/README.md): unset or empty → 1, a whole number in
// [1, 64] → that number, anything else → 0 (no device).
inline uint32_t expected_device_count()
{
    const char *text = std::getenv("HCTS_ACL_DEVICES");
    if (text == nullptr || *text == '\0')
        return 1;
    char *end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || value < 1 || value > 64)
        return 0;
    return static_cast<uint32_t>(value);
}

// The calling thread's most recent error message ("" when there is none).
inline std::string last_error()
{
    const char *message = aclGetRecentErrMsg();
    return message == nullptr ? std::string() : std::string(message);
}

// A test that works on device 0 of this process.
class OnDevice : public ::testing::Test {
  protected:
    void SetUp() override
    {
        if (expected_device_count() == 0)
            GTEST_SKIP() << "HCTS_ACL_DEVICES gives no device; Devices.* judge that case";
        ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << last_error();
        (void)aclGetRecentErrMsg();
    }
    void TearDown() override
    {
        if (expected_device_count() != 0) {
            EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS) << last_error();
        }
    }
};

} // namespace acl_test
