// AICPU kernel binaries: an op-info JSON names each kernel's .so (kernelSo) and
// entry point (functionName); the runtime dlopens a host build of that .so and
// runs the entry point, at launch, as a device program of the stream's
// communicator (HcommRefDeviceLaunch: device side, AICPU_TS).
#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hcomm_ref/hcomm_ref.h"
#include "runtime.h"
#include "settings.h"

namespace hcts_acl {

namespace {

struct SharedObject {
    void *handle = nullptr;
    std::string path;
    ~SharedObject()
    {
        if (handle != nullptr)
            dlclose(handle);
    }
};

struct KernelEntry {
    std::string key;      // the JSON's top-level name
    std::string so;       // opInfo.kernelSo
    std::string function; // opInfo.functionName
};

struct Binary {
    std::string json_path;
    std::string json_dir;
    int32_t mode = 0; // ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE
    std::vector<KernelEntry> entries;
    std::mutex mutex;
    std::map<std::string, std::shared_ptr<SharedObject>> loaded; // by kernelSo
    std::vector<void *> functions;                               // handles to drop at unload
};

struct Function {
    void *binary = nullptr; // its binary's handle
    std::string name;
    HcommRefDeviceFn entry = nullptr;
    std::shared_ptr<SharedObject> so; // keeps the code loaded while launches hold it
};

struct Args {
    void *function = nullptr; // the function handle it was made for
    std::shared_ptr<Function> target;
    std::mutex mutex;                 // guards what follows
    std::vector<unsigned char> bytes; // AICPU kernels take their parameters packed, unpadded
    bool finalized = false;
    uint32_t params = 0;
};

HandleTable<Binary> &binaries()
{
    static auto *table = new HandleTable<Binary>(0x4249); // "BI"
    return *table;
}
HandleTable<Function> &functions()
{
    static auto *table = new HandleTable<Function>(0x464e); // "FN"
    return *table;
}
HandleTable<Args> &arguments()
{
    static auto *table = new HandleTable<Args>(0x4152); // "AR"
    return *table;
}

bool is_file(const std::string &path)
{
    struct stat st {};
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<std::string> split_paths(const char *value)
{
    std::vector<std::string> parts;
    if (value == nullptr)
        return parts;
    std::string all(value);
    size_t start = 0;
    while (start <= all.size()) {
        const size_t end = all.find(':', start);
        const std::string part = all.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!part.empty())
            parts.push_back(part);
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    return parts;
}

std::vector<std::string> subdirectories(const std::string &dir)
{
    std::vector<std::string> names;
    DIR *d = opendir(dir.c_str());
    if (d == nullptr)
        return names;
    while (const dirent *e = readdir(d)) {
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
            names.push_back(dir + "/" + e->d_name);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    return names;
}

// Where a kernel .so is looked for, in order (acl_runtime/README.md).
std::vector<std::string> search_directories(const Binary &binary)
{
    std::vector<std::string> dirs{binary.json_dir, binary.json_dir + "/../kernel", binary.json_dir + "/../lib64"};
    const auto setting = [](const hcts::settings::Setting &s) { return hcts::settings::get_path(s).value; };
    for (const std::string &dir : split_paths(setting(settings::kernel_path).c_str()))
        dirs.push_back(dir);
    for (const std::string &home : split_paths(setting(settings::ascend_home_path).c_str())) {
        dirs.push_back(home + "/lib64");
        for (const std::string &vendor : subdirectories(home + "/opp/vendors")) {
            dirs.push_back(vendor + "/aicpu/kernel");
            dirs.push_back(vendor + "/lib64");
            dirs.push_back(vendor + "/op_impl/cpu/aicpu_kernel/impl");
        }
        dirs.push_back(home + "/opp/built-in/op_impl/aicpu/kernel");
    }
    for (const std::string &dir : split_paths(std::getenv("LD_LIBRARY_PATH")))
        dirs.push_back(dir);
    return dirs;
}

aclError load_so(const char *api, Binary &binary, const std::string &so, std::shared_ptr<SharedObject> &out)
{
    std::lock_guard<std::mutex> lock(binary.mutex);
    if (const auto it = binary.loaded.find(so); it != binary.loaded.end()) {
        out = it->second;
        return ACL_SUCCESS;
    }
    std::vector<std::string> candidates;
    if (binary.mode == 1) {
        // Mode 1: the .so beside the JSON, with the JSON's name.
        std::string stem = binary.json_path;
        if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".json") == 0)
            stem.resize(stem.size() - 5);
        candidates.push_back(stem + ".so");
    }
    if (so.find('/') != std::string::npos) {
        candidates.push_back(so.front() == '/' ? so : binary.json_dir + "/" + so);
    } else {
        for (const std::string &dir : search_directories(binary))
            candidates.push_back(dir + "/" + so);
    }
    std::string errors;
    for (const std::string &path : candidates) {
        if (!is_file(path))
            continue;
        dlerror();
        void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char *why = dlerror();
            errors += "; " + path + ": " + (why != nullptr ? why : "dlopen failed");
            continue;
        }
        auto object = std::make_shared<SharedObject>();
        object->handle = handle;
        object->path = path;
        binary.loaded.emplace(so, object);
        out = object;
        return ACL_SUCCESS;
    }
    return fail(api, ACL_ERROR_INVALID_FILE, "no loadable host build of kernel '", so, "' named by ", binary.json_path,
                " (looked beside the JSON, in ../kernel and ../lib64, HCTS_ACL_KERNEL_PATH, ASCEND_HOME_PATH's "
                "lib64 and opp layouts, LD_LIBRARY_PATH)",
                errors);
}

aclError parse_op_info(const char *api, const std::string &path, const std::string &text,
                       std::vector<KernelEntry> &entries)
{
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded())
        return fail(api, ACL_ERROR_PARSE_FILE, path, " is not valid JSON");
    if (!doc.is_object() || doc.empty()) {
        return fail(api, ACL_ERROR_PARSE_FILE, path,
                    " is not an op-info JSON (an object of kernels, each with opInfo.kernelSo and "
                    "opInfo.functionName)");
    }
    for (const auto &[key, value] : doc.items()) {
        const auto info = value.is_object() ? value.find("opInfo") : value.end();
        if (info == value.end() || !info->is_object())
            return fail(api, ACL_ERROR_FILE_MISSING_ATTR, path, ": kernel '", key, "' has no opInfo object");
        const auto so = info->find("kernelSo");
        const auto function = info->find("functionName");
        if (so == info->end() || !so->is_string() || so->get<std::string>().empty())
            return fail(api, ACL_ERROR_FILE_MISSING_ATTR, path, ": kernel '", key, "' has no opInfo.kernelSo string");
        if (function == info->end() || !function->is_string() || function->get<std::string>().empty()) {
            return fail(api, ACL_ERROR_FILE_MISSING_ATTR, path, ": kernel '", key,
                        "' has no opInfo.functionName string");
        }
        entries.push_back(KernelEntry{key, so->get<std::string>(), function->get<std::string>()});
    }
    return ACL_SUCCESS;
}

