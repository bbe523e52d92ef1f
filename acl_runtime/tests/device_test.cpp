// Init, devices (count from HCTS_ACL_DEVICES, set/reset/get per thread) and the
// SoC name per product profile (HCOMM_REF_PRODUCT).
#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "acl_test.h"

namespace {

using acl_test::expected_device_count;
using acl_test::last_error;

TEST(Init, OnceUntilFinalized)
{
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
    EXPECT_NE(last_error().find("aclInit"), std::string::npos);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    // After a finalize the runtime initialises again.
    ASSERT_EQ(aclInit(""), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(Init, ConfigurationFile)
{
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("acl_init_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    {
        std::ofstream(dir / "good.json") << "{\"dump\": {}}";
        std::ofstream(dir / "bad.json") << "{not json";
    }
    EXPECT_EQ(aclInit((dir / "missing.json").c_str()), ACL_ERROR_INVALID_FILE);
    EXPECT_NE(last_error().find("missing.json"), std::string::npos);
    EXPECT_EQ(aclInit((dir / "bad.json").c_str()), ACL_ERROR_PARSE_FILE);
    EXPECT_EQ(aclInit(dir.c_str()), ACL_ERROR_INVALID_FILE) << "a directory is not a configuration file";
    ASSERT_EQ(aclInit((dir / "good.json").c_str()), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
    std::filesystem::remove_all(dir);
}

TEST(Devices, CountFromEnvironment)
{
    uint32_t count = 12345;
    EXPECT_EQ(aclrtGetDeviceCount(nullptr), ACL_ERROR_INVALID_PARAM);
    const uint32_t expected = expected_device_count();
    if (expected == 0) {
        EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_ERROR_RT_NO_DEVICE);
        EXPECT_NE(last_error().find("HCTS_ACL_DEVICES"), std::string::npos);
        EXPECT_EQ(count, 12345U) << "a refused call wrote the count";
        EXPECT_EQ(aclrtSetDevice(0), ACL_ERROR_RT_NO_DEVICE);
        return;
    }
    ASSERT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS) << last_error();
    EXPECT_EQ(count, expected);
}

TEST(Devices, SetGetReset)
{
    const uint32_t count = expected_device_count();
    if (count == 0)
        GTEST_SKIP() << "no device (HCTS_ACL_DEVICES invalid): CountFromEnvironment judges that";
    int32_t device = 77;
    EXPECT_EQ(aclrtGetDevice(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL) << "no device set yet";
    EXPECT_NE(last_error().find("aclrtSetDevice"), std::string::npos);
    EXPECT_EQ(device, 77);
    EXPECT_EQ(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_EQ(aclrtSetDevice(static_cast<int32_t>(count)), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_NE(last_error().find("HCTS_ACL_DEVICES"), std::string::npos);
    EXPECT_EQ(aclrtResetDevice(static_cast<int32_t>(count)), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_EQ(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_NULL) << "reset of a device never set";
    const int32_t last = static_cast<int32_t>(count) - 1;
    ASSERT_EQ(aclrtSetDevice(last), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtGetDevice(&device), ACL_SUCCESS) << last_error();
    EXPECT_EQ(device, last);
    // Each set takes one reset.
    ASSERT_EQ(aclrtSetDevice(last), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(last), ACL_SUCCESS);
    ASSERT_EQ(aclrtGetDevice(&device), ACL_SUCCESS) << "still set once";
    EXPECT_EQ(aclrtResetDevice(last), ACL_SUCCESS);
    EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL) << "reset as often as set";
    EXPECT_EQ(aclrtResetDevice(last), ACL_ERROR_RT_CONTEXT_NULL) << "one reset too many";
}

TEST(Devices, OneDevicePerThread)
{
    const uint32_t count = expected_device_count();
    if (count == 0)
        GTEST_SKIP() << "no device (HCTS_ACL_DEVICES invalid): CountFromEnvironment judges that";
    // The vendor's test programs: one thread per device, each with its own current device.
    std::vector<std::thread> threads;
    std::atomic<int> good{0};
    std::atomic<int> ready{0};
    for (uint32_t d = 0; d < count; ++d) {
        threads.emplace_back([&, d] {
            const int32_t id = static_cast<int32_t>(d);
            if (aclrtSetDevice(id) != ACL_SUCCESS)
                return;
            ++ready;
            while (ready.load() < static_cast<int>(count))
                std::this_thread::yield();
            int32_t mine = -1;
            void *p = nullptr;
            if (aclrtGetDevice(&mine) == ACL_SUCCESS && mine == id &&
                aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS && aclrtFree(p) == ACL_SUCCESS &&
                aclrtResetDevice(id) == ACL_SUCCESS && aclrtGetDevice(&mine) == ACL_ERROR_RT_CONTEXT_NULL) {
                ++good;
            }
        });
    }
    for (auto &t : threads)
        t.join();
    EXPECT_EQ(good.load(), static_cast<int>(count));
    // The main thread never set a device.
    int32_t device = -1;
    EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
}

TEST(Devices, ResetByAnotherThreadEndsTheDevice)
{
    if (expected_device_count() == 0)
        GTEST_SKIP() << "no device";
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    std::thread([] { EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS) << last_error(); }).join();
    int32_t device = -1;
    EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL) << "the device was released by the last reset";
}

// The SoC name of each product profile, as this test expects it (README.md's
// table, written out here independently of the runtime's).
TEST(Soc, NameOfTheProduct)
{
    const std::map<std::string, std::string> expected{
        {"atlas350", "Ascend950PR_9599"},
        {"ascend950", "Ascend950PR_9599"},
        {"a3", "Ascend910_9391"},
        {"a2", "Ascend910B1"},
        {"atlas200i_500_a2", "Ascend310B1"},
        {"inference", "Ascend310P3"},
        {"training", "Ascend910A"},
    };
    const char *env = std::getenv("HCOMM_REF_PRODUCT");
    const std::string product = env == nullptr || *env == '\0' ? "atlas350" : env;
    const auto it = expected.find(product);
    ASSERT_NE(it, expected.end()) << "HCOMM_REF_PRODUCT=" << product << " is not a product this test knows";
    const char *soc = aclrtGetSocName();
    ASSERT_NE(soc, nullptr) << last_error();
    EXPECT_EQ(std::string(soc), it->second) << "product " << product;
    EXPECT_EQ(aclrtGetSocName(), soc) << "the name is a stable string";
}

} // namespace
