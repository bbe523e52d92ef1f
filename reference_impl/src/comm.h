// A communicator (one rank): bootstrap links, communication memory, verbs
// resources (opened at the first channel), threads, channels and counters.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "bootstrap.h"
#include "comm_memory.h"
#include "env.h"
#include "hccl/hccl_channel.h"
#include "hccl/hccl_types.h"
#include "hcomm/hcomm_primitives.h"
#include "notify.h"
#include "poll_budget.h"
#include "task_queue.h"
#include "verbs_channel.h"
#include "verbs_device.h"

namespace hcomm_ref {

struct Stats {
    std::atomic<uint64_t> bytes_written{0};
    std::atomic<uint64_t> bytes_read{0};
    std::atomic<uint64_t> notifies_raised{0};
    std::atomic<uint64_t> notifies_consumed{0};
    std::atomic<uint64_t> notify_overruns{0};
    std::atomic<uint64_t> rejected_calls{0};
    std::atomic<uint64_t> task_errors{0};
};

// A registered memory region, deregistered on destruction.
class MemoryRegion {
  public:
    MemoryRegion(ibv_pd *pd, void *addr, uint64_t len);
    ~MemoryRegion();
    MemoryRegion(const MemoryRegion &) = delete;
    MemoryRegion &operator=(const MemoryRegion &) = delete;
    bool valid() const { return mr_ != nullptr; }
    uint32_t lkey() const { return mr_->lkey; }
    uint32_t rkey() const { return mr_->rkey; }

  private:
    ibv_mr *mr_;
};

class Comm;

// The queue and notifies behind one or more thread handles (an exported thread
// shares them under another engine).
struct ThreadCore {
    std::shared_ptr<TaskQueue> queue;
    NotifyBank notifies;
    std::mutex scratch_mutex; // reductions stage through registered scratch
    std::vector<uint8_t> scratch;
    std::unique_ptr<MemoryRegion> scratch_mr;
    // Only under mutant ref_thread_error_shared_by_batch: the other queues of its HcclThreadAcquire.
    std::vector<std::weak_ptr<TaskQueue>> batch;
    ThreadCore(std::shared_ptr<TaskQueue> q, uint32_t notify_num) : queue(std::move(q)), notifies(notify_num) {}
};

struct ThreadObj {
    ThreadHandle handle = 0;
    Comm *comm = nullptr;          // for its tasks, which the comm's destruction ends first
    const void *comm_id = nullptr; // the comm's handle: what a call looks up and holds

    CommEngine engine = COMM_ENGINE_RESERVED;
    std::shared_ptr<ThreadCore> core;
};

// The peer's communication memory as it told us.
struct PeerMemory {
    uint64_t addr = 0;
    uint64_t size = 0;
    uint32_t rkey = 0;
};

// User memory registered with HcclCommMemReg: kept, registered with the comm's PD,
// until HcclCommDestroy (the vendor has no deregistration call).
struct UserMemory {
    uint64_t handle = 0; // the HcclMemHandle handed out: never reused in the process
    std::string tag;
    CommMemType type = COMM_MEM_TYPE_DEVICE;
    uint64_t addr = 0;
    uint64_t size = 0;
    uint32_t rkey = 0;
    std::unique_ptr<MemoryRegion> mr;
};

// The most memories one comm registers (HcclCommMemReg), the most one channel
// exchanges (memHandleNum, and what a peer may announce), and the most ranges
// HCOMM_REF_LOCAL_UNREGISTERED=warn registers implicitly.
inline constexpr size_t kMaxUserMems = 1024;
inline constexpr uint32_t kMaxChannelMems = 256;
inline constexpr size_t kMaxImplicitMems = 1024;

// A memory the peer registered and sent when the channel connected.
struct PeerUserMemory {
    uint64_t addr = 0;
    uint64_t size = 0;
    uint32_t rkey = 0;
    CommMemType type = COMM_MEM_TYPE_DEVICE;
    std::string tag;
};

// One registered memory as a channel hello carries it, behind the hello's fixed part.
struct WireMem {
    uint64_t addr;
    uint64_t size;
    uint32_t rkey;
    int32_t type;
    char tag[256]; // NUL-terminated, not empty (HCCL_RES_TAG_MAX_LEN + 1)
};
static_assert(sizeof(WireMem) == 280);

// The peer's memories from the `count` WireMem entries of its hello: hostile input,
// so the count (at most kMaxChannelMems), the entries' total length, each tag's
// termination, each size (not 0, not wrapping) and type are checked. The reason it
// is malformed (and `out` empty), or an empty string.
std::string parse_peer_mems(std::span<const uint8_t> entries, uint32_t count, std::vector<PeerUserMemory> &out);

// The most a channel's waits learn to poll before they sleep. A wait is as long as a
// transfer: 1 MiB over softverbs' TCP takes about 1.1 ms one way (2.2 ms for a ping-pong's
// wait), and a waiter that sleeps through it also slows the transfer, which then moves
// only when softverbs' progress thread wakes (1 ms left every such wait asleep).
inline constexpr std::chrono::milliseconds kMaxPollBudget{4};

struct ChannelObj {
    ChannelHandle handle = 0;
    Comm *comm = nullptr;          // for its tasks, which the comm's destruction ends first
    const void *comm_id = nullptr; // the comm's handle: what a call looks up and holds

