// Memory: round trips through every copy kind, and the refusals of bad input
// (codes, messages, no crash).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <thread>
#include <vector>

#include "acl_test.h"

namespace {

using acl_test::last_error;

class Memory : public acl_test::OnDevice {};

std::vector<unsigned char> pattern(size_t n, unsigned seed)
{
    std::vector<unsigned char> bytes(n);
    for (size_t i = 0; i < n; ++i)
        bytes[i] = static_cast<unsigned char>((i * 131 + seed * 7 + 1) & 0xff);
    return bytes;
}

TEST_F(Memory, HostToDeviceToHostRoundTrip)
{
    constexpr size_t n = 3 * 4096 + 17;
    void *device = nullptr;
    ASSERT_EQ(aclrtMalloc(&device, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << last_error();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(device) % 32, 0U) << "device memory is at least 32-byte aligned";
    const auto in = pattern(n, 1);
    std::vector<unsigned char> out(n, 0);
    ASSERT_EQ(aclrtMemcpy(device, n, in.data(), n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtMemcpy(out.data(), n, device, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS) << last_error();
    EXPECT_EQ(in, out);
    // Through the bounce-buffer kind and the address-inferred kind as well.
    const auto in2 = pattern(n, 2);
    ASSERT_EQ(aclrtMemcpy(device, n, in2.data(), n, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtMemcpy(out.data(), n, device, n, ACL_MEMCPY_DEFAULT), ACL_SUCCESS) << last_error();
    EXPECT_EQ(in2, out);
    EXPECT_EQ(aclrtFree(device), ACL_SUCCESS) << last_error();
}

TEST_F(Memory, InteriorRangesOfAnAllocation)
{
    void *device = nullptr;
    ASSERT_EQ(aclrtMalloc(&device, 256, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS) << last_error();
    auto *base = static_cast<unsigned char *>(device);
    const auto in = pattern(64, 3);
    std::vector<unsigned char> out(64, 0);
    ASSERT_EQ(aclrtMemcpy(base + 192, 64, in.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtMemcpy(out.data(), 64, base + 192, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS) << last_error();
    EXPECT_EQ(in, out);
    EXPECT_EQ(aclrtFree(device), ACL_SUCCESS) << last_error();
}

TEST_F(Memory, DeviceToDeviceKinds)
{
    constexpr size_t n = 1000;
    void *a = nullptr;
    void *b = nullptr;
    ASSERT_EQ(aclrtMalloc(&a, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtMalloc(&b, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << last_error();
    const auto in = pattern(n, 4);
    std::vector<unsigned char> out(n, 0);
    ASSERT_EQ(aclrtMemcpy(a, n, in.data(), n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS) << last_error();
    for (aclrtMemcpyKind kind : {ACL_MEMCPY_DEVICE_TO_DEVICE, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, ACL_MEMCPY_DEFAULT}) {
        ASSERT_EQ(aclrtMemset(b, n, 0, n), ACL_SUCCESS) << last_error();
        ASSERT_EQ(aclrtMemcpy(b, n, a, n, kind), ACL_SUCCESS) << "kind " << kind << ": " << last_error();
        ASSERT_EQ(aclrtMemcpy(out.data(), n, b, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS) << last_error();
        EXPECT_EQ(in, out) << "kind " << kind;
    }
    // Both on device 0: a copy between devices is refused.
    EXPECT_EQ(aclrtMemcpy(b, n, a, n, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_NE(last_error().find("INTER_DEVICE_TO_DEVICE"), std::string::npos);
    // Overlapping ranges of one allocation move like memmove.
    auto *pa = static_cast<unsigned char *>(a);
    ASSERT_EQ(aclrtMemcpy(pa + 10, n - 10, pa, n - 10, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtMemcpy(out.data(), n, a, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS) << last_error();
    EXPECT_EQ(0, std::memcmp(out.data() + 10, in.data(), n - 10));
    EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(b), ACL_SUCCESS);
}

TEST_F(Memory, BetweenDevices)
{
    if (acl_test::expected_device_count() < 2)
        GTEST_SKIP() << "one device (HCTS_ACL_DEVICES); the acl_runtime_devices4 ctest runs this";
    constexpr size_t n = 512;
    void *a = nullptr;
    void *b = nullptr;
    ASSERT_EQ(aclrtMalloc(&a, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtSetDevice(1), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtMalloc(&b, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << last_error();
    const auto in = pattern(n, 5);
    std::vector<unsigned char> out(n, 0);
    ASSERT_EQ(aclrtMemcpy(a, n, in.data(), n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtMemcpy(b, n, a, n, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtMemcpy(b, n, a, n, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    ASSERT_EQ(aclrtMemcpy(out.data(), n, b, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS) << last_error();
    EXPECT_EQ(in, out);
    EXPECT_EQ(aclrtFree(b), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(1), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS); // the fixture resets device 0 once more
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
}

TEST_F(Memory, HostToHostAndHostAllocations)
{
    constexpr size_t n = 777;
    void *host = nullptr;
    ASSERT_EQ(aclrtMallocHost(&host, n), ACL_SUCCESS) << last_error();
    const auto in = pattern(n, 6);
    std::vector<unsigned char> out(n, 0);
    ASSERT_EQ(aclrtMemcpy(host, n, in.data(), n, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtMemcpy(out.data(), n, host, n, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS) << last_error();
    EXPECT_EQ(in, out);
    // Host memory from aclrtMallocHost is the host side of H2D and D2H.
    void *device = nullptr;
    ASSERT_EQ(aclrtMalloc(&device, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtMemcpy(device, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtMemset(host, n, 0, n), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtMemcpy(host, n, device, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS) << last_error();
    EXPECT_EQ(0, std::memcmp(host, in.data(), n));
    EXPECT_EQ(aclrtFree(device), ACL_SUCCESS);
    EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
}

TEST_F(Memory, MemsetDeviceAndHost)
{
    constexpr size_t n = 10000;
    void *device = nullptr;
    ASSERT_EQ(aclrtMalloc(&device, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtMemset(device, n, 0x5a, n), ACL_SUCCESS) << last_error();
    std::vector<unsigned char> out(n, 0);
    ASSERT_EQ(aclrtMemcpy(out.data(), n, device, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS) << last_error();
    EXPECT_EQ(out, std::vector<unsigned char>(n, 0x5a));
    std::vector<unsigned char> host(n, 1);
    ASSERT_EQ(aclrtMemset(host.data(), n, 0x11, n - 1), ACL_SUCCESS) << last_error();
    EXPECT_EQ(host[0], 0x11);
    EXPECT_EQ(host[n - 2], 0x11);
    EXPECT_EQ(host[n - 1], 1) << "memset wrote past count";
    std::vector<unsigned char> big(5 * 1024 * 1024 + 5, 1); // more than one call's worth of pieces
    ASSERT_EQ(aclrtMemset(big.data(), big.size(), 0x22, big.size() - 3), ACL_SUCCESS) << last_error();
    EXPECT_EQ(std::count(big.begin(), big.end(), 0x22), static_cast<std::ptrdiff_t>(big.size() - 3));
    EXPECT_EQ(big[big.size() - 3], 1) << "memset wrote past count";
    EXPECT_EQ(aclrtMemset(device, n - 1, 0, n), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMemset(static_cast<char *>(device) + 1, n, 0, n), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_NE(last_error().find("past the end"), std::string::npos);
    EXPECT_EQ(aclrtMemset(nullptr, n, 0, n), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMemset(reinterpret_cast<void *>(uintptr_t{16}), 8, 0, 8), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtFree(device), ACL_SUCCESS);
}

TEST_F(Memory, MallocRefusals)
{
    void *p = nullptr;
    EXPECT_EQ(aclrtMalloc(nullptr, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    EXPECT_NE(last_error().find("aclrtMalloc"), std::string::npos);
    EXPECT_EQ(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMalloc(&p, 64, static_cast<aclrtMemMallocPolicy>(8)), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMalloc(&p, 64, static_cast<aclrtMemMallocPolicy>(0x200)), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(
        aclrtMalloc(&p, 64,
                    static_cast<aclrtMemMallocPolicy>(ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH)),
        ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(p, nullptr) << "a refused malloc wrote the pointer";
    ASSERT_EQ(
        aclrtMalloc(&p, 64, static_cast<aclrtMemMallocPolicy>(ACL_MEM_MALLOC_HUGE_ONLY | ACL_MEM_TYPE_HIGH_BAND_WIDTH)),
        ACL_SUCCESS)
        << last_error();
    EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
    EXPECT_EQ(aclrtMallocHost(nullptr, 64), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMallocHost(&p, 0), ACL_ERROR_INVALID_PARAM);
    // A thread without a device has no device memory to allocate from.
    std::thread([] {
        void *q = nullptr;
        EXPECT_EQ(aclrtMalloc(&q, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
        EXPECT_NE(last_error().find("aclrtSetDevice"), std::string::npos);
    }).join();
}

TEST_F(Memory, FreeRefusals)
{
    void *device = nullptr;
    void *host = nullptr;
    ASSERT_EQ(aclrtMalloc(&device, 128, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(aclrtMallocHost(&host, 128), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtFreeHost(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtFree(static_cast<char *>(device) + 8), ACL_ERROR_RT_PARAM_INVALID) << "interior pointer";
    EXPECT_EQ(aclrtFree(host), ACL_ERROR_RT_PARAM_INVALID) << "host memory through aclrtFree";
    EXPECT_NE(last_error().find("aclrtFreeHost"), std::string::npos);
    EXPECT_EQ(aclrtFreeHost(device), ACL_ERROR_RT_PARAM_INVALID) << "device memory through aclrtFreeHost";
    int on_stack = 0;
    EXPECT_EQ(aclrtFree(&on_stack), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtFree(device), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(device), ACL_ERROR_RT_PARAM_INVALID) << "double free";
    EXPECT_NE(last_error().find("freed already"), std::string::npos);
    EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
    EXPECT_EQ(aclrtFreeHost(host), ACL_ERROR_RT_PARAM_INVALID) << "double free";
}

TEST_F(Memory, CopyRefusals)
{
    constexpr size_t n = 64;
    void *device = nullptr;
    ASSERT_EQ(aclrtMalloc(&device, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    std::array<unsigned char, n> host{};
    EXPECT_EQ(aclrtMemcpy(nullptr, n, host.data(), n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMemcpy(device, n, nullptr, n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMemcpy(device, n - 1, host.data(), n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_NE(last_error().find("destMax"), std::string::npos);
    EXPECT_EQ(aclrtMemcpy(device, n, host.data(), n, static_cast<aclrtMemcpyKind>(8)), ACL_ERROR_INVALID_PARAM);
    EXPECT_NE(last_error().find("kind"), std::string::npos);
    EXPECT_EQ(aclrtMemcpy(device, n, host.data(), n, static_cast<aclrtMemcpyKind>(-1)), ACL_ERROR_INVALID_PARAM);
    // The kind names where each side must be.
    EXPECT_EQ(aclrtMemcpy(host.data(), n, device, n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_NE(last_error().find("not device memory"), std::string::npos);
    EXPECT_EQ(aclrtMemcpy(device, n, host.data(), n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtMemcpy(host.data(), n, device, n, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtMemcpy(device, n, host.data(), n, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    // A device range past its allocation.
    EXPECT_EQ(aclrtMemcpy(static_cast<char *>(device) + 1, n, host.data(), n, ACL_MEMCPY_HOST_TO_DEVICE),
              ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_NE(last_error().find("past the end"), std::string::npos);
    // Host addresses the process cannot touch: refused, no crash.
    const void *unmapped = reinterpret_cast<const void *>(uintptr_t{16});
    EXPECT_EQ(aclrtMemcpy(device, n, unmapped, n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtMemcpy(const_cast<void *>(unmapped), n, device, n, ACL_MEMCPY_DEVICE_TO_HOST),
              ACL_ERROR_RT_PARAM_INVALID);
    static const unsigned char read_only[n] = {1};
    EXPECT_EQ(aclrtMemcpy(const_cast<unsigned char *>(read_only), n, device, n, ACL_MEMCPY_DEVICE_TO_HOST),
              ACL_ERROR_RT_PARAM_INVALID)
        << "read-only destination";
    // Freed device memory is no longer device memory.
    ASSERT_EQ(aclrtFree(device), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(host.data(), n, device, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
    // count 0 copies nothing and succeeds.
    EXPECT_EQ(aclrtMemcpy(host.data(), n, host.data() + 1, 0, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
}

TEST_F(Memory, RecentErrorMessageIsPerThreadAndConsumed)
{
    EXPECT_EQ(aclGetRecentErrMsg(), nullptr) << "no error since the last call";
    EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
    std::thread([] { EXPECT_EQ(aclGetRecentErrMsg(), nullptr) << "another thread's error leaked"; }).join();
    const char *message = aclGetRecentErrMsg();
    ASSERT_NE(message, nullptr);
    EXPECT_NE(std::string(message).find("aclrtFree"), std::string::npos) << message;
    EXPECT_NE(std::string(message).find("100000"), std::string::npos) << message;
    EXPECT_EQ(aclGetRecentErrMsg(), nullptr) << "the message is handed out once";
}

} // namespace
