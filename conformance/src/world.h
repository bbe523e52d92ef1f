// The resources every case uses: one communicator per rank of the IUT, threads,
// channels to every peer, the communication buffer split into regions, and the
// script runner that launches device programs through the adapter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adapter.h"
#include "hcts_programs.h"
#include "iut.h"

namespace hcts {

struct Peer {
    ChannelHandle channel = 0; // notifyNum = World::kNotifyNum
    std::byte *remote_base = nullptr;
    uint64_t remote_size = 0;
};

// The local communication buffer of every rank has the same layout:
//   [0, S/2)      inbox: one lane per sending rank (peers write here)
//   [S/2, 3S/4)   outbox: sources of this rank's writes
//   [3S/4, S)     scratch: device-stream snapshots of received data
struct Layout {
    uint64_t size = 0;
    uint64_t lane_size = 0;
    uint64_t inbox(int sender) const { return static_cast<uint64_t>(sender) * lane_size; }
    uint64_t outbox() const { return size / 2; }
    uint64_t outbox_size() const { return size / 4; }
    uint64_t scratch() const { return size / 2 + size / 4; }
    uint64_t scratch_size() const { return size - scratch(); }
};

struct LaunchResult {
    int32_t rc = 0; // the adapter's run_program return
    hcts_launch_status status{};
    bool ok() const { return rc == 0 && status.task_error == 0 && status.timed_out == 0 && status.program_return == 0; }
    std::string describe() const;
};

class Script {
  public:
    Script();
    Script &wwn(ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t len, uint32_t idx);
    Script &write(ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t len);
    Script &record(ThreadHandle t, ChannelHandle c, uint32_t idx);
    Script &wait(ThreadHandle t, ChannelHandle c, uint32_t idx, uint32_t timeout);
    Script &copy(ThreadHandle t, void *dst, const void *src, uint64_t len);
    Script &fence(ThreadHandle t, ChannelHandle c);
    size_t size() const { return args_->op_count; }
    bool empty() const { return args_->op_count == 0; }
    const hcts_op &op(size_t i) const { return args_->ops[i]; }
    int32_t rc(size_t i) const { return args_->ops[i].rc; }
    hcts_prog_ops_args &args() { return *args_; }

  private:
    Script &add(const hcts_op &op);
    std::unique_ptr<hcts_prog_ops_args> args_;
};

class World {
  public:
    static constexpr uint32_t kNotifyNum = 64;
    static constexpr uint64_t kGuard = 64;
    static World &get();
    // Bootstraps the communicator and resources; throws std::runtime_error naming
    // the call that failed and its HcclResult.
    static World &init();

    int rank = 0;
    int size = 1;
    HcclComm comm = nullptr;
    std::vector<ThreadHandle> threads; // 2 threads of `setup_engine`
    // AICPU_TS, or the first host engine a product without it offers (a2-style
    // rows), so product-table cases can still judge the call there.
    CommEngine setup_engine = COMM_ENGINE_AICPU_TS;
    std::vector<Peer> peers;           // index = rank; peers[rank] is unused
    std::byte *local_base = nullptr;
    uint64_t local_size = 0; // as HcclGetHcclBuffer returned it
    Layout layout;

    // The IUT's wait timeout unit, measured at start-up (WWN.PRF.3).
    bool timeout_in_seconds = true;
    double unit_probe_ms = 0; // how long a wait with timeOut 1 took
    std::string unit_probe_note;
    uint32_t ok_timeout() const { return timeout_in_seconds ? 20U : 20000U; }
    uint32_t short_timeout() const { return timeout_in_seconds ? 1U : 300U; }
    uint32_t launch_timeout_ms = 60000;

    ThreadHandle thread() const { return threads.at(0); }
    std::byte *inbox(int sender) const { return local_base + layout.inbox(sender); }
    std::byte *outbox() const { return local_base + layout.outbox(); }
    std::byte *scratch() const { return local_base + layout.scratch(); }
    // Address in `receiver`'s inbox lane for this rank, as this rank must pass it as dst.
    std::byte *remote_inbox(int receiver, int sender) const;

    // A fresh AICPU_TS thread (or of another engine) for calls expected to fail
    // asynchronously, so an error state never leaks into later cases. 0 on failure.
    ThreadHandle fresh_thread(CommEngine engine, HcclResult *rc = nullptr);
    // Acquires channels to every peer with `notify_num` notifies; handles by rank.
    // `alternate` uses the second protocol of the product (UBOE when the default
    // is UB_CTP): implementations key channels by (engine, peer, protocol), so a
    // channel with other parameters needs another protocol.
    std::vector<ChannelHandle> acquire_channels(uint32_t notify_num, HcclResult &rc, bool alternate = false);

    LaunchResult run(Script &s, uint32_t timeout_ms = 0);
    void put(void *dev, std::span<const std::byte> host) const;
    std::vector<std::byte> get(const void *dev, size_t len) const;
    void poison(void *dev, size_t len) const;
    int peer() const { return (rank + 1) % size; }

  private:
    void measure_timeout_unit();
};

const char *hccl_result_name(int32_t rc);

// Channels on the alternate protocol to every peer, destroyed at scope end so the
// next case may acquire them with other parameters. Acquired by all ranks together.
class ScopedChannels {
  public:
    explicit ScopedChannels(uint32_t notify_num);
    ~ScopedChannels();
    ScopedChannels(const ScopedChannels &) = delete;
    ScopedChannels &operator=(const ScopedChannels &) = delete;
    HcclResult rc() const { return rc_; }
    // This rank's channel to `rank`, 0 when acquisition failed on any rank. A plan
    // names both ends, so a sender passes to(receiver) and a receiver to(sender):
    // "the next rank" is the same peer for both ends only with 2 ranks.
    ChannelHandle to(int rank) const { return ok_ ? by_rank_.at(static_cast<size_t>(rank)) : 0; }
    // Whether every rank got, to every peer, a handle other than World's default channel.
    bool distinct_from_default() const { return ok_ && distinct_; }

  private:
    HcclResult rc_ = HCCL_SUCCESS;
    bool ok_ = false;
    bool distinct_ = false;
    std::vector<ChannelHandle> by_rank_;
};

} // namespace hcts
