#include "hcts/core/adapter.h"

#include <cstddef>
#include <stdexcept>

#include "hcts/core/library.h"

namespace hcts {

namespace {

// The adapter's iut_symbol callback is a plain C function: it reaches the one
// IUT of the process through this pointer, set while an adapter is open.
const Library *g_symbol_source = nullptr;

void *iut_symbol(const char *name) { return g_symbol_source != nullptr ? g_symbol_source->symbol(name) : nullptr; }

} // namespace

std::unique_ptr<Adapter> Adapter::open(const std::string &path, const Library &iut, const Init &init)
{
    std::unique_ptr<Adapter> ad(new Adapter());
    ad->so_ = detail::SharedObject::open(path, detail::SharedObject::Scope::Local, "adapter");
    const detail::SharedObject &so = ad->so_;
    const auto problem = [&](const std::string &what) {
        return std::runtime_error("the adapter '" + path + "' " + what);
    };
    if (auto get2 = reinterpret_cast<hcts_adapter_get_v2_fn>(so.symbol(HCTS_ADAPTER_ENTRY_V2))) {
        const hcts_adapter_v2 *a = get2();
        if (a == nullptr || a->v1.abi_version != HCTS_ADAPTER_V2 || a->v1.size != sizeof(hcts_adapter_v2))
            throw problem(HCTS_ADAPTER_ENTRY_V2 "() returned version " + std::to_string(a ? a->v1.abi_version : 0) +
                          ", size " + std::to_string(a ? a->v1.size : 0) + "; expected version 2, size " +
                          std::to_string(sizeof(hcts_adapter_v2)));
        ad->fns_ = *a;
        ad->version_ = HCTS_ADAPTER_V2;
    } else if (auto get1 = reinterpret_cast<hcts_adapter_get_v1_fn>(so.symbol(HCTS_ADAPTER_ENTRY_V1))) {
        const hcts_adapter_v1 *a = get1();
        if (a == nullptr || a->abi_version != HCTS_ADAPTER_V1 || a->size != sizeof(hcts_adapter_v1))
            throw problem(HCTS_ADAPTER_ENTRY_V1 "() returned version " + std::to_string(a ? a->abi_version : 0) +
                          ", size " + std::to_string(a ? a->size : 0) + "; expected version 1, size " +
                          std::to_string(sizeof(hcts_adapter_v1)));
        ad->fns_.v1 = *a; // the fields version 2 added stay absent
        ad->version_ = HCTS_ADAPTER_V1;
    } else {
        throw problem("exports neither " HCTS_ADAPTER_ENTRY_V2 "() nor " HCTS_ADAPTER_ENTRY_V1
                      "(); this suite knows adapter versions 1 and 2");
    }
    const hcts_adapter_v1 &f = ad->fns_.v1;
    if (f.init == nullptr || f.fini == nullptr || f.product == nullptr || f.multi_rank_per_process == nullptr ||
        f.run_program == nullptr || f.copy_to_device == nullptr || f.copy_to_host == nullptr)
        throw problem("lacks a required function (init, fini, product, multi_rank_per_process, run_program, "
                      "copy_to_device, copy_to_host are required; peek_notify, segment_size, iut_version optional)");
    g_symbol_source = &iut;
    const hcts_adapter_init_args args{
        ad->version_,   sizeof(hcts_adapter_init_args), init.programs_path.c_str(), iut_symbol, init.rank,
        init.rank_count};
    if (const int32_t rc = f.init(&args); rc != 0) {
        ad->fns_.v1.fini = nullptr; // init failed: there is nothing to finish
        throw problem("failed to initialise: " + hccl_result_name(rc));
    }
    return ad;
}

Adapter::~Adapter()
{
    if (fns_.v1.fini != nullptr)
        fns_.v1.fini();
    g_symbol_source = nullptr;
    // The adapter's code may still be referenced by threads of the IUT; keep it mapped.
}

std::string Adapter::name() const { return fns_.v1.name != nullptr ? fns_.v1.name : "unnamed"; }

std::string Adapter::product() const
{
    const char *p = fns_.v1.product();
    return p != nullptr ? p : "unknown";
}

bool Adapter::multi_rank_per_process() const { return fns_.v1.multi_rank_per_process() != 0; }

int32_t Adapter::run(void *comm, std::string_view program, void *args, size_t size, uint32_t timeout_ms,
                     hcts_launch_status &status) const
{
    status = {};
    return fns_.v1.run_program(comm, std::string(program).c_str(), args, size, timeout_ms, &status);
}

void Adapter::to_device(void *dev, const void *host, size_t len) const
{
    if (const int32_t rc = fns_.v1.copy_to_device(dev, host, len); rc != 0)
        throw std::runtime_error("adapter copy_to_device of " + std::to_string(len) +
                                 " bytes failed: " + hccl_result_name(rc));
}

void Adapter::to_host(void *host, const void *dev, size_t len) const
{
    if (const int32_t rc = fns_.v1.copy_to_host(host, dev, len); rc != 0)
        throw std::runtime_error("adapter copy_to_host of " + std::to_string(len) +
                                 " bytes failed: " + hccl_result_name(rc));
}

std::optional<bool> Adapter::peek_notify(void *comm, uint64_t channel, uint32_t idx) const
{
    if (fns_.v1.peek_notify == nullptr)
        return std::nullopt;
    int32_t set = 0;
    if (fns_.v1.peek_notify(comm, channel, idx, &set) != 0)
        return std::nullopt;
    return set != 0;
}

uint64_t Adapter::segment_size(void *comm, uint64_t channel) const
{
    return fns_.segment_size != nullptr ? fns_.segment_size(comm, channel) : 0;
}

std::optional<std::string> Adapter::iut_version() const
{
    if (fns_.iut_version == nullptr)
        return std::nullopt;
    const char *v = fns_.iut_version();
    return v != nullptr ? std::optional<std::string>(v) : std::nullopt;
}

} // namespace hcts
