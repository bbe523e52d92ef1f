// Streams and AICPU kernels: op-info JSON loading, the .so search, arguments, and
// launches that run as device programs of the stream's communicator.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "acl_ref/acl_ref.h"
#include "acl_test.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_res.h"
#include "hcomm_ref/hcomm_ref.h"
#include "test_kernel.h"

namespace {

using acl_test::last_error;
namespace fs = std::filesystem;

class Streams : public acl_test::OnDevice {};

TEST_F(Streams, CreateSynchronizeDestroy)
{
    aclrtStream stream = nullptr;
    EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
    ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << last_error();
    ASSERT_NE(stream, nullptr);
    EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, 0), ACL_SUCCESS) << "an idle stream is synchronised at once";
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, -1), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, -2), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << "the device's default stream: " << last_error();
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_RT_PARAM_INVALID) << "destroyed twice";
    EXPECT_NE(last_error().find("not a live stream"), std::string::npos);
    EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_RT_PARAM_INVALID) << "a destroyed stream";
    EXPECT_EQ(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM);
    int made_up = 0;
    EXPECT_EQ(aclrtSynchronizeStream(&made_up), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtDestroyStream(&made_up), ACL_ERROR_RT_PARAM_INVALID);
}

TEST_F(Streams, BelongToTheirDevice)
{
    aclrtStream stream = nullptr;
    ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
    std::thread([] {
        aclrtStream other = nullptr;
        EXPECT_EQ(aclrtCreateStream(&other), ACL_ERROR_RT_CONTEXT_NULL) << "a thread without a device";
        EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_RT_CONTEXT_NULL) << "no default stream without a device";
    }).join();
    // The last reset of the device destroys its streams.
    ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_RT_PARAM_INVALID);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS); // for the fixture's reset
}

// A temporary directory with op-info JSON files naming the test kernel.
class Kernels : public acl_test::OnDevice {
  protected:
    void SetUp() override
    {
        acl_test::OnDevice::SetUp();
        if (IsSkipped())
            return;
        dir_ = fs::temp_directory_path() / ("acl_kernels_" + std::to_string(::getpid()) + "_" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir_);
    }
    void TearDown() override
    {
        if (!dir_.empty())
            fs::remove_all(dir_);
        acl_test::OnDevice::TearDown();
    }
    std::string write(const std::string &name, const std::string &text)
    {
        const fs::path path = dir_ / name;
        std::ofstream(path) << text;
        return path.string();
    }
    static std::string op_info(const std::string &so)
    {
        return "{\"AclTestKernel\": {\"opInfo\": {\"opKernelLib\": \"AICPUKernel\", \"kernelSo\": \"" + so +
               "\", \"functionName\": \"AclTestKernel\"}},"
               " \"Echo\": {\"opInfo\": {\"opKernelLib\": \"AICPUKernel\", \"kernelSo\": \"" +
               so +
               "\", \"functionName\": \"AclTestEcho\"}},"
               " \"ArgBytes\": {\"opInfo\": {\"opKernelLib\": \"AICPUKernel\", \"kernelSo\": \"" +
               so +
               "\", \"functionName\": \"AclTestArgBytes\"}},"
               " \"Missing\": {\"opInfo\": {\"opKernelLib\": \"AICPUKernel\", \"kernelSo\": \"" +
               so + "\", \"functionName\": \"NoSuchFunction\"}}}";
    }
    static aclError load(const std::string &path, aclrtBinHandle *bin, int32_t mode = 0)
    {
        aclrtBinaryLoadOption option{};
        option.type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE;
        option.value.cpuKernelMode = mode;
        aclrtBinaryLoadOptions options{&option, 1};
        return aclrtBinaryLoadFromFile(path.c_str(), &options, bin);
    }
    fs::path dir_;
};