    CommEngine engine = COMM_ENGINE_RESERVED;
    CommProtocol protocol = COMM_PROTOCOL_RESERVED;
    uint32_t remote_rank = 0;
    uint32_t notify_num = 0;
    std::unique_ptr<NotifyBank> notifies;
    std::unique_ptr<RcLink> link;
    PeerMemory peer;
    // The handles of this side's memories sent at connection (HcclCommMemReg), and
    // the peer's memories received then; both fixed once the channel is registered.
    std::vector<uint64_t> local_mems;
    std::vector<PeerUserMemory> peer_mems;
    // What HcclChannelGetRemoteMems hands out: the peer's communication memory
    // ("HcclBuffer") first, then peer_mems in the peer's order.
    std::vector<std::string> remote_tags;
    std::vector<CommMem> remote_mems;
    std::vector<char *> remote_tag_ptrs;
    // The rkey of the peer's memory holding all of [addr, addr + max(len, 1)):
    // its communication memory or one of peer_mems; nullopt when none does.
    std::optional<uint32_t> remote_key(uint64_t addr, uint64_t len) const;
    std::atomic<bool> destroyed{false};
    std::atomic<bool> peer_lost{false}; // the peer's bootstrap link closed: waits fail at once
    // How long its waits poll the CQ before they sleep: HCOMM_REF_POLL_US, learnt up to
    // kMaxPollBudget.
    PollBudget poll_budget{env::poll_budget(), kMaxPollBudget};
};

class Comm {
  public:
    static HcclResult create(uint32_t n_ranks, const RootInfoWire &root, uint32_t rank, std::unique_ptr<Comm> &out);
    ~Comm();
    Comm(const Comm &) = delete;
    Comm &operator=(const Comm &) = delete;

    // The HcclComm handed out for this comm (registry::add_comm); never reused.
    const void *handle() const { return handle_; }
    void set_handle(const void *handle) { handle_ = handle; }

    // Calls inside the comm (registry::CommRef). enter() only under the registry's
    // lock while the comm is registered; HcclCommDestroy unregisters it, then
    // interrupt()s and waits until no call is inside before it deletes the comm.
    void enter();
    void leave();
    // Wakes every call that may block inside: notify waits and transfers see
    // `closing`, channel handshakes their shut-down bootstrap links. Repeatable.
    void interrupt();
    // True once no call is inside; false at `deadline`.
    bool wait_calls_left(Deadline deadline);

    uint32_t rank() const { return rank_; }
    uint32_t size() const { return size_; }
    const std::string &name() const { return name_; }
    CommMemory &memory() { return *memory_; }
    Stats &stats() { return stats_; }
    const std::atomic<bool> &closing() const { return closing_; }
    // True once rank `peer`'s bootstrap link has closed (its process died or its comm was
    // destroyed): the kernel closes the socket, so this sees a SIGKILL too. Never blocks.
    bool peer_gone(uint32_t peer) const;

