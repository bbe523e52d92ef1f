// The platform adapter (contract 2, abi/hcts_adapter.h), loaded by path. One
// version rule: every version this suite knows is accepted (the newest entry
// point first); an older one is adapted, its missing fields counting as absent.
// init runs when the adapter is opened and fini when it is destroyed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "hcts/core/shared_object.h"
#include "hcts_adapter.h"

namespace hcts {

class Library;

class Adapter {
  public:
    struct Init {
        std::string programs_path; // libhcts_programs.so
        uint32_t rank = 0;
        uint32_t rank_count = 1;
    };
    // Loads, checks and initialises the adapter; `iut` answers its iut_symbol
    // callback and must outlive the adapter. Throws std::runtime_error naming the
    // path and the problem (no entry point, unknown version, size mismatch,
    // missing required function, init failure with its HcclResult).
    static std::unique_ptr<Adapter> open(const std::string &path, const Library &iut, const Init &init);
    ~Adapter();
    Adapter(const Adapter &) = delete;
    Adapter &operator=(const Adapter &) = delete;

    uint32_t abi_version() const { return version_; } // the version the adapter implements
    std::string name() const;
    std::string product() const; // "unknown" when the adapter does not say
    bool multi_rank_per_process() const;
    const std::string &path() const { return so_.path; }
    const std::string &sha256() const { return so_.sha256; }

    // Runs device program hcts_prog_<program>; the adapter's return code.
    int32_t run(void *comm, std::string_view program, void *args, size_t size, uint32_t timeout_ms,
                hcts_launch_status &status) const;
    // Host <-> device copies; throw std::runtime_error with the adapter's code.
    void to_device(void *dev, const void *host, size_t len) const;
    void to_host(void *host, const void *dev, size_t len) const;
    bool can_peek() const { return fns_.v1.peek_notify != nullptr; }
    // Whether a local notify is set, without consuming it; nullopt when the
    // adapter cannot tell (no peek_notify, or it failed).
    std::optional<bool> peek_notify(void *comm, uint64_t channel, uint32_t idx) const;
    // The transport's segment size on `channel`, 0 when unknown.
    uint64_t segment_size(void *comm, uint64_t channel) const;
    std::optional<std::string> iut_version() const;

  private:
    Adapter() = default;
    detail::SharedObject so_;
    uint32_t version_ = 0;
    hcts_adapter_v2 fns_{}; // the newest layout; fields an older version lacks stay null
};

} // namespace hcts
