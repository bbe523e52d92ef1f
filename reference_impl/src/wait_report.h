// Who waits for what (hcts launch): with HCOMM_REF_WAIT_REPORT set to a
// directory, each process keeps a small shared file there, waits.<pid>, that says
// which notify waits are blocked now (thread, channel, peer rank, notify index) and
// the last notify each channel received from its peer. It is updated with atomics
// only (no lock on the wait or notify path); without the variable nothing happens.
// hcts-waits reads the files of a job, e.g. when hcts launch's deadline expires.
#pragma once

#include <atomic>
#include <cstdint>

namespace hcomm_ref::wait_report {

constexpr uint64_t kMagic = 0x31544f5052575248ULL; // "HRWRPOT1", little-endian
constexpr uint32_t kVersion = 1;
constexpr uint32_t kWaitSlots = 128;
constexpr uint32_t kChannelSlots = 256;

// channel, thread: notify waits of hcomm threads. acl_*: waits in the hcts ACL runtime
// (HcommRefAclWaitBegin, kind 2 + its HCOMM_REF_ACL_WAIT_* value), where the slot's fields
// mean: rank the stream's comm's rank (UINT32_MAX: none), peer the device, index the task
// count or record number awaited, timeout in ms, thread the stream, channel and
// channel_key the event or notify (its records are kept in a ChannelSlot under that key).
enum class Kind : uint32_t {
    none = 0,
    channel = 1,
    thread = 2,
    acl_stream_sync = 3,
    acl_stream_destroy = 4,
    acl_event_sync = 5,
    acl_stream_event = 6,
    acl_stream_notify = 7,
};
enum : uint32_t { kFree = 0, kClaimed = 1, kPublished = 2 };

// A blocked wait. state: kFree, kClaimed (being written), kPublished (readable).
struct WaitSlot {
    std::atomic<uint32_t> state;
    std::atomic<uint32_t> kind;
    std::atomic<int32_t> tid; // the OS thread that waits (the hcomm thread's worker)
    std::atomic<uint32_t> rank;
    std::atomic<uint32_t> peer;  // the channel's remote rank (channel waits)
    std::atomic<uint32_t> index; // the notify index waited on
    std::atomic<uint32_t> notify_num;
    std::atomic<uint32_t> timeout;     // the wait's timeOut argument (0: forever)
    std::atomic<uint64_t> thread;      // ThreadHandle (0 when the wait is not on a thread)
    std::atomic<uint64_t> channel;     // ChannelHandle (channel waits)
    std::atomic<uint64_t> channel_key; // the channel's key in File::channels (channel waits)
    std::atomic<uint64_t> start_ns;    // CLOCK_REALTIME
};

// The notifies a channel received. key: the channel's object address in its process
// (known before its handle is, when the first notify may already arrive), 0 = free.
struct ChannelSlot {
    std::atomic<uint64_t> key;
    std::atomic<uint32_t> rank;
    std::atomic<uint32_t> peer;
    std::atomic<uint32_t> last_index;
    std::atomic<uint32_t> reserved;
    std::atomic<uint64_t> received;
    std::atomic<uint64_t> last_ns; // CLOCK_REALTIME
};

struct File {
    std::atomic<uint64_t> magic; // written last
    uint32_t version;
    uint32_t pid;
    uint32_t wait_slots;
    uint32_t channel_slots;
    std::atomic<uint64_t> dropped; // waits or channels that found no free slot
    WaitSlot waits[kWaitSlots];
    ChannelSlot channels[kChannelSlots];
};
static_assert(std::atomic<uint64_t>::is_always_lock_free && std::atomic<uint32_t>::is_always_lock_free);

// Marks one wait as blocked for its lifetime (nothing when the report is off).
class WaitScope {
  public:
    WaitScope(Kind kind, uint32_t rank, uint32_t peer, uint32_t index, uint32_t notify_num, uint32_t timeout,
              uint64_t thread, uint64_t channel, const void *channel_key);
    ~WaitScope();
    WaitScope(const WaitScope &) = delete;
    WaitScope &operator=(const WaitScope &) = delete;

  private:
    WaitSlot *slot_ = nullptr;
};

// A notify arrived on the channel `channel_key` (from `peer`).
void notify_received(const void *channel_key, uint32_t rank, uint32_t peer, uint32_t index);

// Whether the report is on (HCOMM_REF_WAIT_REPORT set and its file made).
bool enabled();

} // namespace hcomm_ref::wait_report
