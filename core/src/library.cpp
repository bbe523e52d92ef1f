#include "hcts/core/library.h"

#include <algorithm>
#include <stdexcept>

#include "hcts/core/shared_object.h"
#include "hcts_programs.h"

namespace hcts {

std::unique_ptr<Library> Library::open(const std::string &path)
{
    std::unique_ptr<Library> lib(new Library());
    lib->so_ = detail::SharedObject::open(path, detail::SharedObject::Scope::Global, "implementation under test");
#define X(name)                                                                                                        \
    lib->api_.name = reinterpret_cast<decltype(&::name)>(lib->so_.symbol(#name));                                      \
    if (lib->api_.name == nullptr)                                                                                     \
        lib->missing_.emplace_back(#name);
#include "hcts/core/hcomm_symbols.inc"
#undef X
    return lib;
}

void *Library::symbol(const char *name) const { return so_.symbol(name); }

bool Library::has(std::string_view name) const
{
    return std::find(missing_.begin(), missing_.end(), name) == missing_.end() &&
           symbol(std::string(name).c_str()) != nullptr;
}

std::string hccl_result_name(int32_t rc)
{
    static constexpr const char *kNames[] = {"HCCL_SUCCESS",
                                             "HCCL_E_PARA",
                                             "HCCL_E_PTR",
                                             "HCCL_E_MEMORY",
                                             "HCCL_E_INTERNAL",
                                             "HCCL_E_NOT_SUPPORT",
                                             "HCCL_E_NOT_FOUND",
                                             "HCCL_E_UNAVAIL",
                                             "HCCL_E_SYSCALL",
                                             "HCCL_E_TIMEOUT",
                                             "HCCL_E_OPEN_FILE_FAILURE",
                                             "HCCL_E_TCP_CONNECT",
                                             "HCCL_E_ROCE_CONNECT",
                                             "HCCL_E_TCP_TRANSFER",
                                             "HCCL_E_ROCE_TRANSFER",
                                             "HCCL_E_RUNTIME",
                                             "HCCL_E_DRV",
                                             "HCCL_E_PROFILING",
                                             "HCCL_E_CCE",
                                             "HCCL_E_NETWORK",
                                             "HCCL_E_AGAIN",
                                             "HCCL_E_REMOTE",
                                             "HCCL_E_SUSPENDING",
                                             "HCCL_E_OPRETRY_FAIL",
                                             "HCCL_E_OOM"};
    static_assert(sizeof kNames / sizeof kNames[0] == HCCL_E_OOM + 1, "one name per HcclResult up to HCCL_E_OOM");
    if (rc >= 0 && rc <= HCCL_E_OOM)
        return kNames[rc];
    switch (rc) {
    case HCCL_E_IN_STATUS: return "HCCL_E_IN_STATUS";
    case HCTS_OP_RC_MISSING: return "symbol absent from the IUT";
    case HCTS_OP_RC_UNKNOWN_KIND: return "op unknown to the device program";
    case HCTS_OP_RC_SKIPPED: return "skipped (the op before it failed)";
    default: return "HcclResult " + std::to_string(rc);
    }
}

} // namespace hcts
