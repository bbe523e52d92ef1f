// The device side of a case: scripts of hcomm calls (the one device program,
// core/abi/hcts_programs.h) launched through the adapter, and the adapter's
// copies between host and device memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hcomm/hcomm_res_defs.h"
#include "hcts_adapter.h"
#include "hcts_programs.h"

namespace hcts {

class Adapter;
struct CaseSpec;

// Whose fault a launch that did not complete cleanly is: the IUT's behaviour
// (a task failed, the deadline passed: judged by the clause), the harness's (the
// adapter refused, the program did not take its block: ERROR), or a call the
// IUT lacks (NOT_SUPPORTED).
enum class Trouble { None, Iut, Harness, Missing };

struct LaunchResult {
    int32_t rc = 0; // the adapter's run_program return
    hcts_launch_status status{};
    bool ok() const { return rc == 0 && status.task_error == 0 && status.timed_out == 0 && status.program_return == 0; }
    Trouble trouble() const;
    double elapsed_ms() const { return static_cast<double>(status.elapsed_ns) / 1e6; }
    std::string describe() const;
};

// One launch's script: ops in issue order, each on the thread it names.
class Script {
  public:
    Script();
    Script &wwn(ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t len, uint32_t idx);
    Script &write(ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t len);
    Script &read(ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t len);
    Script &record(ThreadHandle t, ChannelHandle c, uint32_t idx);
    Script &wait(ThreadHandle t, ChannelHandle c, uint32_t idx, uint32_t timeout);
    Script &copy(ThreadHandle t, void *dst, const void *src, uint64_t len);
    Script &fence(ThreadHandle t, ChannelHandle c);
    // HcommChannelNotifyWaitOnThreadWithDefaultTimeout: waits for the default set below.
    Script &wait_default(ThreadHandle t, ChannelHandle c, uint32_t idx);
    // HcommSetNotifyWaitTimeOut(seconds): the default of the *WithDefaultTimeout waits.
    Script &set_wait_timeout(float seconds);
    // The op just added runs only if the one before it returned 0
    // (e.g. a snapshot copy behind a wait).
    Script &only_if_previous_ok();
    size_t size() const { return block_->op_count; }
    bool empty() const { return block_->op_count == 0; }
    const hcts_op &op(size_t i) const { return block_->ops[i]; }
    int32_t rc(size_t i) const { return block_->ops[i].rc; }
    // The first op that did not return 0 (refused, failed or skipped), if any:
    // a run with one shows nothing about a profile or litmus outcome.
    std::optional<size_t> first_failure() const
    {
        for (size_t i = 0; i < size(); ++i)
            if (rc(i) != 0)
                return i;
        return std::nullopt;
    }
    hcts_prog_ops_v2 &block() { return *block_; }

  private:
    Script &add(const hcts_op &op);
    std::unique_ptr<hcts_prog_ops_v2> block_;
};

class Device {
  public:
    // use_peek false: act as if the adapter had no peek_notify (--no-peek).
    Device(const Adapter &adapter, void *comm, uint32_t default_timeout_ms, bool use_peek)
        : adapter_(adapter), comm_(comm), default_timeout_ms_(default_timeout_ms), use_peek_(use_peek)
    {
    }
    // Runs the script on the device side. With a case spec, every op must be of
    // a feature the case declared (std::logic_error otherwise: the case is wrong).
    LaunchResult run(Script &s, uint32_t timeout_ms = 0, const CaseSpec *declared = nullptr) const;
    void put(void *dev, std::span<const std::byte> host) const;
    std::vector<std::byte> get(const void *dev, size_t len) const;
    void poison(void *dev, size_t len) const;
    void stamp(void *dev, size_t len, uint64_t pattern_word) const;
    // Whether a local notify is set, without consuming it (nullopt: the adapter cannot tell).
    std::optional<bool> peek_notify(ChannelHandle channel, uint32_t idx) const;
    bool can_peek() const;

  private:
    const Adapter &adapter_;
    void *comm_;
    uint32_t default_timeout_ms_;
    bool use_peek_;
};

} // namespace hcts
