#include "adapter.h"

#include <dlfcn.h>

#include <cstddef>
#include <memory>
#include <stdexcept>

#include "iut.h"

namespace hcts {

namespace {
std::unique_ptr<Adapter> g_adapter;

void *iut_symbol(const char *name) { return Iut::get().symbol(name); }

} // namespace

// A field is usable only when the adapter's struct is large enough to hold it.
#define HCTS_COVERS(a, field) ((a)->size >= offsetof(hcts_adapter_v1, field) + sizeof((a)->field))

Adapter &Adapter::load(const std::string &path, const std::string &programs_path, uint32_t rank, uint32_t rank_count)
{
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
        throw std::runtime_error("cannot load the adapter '" + path + "': " + dlerror());
    auto get = reinterpret_cast<hcts_adapter_get_fn>(dlsym(handle, HCTS_ADAPTER_ENTRY));
    if (get == nullptr)
        throw std::runtime_error("the adapter '" + path + "' does not export " HCTS_ADAPTER_ENTRY "()");
    const hcts_adapter_v1 *abi = get();
    if (abi == nullptr || abi->abi_version == 0 || abi->abi_version > HCTS_ADAPTER_ABI_VERSION)
        throw std::runtime_error("the adapter '" + path + "' has ABI version " +
                                 std::to_string(abi != nullptr ? abi->abi_version : 0) + "; this suite knows 1.." +
                                 std::to_string(HCTS_ADAPTER_ABI_VERSION));
    if (!HCTS_COVERS(abi, copy_to_host) || abi->init == nullptr || abi->run_program == nullptr ||
        abi->copy_to_device == nullptr || abi->copy_to_host == nullptr || abi->product == nullptr)
        throw std::runtime_error("the adapter '" + path + "' lacks a required function (init, product, " +
                                 "run_program, copy_to_device, copy_to_host); struct size " +
                                 std::to_string(abi->size));
    hcts_adapter_init_args args{HCTS_ADAPTER_ABI_VERSION, sizeof(hcts_adapter_init_args), programs_path.c_str(),
                                iut_symbol, rank, rank_count};
    if (const int32_t rc = abi->init(&args); rc != 0)
        throw std::runtime_error("the adapter '" + path + "' failed to initialise: HcclResult " + std::to_string(rc));
    g_adapter.reset(new Adapter());
    g_adapter->abi_ = abi;
    g_adapter->path_ = path;
    g_adapter->sha256_ = sha256_of_file(path);
    return *g_adapter;
}

Adapter &Adapter::get()
{
    if (!g_adapter)
        throw std::logic_error("hcts: Adapter::get() before Adapter::load()");
    return *g_adapter;
}

std::string Adapter::product() const
{
    const char *p = abi_->product();
    return p != nullptr ? p : "unknown";
}

int32_t Adapter::run(void *comm, const char *program, void *args, size_t size, uint32_t timeout_ms,
                     hcts_launch_status &status) const
{
    status = {};
    return abi_->run_program(comm, program, args, size, timeout_ms, &status);
}

void Adapter::to_device(void *dev, const void *host, size_t len) const
{
    if (const int32_t rc = abi_->copy_to_device(dev, host, len); rc != 0)
        throw std::runtime_error("adapter copy_to_device of " + std::to_string(len) + " bytes failed: " +
                                 std::to_string(rc));
}

void Adapter::to_host(void *host, const void *dev, size_t len) const
{
    if (const int32_t rc = abi_->copy_to_host(host, dev, len); rc != 0)
        throw std::runtime_error("adapter copy_to_host of " + std::to_string(len) + " bytes failed: " +
                                 std::to_string(rc));
}

int Adapter::peek_notify(void *comm, uint64_t channel, uint32_t idx) const
{
    if (!HCTS_COVERS(abi_, peek_notify) || abi_->peek_notify == nullptr)
        return -1;
    int32_t set = 0;
    if (abi_->peek_notify(comm, channel, idx, &set) != 0)
        return -1;
    return set != 0 ? 1 : 0;
}

} // namespace hcts
