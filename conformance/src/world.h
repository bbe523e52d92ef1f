// The resources every case uses: one communicator per rank of the IUT, two
// threads, a channel to every peer, the communication buffer split into
// regions, and the device the scripts run on. Built once by bootstrap(); each
// case starts from fresh channels and working threads (isolate()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "device.h"
#include "hccl/hccl_channel.h"
#include "hccl/hccl_types.h"
#include "hcomm/hcomm_res_defs.h"

namespace hcts {

class Library;
class Adapter;
namespace products {
struct Product;
}

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

// The IUT's timeOut unit, measured at start-up (WWN.PRF.3).
struct TimeoutUnit {
    std::optional<bool> seconds; // nullopt: the probe could not tell (note says why)
    bool refused = false;        // the probe wait was refused with HCCL_E_NOT_SUPPORT (no waits here)
    double probe_ms = 0;         // how long a wait with timeOut 1 took
    std::string note;
};

class World {
  public:
    static constexpr uint32_t kNotifyNum = 64;
    static constexpr uint64_t kGuard = 64;

    // Bootstraps a communicator through the IUT (root info broadcast by rank 0)
    // and acquires the resources. Throws std::runtime_error naming the call that
    // failed and its HcclResult.
    static std::unique_ptr<World> bootstrap(const Library &iut, const Adapter &adapter, int rank, int size,
                                            bool use_peek);

    // Gives the next case fresh channels (when the IUT can destroy them) and
    // working threads (a thread an earlier case left in its error state is
    // replaced). Collective. Returns what it did, for the case's observations.
    std::string isolate();

    int rank = 0;
    int size = 1;
    HcclComm comm = nullptr;
    std::vector<ThreadHandle> threads; // 2 threads of `setup_engine`
    // AICPU_TS, or the first host engine with channels on a product without it
    // (a2-style rows), so product-table cases can still judge the call there.
    CommEngine setup_engine = COMM_ENGINE_AICPU_TS;
    CommProtocol protocol = COMM_PROTOCOL_UB_CTP;   // the default channels'
    CommProtocol alt_protocol = COMM_PROTOCOL_UBOE; // channels with other parameters
    std::vector<Peer> peers;                        // index = rank; peers[rank] is unused
    std::byte *local_base = nullptr;
    uint64_t local_size = 0; // as HcclGetHcclBuffer returned it
    Layout layout;
    TimeoutUnit unit;
    bool channels_refreshable = false; // HcclChannelDestroy works, so each case gets fresh channels
    uint32_t launch_timeout_ms = 60000;

    const Device &device() const { return *device_; }
    const Library &iut() const { return iut_; }
    // A wait's timeOut of `seconds` in the library's unit (seconds unless measured as ms).
    uint32_t timeout_of(uint32_t seconds) const { return unit.seconds.value_or(true) ? seconds : seconds * 1000U; }
    uint32_t ok_timeout() const { return timeout_of(20); }
    uint32_t short_timeout() const { return unit.seconds.value_or(true) ? 1U : 300U; }
    double short_timeout_ms() const { return unit.seconds.value_or(true) ? 1000.0 : 300.0; }

    ThreadHandle thread() const { return threads.at(0); }
    std::byte *inbox(int sender) const { return local_base + layout.inbox(sender); }
    std::byte *outbox() const { return local_base + layout.outbox(); }
    std::byte *scratch() const { return local_base + layout.scratch(); }
    // Address in `receiver`'s inbox lane for this rank, as this rank must pass it as dst.
    std::byte *remote_inbox(int receiver, int sender) const;
    ChannelHandle channel_to(int peer) const { return peers.at(static_cast<size_t>(peer)).channel; }
    int peer() const { return (rank + 1) % size; }

    // A fresh thread of `engine` for calls expected to fail asynchronously, so an
    // error state never leaks into later work. 0 on failure (rc says why).
    ThreadHandle fresh_thread(CommEngine engine, HcclResult *rc = nullptr) const;
    // Acquires channels to every peer with `notify_num` notifies; handles by rank.
    // `alternate` uses the product's second protocol: implementations key channels
    // by (engine, peer, protocol), so a channel with other parameters needs another.
    // `mem_handles` (HcclCommMemReg's) go into every descriptor's memHandles.
    std::vector<ChannelHandle> acquire_channels(uint32_t notify_num, HcclResult &rc, bool alternate = false,
                                                std::span<const HcclMemHandle> mem_handles = {}) const;
    // Destroys channels (0 entries skipped); the IUT's return code.
    HcclResult destroy_channels(const std::vector<ChannelHandle> &by_rank) const;

  private:
    World(const Library &iut) : iut_(iut) {}
    void acquire_default_channels();
    void measure_timeout_unit();
    bool threads_work() const;
    const Library &iut_;
    std::unique_ptr<Device> device_;
};

} // namespace hcts
