// The implementation under test (IUT): a shared library loaded by path into a
// dispatch table of every hcomm symbol (hcomm_symbols.inc, the one list). The
// suite never links an hcomm library; a symbol the IUT lacks stays null and what
// needs it is NOT_SUPPORTED, never a crash.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hccl/hccl_channel.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_diag.h"
#include "hccl/hccl_rank_graph.h"
#include "hccl/hccl_res.h"
#include "hccl/hccl_res_expt.h"
#include "hcomm/hcomm_primitives.h"
#include "hcomm/hcomm_primitives_expt.h"
#include "hcts/core/shared_object.h"

namespace hcts {

struct HcommApi {
#define X(name) decltype(&::name) name = nullptr;
#include "hcts/core/hcomm_symbols.inc"
#undef X
};

class Library {
  public:
    // Loads with dlopen(RTLD_NOW | RTLD_GLOBAL): global, so the device programs
    // (hcts_programs.h) bind their hcomm calls to it. Throws std::runtime_error
    // naming the path and dlerror() when the library cannot be loaded at all.
    // The library stays loaded for the life of the process (its threads may
    // outlive any object here).
    static std::unique_ptr<Library> open(const std::string &path);

    const HcommApi &api() const { return api_; }
    // Any symbol of the IUT (the adapter's iut_symbol callback), or null.
    void *symbol(const char *name) const;
    bool has(std::string_view name) const;
    const std::string &path() const { return so_.path; }
    const std::string &sha256() const { return so_.sha256; }
    // hcomm symbols the IUT does not export, in hcomm_symbols.inc order.
    const std::vector<std::string> &missing() const { return missing_; }

  private:
    Library() = default;
    detail::SharedObject so_;
    HcommApi api_;
    std::vector<std::string> missing_;
};

// "HCCL_E_PARA" and so on; the raw number for codes the headers do not name.
std::string hccl_result_name(int32_t rc);

} // namespace hcts
