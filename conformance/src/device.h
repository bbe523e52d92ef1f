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
#include <string_view>
#include <vector>

#include "hccl/hccl_types.h"
#include "hcomm/hcomm_primitives.h"
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
    // Thread notifies (HcommThreadNotify*): a record on `t` raises notify `idx` of `dst_thread`.
    Script &thread_record(ThreadHandle t, ThreadHandle dst_thread, uint32_t idx);
    Script &thread_wait(ThreadHandle t, uint32_t idx, uint32_t timeout);
    Script &thread_wait_default(ThreadHandle t, uint32_t idx);
    // HcommThreadJoin(t, timeout), called by the program itself while t's tasks may still run.
    Script &thread_join(ThreadHandle t, uint32_t timeout);
    Script &aclrt_record(ThreadHandle t, uint64_t notify_id);
    Script &aclrt_wait(ThreadHandle t, uint64_t notify_id, uint32_t timeout);
    // The calls without a thread (host CPU engine) and HcommFenceOnThread.
    Script &channel_record(ChannelHandle c, uint32_t idx);
    Script &channel_wait(ChannelHandle c, uint32_t idx, uint32_t timeout);
    Script &fence_on_thread(ThreadHandle t);
    Script &channel_fence(ChannelHandle c);
    Script &drain(ThreadHandle t, ChannelHandle c);
    // HcommBatchTransferOnThread with `descs` copied into the block; `count`
    // (default: descs.size()) may differ to make a bad call; no descs: NULL.
    Script &batch(ThreadHandle t, ChannelHandle c, std::span<const HcommBatchTransferDesc> descs,
                  std::optional<uint32_t> count = std::nullopt);
    // The caller reuses the descriptor array of the last batch() once that call returned:
    // its pool bytes become `with` (same count), as a loop refilling one array does.
    Script &reuse_last_batch_descs(std::span<const HcommBatchTransferDesc> with);
    // String arguments; nullopt passes NULL.
    Script &batch_start(std::optional<std::string_view> tag);
    Script &batch_end(std::optional<std::string_view> tag);
    Script &acquire_comm(std::optional<std::string_view> comm_id);
    Script &release_comm(std::optional<std::string_view> comm_id);
    // HcommAicpuTsTaskCacheLookup; `with_is_hit` false passes isHit NULL. The
    // bool it wrote is is_hit(i) of this op.
    Script &tc_lookup(std::optional<std::string_view> tag, bool with_is_hit = true);
    bool is_hit(size_t i) const;
    // Start/Execute with no memory segments (count 0, NULL arrays) and End/Clear.
    Script &tc_start(std::optional<std::string_view> tag);
    Script &tc_end(std::optional<std::string_view> tag);
    Script &tc_execute(std::optional<std::string_view> tag);
    Script &tc_clear(std::optional<std::string_view> tag);
    // Reductions (count elements of `type`, combined with `op`).
    Script &local_reduce(ThreadHandle t, void *dst, const void *src, uint64_t count, uint32_t type, uint32_t op);
    Script &write_reduce(ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t count, uint32_t type,
                         uint32_t op);
    Script &write_reduce_notify(ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t count,
                                uint32_t type, uint32_t op, uint32_t idx);
    Script &read_reduce(ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t count, uint32_t type,
                        uint32_t op);
    // One of the six Nbi calls (kind HCTS_OP_WRITE_NBI_ON_THREAD .. HCTS_OP_READ_NBI); `t`
    // and `idx` are ignored by the calls that do not take them.
    Script &nbi(uint32_t kind, ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t len, uint32_t idx);
    // The op just added runs only if the one before it returned 0
    // (e.g. a snapshot copy behind a wait).
    Script &only_if_previous_ok();
    // The op just added runs only if the one before it did not return 0.
    Script &only_if_previous_failed();
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
    // The first op refused with HCCL_E_NOT_SUPPORT, if any: what the program was
    // to show cannot be judged (NOT_SUPPORTED), and must not be blamed (FAIL).
    std::optional<size_t> first_unsupported() const
    {
        for (size_t i = 0; i < size(); ++i)
            if (rc(i) == HCCL_E_NOT_SUPPORT)
                return i;
        return std::nullopt;
    }
    hcts_prog_ops_v2 &block() { return *block_; }

  private:
    Script &add(const hcts_op &op);
    Script &add_tagged(uint32_t kind, std::optional<std::string_view> tag);
    // Copies bytes into the pool (8-byte aligned); the offset, or HCTS_OP_POOL_NULL for none.
    uint64_t pool(const void *data, size_t len);
    uint64_t pool_string(std::optional<std::string_view> s);
    std::unique_ptr<hcts_prog_ops_v2> block_;
    size_t pool_used_ = 0;
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