TEST_F(Kernels, LoadFindsTheSharedObject)
{
    aclrtBinHandle bin = nullptr;
    aclrtFuncHandle fn = nullptr;
    // By absolute path.
    ASSERT_EQ(load(write("abs.json", op_info(ACL_TEST_KERNEL_SO)), &bin), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtBinaryGetFunction(bin, "AclTestKernel", &fn), ACL_SUCCESS) << last_error();
    EXPECT_NE(fn, nullptr);
    // By function name as well as by op-info name.
    EXPECT_EQ(aclrtBinaryGetFunction(bin, "AclTestEcho", &fn), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtBinaryGetFunction(bin, "Nope", &fn), ACL_ERROR_RT_SYMBOL_NOT_FOUND);
    EXPECT_NE(last_error().find("AclTestKernel"), std::string::npos) << "the message lists the kernels there are";
    EXPECT_EQ(aclrtBinaryGetFunction(bin, "Missing", &fn), ACL_ERROR_RT_SYMBOL_NOT_FOUND);
    EXPECT_NE(last_error().find("NoSuchFunction"), std::string::npos);
    EXPECT_EQ(aclrtBinaryUnLoad(bin), ACL_SUCCESS);
    // By name, through HCTS_ACL_KERNEL_PATH.
    const std::string so_name = fs::path(ACL_TEST_KERNEL_SO).filename().string();
    ASSERT_EQ(load(write("byname.json", op_info(so_name)), &bin), ACL_SUCCESS) << last_error();
    ASSERT_EQ(unsetenv("HCTS_ACL_KERNEL_PATH"), 0);
    EXPECT_EQ(aclrtBinaryGetFunction(bin, "AclTestKernel", &fn), ACL_ERROR_INVALID_FILE) << "not on any search path";
    EXPECT_NE(last_error().find("HCTS_ACL_KERNEL_PATH"), std::string::npos);
    ASSERT_EQ(setenv("HCTS_ACL_KERNEL_PATH", ACL_TEST_KERNEL_DIR, 1), 0);
    EXPECT_EQ(aclrtBinaryGetFunction(bin, "AclTestKernel", &fn), ACL_SUCCESS) << last_error();
    ASSERT_EQ(unsetenv("HCTS_ACL_KERNEL_PATH"), 0);
    EXPECT_EQ(aclrtBinaryUnLoad(bin), ACL_SUCCESS);
    // In CANN's layout under ASCEND_HOME_PATH: opp/vendors/<vendor>/aicpu/{config,kernel}.
    const fs::path vendor = dir_ / "home" / "opp" / "vendors" / "custom" / "aicpu";
    fs::create_directories(vendor / "config");
    fs::create_directories(vendor / "kernel");
    fs::copy_file(ACL_TEST_KERNEL_SO, vendor / "kernel" / so_name);
    const std::string json = (vendor / "config" / "kernel.json").string();
    std::ofstream(json) << op_info(so_name);
    ASSERT_EQ(load(json, &bin), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtBinaryGetFunction(bin, "AclTestKernel", &fn), ACL_SUCCESS)
        << "../kernel beside config/: " << last_error();
    EXPECT_EQ(aclrtBinaryUnLoad(bin), ACL_SUCCESS);
    // Mode 1: the .so beside the JSON, with the JSON's name.
    fs::copy_file(ACL_TEST_KERNEL_SO, dir_ / "libpaired.so");
    ASSERT_EQ(load(write("libpaired.json", op_info("libnot_there.so")), &bin, 1), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtBinaryGetFunction(bin, "AclTestKernel", &fn), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtBinaryUnLoad(bin), ACL_SUCCESS);
}