    // Threads: created here, registered by the caller.
    std::shared_ptr<ThreadObj> new_thread(CommEngine engine, uint32_t notify_num);
    std::shared_ptr<ThreadObj> export_thread(const ThreadObj &source, CommEngine engine);
    size_t thread_count() const;

    // Channels for validated descriptors; connects with the peers (collective per pair).
    HcclResult acquire_channels(CommEngine engine, const HcclChannelDesc *descs, uint32_t count, ChannelHandle *out);
    std::shared_ptr<ChannelObj> find_channel(CommEngine engine, uint32_t remote_rank, CommProtocol protocol);
    HcclResult destroy_channel(ChannelHandle handle);

    // Data path pieces used by tasks.
    uint32_t memory_lkey() const;
    // The lkey of the local memory holding all of [addr, addr + max(len, 1)): the
    // communication memory, a user memory or an implicit registration; nullopt when none.
    std::optional<uint32_t> local_key(uint64_t addr, uint64_t len) const;

    // HcclCommMemReg, after the caller's input checks: registers [addr, addr + size)
    // under `tag` (opening the verbs device if no channel did). Same tag, same memory:
    // the first handle again. Same tag, other memory: HCCL_E_PARA with `why` set.
    HcclResult register_user_memory(const std::string &tag, CommMemType type, uint64_t addr, uint64_t size,
                                    uint64_t &handle, std::string &why);
    // A live user memory of this comm by handle (a copy without the MR), nullopt if none.
    std::optional<UserMemory> user_memory(uint64_t handle) const;
    // HCOMM_REF_LOCAL_UNREGISTERED=warn: registers the pages around [addr, addr + len)
    // for the local side of a transfer, kept until the comm goes (bounded: kMaxImplicitMems).
    // `fresh`: this call registered it (the first use of the range).
    HcclResult register_implicit(uint64_t addr, uint64_t len, std::string &why, bool &fresh);
    HcclResult stage_scratch(ThreadCore &core, uint8_t *&scratch, uint32_t &lkey, uint64_t &size);

    // Engine contexts (HcclEngineCtxCreate/Get): host memory standing in for device memory.
    std::mutex ctx_mutex;
    std::map<std::pair<std::string, int>, std::vector<uint8_t>> engine_ctx;

  private:
    Comm() = default;
    HcclResult ensure_verbs();

    const void *handle_ = nullptr;
    std::mutex calls_mutex_;
    std::condition_variable calls_left_;
    uint64_t calls_ = 0;
    uint32_t rank_ = 0;
    uint32_t size_ = 0;
    std::string name_;
    std::array<uint8_t, kTokenBytes> token_{}; // the job token: also the softverbs QP secret
    Mesh mesh_;
    bool joined_ = false; // every rank joined: the job's rendezvous is over
    std::unique_ptr<CommMemory> memory_;
    std::unique_ptr<VerbsDevice> device_;
    // device_ for the workers, which read it unlocked (it comes with the first channel).
    std::atomic<VerbsDevice *> polled_device_{nullptr};
    std::unique_ptr<MemoryRegion> memory_mr_;
    // User memories and implicit registrations: released before the device (~Comm).
    mutable std::shared_mutex user_mutex_;
    std::vector<std::unique_ptr<UserMemory>> user_mems_;
    std::vector<std::unique_ptr<UserMemory>> implicit_mems_;
    Stats stats_;
    std::atomic<bool> closing_{false};
    mutable std::mutex mutex_; // threads_, channels_
    std::mutex acquire_mutex_; // one channel acquisition at a time (the handshake is ordered per peer)
    std::vector<std::shared_ptr<ThreadObj>> threads_;
    std::vector<std::shared_ptr<ChannelObj>> channels_;
    uint64_t thread_serial_ = 0;
};

} // namespace hcomm_ref