// The launch deadline in milliseconds (0: none): the config's timeout attribute,
// capped by HCTS_ACL_KERNEL_TIMEOUT_MS.
aclError launch_timeout(const char *api, const aclrtLaunchKernelCfg *cfg, uint32_t &timeout_ms)
{
    uint64_t ms = 0;
    bool seconds = false;
    bool micros = false;
    if (cfg != nullptr) {
        if (cfg->numAttrs > 0 && cfg->attrs == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, "cfg->attrs is NULL with cfg->numAttrs ", cfg->numAttrs);
        for (size_t i = 0; i < cfg->numAttrs; ++i) {
            const aclrtLaunchKernelAttr &attr = cfg->attrs[i];
            switch (raw_value(attr.id)) {
            case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT:
                seconds = true;
                ms = uint64_t{attr.value.timeout} * 1000;
                break;
            case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US: {
                micros = true;
                const uint64_t us =
                    (uint64_t{attr.value.timeoutUs.timeoutHigh} << 32) | attr.value.timeoutUs.timeoutLow;
                ms = (us + 999) / 1000;
                break;
            }
            case ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE:
            case ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE:
            case ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE:
            case ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET:
            case ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH:
            case ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP:
            case ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING: break; // no effect on an emulated AI CPU
            default:
                return fail(api, ACL_ERROR_INVALID_PARAM, "cfg->attrs[", i, "].id ", raw_value(attr.id),
                            " is not an aclrtLaunchKernelAttrId (1..9)");
            }
        }
    }
    if (seconds && micros) {
        return fail(api, ACL_ERROR_INVALID_PARAM,
                    "ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT and ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US are exclusive");
    }
    if (const auto capped = hcts::settings::get_uint(settings::kernel_timeout_ms); capped.set) {
        if (capped.bad())
            return fail(api, ACL_ERROR_INVALID_PARAM, capped.error, " (milliseconds)");
        const uint64_t cap = capped.value;
        if (ms == 0 || ms > cap)
            ms = cap;
    }
    timeout_ms = static_cast<uint32_t>(std::min<uint64_t>(ms, 0xffffffffULL));
    return ACL_SUCCESS;
}