TEST_F(Kernels, LoadRefusals)
{
    aclrtBinHandle bin = nullptr;
    aclrtFuncHandle fn = nullptr;
    EXPECT_EQ(aclrtBinaryLoadFromFile(nullptr, nullptr, &bin), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtBinaryLoadFromFile("x.json", nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(load((dir_ / "missing.json").string(), &bin), ACL_ERROR_INVALID_FILE);
    EXPECT_EQ(load(write("bad.json", "{nope"), &bin), ACL_ERROR_PARSE_FILE);
    EXPECT_EQ(load(write("array.json", "[1, 2]"), &bin), ACL_ERROR_PARSE_FILE);
    EXPECT_EQ(load(write("noso.json", "{\"K\": {\"opInfo\": {\"functionName\": \"f\"}}}"), &bin),
              ACL_ERROR_FILE_MISSING_ATTR);
    EXPECT_NE(last_error().find("kernelSo"), std::string::npos);
    EXPECT_EQ(load(write("nofn.json", "{\"K\": {\"opInfo\": {\"kernelSo\": \"lib.so\"}}}"), &bin),
              ACL_ERROR_FILE_MISSING_ATTR);
    EXPECT_EQ(load(write("noinfo.json", "{\"K\": {}}"), &bin), ACL_ERROR_FILE_MISSING_ATTR);
    const std::string good = write("good.json", op_info(ACL_TEST_KERNEL_SO));
    EXPECT_EQ(load(good, &bin, 2), ACL_ERROR_INVALID_PARAM) << "mode 2 loads from data, not from a file";
    aclrtBinaryLoadOption magic{};
    magic.type = ACL_RT_BINARY_LOAD_OPT_MAGIC;
    magic.value.magic = 0x43554245U;
    aclrtBinaryLoadOptions with_magic{&magic, 1};
    EXPECT_EQ(aclrtBinaryLoadFromFile(good.c_str(), &with_magic, &bin), ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
        << "an AI Core binary";
    aclrtBinaryLoadOptions no_array{nullptr, 1};
    EXPECT_EQ(aclrtBinaryLoadFromFile(good.c_str(), &no_array, &bin), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(load(write("noso2.json", op_info("libnowhere_at_all.so")), &bin), ACL_SUCCESS)
        << "the .so is looked for when a function is wanted";
    EXPECT_EQ(aclrtBinaryGetFunction(bin, "AclTestKernel", &fn), ACL_ERROR_INVALID_FILE);
    EXPECT_NE(last_error().find("libnowhere_at_all.so"), std::string::npos);
    EXPECT_EQ(aclrtBinaryUnLoad(bin), ACL_SUCCESS);
    EXPECT_EQ(aclrtBinaryUnLoad(bin), ACL_ERROR_RT_PARAM_INVALID) << "unloaded twice";
    EXPECT_EQ(aclrtBinaryGetFunction(bin, "AclTestKernel", &fn), ACL_ERROR_RT_PARAM_INVALID) << "unloaded";
    EXPECT_EQ(aclrtBinaryUnLoad(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(Kernels, ArgumentsAndLaunchRefusals)
{
    aclrtBinHandle bin = nullptr;
    aclrtFuncHandle fn = nullptr;
    aclrtFuncHandle echo = nullptr;
    ASSERT_EQ(load(write("k.json", op_info(ACL_TEST_KERNEL_SO)), &bin), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtBinaryGetFunction(bin, "AclTestKernel", &fn), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtBinaryGetFunction(bin, "Echo", &echo), ACL_SUCCESS) << last_error();
    aclrtArgsHandle args = nullptr;
    aclrtParamHandle param = nullptr;
    uint32_t value = 5;
    EXPECT_EQ(aclrtKernelArgsInit(nullptr, &args), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtKernelArgsInit(fn, nullptr), ACL_ERROR_INVALID_PARAM);
    int made_up = 0;
    EXPECT_EQ(aclrtKernelArgsInit(&made_up, &args), ACL_ERROR_RT_PARAM_INVALID);
    ASSERT_EQ(aclrtKernelArgsInit(fn, &args), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtKernelArgsAppend(args, &value, 0, &param), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtKernelArgsAppend(args, nullptr, 4, &param), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtKernelArgsAppend(args, &value, 4, nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtKernelArgsAppend(&made_up, &value, 4, &param), ACL_ERROR_RT_PARAM_INVALID);
    ASSERT_EQ(aclrtKernelArgsAppend(args, &value, sizeof(value), &param), ACL_SUCCESS) << last_error();
    EXPECT_NE(param, nullptr);
    EXPECT_EQ(aclrtLaunchKernelWithConfig(fn, 1, nullptr, nullptr, args, nullptr), ACL_ERROR_RT_PARAM_INVALID)
        << "not finalized";
    EXPECT_NE(last_error().find("aclrtKernelArgsFinalize"), std::string::npos);
    ASSERT_EQ(aclrtKernelArgsFinalize(args), ACL_SUCCESS);
    EXPECT_EQ(aclrtKernelArgsAppend(args, &value, 4, &param), ACL_ERROR_RT_FEATURE_NOT_SUPPORT) << "after finalize";
    EXPECT_EQ(aclrtLaunchKernelWithConfig(echo, 1, nullptr, nullptr, args, nullptr), ACL_ERROR_RT_PARAM_INVALID)
        << "arguments of another function";
    EXPECT_EQ(aclrtLaunchKernelWithConfig(fn, 0, nullptr, nullptr, args, nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtLaunchKernelWithConfig(fn, 2, nullptr, nullptr, args, nullptr), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    aclrtLaunchKernelAttr attrs[2]{};
    attrs[0].id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT;
    attrs[0].value.timeout = 5;
    attrs[1].id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US;
    attrs[1].value.timeoutUs.timeoutLow = 5000;
    aclrtLaunchKernelCfg both{attrs, 2};
    EXPECT_EQ(aclrtLaunchKernelWithConfig(fn, 1, nullptr, &both, args, nullptr), ACL_ERROR_INVALID_PARAM);
    attrs[1].id = static_cast<aclrtLaunchKernelAttrId>(42);
    EXPECT_EQ(aclrtLaunchKernelWithConfig(fn, 1, nullptr, &both, args, nullptr), ACL_ERROR_INVALID_PARAM);
    aclrtLaunchKernelCfg no_array{nullptr, 1};
    EXPECT_EQ(aclrtLaunchKernelWithConfig(fn, 1, nullptr, &no_array, args, nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtLaunchKernelWithConfig(fn, 1, &made_up, nullptr, args, nullptr), ACL_ERROR_RT_PARAM_INVALID);
    // No communicator for the stream: a kernel has nothing to run as a device program of.
    EXPECT_EQ(aclrtLaunchKernelWithConfig(fn, 1, nullptr, nullptr, args, nullptr), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_NE(last_error().find("HctsAclRefBindStreamComm"), std::string::npos);
    // Unloading the binary ends its functions and their arguments.
    ASSERT_EQ(aclrtBinaryUnLoad(bin), ACL_SUCCESS);
    EXPECT_EQ(aclrtKernelArgsInit(fn, &args), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtLaunchKernelWithConfig(fn, 1, nullptr, nullptr, args, nullptr), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtKernelArgsFinalize(args), ACL_ERROR_RT_PARAM_INVALID);
}

// One communicator of one rank (no verbs resource is opened), for launches.
class Launches : public Kernels {
  protected:
    void SetUp() override
    {
        Kernels::SetUp();
        if (IsSkipped())
            return;
        HcclRootInfo root{};
        ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
        ASSERT_EQ(HcclCommInitRootInfo(1, &root, 0, &comm_), HCCL_SUCCESS);
        ASSERT_EQ(HcommRefGetCommName(comm_, args_.comm_name, sizeof(args_.comm_name)), HCCL_SUCCESS);
        ASSERT_EQ(load(write("k.json", op_info(ACL_TEST_KERNEL_SO)), &bin_), ACL_SUCCESS) << last_error();
        ASSERT_EQ(aclrtBinaryGetFunction(bin_, "AclTestKernel", &fn_), ACL_SUCCESS) << last_error();
        ASSERT_EQ(aclrtMalloc(&out_, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << last_error();
        args_.out = reinterpret_cast<uintptr_t>(out_);
        ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS) << last_error();
    }
    void TearDown() override
    {
        if (stream_ != nullptr) {
            EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS) << last_error();
        }
        if (out_ != nullptr) {
            EXPECT_EQ(aclrtFree(out_), ACL_SUCCESS);
        }
        if (bin_ != nullptr) {
            EXPECT_EQ(aclrtBinaryUnLoad(bin_), ACL_SUCCESS);
        }
        if (comm_ != nullptr) {
            EXPECT_EQ(HcclCommDestroy(comm_), HCCL_SUCCESS);
        }
        Kernels::TearDown();
    }
    aclError launch(const AclTestKernelArgs &args, aclrtStream stream, aclrtLaunchKernelCfg *cfg = nullptr)
    {
        aclrtArgsHandle handle = nullptr;
        aclrtParamHandle param = nullptr;
        AclTestKernelArgs copy = args;
        if (const aclError rc = aclrtKernelArgsInit(fn_, &handle); rc != ACL_SUCCESS)
            return rc;
        if (const aclError rc = aclrtKernelArgsAppend(handle, &copy, sizeof(copy), &param); rc != ACL_SUCCESS)
            return rc;
        std::memset(&copy, 0xee, sizeof(copy)); // the runtime keeps its own copy
        if (const aclError rc = aclrtKernelArgsFinalize(handle); rc != ACL_SUCCESS)
            return rc;
        return aclrtLaunchKernelWithConfig(fn_, 1, stream, cfg, handle, nullptr);
    }
    uint32_t read_out()
    {
        uint32_t value = 0;
        EXPECT_EQ(aclrtMemcpy(&value, sizeof(value), out_, sizeof(value), ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
        return value;
    }
    HcclComm comm_ = nullptr;
    aclrtBinHandle bin_ = nullptr;
    aclrtFuncHandle fn_ = nullptr;
    void *out_ = nullptr;
    aclrtStream stream_ = nullptr;
    AclTestKernelArgs args_{};
};

TEST_F(Launches, RunAsDeviceProgramsInStreamOrder)
{
    ASSERT_EQ(HctsAclRefBindStreamComm(stream_, comm_), ACL_SUCCESS) << last_error();
    AclTestKernelArgs first = args_;
    first.value = 11;
    first.sleep_ms = 50;
    AclTestKernelArgs second = args_;
    second.value = 22;
    ASSERT_EQ(launch(first, stream_), ACL_SUCCESS) << last_error();
    ASSERT_EQ(launch(second, stream_), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS) << last_error();
    EXPECT_EQ(read_out(), 22U) << "the second launch ran after the first";
}

TEST_F(Launches, FailuresAreReportedAtSynchronisation)
{
    ASSERT_EQ(HctsAclRefBindStreamComm(stream_, comm_), ACL_SUCCESS) << last_error();
    AclTestKernelArgs failing = args_;
    failing.returns = 7;
    ASSERT_EQ(launch(failing, stream_), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_ERROR_RT_AICPU_EXCEPTION);
    EXPECT_NE(last_error().find("returned 7"), std::string::npos);
    EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS) << "reported once";
    // A kernel not running as a device program of the comm it names fails too.
    AclTestKernelArgs wrong_name = args_;
    std::strcpy(wrong_name.comm_name, "not-the-comm");
    ASSERT_EQ(launch(wrong_name, stream_), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_ERROR_RT_AICPU_EXCEPTION);
    EXPECT_NE(last_error().find("returned 102"), std::string::npos);
}

TEST_F(Launches, SynchronisationWithTimeout)
{
    ASSERT_EQ(HctsAclRefBindStreamComm(stream_, comm_), ACL_SUCCESS) << last_error();
    AclTestKernelArgs slow = args_;
    slow.value = 33;
    slow.sleep_ms = 400;
    ASSERT_EQ(launch(slow, stream_), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, 0), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, 20), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    EXPECT_NE(last_error().find("20 ms"), std::string::npos);
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, 10000), ACL_SUCCESS) << last_error();
    EXPECT_EQ(read_out(), 33U);
}

// A program written for the device never binds: the communicator it created after
// setting its device serves that device's streams; a destroyed one is withdrawn from
// the device and from streams bound to it, and the next one created takes its place.
TEST_F(Launches, CreatedCommunicatorServesItsDevice)
{
    AclTestKernelArgs first = args_;
    first.value = 66;
    ASSERT_EQ(launch(first, stream_), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS) << last_error();
    EXPECT_EQ(read_out(), 66U);
    ASSERT_EQ(HctsAclRefBindStreamComm(stream_, comm_), ACL_SUCCESS) << last_error();
    ASSERT_EQ(HcclCommDestroy(comm_), HCCL_SUCCESS);
    comm_ = nullptr;
    EXPECT_EQ(launch(first, stream_), ACL_ERROR_RT_FEATURE_NOT_SUPPORT) << "a destroyed communicator still serves";
    EXPECT_EQ(launch(first, nullptr), ACL_ERROR_RT_FEATURE_NOT_SUPPORT) << "on the device's default stream";
    HcclRootInfo root{};
    ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
    ASSERT_EQ(HcclCommInitRootInfo(1, &root, 0, &comm_), HCCL_SUCCESS);
    AclTestKernelArgs second = args_;
    ASSERT_EQ(HcommRefGetCommName(comm_, second.comm_name, sizeof(second.comm_name)), HCCL_SUCCESS);
    second.value = 77;
    ASSERT_EQ(launch(second, stream_), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS) << last_error();
    EXPECT_EQ(read_out(), 77U);
    EXPECT_EQ(HctsAclRefOfferDeviceComm(0, nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(HctsAclRefOfferDeviceComm(-1, comm_), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_EQ(HctsAclRefWithdrawComm(nullptr), ACL_ERROR_INVALID_PARAM);
}

// The HCCL buffer of a communicator the device serves is its device memory: every
// copy kind takes it, aclrtFree does not, and it stops being device memory once
// the communicator is destroyed.
TEST_F(Launches, HcclBufferIsDeviceMemory)
{
    void *buffer = nullptr;
    uint64_t size = 0;
    ASSERT_EQ(HcclGetHcclBuffer(comm_, &buffer, &size), HCCL_SUCCESS);
    ASSERT_GE(size, 64U);
    auto *bytes = static_cast<unsigned char *>(buffer);
    const unsigned char in[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    unsigned char back[16] = {};
    ASSERT_EQ(aclrtMemcpy(bytes + 8, sizeof in, in, sizeof in, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtMemcpy(out_, sizeof in, bytes + 8, sizeof in, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS)
        << last_error();
    ASSERT_EQ(aclrtMemcpy(back, sizeof back, out_, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS)
        << last_error();
    EXPECT_EQ(std::memcmp(in, back, sizeof in), 0);
    EXPECT_EQ(aclrtMemcpy(back, sizeof back, bytes + size - 8, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST),
              ACL_ERROR_RT_PARAM_INVALID)
        << "a copy running past the end of the HCCL buffer";
    EXPECT_EQ(aclrtFree(buffer), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_NE(last_error().find("HCCL buffer"), std::string::npos) << last_error();
    ASSERT_EQ(HcclCommDestroy(comm_), HCCL_SUCCESS);
    comm_ = nullptr;
    EXPECT_EQ(aclrtMemcpy(back, sizeof back, buffer, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST),
              ACL_ERROR_RT_PARAM_INVALID)
        << "the buffer of a destroyed communicator is still device memory";
}

// A kernel linked into the program, as an ASC source's <<<>>> launch runs it.
uint32_t LinkedKernel(void *raw)
{
    const auto *args = static_cast<const AclTestKernelArgs *>(raw);
    if (args->out != 0)
        *reinterpret_cast<uint32_t *>(static_cast<uintptr_t>(args->out)) = args->value;
    return args->returns;
}

// HctsAclRefLaunchFunction (what kernel<<<1, nullptr, stream>>>(args, size) becomes): the
// function runs on the stream with a copy of the arguments, its return is the launch's
// outcome at synchronisation, and a refused launch is the thread's last error, which
// aclrtGetLastError reads once and aclrtPeekAtLastError reads without clearing.
TEST_F(Launches, LinkedFunctionAndLastError)
{
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL); // whatever the set-up left
    AclTestKernelArgs args = args_;
    args.value = 91;
    ASSERT_EQ(HctsAclRefLaunchFunction(LinkedKernel, 1, stream_, &args, sizeof args), ACL_SUCCESS) << last_error();
    std::memset(&args, 0xee, sizeof args); // the runtime keeps its own copy
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS) << last_error();
    EXPECT_EQ(read_out(), 91U);
    EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS) << "nothing failed since";

    args = args_;
    args.returns = 5;
    ASSERT_EQ(HctsAclRefLaunchFunction(LinkedKernel, 1, stream_, &args, sizeof args), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_ERROR_RT_AICPU_EXCEPTION) << "the kernel returned 5";

    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    EXPECT_EQ(HctsAclRefLaunchFunction(LinkedKernel, 2, stream_, &args, sizeof args), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_EQ(aclrtGetLastError(static_cast<aclrtLastErrLevel>(1)), ACL_ERROR_INVALID_PARAM) << "not a level";
    EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
        << "a refused level must not touch the thread's code";
    EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS) << "read once, then cleared";
    EXPECT_EQ(HctsAclRefLaunchFunction(nullptr, 1, stream_, &args, sizeof args), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(HctsAclRefLaunchFunction(LinkedKernel, 1, stream_, nullptr, 8), ACL_ERROR_INVALID_PARAM);
    std::thread([] {
        EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS) << "another thread's code is its own";
    }).join();
    EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
}

// A device engine's context (HcclEngineCtxCreate, AICPU or AICPU_TS) is device memory of
// the communicator's device, as HCCL's custom-operator samples use it: they fill it with a
// host-to-device copy. A CPU engine's context stays host memory. aclrtFree refuses it, and it
// is forgotten with the communicator.
TEST_F(Launches, DeviceEngineContextIsDeviceMemory)
{
    constexpr uint64_t kCtx = 96;
    void *aicpu = nullptr;
    void *cpu = nullptr;
    ASSERT_EQ(HcclEngineCtxCreate(comm_, "acl-ctx", COMM_ENGINE_AICPU, kCtx, &aicpu), HCCL_SUCCESS);
    ASSERT_EQ(HcclEngineCtxCreate(comm_, "acl-ctx", COMM_ENGINE_CPU, kCtx, &cpu), HCCL_SUCCESS);
    unsigned char in[kCtx];
    for (size_t i = 0; i < sizeof in; ++i)
        in[i] = static_cast<unsigned char>(i * 7 + 1);
    unsigned char back[kCtx] = {};
    ASSERT_EQ(aclrtMemcpy(aicpu, kCtx, in, sizeof in, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtMemcpy(back, sizeof back, aicpu, kCtx, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS) << last_error();
    EXPECT_EQ(std::memcmp(in, back, sizeof in), 0);
    EXPECT_EQ(aclrtMemcpy(static_cast<unsigned char *>(aicpu) + 8, kCtx, in, kCtx, ACL_MEMCPY_HOST_TO_DEVICE),
              ACL_ERROR_RT_PARAM_INVALID)
        << "a copy running past the end of the context";
    EXPECT_EQ(aclrtMemcpy(cpu, kCtx, in, sizeof in, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID)
        << "a CPU engine's context is host memory";
    EXPECT_EQ(aclrtFree(aicpu), ACL_ERROR_RT_PARAM_INVALID);
    ASSERT_EQ(HcclCommDestroy(comm_), HCCL_SUCCESS);
    comm_ = nullptr;
    EXPECT_EQ(aclrtMemcpy(back, sizeof back, aicpu, kCtx, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID)
        << "the context of a destroyed communicator is still device memory";
}

TEST_F(Launches, DeviceBindingAndDefaultStream)
{
    ASSERT_EQ(HctsAclRefBindDeviceComm(0, comm_), ACL_SUCCESS) << last_error();
    EXPECT_EQ(HctsAclRefBindDeviceComm(-1, comm_), ACL_ERROR_RT_INVALID_DEVICEID);
    AclTestKernelArgs on_default = args_;
    on_default.value = 44;
    ASSERT_EQ(launch(on_default, nullptr), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << last_error();
    EXPECT_EQ(read_out(), 44U);
    AclTestKernelArgs on_stream = args_;
    on_stream.value = 55;
    ASSERT_EQ(launch(on_stream, stream_), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS) << last_error();
    EXPECT_EQ(read_out(), 55U);
    ASSERT_EQ(HctsAclRefBindDeviceComm(0, nullptr), ACL_SUCCESS);
    EXPECT_EQ(launch(on_stream, stream_), ACL_ERROR_RT_FEATURE_NOT_SUPPORT) << "binding removed";
}

TEST_F(Launches, LaunchDeadline)
{
    ASSERT_EQ(HctsAclRefBindStreamComm(stream_, comm_), ACL_SUCCESS) << last_error();
    ThreadHandle thread = 0;
    ASSERT_EQ(HcclThreadAcquire(comm_, COMM_ENGINE_AICPU_TS, 1, 1, &thread), HCCL_SUCCESS);
    AclTestKernelArgs stuck = args_;
    stuck.thread = thread;
    stuck.wait_seconds = 1; // a wait nobody records, longer than the launch's deadline
    aclrtLaunchKernelAttr attr{};
    attr.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US;
    attr.value.timeoutUs.timeoutLow = 200000; // 200 ms
    aclrtLaunchKernelCfg cfg{&attr, 1};
    const auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(launch(stuck, stream_, &cfg), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_ERROR_RT_AICPU_TIMEOUT);
    EXPECT_NE(last_error().find("200 ms"), std::string::npos);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(900)) << "the deadline held";
    // Let the wait end on its own timeout before the comm goes.
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
}

// The vendor's CPU-kernel layout: each parameter starts right where the previous one
// ended, whatever its size, so a kernel that reads a 1-byte parameter and then a 2-byte
// one finds the second at offset 1 of them. Parameters of sizes 1, 2, 3 and 5 put every
// later one off an 8-byte boundary.
TEST_F(Launches, ArgumentsArePackedUnpadded)
{
    ASSERT_EQ(HctsAclRefBindStreamComm(stream_, comm_), ACL_SUCCESS) << last_error();
    aclrtFuncHandle arg_bytes = nullptr;
    ASSERT_EQ(aclrtBinaryGetFunction(bin_, "ArgBytes", &arg_bytes), ACL_SUCCESS) << last_error();
    unsigned char one[1] = {0x11};
    unsigned char two[2] = {0x21, 0x22};
    unsigned char three[3] = {0x31, 0x32, 0x33};
    unsigned char five[5] = {0x41, 0x42, 0x43, 0x44, 0x45};
    uint64_t eight = 0x5857565554535251ULL; // little-endian: 0x51 first
    const unsigned char expected[] = {0x11, 0x21, 0x22, 0x31, 0x32, 0x33, 0x41, 0x42, 0x43, 0x44,
                                      0x45, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58};
    uint64_t out = reinterpret_cast<uintptr_t>(out_);
    uint32_t count = sizeof expected;
    aclrtArgsHandle handle = nullptr;
    aclrtParamHandle param = nullptr;
    ASSERT_EQ(aclrtKernelArgsInit(arg_bytes, &handle), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtKernelArgsAppend(handle, &out, sizeof out, &param), ACL_SUCCESS);
    ASSERT_EQ(aclrtKernelArgsAppend(handle, &count, sizeof count, &param), ACL_SUCCESS);
    ASSERT_EQ(aclrtKernelArgsAppend(handle, one, sizeof one, &param), ACL_SUCCESS);
    ASSERT_EQ(aclrtKernelArgsAppend(handle, two, sizeof two, &param), ACL_SUCCESS);
    ASSERT_EQ(aclrtKernelArgsAppend(handle, three, sizeof three, &param), ACL_SUCCESS);
    ASSERT_EQ(aclrtKernelArgsAppend(handle, five, sizeof five, &param), ACL_SUCCESS);
    ASSERT_EQ(aclrtKernelArgsAppend(handle, &eight, sizeof eight, &param), ACL_SUCCESS);
    ASSERT_EQ(aclrtKernelArgsFinalize(handle), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtLaunchKernelWithConfig(arg_bytes, 1, stream_, nullptr, handle, nullptr), ACL_SUCCESS)
        << last_error();
    ASSERT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, 10000), ACL_SUCCESS) << last_error();
    unsigned char seen[sizeof expected] = {};
    ASSERT_EQ(aclrtMemcpy(seen, sizeof seen, out_, sizeof seen, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    for (size_t i = 0; i < sizeof expected; ++i)
        EXPECT_EQ(seen[i], expected[i]) << "byte " << i << " after the count";
}

// ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT is in seconds: a kernel whose task is pending for
// ~100 ms runs to its end under a 1 s attribute. The deadline bounds the tasks a kernel
// submitted, not its own code, so a kernel that only slept would not show the unit; the
// task is a wait on a thread notify that a kernel on a second stream records after
// sleeping, so it cannot end sooner.
TEST_F(Launches, TimeoutAttributeIsSeconds)
{
    aclrtStream recorder_stream = nullptr;
    ASSERT_EQ(aclrtCreateStream(&recorder_stream), ACL_SUCCESS) << last_error();
    ASSERT_EQ(HctsAclRefBindStreamComm(stream_, comm_), ACL_SUCCESS) << last_error();
    ASSERT_EQ(HctsAclRefBindStreamComm(recorder_stream, comm_), ACL_SUCCESS) << last_error();
    ThreadHandle threads[2] = {};
    ASSERT_EQ(HcclThreadAcquire(comm_, COMM_ENGINE_AICPU_TS, 2, 1, threads), HCCL_SUCCESS);
    AclTestKernelArgs waiter = args_;
    waiter.value = 88;
    waiter.thread = threads[0];
    waiter.wait_seconds = 5; // its own bound, should the record never come
    AclTestKernelArgs recorder = args_;
    recorder.out = 0;
    recorder.sleep_ms = 100;
    recorder.record_from = threads[1];
    recorder.record_to = threads[0];
    aclrtLaunchKernelAttr attr{};
    attr.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT;
    attr.value.timeout = 1;
    aclrtLaunchKernelCfg cfg{&attr, 1};
    const auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(launch(waiter, stream_, &cfg), ACL_SUCCESS) << last_error();
    ASSERT_EQ(launch(recorder, recorder_stream), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, 10000), ACL_SUCCESS) << last_error();
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(100))
        << "the waiter ended before the record it waits for";
    EXPECT_EQ(read_out(), 88U);
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(recorder_stream, 10000), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtDestroyStream(recorder_stream), ACL_SUCCESS) << last_error();
}

// Several devices in one process with a thread per device, as the vendor's test programs
// run them. A communicator serves the device its thread had set, so a kernel launched on
// the NULL stream runs on the comm of the launching thread's device only if that NULL
// stream is the device's own; the kernel fails (returns 102) on any other comm.
class DeviceLaunches : public Kernels {};

TEST_F(DeviceLaunches, DefaultStreamIsTheCallingThreadsDevices)
{
    const uint32_t devices = acl_test::expected_device_count();
    if (devices < 2)
        GTEST_SKIP() << "needs HCTS_ACL_DEVICES >= 2 (ctest acl_runtime_devices4 runs it)";
    aclrtBinHandle bin = nullptr;
    aclrtFuncHandle fn = nullptr;
    ASSERT_EQ(load(write("k.json", op_info(ACL_TEST_KERNEL_SO)), &bin), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtBinaryGetFunction(bin, "AclTestKernel", &fn), ACL_SUCCESS) << last_error();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    // Every thread waits here twice: every device has its comm before any launch (so a
    // shared NULL stream could not pick up the launching device's comm by luck), and no
    // device is reset while another thread may still use a NULL stream.
    const auto all_arrive = [&](std::atomic<uint32_t> &arrived) {
        ++arrived;
        while (arrived.load() < devices) {
            if (std::chrono::steady_clock::now() > deadline)
                return false;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        return true;
    };
    std::atomic<uint32_t> created{0};
    std::atomic<uint32_t> launched{0};
    std::vector<std::thread> threads;
    for (uint32_t d = 0; d < devices; ++d) {
        threads.emplace_back([&, d] {
            const auto id = static_cast<int32_t>(d);
            HcclComm comm = nullptr;
            void *out = nullptr;
            AclTestKernelArgs args{};
            args.value = 1000 + d;
            bool ready =
                aclrtSetDevice(id) == ACL_SUCCESS && aclrtMalloc(&out, 64, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS;
            HcclRootInfo root{};
            ready = ready && HcclGetRootInfo(&root) == HCCL_SUCCESS &&
                    HcclCommInitRootInfo(1, &root, 0, &comm) == HCCL_SUCCESS &&
                    HcommRefGetCommName(comm, args.comm_name, sizeof(args.comm_name)) == HCCL_SUCCESS;
            EXPECT_TRUE(ready) << "device " << d << ": " << last_error();
            EXPECT_TRUE(all_arrive(created)) << "device " << d << ": the other devices' threads never got ready";
            if (ready) {
                args.out = reinterpret_cast<uintptr_t>(out);
                aclrtArgsHandle handle = nullptr;
                aclrtParamHandle param = nullptr;
                EXPECT_EQ(aclrtKernelArgsInit(fn, &handle), ACL_SUCCESS) << last_error();
                EXPECT_EQ(aclrtKernelArgsAppend(handle, &args, sizeof args, &param), ACL_SUCCESS) << last_error();
                EXPECT_EQ(aclrtKernelArgsFinalize(handle), ACL_SUCCESS) << last_error();
                EXPECT_EQ(aclrtLaunchKernelWithConfig(fn, 1, nullptr, nullptr, handle, nullptr), ACL_SUCCESS)
                    << "device " << d << ": " << last_error();
                EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, 10000), ACL_SUCCESS)
                    << "device " << d << "'s kernel on the NULL stream: " << last_error();
                uint32_t value = 0;
                EXPECT_EQ(aclrtMemcpy(&value, sizeof value, out, sizeof value, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
                EXPECT_EQ(value, 1000 + d) << "device " << d;
            }
            EXPECT_TRUE(all_arrive(launched)) << "device " << d << ": the other devices' kernels never ended";
            if (out != nullptr) {
                EXPECT_EQ(aclrtFree(out), ACL_SUCCESS);
            }
            if (comm != nullptr) {
                EXPECT_EQ(HcclCommDestroy(comm), HCCL_SUCCESS);
            }
            EXPECT_EQ(aclrtResetDevice(id), ACL_SUCCESS) << "device " << d << ": " << last_error();
        });
    }
    for (auto &t : threads)
        t.join();
    EXPECT_EQ(aclrtBinaryUnLoad(bin), ACL_SUCCESS);
}

} // namespace
