// The platform adapter, loaded by path (contract 2, ../adapter/hcts_adapter.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "hcts_adapter.h"

namespace hcts {

class Adapter {
  public:
    // Loads and initialises the adapter; throws std::runtime_error naming the
    // path and the problem (missing entry point, ABI too new, init failure).
    static Adapter &load(const std::string &path, const std::string &programs_path, uint32_t rank,
                         uint32_t rank_count);
    static Adapter &get();

    const hcts_adapter_v1 &abi() const { return *abi_; }
    std::string name() const { return abi_->name != nullptr ? abi_->name : "unnamed"; }
    std::string product() const;
    const std::string &path() const { return path_; }
    const std::string &sha256() const { return sha256_; }

    int32_t run(void *comm, const char *program, void *args, size_t size, uint32_t timeout_ms,
                hcts_launch_status &status) const;
    void to_device(void *dev, const void *host, size_t len) const;
    void to_host(void *host, const void *dev, size_t len) const;
    // Whether a local notify is set, when the adapter can tell (-1: cannot).
    int peek_notify(void *comm, uint64_t channel, uint32_t idx) const;

  private:
    Adapter() = default;
    const hcts_adapter_v1 *abi_ = nullptr;
    std::string path_;
    std::string sha256_;
};

} // namespace hcts
