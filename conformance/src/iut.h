// The implementation under test (IUT): a shared library loaded by path into a
// dispatch table of every hcomm symbol. The suite never links an hcomm library;
// a symbol the IUT lacks stays null and the clauses needing it are NOT_SUPPORTED.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hccl/hccl_channel.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_res.h"
#include "hccl/hccl_res_expt.h"
#include "hcomm/hcomm_primitives.h"
#include "hcomm/hcomm_primitives_expt.h"

namespace hcts {

struct HcommDispatch {
#define X(name) decltype(&::name) name = nullptr;
#include "hcomm_symbols.inc"
#undef X
};

class Iut {
  public:
    // Loads with dlopen(RTLD_NOW | RTLD_GLOBAL); throws std::runtime_error naming
    // the path and dlerror() when the library cannot be loaded at all.
    static Iut &load(const std::string &path);
    static Iut &get(); // after load()

    const HcommDispatch &api() const { return api_; }
    // Any symbol of the IUT (used for the adapter's iut_symbol callback).
    void *symbol(const char *name) const;
    const std::string &path() const { return path_; }
    const std::string &sha256() const { return sha256_; }
    const std::vector<std::string> &missing() const { return missing_; }
    bool has(std::string_view name) const;

  private:
    Iut() = default;
    void *handle_ = nullptr;
    std::string path_;
    std::string sha256_;
    HcommDispatch api_;
    std::vector<std::string> missing_;
};

std::string sha256_of_file(const std::string &path);

} // namespace hcts
