// aclInit/aclFinalize, the calling thread's errors, devices and the SoC name.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "hcomm_ref/hcomm_ref.h"
#include "runtime.h"
#include "settings.h"

namespace hcts_acl {

namespace {

// The calling thread's most recent error, and the buffer aclGetRecentErrMsg
// hands out (valid until the thread's next call to it).
thread_local std::string pending_error;
thread_local bool has_pending_error = false;
thread_local std::string returned_error;
// aclrtGetLastError's code: the thread's last failure, until read.
thread_local aclError last_error = ACL_SUCCESS;

} // namespace

aclError record_error(const char *api, aclError code, const std::string &message)
{
    last_error = code;
    pending_error = std::string(api) + ": " + message + " (error " + std::to_string(code) + ")";
    has_pending_error = true;
    return code;
}

aclError exception_to_error(const char *api) noexcept
{
    aclError code = ACL_ERROR_INTERNAL_ERROR;
    char cause[200] = "an exception of unknown type";
    try {
        throw;
    } catch (const std::bad_alloc &) {
        code = ACL_ERROR_BAD_ALLOC;
        std::snprintf(cause, sizeof cause, "out of memory (std::bad_alloc)");
    } catch (const std::system_error &e) {
        code = ACL_ERROR_RT_FAILURE;
        std::snprintf(cause, sizeof cause, "the system refused a thread or other resource (std::system_error: %s)",
                      e.what());
    } catch (const std::exception &e) {
        std::snprintf(cause, sizeof cause, "an exception (%s)", e.what());
    } catch (...) {
    }
    std::fprintf(stderr, "[hcts acl] error: %s failed with %d: %s\n", api, static_cast<int>(code), cause);
    try {
        record_error(api, code, cause);
    } catch (...) { // no memory for the message: the code alone tells
    }
    return code;
}

bool read_file(const char *path, std::string &text)
{
    struct stat st {};
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    std::FILE *file = std::fopen(path, "rb");
    if (file == nullptr)
        return false;
    text.clear();
    char buffer[65536];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
        text.append(buffer, n);
    const bool ok = std::ferror(file) == 0;
    std::fclose(file);
    return ok;
}

std::string hex(const void *p)
{
    char text[32];
    std::snprintf(text, sizeof(text), "%p", p);
    return text;
}

// A level other than the thread's is refused without touching the thread's code.
ACL_EXPORT aclError aclrtGetLastError(aclrtLastErrLevel level)
{
    if (raw_value(level) != ACL_RT_THREAD_LEVEL)
        return ACL_ERROR_INVALID_PARAM;
    const aclError code = last_error;
    last_error = ACL_SUCCESS;
    return code;
}

ACL_EXPORT aclError aclrtPeekAtLastError(aclrtLastErrLevel level)
{
    return raw_value(level) != ACL_RT_THREAD_LEVEL ? ACL_ERROR_INVALID_PARAM : last_error;
}

// ---- devices ----------------------------------------------------------------

namespace {

constexpr uint32_t max_devices = 64;

struct DeviceState {
    uint32_t set_count = 0;  // aclrtSetDevice calls not yet reset, all threads
    uint64_t generation = 1; // advances when the count drops to 0
};

struct Devices {
    std::mutex mutex;
    std::vector<DeviceState> state{max_devices};
};

Devices &devices()
{
    static Devices *instance = new Devices; // never destroyed: streams' workers may outlive exit
    return *instance;
}

struct ThreadDevice {
    int32_t id = -1;
    uint64_t generation = 0;
};
thread_local ThreadDevice this_thread_device;

struct Count {
    uint32_t value = 0;
    std::string why;
};

Count read_device_count()
{
    Count count;
    static_assert(max_devices == 64, "settings::devices allows [1, 64]");
    const auto v = hcts::settings::get_uint(settings::devices);
    if (v.bad()) {
        count.why = v.error;
        return count;
    }
    count.value = static_cast<uint32_t>(v.value);
    return count;
}

} // namespace

uint32_t device_count(std::string *why)
{
    static const Count count = read_device_count();
    if (why != nullptr)
        *why = count.why;
    return count.value;
}

aclError check_device_id(const char *api, int32_t device)
{
    std::string why;
    const uint32_t count = device_count(&why);
    if (count == 0)
        return fail(api, ACL_ERROR_RT_NO_DEVICE, why);
    if (device < 0 || static_cast<uint32_t>(device) >= count) {
        return fail(api, ACL_ERROR_RT_INVALID_DEVICEID, "device ", device, " does not exist: this process has ", count,
                    " device(s), ids 0..", count - 1, " (HCTS_ACL_DEVICES)");
    }
    return ACL_SUCCESS;
}

std::optional<int32_t> current_device()
{
    const ThreadDevice mine = this_thread_device;
    if (mine.id < 0)
        return std::nullopt;
    Devices &all = devices();
    std::lock_guard<std::mutex> lock(all.mutex);
    const DeviceState &state = all.state[static_cast<size_t>(mine.id)];
    if (state.generation != mine.generation || state.set_count == 0)
        return std::nullopt;
    return mine.id;
}

// ---- init -------------------------------------------------------------------

namespace {

std::mutex init_mutex;
bool initialized = false;

} // namespace

} // namespace hcts_acl

using namespace hcts_acl;

