#include "data_path.h"

#include <hcts/mutant.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include <hcts/mutant.h>

#include "env.h"
#include "log.h"
#include "reduce.h"
#include "task_queue.h"
#include "wait_report.h"

namespace hcomm_ref {
namespace {

std::atomic<uint32_t> g_default_timeout{1836}; // the vendor's initial default, seconds

// Supported with some engine: used when the thread handle is unusable, so the
// product/side part of the support rule still comes before HCCL_E_PARA.
bool supported_with_any_engine(Api family)
{
    for (int e = COMM_ENGINE_CPU; e <= COMM_ENGINE_CCU; ++e) {
        if (check_support(family, static_cast<CommEngine>(e)) == HCCL_SUCCESS)
            return true;
    }
    return false;
}

const char *side_name() { return is_device_side() ? "device" : "host"; }

// The first two steps of the check order for a call's handle (`obj` is what it
// names, a thread or a channel, null when none is live): the support rule, with
// the handle's engine or else any engine, then HCCL_E_PARA for a dead handle.
template <typename Obj>
HcclResult check_handle(const char *api, Api family, const std::shared_ptr<Obj> &obj, uint64_t handle, const char *kind)
{
    const bool supported = obj ? check_support(family, obj->engine) == HCCL_SUCCESS : supported_with_any_engine(family);
    if (!supported) {
        const std::string on_engine =
            obj ? std::string(" on a ") + kind + " of engine " + std::to_string(static_cast<int>(obj->engine)) : "";
        return refuse(obj ? obj->comm : nullptr, api, HCCL_E_NOT_SUPPORT, "not supported on product ", profile().name,
                      " from the ", side_name(), " side", on_engine);
    }
    if (!obj) {
        // Mutant: a handle missing from the table reported as not found, not as a bad parameter.
        return refuse(nullptr, api, hcts::mutant("ref_unknown_handle_not_found") ? HCCL_E_NOT_FOUND : HCCL_E_PARA, kind,
                      " 0x", std::hex, handle, std::dec, " is not a live ", kind, " handle");
    }
    return HCCL_SUCCESS;
}

// Both reduce paths move data through the thread's registered scratch buffer,
// held for the whole task so the notify after the last chunk still has its key:
// stage it once, call `step(scratch, lkey, first element, element count)` per
// chunk of whole elements until one fails, then `finish(scratch, lkey)`.
template <typename Step, typename Finish>
HcclResult through_scratch(ChannelObj &channel, ThreadCore &core, uint64_t count, uint64_t element, Step step,
                           Finish finish)
{
    if (channel.destroyed) {
        return HCCL_E_NOT_FOUND;
    }
    std::lock_guard lock(core.scratch_mutex);
    uint8_t *scratch = nullptr;
    uint32_t lkey = 0;
    uint64_t scratch_size = 0;
    if (const HcclResult rc = channel.comm->stage_scratch(core, scratch, lkey, scratch_size); rc != HCCL_SUCCESS) {
        return rc;
    }
    const uint64_t per_chunk = scratch_size / element;
    for (uint64_t done = 0; done < count;) {
        const uint64_t n = std::min(per_chunk, count - done);
        if (const HcclResult rc = step(scratch, lkey, done, n); rc != HCCL_SUCCESS)
            return rc;
        done += n;
    }
    return finish(scratch, lkey);
}

// The keys of a transfer's ranges: the memory holding the whole range (checked by
// check_local/check_remote before the task was queued; memories stay until the
// comm goes), the communication memory's key as the fallback.
uint32_t lkey_of(const Comm &comm, const void *addr, uint64_t len)
{
    // Mutant: every local side takes the communication memory's key, registered user memory too.
    if (hcts::mutant("ref_local_key_always_comm_memory"))
        return comm.memory_lkey();
    return comm.local_key(reinterpret_cast<uint64_t>(addr), len).value_or(comm.memory_lkey());
}

uint32_t rkey_of(const ChannelObj &channel, const void *addr, uint64_t len)
{
    return channel.remote_key(reinterpret_cast<uint64_t>(addr), len).value_or(channel.peer.rkey);
}

// ---- mutant schemata (selftest/catalogue/ordering.yaml) ---------------------
// What the mutants below need to know about the channel's previous write with
// notify, keyed by handle (never reused, so a fresh channel has no history).
struct PreviousWrite {
    void *dst = nullptr;
    const void *src = nullptr;
    uint64_t len = 0;
    uint32_t notify = 0;
};
std::mutex g_history_mutex;
std::unordered_map<ChannelHandle, PreviousWrite> g_history;
std::unordered_map<ChannelHandle, void *> g_staged_dst;

std::optional<PreviousWrite> swap_previous(const ChannelObj &channel, const PreviousWrite &now)
{
    std::lock_guard lock(g_history_mutex);
    auto it = g_history.find(channel.handle);
    std::optional<PreviousWrite> before;
    if (it != g_history.end())
        before = it->second;
    g_history[channel.handle] = now;
    return before;
}

// The notify goes ahead as a zero-length WRITE WITH IMM and the payload follows
// in a later doorbell, as the mutants that "raise the notify first" do.
HcclResult notify_then_payload(ChannelObj &channel, void *dst, const void *src, uint64_t len, uint32_t imm)
{
    Comm &comm = *channel.comm;
    const RcLink::Span local{reinterpret_cast<uint64_t>(src), lkey_of(comm, src, len)};
    const RcLink::Span remote{reinterpret_cast<uint64_t>(dst), rkey_of(channel, dst, len)};
    if (const HcclResult rc = channel.link->write(local, remote, 0, imm, comm.closing()); rc != HCCL_SUCCESS)
        return rc;
    // Long enough for the receiver to wake and read dst even on a loaded machine.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return channel.link->write(local, remote, len, std::nullopt, comm.closing());
}

// The legal variants HCOMM_REF_SPLIT_REORDERED and HCOMM_REF_NOTIFY_DELAY_MS: the
// payload as pieces posted last piece first, each complete before the next, then
// (after the delay) the notify alone on the same QP. Still only after every byte.
HcclResult payload_then_notify(ChannelObj &channel, void *dst, const void *src, uint64_t len, uint32_t imm)
{
    Comm &comm = *channel.comm;
    const uint64_t pieces = std::clamp<uint64_t>(env::split_reordered(), 1, len);
    const uint64_t piece = (len + pieces - 1) / pieces;
    const uint32_t lkey = lkey_of(comm, src, len);
    const uint32_t rkey = rkey_of(channel, dst, len);
    for (uint64_t p = pieces; p-- > 0;) {
        const uint64_t off = p * piece;
        if (off >= len)
            continue;
        const RcLink::Span local{reinterpret_cast<uint64_t>(src) + off, lkey};
        const RcLink::Span remote{reinterpret_cast<uint64_t>(dst) + off, rkey};
        if (const HcclResult rc =
                channel.link->write(local, remote, std::min(piece, len - off), std::nullopt, comm.closing());
            rc != HCCL_SUCCESS)
            return rc;
    }
    std::this_thread::sleep_for(env::notify_delay());
    return channel.link->write({reinterpret_cast<uint64_t>(src), lkey}, {reinterpret_cast<uint64_t>(dst), rkey}, 0, imm,
                               comm.closing(), !env::doorbell_completion());
}

// The comm's acquisition order of the thread whose worker runs this task (its
// queue is named "r<rank>.t<serial>"), -1 off a worker.
int64_t running_thread_serial()
{
    const TaskQueue *q = TaskQueue::current();
    if (q == nullptr)
        return -1;
    const std::string &name = q->name();
    const size_t at = name.rfind(".t");
    return at == std::string::npos ? -1 : std::strtoll(name.c_str() + at + 2, nullptr, 10);
}

// Which "notify first" mutant, if any, applies to this write with notify.
bool notify_goes_first(const ChannelObj &channel, void *dst, const void *src, uint64_t len, uint32_t notify,
                       const PreviousWrite *previous)
{
    // Threads alternate between two doorbell rings by acquisition order, and the
    // second ring flushes the WRITE WITH IMM ahead of the payload: the comm's
    // second, fourth, ... thread sends the notify first.
    if (hcts::mutant("ref_wwn_odd_thread_notify_first") && running_thread_serial() % 2 == 1)
        return true;
    // A destination reaching into the last MiB of the peer's memory crosses the
    // staging window's end and is bounced: the notify goes before the bounced payload.
    if (hcts::mutant("ref_wwn_buffer_tail_notify_first") &&
        reinterpret_cast<uint64_t>(dst) + len > channel.peer.addr + channel.peer.size - (1ULL << 20))
        return true;
    // A source off its 8-byte alignment takes a "slow path" that rings the notify first.
    if (hcts::mutant("ref_wwn_unaligned_notify_first") && (reinterpret_cast<uint64_t>(src) & 7U) != 0)
        return true;
    // A repeat of the previous write (same dst, src and len, up to 128 KiB) on
    // another index reuses a cached descriptor: only the fresh notify is ordered.
    if (hcts::mutant("ref_wwn_repeat_fastpath_unordered") && previous && previous->dst == dst && previous->src == src &&
        previous->len == len && previous->notify != notify && len <= (128U << 10))
        return true;
    // An unaligned source of more than two 4 KiB pages is bounced through a
    // staging path that rings the notify before the bounced payload.
    if (hcts::mutant("ref_wwn_unaligned_multipage_notify_first") && (reinterpret_cast<uint64_t>(src) & 7U) != 0 &&
        len > 8192)
        return true;
    // Under a deep backlog, writes of 16 KiB or more are batched notify-first.
    if (hcts::mutant("ref_wwn_backlog_large_notify_first") && TaskQueue::current_backlog() >= 32 && len >= (16U << 10))
        return true;
    // Under a deep backlog the worker sorts a doorbell batch notify-first.
    if (hcts::mutant("ref_wwn_backlog_notify_first") && TaskQueue::current_backlog() >= 32)
        return true;
    // Writes above 4 MiB take a "large message" path that rings the notify first.
    if (hcts::mutant("ref_wwn_large_notify_first") && len > (4U << 20))
        return true;
    // Exact multiples of the 128 KiB staging chunk: the "last chunk" test is
    // true before the first chunk, so the notify rides on it.
    if (hcts::mutant("ref_wwn_chunk_multiple_notify_first") && len >= (256U << 10) && len % (128U << 10) == 0)
        return true;
    return false;
}

} // namespace

namespace {
std::mutex g_pending_mutex;
std::map<std::pair<ChannelHandle, ThreadHandle>, uint64_t> g_pending_writes;
} // namespace

std::shared_ptr<void> note_pending_write(ChannelHandle channel, ThreadHandle thread, uint64_t len)
{
    // ref_channel_half_duplex_wait counts every write; the _large form only writes
    // of 64 KiB or more (a large write holds the channel's duplex lock).
    if (!hcts::mutant("ref_channel_half_duplex_wait") &&
        !((hcts::mutant("ref_channel_half_duplex_large_wait") || hcts::mutant("ref_record_overtakes_large_write")) &&
          len >= (64U << 10)))
        return nullptr;
    const auto key = std::make_pair(channel, thread);
    {
        std::lock_guard lock(g_pending_mutex);
        ++g_pending_writes[key];
    }
    return std::shared_ptr<void>(nullptr, [key](void *) {
        std::lock_guard lock(g_pending_mutex);
        if (--g_pending_writes[key] == 0)
            g_pending_writes.erase(key);
    });
}

bool writes_pending_from_other_threads(ChannelHandle channel, ThreadHandle thread)
{
    if (!hcts::mutant("ref_channel_half_duplex_wait") && !hcts::mutant("ref_channel_half_duplex_large_wait"))
        return false;
    std::lock_guard lock(g_pending_mutex);
    return std::any_of(g_pending_writes.begin(), g_pending_writes.end(),
                       [&](const auto &kv) { return kv.first.first == channel && kv.first.second != thread; });
}

bool large_writes_pending(ChannelHandle channel, ThreadHandle thread)
{
    std::lock_guard lock(g_pending_mutex);
    return g_pending_writes.count({channel, thread}) != 0;
}

uint32_t default_wait_timeout() { return g_default_timeout.load(); }
void set_default_wait_timeout(uint32_t value) { g_default_timeout = value; }

HcclResult resolve(const char *api, Api family, ThreadHandle thread, std::optional<ChannelHandle> channel,
                   Target &target)
{
    auto t = registry::thread(thread);
    // The thread's comm, held for the call: the thread of a comm being destroyed is
    // as dead as a removed one.
    registry::CommRef comm = t ? registry::pin_comm(t->comm_id) : registry::CommRef{};
    if (comm == nullptr)
        t = nullptr;
    // Mutant: the call's engine is the channel's (as the vendor's device path sees it), the thread's is ignored.
    const bool engine_from_channel = hcts::mutant("ref_engine_from_channel") && t && channel;
    if (engine_from_channel) {
        if (auto c = registry::channel(*channel); c && check_support(family, c->engine) == HCCL_SUCCESS) {
            target = Target{t, c, std::move(comm)};
            return HCCL_SUCCESS;
        }
    }
    if (const HcclResult rc = check_handle(api, family, t, thread, "thread"); rc != HCCL_SUCCESS)
        return rc;
    LaunchRecord *launch = current_launch();
    if (launch != nullptr && launch->comm != t->comm_id) {
        return refuse(t->comm, api, HCCL_E_PARA, "thread 0x", std::hex, thread, std::dec,
                      " belongs to another comm than the device program's");
    }
    target.thread = t;
    target.comm = std::move(comm);
    if (channel) {
        auto c = registry::channel(*channel);
        if (!c || c->comm_id != t->comm_id) {
            return refuse(t->comm, api, HCCL_E_PARA, "channel 0x", std::hex, *channel, std::dec,
                          " is not a live channel of the thread's comm");
        }
        // Mutant: the engines compared exactly, so AICPU and AICPU_TS do not mix (blind set 7, M15).
        const bool mismatch = hcts::mutant("ref_engines_compared_exactly")
                                  ? c->engine != t->engine
                                  : engine_family(c->engine) != engine_family(t->engine);
        if (mismatch) {
            return refuse(t->comm, api, HCCL_E_PARA, "channel of engine ", static_cast<int>(c->engine),
                          " used on a thread of engine ", static_cast<int>(t->engine));
        }
        target.channel = c;
    }
    return HCCL_SUCCESS;
}

HcclResult resolve_channel_only(const char *api, Api family, ChannelHandle channel, Target &target)
{
    auto c = registry::channel(channel);
    registry::CommRef comm = c ? registry::pin_comm(c->comm_id) : registry::CommRef{};
    if (comm == nullptr)
        c = nullptr; // a channel of a comm being destroyed is as dead as a removed one
    if (const HcclResult rc = check_handle(api, family, c, channel, "channel"); rc != HCCL_SUCCESS)
        return rc;
    target.channel = c;
    target.comm = std::move(comm);
    return HCCL_SUCCESS;
}

HcclResult resolve_operands(const char *api, Api family, ThreadHandle thread, std::optional<ChannelHandle> channel,
                            const void *dst, const void *src, Target &target)
{
    const bool no_channel = channel && *channel == 0;
    if (dst == nullptr || src == nullptr || no_channel || thread == 0) {
        return refuse(nullptr, api, HCCL_E_PTR,
                      dst == nullptr   ? "dst"
                      : src == nullptr ? "src"
                      : no_channel     ? "channel"
                                       : "thread",
                      " is NULL/0");
    }
    return resolve(api, family, thread, channel, target);
}

HcclResult resolve_handles(const char *api, Api family, ThreadHandle thread, std::optional<ChannelHandle> channel,
                           Target &target)
{
    const bool no_channel = channel && *channel == 0;
    if (no_channel || thread == 0) {
        return refuse(nullptr, api, HCCL_E_PTR, no_channel ? "channel" : "thread", " is 0");
    }
    return resolve(api, family, thread, channel, target);
}

HcclResult check_local(const char *api, const Target &t, const void *addr, uint64_t len, const char *what,
                       Access access)
{
    const auto a = reinterpret_cast<uint64_t>(addr);
    // Inside the communication memory or one memory registered with HcclCommMemReg
    // (a range straddling two memories has no one key).
    // Mutant: only the communication memory counts; registered user memory is refused.
    if (len > 0 && a <= UINT64_MAX - len &&
        (t.comm->memory().contains(addr, len) ||
         (t.comm->local_key(a, len) && !hcts::mutant("ref_local_user_mem_refused")))) {
        return HCCL_SUCCESS;
    }
    if (!env::local_unregistered_warn() || len == 0 || a > UINT64_MAX - len) {
        return refuse(t.comm, api, HCCL_E_PARA, what, " [", addr, ", +", len, ") is not inside the local ",
                      "communication memory [", t.comm->memory().base(), ", +", t.comm->memory().size(),
                      ") nor inside one memory registered with HcclCommMemReg");
    }
    // HCOMM_REF_LOCAL_UNREGISTERED=warn: the vendor only warns; the range is registered
    // here (pages around it, kept until the comm goes) when this process may access it.
    if (!range_accessible(addr, len, access)) {
        return refuse(t.comm, api, HCCL_E_PARA, what, " [", addr, ", +", len, ") is outside every registered memory ",
                      "and not ", access == Access::read ? "readable" : "writable", " memory of this process");
    }
    std::string why;
    bool fresh = false;
    if (const HcclResult rc = t.comm->register_implicit(a, len, why, fresh); rc != HCCL_SUCCESS)
        return refuse(t.comm, api, rc, what, " [", addr, ", +", len, "): ", why);
    if (fresh) {
        HREF_LOG_WARN(t.comm->rank(), api, ": ", what, " [", addr, ", +", len,
                      ") is outside the communication memory and every memory registered with HcclCommMemReg; ",
                      "accepted under HCOMM_REF_LOCAL_UNREGISTERED=warn (the vendor warns likewise)");
    }
    return HCCL_SUCCESS;
}

HcclResult check_remote(const char *api, const Target &t, const void *addr, uint64_t len, const char *what)
{
    const PeerMemory &peer = t.channel->peer;
    const auto a = reinterpret_cast<uint64_t>(addr);
    // The peer's communication memory or one of the memories it sent when the channel connected.
    // Mutant: only the peer's communication memory counts.
    const bool in_user_mem = !hcts::mutant("ref_remote_user_mem_refused") && len > 0 && t.channel->remote_key(a, len);
    if (!range_inside(a, len, peer.addr, peer.size) && !in_user_mem) {
        // Mutant: a peer range outside its memory ends as the vendor's transport exception does.
        return refuse(t.comm, api, hcts::mutant("ref_remote_range_internal") ? HCCL_E_INTERNAL : HCCL_E_PARA, what,
                      " [", addr, ", +", len, ") is not inside rank ", t.channel->remote_rank,
                      "'s communication memory [0x", std::hex, peer.addr, std::dec, ", +", peer.size, ") nor inside ",
                      "one of the ", t.channel->peer_mems.size(), " memories it registered for the channel");
    }
    return HCCL_SUCCESS;
}

HcclResult check_notify_index(const char *api, const Target &t, uint32_t index)
{
    if (index >= t.channel->notify_num) {
        return refuse(t.comm, api, HCCL_E_PARA, "notify index ", index, " is outside [0, ", t.channel->notify_num,
                      ") of the channel to rank ", t.channel->remote_rank);
    }
    return HCCL_SUCCESS;
}

HcclResult check_reduce(const char *api, Comm *comm, uint64_t count, int32_t data_type, int32_t op, uint64_t &bytes)
{
    const uint64_t size = reduce_type_size(data_type);
    if (size == 0 || !reduce_op_is_valid(op)) {
        return refuse(comm, api, HCCL_E_PARA, "dataType ", data_type, " / reduceOp ", op,
                      ": supported are INT8..UINT64, FP16, FP32, FP64, BFP16 with SUM, PROD, MAX, MIN");
    }
    if (count == 0 || count > UINT64_MAX / size) {
        return refuse(comm, api, HCCL_E_PARA, "count ", count, " must be > 0 and count * ", size, " must not overflow");
    }
    bytes = count * size;
    return HCCL_SUCCESS;
}

void submit(const std::shared_ptr<ThreadObj> &thread, TaskQueue::Task task, TaskQueue::Overlap overlap)
{
    std::shared_ptr<TaskQueue> queue = thread->core->queue;
    // Mutant ref_thread_error_shared_by_batch: a sibling's failure fails this thread's next task.
    for (const auto &weak : thread->core->batch)
        if (const auto sibling = weak.lock(); sibling && sibling->error() != HCCL_SUCCESS) {
            task = [rc = sibling->error()] { return rc; };
            overlap = TaskQueue::kDrain;
            break;
        }
    if (LaunchRecord *launch = current_launch()) {
        launch->note(queue);
        if (launch->batching) {
            launch->held.push_back(
                [queue, held = std::move(task), overlap]() mutable { queue->enqueue(std::move(held), overlap); });
            return;
        }
    }
    queue->enqueue(std::move(task), overlap);
}

HcclResult do_write(const std::shared_ptr<ChannelObj> &channel, void *dst, const void *src, uint64_t len,
                    std::optional<uint32_t> notify)
{
    if (channel->destroyed) {
        return HCCL_E_NOT_FOUND;
    }
    Comm &comm = *channel->comm;
    const uint32_t lkey = lkey_of(comm, src, len);
    const uint32_t rkey = rkey_of(*channel, dst, len);
    const std::optional<uint32_t> imm = notify ? std::optional<uint32_t>(kImmNotifyTag | *notify) : std::nullopt;
    const bool with_payload_and_notify = notify && len > 0;
    // Only mutants look at the previous write; keeping it takes a process-wide lock per write.
    // A plain pointer, not an optional: GCC's -Wmaybe-uninitialized misreads the
    // optional's members through the mutant branches below.
    PreviousWrite previous_write;
    const PreviousWrite *previous = nullptr;
    if (with_payload_and_notify && !hcts::active_mutant().empty())
        if (const auto p = swap_previous(*channel, {dst, src, len, *notify})) {
            previous_write = *p;
            previous = &previous_write;
        }
    if (with_payload_and_notify && hcts::mutant("ref_wwn_stale_retry_before_next") && previous) {
        // A retry list not cleared on completion: the previous write is posted
        // again ahead of this one, reading its source anew.
        if (const HcclResult rc = channel->link->write(
                {reinterpret_cast<uint64_t>(previous->src), lkey_of(comm, previous->src, previous->len)},
                {reinterpret_cast<uint64_t>(previous->dst), rkey_of(*channel, previous->dst, previous->len)},
                previous->len, std::nullopt, comm.closing());
            rc != HCCL_SUCCESS)
            return rc;
    }
    if (with_payload_and_notify && hcts::mutant("ref_wwn_staged_dst_shared")) {
        // The destination is staged in a per-channel slot, not per task: two
        // threads writing on one channel at once may swap destinations.
        {
            std::lock_guard lock(g_history_mutex);
            g_staged_dst[channel->handle] = dst;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        std::lock_guard lock(g_history_mutex);
        dst = g_staged_dst[channel->handle];
    }
    if (with_payload_and_notify && hcts::mutant("ref_wwn_len_rounded_up")) {
        // The DMA granularity: the length rounded up to whole 8-byte words.
        len = (len + 7) & ~uint64_t{7};
    }
    HcclResult rc = HCCL_SUCCESS;
    bool counted_at_completion = false; // a write left in flight counts its bytes and notify when it completes
    if (with_payload_and_notify && notify_goes_first(*channel, dst, src, len, *notify, previous)) {
        rc = notify_then_payload(*channel, dst, src, len, *imm);
    } else if (with_payload_and_notify && (env::split_reordered() >= 2 || env::notify_delay().count() > 0)) {
        rc = payload_then_notify(*channel, dst, src, len, *imm);
    } else {
        // On a thread the write is left in flight: the thread counts it until its
        // completion, and a failure fails the thread (TaskQueue). RC places it before
        // anything posted later on this QP. Not under HCOMM_REF_DOORBELL_COMPLETION (the
        // variant forgets it at the doorbell) or mutants that touch src afterwards.
        TaskQueue::Completion to_queue = env::doorbell_completion() || hcts::mutant("ref_wwn_marks_source_sent")
                                             ? TaskQueue::Completion{}
                                             : TaskQueue::in_flight(channel->link.get());
        TaskQueue::Retire retire;
        if (to_queue) {
            counted_at_completion = true;
            // The comm outlives its links (its destruction cancels them first), so stats stays valid.
            auto counted = [to_queue = std::move(to_queue), &stats = comm.stats(), len,
                            raised = notify.has_value()](HcclResult result) {
                if (result == HCCL_SUCCESS) {
                    stats.bytes_written += len;
                    if (raised)
                        ++stats.notifies_raised;
                }
                to_queue(result);
            };
            static_assert(TaskQueue::Retire::kFitsInline<decltype(counted)>, "a write's completion must not allocate");
            retire = std::move(counted);
        }
        rc = channel->link->write({reinterpret_cast<uint64_t>(src), lkey}, {reinterpret_cast<uint64_t>(dst), rkey}, len,
                                  imm, comm.closing(), !env::doorbell_completion(), std::move(retire));
    }
    if (rc == HCCL_SUCCESS && with_payload_and_notify && hcts::mutant("ref_wwn_duplicate_notify_same_index") &&
        previous && previous->notify == *notify && len <= 4096) {
        // The small-write path's retry list still holds the previous notify on
        // this index: when its retry timer fires, it is sent once more.
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        rc = channel->link->write({reinterpret_cast<uint64_t>(src), lkey}, {reinterpret_cast<uint64_t>(dst), rkey}, 0,
                                  imm, comm.closing());
    }
    if (rc == HCCL_SUCCESS && with_payload_and_notify && hcts::mutant("ref_wwn_stale_retry_after_same_dst") &&
        previous && previous->dst == dst && previous->src != src) {
        // A retry list not cleared on completion: the previous write to this
        // destination is posted again behind this one.
        rc = channel->link->write(
            {reinterpret_cast<uint64_t>(previous->src), lkey_of(comm, previous->src, previous->len)},
            {reinterpret_cast<uint64_t>(dst), rkey}, previous->len, std::nullopt, comm.closing());
    }
    if (rc == HCCL_SUCCESS && with_payload_and_notify && hcts::mutant("ref_wwn_marks_source_sent")) {
        // The send buffer is marked consumed in place once the write completed.
        auto *first = static_cast<volatile uint8_t *>(const_cast<void *>(src));
        *first = static_cast<uint8_t>(*first ^ 0x5aU);
    }
    if (rc == HCCL_SUCCESS && !counted_at_completion) {
        comm.stats().bytes_written += len;
        if (notify)
            ++comm.stats().notifies_raised;
    }
    return rc;
}

HcclResult do_read(const std::shared_ptr<ChannelObj> &channel, void *dst, const void *src, uint64_t len)
{
    if (channel->destroyed) {
        return HCCL_E_NOT_FOUND;
    }
    Comm &comm = *channel->comm;
    const HcclResult rc =
        // Mutant: the local key looked up for the remote address (src), not for dst.
        channel->link->read(
            {reinterpret_cast<uint64_t>(dst), lkey_of(comm, hcts::mutant("ref_read_lkey_of_src") ? src : dst, len)},
            {reinterpret_cast<uint64_t>(src), rkey_of(*channel, src, len)}, len, comm.closing());
    if (rc == HCCL_SUCCESS)
        comm.stats().bytes_read += len;
    return rc;
}

// Read-modify-write through the thread's registered scratch: fetch the peer's
// destination, reduce locally, write it back; the notify follows the last write
// on the same QP, so it is raised only after the reduced data is in place.
HcclResult do_write_reduce(const std::shared_ptr<ChannelObj> &channel, ThreadCore &core, void *dst, const void *src,
                           uint64_t count, HcommDataType type, HcommReduceOp op, std::optional<uint32_t> notify)
{
    const uint64_t element = reduce_type_size(type);
    const uint32_t rkey = rkey_of(*channel, dst, count * element);
    // Mutant: the notify is raised with the last chunk's read, before its reduced write-back (which follows late).
    // Mutant (blind-regions.yaml): the same, for reductions of at most 8 bytes only.
    const bool notify_early = notify && (hcts::mutant("ref_wrwn_notify_before_writeback") ||
                                         (count * element <= 8 && hcts::mutant("ref_wrwn_tiny_notify_first")));
    // Mutant: a reduction of several chunks raises its notify with the first chunk's
    // write-back (the "last chunk" test compares against the chunk, not the call).
    const bool notify_first_chunk = notify && hcts::mutant("ref_wrwn_notify_with_first_chunk");
    bool notified = false;
    return through_scratch(
        *channel, core, count, element,
        [&](uint8_t *scratch, uint32_t lkey, uint64_t done, uint64_t n) {
            const uint64_t remote = reinterpret_cast<uint64_t>(dst) + done * element;
            HcclResult step = channel->link->read({reinterpret_cast<uint64_t>(scratch), lkey}, {remote, rkey},
                                                  n * element, channel->comm->closing());
            if (step != HCCL_SUCCESS)
                return step;
            if (notify_early && done + n == count) {
                step = channel->link->write({reinterpret_cast<uint64_t>(scratch), lkey}, {remote, rkey}, 0,
                                            kImmNotifyTag | *notify, channel->comm->closing());
                if (step != HCCL_SUCCESS)
                    return step;
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
            reduce_into(scratch, static_cast<const uint8_t *>(src) + done * element, n, type, op);
            if (notify_first_chunk && done == 0 && n < count) {
                notified = true;
                step = channel->link->write({reinterpret_cast<uint64_t>(scratch), lkey}, {remote, rkey}, n * element,
                                            kImmNotifyTag | *notify, channel->comm->closing());
                // The later chunks follow late enough for the receiver to look.
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                return step;
            }
            return channel->link->write({reinterpret_cast<uint64_t>(scratch), lkey}, {remote, rkey}, n * element,
                                        std::nullopt, channel->comm->closing());
        },
        [&](uint8_t *scratch, uint32_t lkey) {
            Comm &comm = *channel->comm;
            comm.stats().bytes_written += count * element;
            if (!notify || notify_early || notified)
                return HCCL_SUCCESS;
            // A zero-byte WRITE WITH IMM: the scratch only has to supply a valid local key.
            const HcclResult sent = channel->link->write({reinterpret_cast<uint64_t>(scratch), lkey},
                                                         {reinterpret_cast<uint64_t>(dst), rkey}, 0,
                                                         kImmNotifyTag | *notify, comm.closing());
            if (sent != HCCL_SUCCESS)
                return sent;
            ++comm.stats().notifies_raised;
            return HCCL_SUCCESS;
        });
}

HcclResult do_read_reduce(const std::shared_ptr<ChannelObj> &channel, ThreadCore &core, void *dst, const void *src,
                          uint64_t count, HcommDataType type, HcommReduceOp op)
{
    const uint64_t element = reduce_type_size(type);
    const uint32_t rkey = rkey_of(*channel, src, count * element);
    return through_scratch(
        *channel, core, count, element,
        [&](uint8_t *scratch, uint32_t lkey, uint64_t done, uint64_t n) {
            const HcclResult step = channel->link->read({reinterpret_cast<uint64_t>(scratch), lkey},
                                                        {reinterpret_cast<uint64_t>(src) + done * element, rkey},
                                                        n * element, channel->comm->closing());
            if (step != HCCL_SUCCESS)
                return step;
            // Mutant (selftest/catalogue/survivors.yaml): only the first scratch chunk is reduced; a
            // read-reduce above one chunk leaves the rest of dst as it was.
            if (done != 0 && hcts::mutant("ref_read_reduce_first_chunk_only"))
                return HCCL_SUCCESS;
            reduce_into(static_cast<uint8_t *>(dst) + done * element, scratch, n, type, op);
            return HCCL_SUCCESS;
        },
        [&](uint8_t *, uint32_t) {
            channel->comm->stats().bytes_read += count * element;
            return HCCL_SUCCESS;
        });
}

// How often a waiting channel wait looks whether its peer is gone.
constexpr auto kPeerCheckInterval = std::chrono::milliseconds(100);

namespace {

HcclResult channel_wait(const std::shared_ptr<ChannelObj> &channel, uint32_t index, uint32_t timeout,
                        std::optional<Deadline> due)
{
    Comm &comm = *channel->comm;
    // Mutant: timeOut 0 taken as "do not wait" (poll once), not as "wait forever".
    const bool poll_once = timeout == 0 && hcts::mutant("ref_wait_zero_polls_once");
    const auto start = Clock::now();
    std::optional<Deadline> deadline; // none: wait forever (timeOut 0)
    if (poll_once)
        deadline = start;
    else if (timeout != 0)
        deadline = due.value_or(start + env::timeout_to_duration(timeout));
    // The wait runs in slices so that a lost peer ends it: a notify already
    // delivered is still consumed, otherwise the wait fails with HCCL_E_REMOTE, and so
    // does every later wait on the channel, at once.
    NotifyBank::WaitResult result = NotifyBank::WaitResult::timed_out;
    // First the waiter polls the channel's CQ itself for a short while (the channel's
    // PollBudget, from HCOMM_REF_POLL_US): the notify's completion then reaches it
    // without the progress thread's hand-off. Then it sleeps, and the progress thread delivers.
    if (const auto budget = channel->poll_budget.current(); budget.count() > 0 && !channel->peer_lost.load()) {
        const Deadline poll_end = deadline ? std::min(*deadline, start + budget) : start + budget;
        RcLink &link = *channel->link;
        link.begin_polling();
        // The clock is read every 8th turn: a turn is a fraction of a microsecond, and
        // reading it took a fifth of the loop's time.
        for (uint32_t turn = 1;; ++turn) {
            result = channel->notifies->poll(index, comm.closing());
            if (result != NotifyBank::WaitResult::timed_out)
                break;
            link.progress_here();
            if (turn % 8 == 1 && (Clock::now() >= poll_end || comm.closing()))
                break;
        }
        link.end_polling(result == NotifyBank::WaitResult::timed_out);
    }
    const bool slept = result == NotifyBank::WaitResult::timed_out; // the loop below runs
    while (result == NotifyBank::WaitResult::timed_out) {
        const auto slice_end = Clock::now() + kPeerCheckInterval;
        const bool lost = channel->peer_lost.load();
        const Deadline slice = lost ? Clock::now() : deadline ? std::min(*deadline, slice_end) : slice_end;
        result = channel->notifies->wait(index, slice, comm.closing());
        if (result != NotifyBank::WaitResult::timed_out)
            break;
        if (comm.closing()) { // the comm's own links are shut down: not a lost peer
            result = NotifyBank::WaitResult::cancelled;
            break;
        }
        if (lost || comm.peer_gone(channel->remote_rank)) {
            if (!channel->peer_lost.exchange(true))
                HREF_LOG_ERROR(comm.rank(), "rank ", channel->remote_rank,
                               " is gone (its bootstrap link closed): waits on its channel fail");
            return HCCL_E_REMOTE;
        }
        if (deadline && Clock::now() >= *deadline)
            break;
    }
    const bool consumed = result == NotifyBank::WaitResult::consumed;
    channel->poll_budget.observe(
        slept, consumed ? std::optional(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start))
                        : std::nullopt);
    switch (result) {
    case NotifyBank::WaitResult::consumed: ++comm.stats().notifies_consumed; return HCCL_SUCCESS;
    case NotifyBank::WaitResult::timed_out:
        HREF_LOG_ERROR(comm.rank(), "wait on notify ", index, " of the channel to rank ", channel->remote_rank,
                       " timed out after ", timeout, env::timeout_unit_is_ms() ? " ms" : " s");
        // Mutant: the expiry is logged but the wait reports success, as if the notify had come.
        return hcts::mutant("ref_wait_timeout_reported_success") ? HCCL_SUCCESS : HCCL_E_TIMEOUT;
    case NotifyBank::WaitResult::cancelled: break;
    }
    return HCCL_E_INTERNAL;
}

} // namespace

// The wait itself lives in channel_wait: the report's scope kept apart from its
// optional deadline (GCC 12 sees a false -Wmaybe-uninitialized when they share a frame).
HcclResult do_channel_wait(const std::shared_ptr<ChannelObj> &channel, uint32_t index, uint32_t timeout,
                           uint64_t thread, std::optional<Deadline> due)
{
    const wait_report::WaitScope reported(wait_report::Kind::channel, channel->comm->rank(), channel->remote_rank,
                                          index, channel->notify_num, timeout, thread, channel->handle, channel.get());
    return channel_wait(channel, index, timeout, due);
}

} // namespace hcomm_ref