std::string hccl_result_text(int32_t rc) { return "HcclResult " + std::to_string(rc); }

} // namespace

} // namespace hcts_acl

using namespace hcts_acl;

ACL_EXPORT aclError aclrtBinaryLoadFromFile(const char *binPath, aclrtBinaryLoadOptions *options,
                                            aclrtBinHandle *binHandle)
{
    return guarded("aclrtBinaryLoadFromFile", [&]() -> aclError {
        const char *api = "aclrtBinaryLoadFromFile";
        if (binPath == nullptr || binHandle == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, binPath == nullptr ? "binPath" : "binHandle", " is NULL");
        int32_t mode = 0;
        if (options != nullptr) {
            if (options->numOpt > 0 && options->options == nullptr)
                return fail(api, ACL_ERROR_INVALID_PARAM, "options->options is NULL with numOpt ", options->numOpt);
            for (size_t i = 0; i < options->numOpt; ++i) {
                const aclrtBinaryLoadOption &option = options->options[i];
                switch (raw_value(option.type)) {
                case ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE:
                    mode = option.value.cpuKernelMode;
                    if (mode != 0 && mode != 1) {
                        return fail(api, ACL_ERROR_INVALID_PARAM, "cpuKernelMode ", mode,
                                    " does not load from a file (0: op-info JSON, 1: JSON and the .so beside it)");
                    }
                    break;
                case ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD: break;
                case ACL_RT_BINARY_LOAD_OPT_MAGIC:
                    return fail(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                "AI Core and vector core binaries (a magic option) do not run on the reference; only "
                                "AICPU kernels (an op-info JSON) do");
                default:
                    return fail(api, ACL_ERROR_INVALID_PARAM, "options->options[", i, "].type ", raw_value(option.type),
                                " is not an aclrtBinaryLoadOptionType (1..3)");
                }
            }
        }
        std::string text;
        if (!read_file(binPath, text))
            return fail(api, ACL_ERROR_INVALID_FILE, "cannot read the file '", binPath, "'");
        auto binary = std::make_shared<Binary>();
        if (const aclError rc = parse_op_info(api, binPath, text, binary->entries); rc != ACL_SUCCESS)
            return rc;
        binary->json_path = binPath;
        const size_t slash = binary->json_path.rfind('/');
        binary->json_dir = slash == std::string::npos ? "." : binary->json_path.substr(0, slash == 0 ? 1 : slash);
        binary->mode = mode;
        *binHandle = binaries().add(std::move(binary));
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle)
{
    return guarded("aclrtBinaryUnLoad", [&]() -> aclError {
        const char *api = "aclrtBinaryUnLoad";
        if (binHandle == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, "binHandle is NULL");
        const std::shared_ptr<Binary> binary = binaries().remove(binHandle);
        if (!binary) {
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, "binHandle ", hex(binHandle),
                        " is not a loaded binary (aclrtBinaryLoadFromFile; unloaded already?)");
        }
        // Its functions and their arguments go with it; launches in flight keep the code loaded until they end.
        std::vector<void *> gone;
        {
            std::lock_guard<std::mutex> lock(binary->mutex);
            gone.swap(binary->functions);
        }
        for (void *function : gone)
            functions().remove(function);
        arguments().remove_if(
            [binHandle](const Args &args) { return args.target && args.target->binary == binHandle; });
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char *kernelName,
                                           aclrtFuncHandle *funcHandle)
{
    return guarded("aclrtBinaryGetFunction", [&]() -> aclError {
        const char *api = "aclrtBinaryGetFunction";
        if (binHandle == nullptr || kernelName == nullptr || funcHandle == nullptr) {
            return fail(api, ACL_ERROR_INVALID_PARAM,
                        binHandle == nullptr    ? "binHandle"
                        : kernelName == nullptr ? "kernelName"
                                                : "funcHandle",
                        " is NULL");
        }
        const std::shared_ptr<Binary> binary = binaries().find(binHandle);
        if (!binary) {
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, "binHandle ", hex(binHandle),
                        " is not a loaded binary (aclrtBinaryLoadFromFile; unloaded already?)");
        }
        // A kernel is named by its op-info key, or else by its function name.
        const KernelEntry *entry = nullptr;
        for (const KernelEntry &candidate : binary->entries)
            if (candidate.key == kernelName)
                entry = &candidate;
        for (const KernelEntry &candidate : binary->entries)
            if (entry == nullptr && candidate.function == kernelName)
                entry = &candidate;
        if (entry == nullptr) {
            std::string known;
            for (const KernelEntry &candidate : binary->entries)
                known += (known.empty() ? "" : ", ") + candidate.key;
            return fail(api, ACL_ERROR_RT_SYMBOL_NOT_FOUND, "no kernel '", kernelName, "' in ", binary->json_path,
                        " (it has: ", known, ")");
        }
        std::shared_ptr<SharedObject> so;
        if (const aclError rc = load_so(api, *binary, entry->so, so); rc != ACL_SUCCESS)
            return rc;
        dlerror();
        void *symbol = dlsym(so->handle, entry->function.c_str());
        if (symbol == nullptr) {
            return fail(api, ACL_ERROR_RT_SYMBOL_NOT_FOUND, so->path, " has no function '", entry->function,
                        "' (declare it extern \"C\" unsigned int ", entry->function, "(void *))");
        }
        auto function = std::make_shared<Function>();
        function->binary = binHandle;
        function->name = entry->key;
        function->entry = reinterpret_cast<HcommRefDeviceFn>(symbol);
        function->so = so;
        void *id = functions().add(std::move(function));
        {
            std::lock_guard<std::mutex> lock(binary->mutex);
            binary->functions.push_back(id);
        }
        *funcHandle = id;
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle, aclrtArgsHandle *argsHandle)
{
    return guarded("aclrtKernelArgsInit", [&]() -> aclError {
        const char *api = "aclrtKernelArgsInit";
        if (funcHandle == nullptr || argsHandle == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, funcHandle == nullptr ? "funcHandle" : "argsHandle", " is NULL");
        std::shared_ptr<Function> function = functions().find(funcHandle);
        if (!function) {
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, "funcHandle ", hex(funcHandle),
                        " is not a function of a loaded binary (aclrtBinaryGetFunction)");
        }
        auto args = std::make_shared<Args>();
        args->function = funcHandle;
        args->target = std::move(function);
        *argsHandle = arguments().add(std::move(args));
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void *param, size_t paramSize,
                                          aclrtParamHandle *paramHandle)
{
    return guarded("aclrtKernelArgsAppend", [&]() -> aclError {
        const char *api = "aclrtKernelArgsAppend";
        if (argsHandle == nullptr || param == nullptr || paramHandle == nullptr) {
            return fail(api, ACL_ERROR_INVALID_PARAM,
                        argsHandle == nullptr ? "argsHandle"
                        : param == nullptr    ? "param"
                                              : "paramHandle",
                        " is NULL");
        }
        if (paramSize == 0)
            return fail(api, ACL_ERROR_INVALID_PARAM, "paramSize is 0");
        const std::shared_ptr<Args> args = arguments().find(argsHandle);
        if (!args)
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, "argsHandle ", hex(argsHandle),
                        " is not live (aclrtKernelArgsInit)");
        std::vector<unsigned char> copy(paramSize);
        if (const aclError rc = aclrtMemcpy(copy.data(), paramSize, param, paramSize, ACL_MEMCPY_HOST_TO_HOST);
            rc != ACL_SUCCESS) {
            return fail(api, ACL_ERROR_INVALID_PARAM, "param [", hex(param), ", +", paramSize,
                        ") is not readable host memory");
        }
        std::lock_guard<std::mutex> lock(args->mutex);
        if (args->finalized)
            return fail(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the arguments are finalized; nothing can be appended");
        args->bytes.insert(args->bytes.end(), copy.begin(), copy.end());
        ++args->params;
        // A parameter handle is only ever given back to the calls that update parameters, which the reference lacks.
        *paramHandle = reinterpret_cast<void *>(static_cast<uintptr_t>((uint64_t{0x5041} << 48) | args->params));
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle)
{
    return guarded("aclrtKernelArgsFinalize", [&]() -> aclError {
        const char *api = "aclrtKernelArgsFinalize";
        if (argsHandle == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, "argsHandle is NULL");
        const std::shared_ptr<Args> args = arguments().find(argsHandle);
        if (!args)
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, "argsHandle ", hex(argsHandle),
                        " is not live (aclrtKernelArgsInit)");
        std::lock_guard<std::mutex> lock(args->mutex);
        args->finalized = true;
        return ACL_SUCCESS;
    });
}

namespace {

// Runs `function` with a copy of its arguments as a device program of the stream's
// communicator, in the stream's order (aclrtLaunchKernelWithConfig, and the <<<>>> launches
// of ASC sources through HctsAclRefLaunchFunction).
aclError launch_program(const char *api, std::shared_ptr<Function> function,
                        std::shared_ptr<std::vector<unsigned char>> bytes, uint32_t numBlocks,
                        aclrtLaunchKernelCfg *cfg, aclrtStream stream)
{
    if (numBlocks == 0)
        return fail(api, ACL_ERROR_INVALID_PARAM, "numBlocks is 0");
    if (numBlocks > 1) {
        return fail(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "numBlocks ", numBlocks,
                    ": the reference runs an AICPU kernel as one device program (numBlocks 1)");
    }
    uint32_t timeout_ms = 0;
    if (const aclError rc = launch_timeout(api, cfg, timeout_ms); rc != ACL_SUCCESS)
        return rc;
    std::shared_ptr<Stream> target;
    if (const aclError rc = resolve_stream(api, stream, target); rc != ACL_SUCCESS)
        return rc;
    HcclComm comm = launch_comm(*target);
    if (comm == nullptr) {
        return fail(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "stream ", hex(stream), " (device ", target->device(),
                    ") has no communicator: on the reference a kernel runs as a device program of one "
                    "(HctsAclRefBindStreamComm or HctsAclRefBindDeviceComm, acl_ref/acl_ref.h)");
    }
    target->enqueue([function, bytes, comm, timeout_ms]() -> std::pair<aclError, std::string> {
        HcommRefLaunchResult result{};
        result.version = HCOMM_REF_ABI_VERSION;
        result.size = sizeof(result);
        const HcclResult rc =
            HcommRefDeviceLaunch(comm, function->entry, bytes->empty() ? nullptr : bytes->data(), timeout_ms, &result);
        const std::string kernel = "kernel '" + function->name + "'";
        if (result.timedOut != 0 || rc == HCCL_E_TIMEOUT) {
            return {ACL_ERROR_RT_AICPU_TIMEOUT,
                    kernel + ": its tasks had not all run after " + std::to_string(timeout_ms) + " ms"};
        }
        if (rc != HCCL_SUCCESS)
            return {ACL_ERROR_RT_AICPU_EXCEPTION, kernel + ": HcommRefDeviceLaunch refused: " + hccl_result_text(rc)};
        if (result.taskError != HCCL_SUCCESS) {
            return {ACL_ERROR_RT_AICPU_EXCEPTION,
                    kernel + ": a task it submitted failed with " + hccl_result_text(result.taskError)};
        }
        if (result.programReturn != 0) {
            return {ACL_ERROR_RT_AICPU_EXCEPTION, kernel + " returned " + std::to_string(result.programReturn)};
        }
        return {ACL_SUCCESS, {}};
    });
    return ACL_SUCCESS;
}

} // namespace

ACL_EXPORT aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream,
                                                aclrtLaunchKernelCfg *cfg, aclrtArgsHandle argsHandle, void *reserve)
{
    return guarded("aclrtLaunchKernelWithConfig", [&]() -> aclError {
        (void)reserve;
        const char *api = "aclrtLaunchKernelWithConfig";
        if (funcHandle == nullptr || argsHandle == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, funcHandle == nullptr ? "funcHandle" : "argsHandle", " is NULL");
        const std::shared_ptr<Function> function = functions().find(funcHandle);
        if (!function) {
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, "funcHandle ", hex(funcHandle),
                        " is not a function of a loaded binary (aclrtBinaryGetFunction)");
        }
        const std::shared_ptr<Args> args = arguments().find(argsHandle);
        if (!args)
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, "argsHandle ", hex(argsHandle),
                        " is not live (aclrtKernelArgsInit)");
        if (args->function != funcHandle) {
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, "argsHandle ", hex(argsHandle), " was made for function ",
                        hex(args->function), ", not ", hex(funcHandle));
        }
        std::shared_ptr<std::vector<unsigned char>> bytes;
        {
            std::lock_guard<std::mutex> lock(args->mutex);
            if (!args->finalized)
                return fail(api, ACL_ERROR_RT_PARAM_INVALID,
                            "the arguments are not finalized (aclrtKernelArgsFinalize)");
            // Copied at launch, as on the device: the caller may reuse or free its own.
            bytes = std::make_shared<std::vector<unsigned char>>(args->bytes);
        }
        return launch_program(api, function, std::move(bytes), numBlocks, cfg, stream);
    });
}

ACL_EXPORT aclError HctsAclRefLaunchFunction(uint32_t (*fn)(void *), uint32_t numBlocks, aclrtStream stream,
                                             const void *args, size_t argsSize)
{
    return guarded("HctsAclRefLaunchFunction", [&]() -> aclError {
        const char *api = "HctsAclRefLaunchFunction";
        if (fn == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, "the kernel function is NULL");
        if (args == nullptr && argsSize != 0)
            return fail(api, ACL_ERROR_INVALID_PARAM, "args is NULL with argsSize ", argsSize);
        auto bytes = std::make_shared<std::vector<unsigned char>>(argsSize);
        // Copied at launch, as on the device: the caller's arguments may go once it returns.
        if (argsSize != 0) {
            if (const aclError rc = aclrtMemcpy(bytes->data(), argsSize, args, argsSize, ACL_MEMCPY_HOST_TO_HOST);
                rc != ACL_SUCCESS)
                return fail(api, ACL_ERROR_INVALID_PARAM, "args [", hex(args), ", +", argsSize,
                            ") is not readable host memory");
        }
        auto function = std::make_shared<Function>();
        function->name = "<<<>>> launch of " + hex(reinterpret_cast<void *>(fn));
        function->entry = fn;
        return launch_program(api, std::move(function), std::move(bytes), numBlocks, nullptr, stream);
    });
}