ACL_EXPORT aclError aclInit(const char *configPath)
{
    return guarded("aclInit", [&]() -> aclError {
        const char *api = "aclInit";
        std::lock_guard<std::mutex> lock(init_mutex);
        if (initialized)
            return fail(api, ACL_ERROR_REPEAT_INITIALIZE, "already initialised (aclFinalize first)");
        if (configPath != nullptr && *configPath != '\0') {
            std::string text;
            if (!read_file(configPath, text))
                return fail(api, ACL_ERROR_INVALID_FILE, "cannot read the configuration file '", configPath, "'");
            // The reference reads no option from it, but a file that is not JSON is an error, as on the device.
            if (!text.empty() && !nlohmann::json::accept(text))
                return fail(api, ACL_ERROR_PARSE_FILE, "the configuration file '", configPath, "' is not valid JSON");
        }
        initialized = true;
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclFinalize(void)
{
    return guarded("aclFinalize", [&]() -> aclError {
        std::lock_guard<std::mutex> lock(init_mutex);
        if (!initialized)
            return fail("aclFinalize", ACL_ERROR_REPEAT_FINALIZE, "not initialised (aclInit first, once)");
        initialized = false;
        return ACL_SUCCESS;
    });
}

ACL_EXPORT const char *aclGetRecentErrMsg(void)
{
    if (!has_pending_error)
        return nullptr;
    returned_error.swap(pending_error); // no allocation: a copy could throw std::bad_alloc
    pending_error.clear();
    has_pending_error = false;
    return returned_error.c_str();
}

// ---- devices ----------------------------------------------------------------

ACL_EXPORT aclError aclrtGetDeviceCount(uint32_t *count)
{
    return guarded("aclrtGetDeviceCount", [&]() -> aclError {
        const char *api = "aclrtGetDeviceCount";
        if (count == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, "count is NULL");
        std::string why;
        const uint32_t n = device_count(&why);
        if (n == 0)
            return fail(api, ACL_ERROR_RT_NO_DEVICE, why);
        *count = n;
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtSetDevice(int32_t deviceId)
{
    return guarded("aclrtSetDevice", [&]() -> aclError {
        if (const aclError rc = check_device_id("aclrtSetDevice", deviceId); rc != ACL_SUCCESS)
            return rc;
        Devices &all = devices();
        std::lock_guard<std::mutex> lock(all.mutex);
        DeviceState &state = all.state[static_cast<size_t>(deviceId)];
        ++state.set_count;
        this_thread_device = ThreadDevice{deviceId, state.generation};
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtResetDevice(int32_t deviceId)
{
    return guarded("aclrtResetDevice", [&]() -> aclError {
        const char *api = "aclrtResetDevice";
        if (const aclError rc = check_device_id(api, deviceId); rc != ACL_SUCCESS)
            return rc;
        Devices &all = devices();
        bool released = false;
        {
            std::lock_guard<std::mutex> lock(all.mutex);
            DeviceState &state = all.state[static_cast<size_t>(deviceId)];
            if (state.set_count == 0) {
                return fail(api, ACL_ERROR_RT_CONTEXT_NULL, "device ", deviceId,
                            " is not set in this process (aclrtSetDevice first; each set takes one reset)");
            }
            if (--state.set_count == 0) {
                ++state.generation;
                released = true;
            }
        }
        if (this_thread_device.id == deviceId && released)
            this_thread_device = ThreadDevice{};
        // As on the device: the streams of a released device are destroyed once their tasks finished.
        if (released)
            release_device_streams(deviceId);
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtGetDevice(int32_t *deviceId)
{
    return guarded("aclrtGetDevice", [&]() -> aclError {
        const char *api = "aclrtGetDevice";
        if (deviceId == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, "deviceId is NULL");
        const std::optional<int32_t> device = current_device();
        if (!device)
            return fail(api, ACL_ERROR_RT_CONTEXT_NULL, "the calling thread has no device (aclrtSetDevice first)");
        *deviceId = *device;
        return ACL_SUCCESS;
    });
}

// ---- SoC name -----------------------------------------------------------------

namespace {

// The SoC name a device of each reference product reports (spec/products.yaml
// names). Reference choice: one representative SoC per product, in CANN's
// spelling, so a program takes the code path of that product family.
struct SocOfProduct {
    const char *product;
    const char *soc;
};
constexpr SocOfProduct soc_of_product[] = {
    {"atlas350", "Ascend950PR_9599"},    // Atlas 350 card: Ascend 950PR
    {"ascend950", "Ascend950PR_9599"},   // 950PR/DT board without Atlas 350's limits
    {"a3", "Ascend910_9391"},            // Atlas A3 series: Ascend 910_93
    {"a2", "Ascend910B1"},               // Atlas A2 series: Ascend 910B
    {"atlas200i_500_a2", "Ascend310B1"}, // Atlas 200I/500 A2: Ascend 310B
    {"inference", "Ascend310P3"},        // Atlas inference series: Ascend 310P
    {"training", "Ascend910A"},          // Atlas training series: Ascend 910
};

} // namespace

ACL_EXPORT const char *aclrtGetSocName(void)
{
    const char *product = HcommRefProductName();
    if (product == nullptr) {
        guarded("aclrtGetSocName",
                [] { return fail("aclrtGetSocName", ACL_ERROR_INTERNAL_ERROR, "the reference reports no product"); });
        return nullptr;
    }
    for (const SocOfProduct &entry : soc_of_product) {
        if (std::strcmp(entry.product, product) == 0)
            return entry.soc;
    }
    fail("aclrtGetSocName", ACL_ERROR_INTERNAL_ERROR, "no SoC name is known for the reference's product '", product,
         "'");
    return nullptr;
}
