#include "comm.h"

#include <poll.h>
#include <sys/socket.h>

#include <hcts/mutant.h>

#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <span>
#include <system_error>

#include "env.h"
#include "hccl/hccl_res.h"
#include "log.h"
#include "registry.h"
#include "wait_report.h"

namespace hcomm_ref {
namespace {

enum : uint32_t { kChannelHello = 0x43484c4f, kChannelReady = 0x43524459 };

constexpr uint64_t kScratchBytes = 1ULL << 20;

struct ChannelHello {
    int32_t engine;
    int32_t protocol;
    uint32_t notify_num;
    uint32_t from_rank;
    QpEndpoint qp;
    uint64_t buffer_addr;
    uint64_t buffer_size;
    uint32_t rkey;
    uint32_t mem_count; // WireMem entries behind the hello: the channel's memHandles
};

// HcclMemHandle values: a process-wide serial with a marker in the high bits, so
// that neither 0 nor a small integer nor a pointer is ever a live handle.
std::atomic<uint64_t> g_next_mem_handle{0x4d52000000000001ULL};

std::string token_hex(const uint8_t *token)
{
    static const char digits[] = "0123456789abcdef";
    std::string text;
    for (size_t i = 0; i < kTokenBytes; ++i) {
        text += digits[token[i] >> 4];
        text += digits[token[i] & 15];
    }
    return text;
}

} // namespace

std::string parse_peer_mems(std::span<const uint8_t> entries, uint32_t count, std::vector<PeerUserMemory> &out)
{
    out.clear();
    if (count > kMaxChannelMems)
        return "announces " + std::to_string(count) + " memories (at most " + std::to_string(kMaxChannelMems) + ")";
    if (entries.size() != uint64_t{count} * sizeof(WireMem))
        return "sent " + std::to_string(entries.size()) + " bytes for " + std::to_string(count) + " memories of " +
               std::to_string(sizeof(WireMem)) + " bytes";
    std::vector<PeerUserMemory> mems(count);
    for (uint32_t i = 0; i < count; ++i) {
        WireMem m;
        std::memcpy(&m, entries.data() + i * sizeof(WireMem), sizeof(m));
        const size_t tag_len = ::strnlen(m.tag, sizeof(m.tag));
        if (tag_len == 0 || tag_len == sizeof(m.tag))
            return "memory " + std::to_string(i) + " has an empty or unterminated tag";
        // Mutant: the peer's sizes are trusted (an empty or wrapping memory is kept).
        if ((m.size == 0 || m.addr > UINT64_MAX - m.size) && !hcts::mutant("ref_peer_mem_size_unchecked"))
            return "memory " + std::to_string(i) + " has size " + std::to_string(m.size) + " at address " +
                   std::to_string(m.addr) + " (empty or wrapping)";
        if (m.type != COMM_MEM_TYPE_DEVICE && m.type != COMM_MEM_TYPE_HOST)
            return "memory " + std::to_string(i) + " has type " + std::to_string(m.type);
        mems[i] = {m.addr, m.size, m.rkey, static_cast<CommMemType>(m.type), std::string(m.tag, tag_len)};
    }
    out = std::move(mems);
    return {};
}

MemoryRegion::MemoryRegion(ibv_pd *pd, void *addr, uint64_t len)
    : mr_(ibv_reg_mr(pd, addr, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ))
{
}

MemoryRegion::~MemoryRegion()
{
    if (mr_ != nullptr)
        ibv_dereg_mr(mr_);
}

HcclResult Comm::create(uint32_t n_ranks, const RootInfoWire &root, uint32_t rank, std::unique_ptr<Comm> &out)
{
    const auto buffsize_mb = env::hccl_buffsize_mb();
    if (!buffsize_mb) {
        return HCCL_E_PARA;
    }
    std::unique_ptr<Comm> comm(new Comm());
    comm->rank_ = rank;
    comm->size_ = n_ranks;
    comm->name_ = "hcomm_ref_" + token_hex(root.token);
    std::memcpy(comm->token_.data(), root.token, kTokenBytes);
    // The documented buffer is twice the HCCL_BUFFSIZE setting (hcomm-api.md §7.7).
    // Mutant: the buffer is the setting itself (task_sched.md's 200 MB), not twice it.
    const uint64_t bytes = *buffsize_mb * (hcts::mutant("ref_buffer_size_as_setting") ? 1 : 2) * (1ULL << 20);
    // The memory is a sparse memfd: one larger than the machine could hold would be made,
    // and the process killed (OOM, SIGBUS) only when it is used. Refused now instead.
    if (const uint64_t most = memory_limit(); most != 0 && bytes > most) {
        HREF_LOG_ERROR(rank, "HCCL_BUFFSIZE=", *buffsize_mb, " MB asks for ", bytes,
                       " bytes of communication memory (twice the setting), more than the ", most,
                       " bytes of memory and swap this process may use; lower HCCL_BUFFSIZE");
        return HCCL_E_MEMORY;
    }
    comm->memory_ = CommMemory::create(bytes, comm->name_ + "_rank" + std::to_string(rank));
    if (!comm->memory_) {
        HREF_LOG_ERROR(rank, "cannot create ", bytes, " bytes of communication memory (HCCL_BUFFSIZE=", *buffsize_mb,
                       " MB, twice that): ", std::strerror(errno));
        return HCCL_E_MEMORY;
    }
    if (const HcclResult rc = join_job(root, n_ranks, rank, comm->mesh_); rc != HCCL_SUCCESS) {
        return rc;
    }
    comm->joined_ = true;
    HREF_LOG_INFO(rank, "comm ", comm->name_, " ready: rank ", rank, " of ", n_ranks, ", buffer ", bytes, " bytes");
    out = std::move(comm);
    return HCCL_SUCCESS;
}

Comm::~Comm()
{
    closing_ = true;
    std::vector<std::shared_ptr<ThreadObj>> threads;
    std::vector<std::shared_ptr<ChannelObj>> channels;
    {
        std::lock_guard lock(mutex_);
        threads.swap(threads_);
        channels.swap(channels_);
    }
    // Unblock whatever runs: notify waits see `closing_`, posted operations fail.
    for (auto &t : threads) {
        registry::remove_thread(t->handle);
        t->core->notifies.wake_all();
    }
    for (auto &c : channels) {
        registry::remove_channel(c->handle);
        c->notifies->wake_all();
        if (c->link)
            c->link->cancel_all(HCCL_E_INTERNAL);
    }
    // Joining the queues ends every task before the channels and the device go.
    // shutdown() joins even when another holder (a concurrent HcommThreadJoin, a
    // launch record) keeps the queue alive; the queue object itself stays valid
    // for them (never reset here: a concurrent join would read a null queue).
    for (auto &t : threads) {
        t->core->queue->shutdown();
    }
    threads.clear();
    // A call racing this destroy may still hold a channel object; its QP and CQ must
    // still go before the device does (else the device's completion channel leaks and
    // the late ~RcLink would reach a freed device).
    for (auto &c : channels) {
        c->destroyed = true;
        c->link.reset();
    }
    channels.clear();
    {
        std::unique_lock lock(user_mutex_);
        user_mems_.clear();
        implicit_mems_.clear();
    }
    memory_mr_.reset();
    polled_device_.store(nullptr);
    device_.reset();
    // Not before every rank joined: a rank that failed to start may be retried.
    if (joined_)
        end_root_service(token_.data());
}

void Comm::enter()
{
    std::lock_guard lock(calls_mutex_);
    ++calls_;
}

void Comm::leave()
{
    std::lock_guard lock(calls_mutex_);
    if (--calls_ == 0)
        calls_left_.notify_all();
}

bool Comm::wait_calls_left(Deadline deadline)
{
    std::unique_lock lock(calls_mutex_);
    return calls_left_.wait_until(lock, deadline, [this] { return calls_ == 0; });
}

void Comm::interrupt()
{
    closing_ = true;
    std::vector<std::shared_ptr<ThreadObj>> threads;
    std::vector<std::shared_ptr<ChannelObj>> channels;
    {
        std::lock_guard lock(mutex_);
        threads = threads_;
        channels = channels_;
    }
    // Outside mutex_: a link's completion callback may take it (a mutant does).
    for (auto &t : threads)
        t->core->notifies.wake_all();
    for (auto &c : channels) {
        c->notifies->wake_all();
        if (c->link)
            c->link->cancel_all();
    }
    // A channel handshake blocks reading its peer's link (up to the bootstrap
    // timeout); shutting the links down ends that read now. They close with the comm.
    for (const Fd &link : mesh_.links)
        if (link.valid())
            ::shutdown(link.get(), SHUT_RDWR);
}

bool Comm::peer_gone(uint32_t peer) const
{
    if (peer >= mesh_.links.size() || mesh_.links[peer].get() < 0)
        return false;
    pollfd p{mesh_.links[peer].get(), POLLIN | POLLRDHUP, 0};
    if (::poll(&p, 1, 0) <= 0)
        return false;
    if ((p.revents & (POLLHUP | POLLERR | POLLRDHUP | POLLNVAL)) != 0)
        return true;
    // Readable: end of stream, or bytes of a later handshake (left for their reader).
    char byte = 0;
    return ::recv(p.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

std::shared_ptr<ThreadObj> Comm::new_thread(CommEngine engine, uint32_t notify_num)
{
    std::lock_guard lock(mutex_);
    auto thread = std::make_shared<ThreadObj>();
    thread->comm = this;
    thread->comm_id = handle_;
    thread->engine = engine;
    const std::string name = "r" + std::to_string(rank_) + ".t" + std::to_string(thread_serial_++);
    // The worker runs only while the comm lives (its destruction joins it before the device goes).
    // The worker lingers as long as a channel wait polls (HCOMM_REF_POLL_US) before it
    // sleeps. The device may come later than the thread (ensure_verbs), hence polled_device_.
    TaskQueue::Linger linger;
    linger.time = env::poll_budget();
    auto held = std::make_shared<VerbsDevice *>(nullptr); // the device of one linger, begin to end
    linger.begin = [this, held] {
        *held = polled_device_.load();
        if (*held != nullptr)
            (*held)->begin_idle_polling();
    };
    linger.poll = [held] {
        if (*held != nullptr)
            (*held)->idle_poll();
    };
    linger.end = [held] {
        if (*held != nullptr)
            (*held)->end_idle_polling();
        *held = nullptr;
    };
    std::shared_ptr<TaskQueue> queue;
    try {
        queue = std::make_shared<TaskQueue>(
            rank_, name, [this](HcclResult) { ++stats_.task_errors; },
            [this] {
                if (VerbsDevice *device = polled_device_.load())
                    device->arm_unpolled();
            },
            std::move(linger));
    } catch (const std::system_error &e) { // no more threads (RLIMIT_NPROC, memory): the caller refuses
        HREF_LOG_ERROR(rank_, "cannot start the worker of thread ", name, ": ", e.code().message());
        return nullptr;
    }
    // Mutant: every thread of the comm gets the notify count of its first thread.
    if (!threads_.empty() && hcts::mutant("ref_thread_notifies_fixed_by_first"))
        notify_num = threads_.front()->core->notifies.size();
    thread->core = std::make_shared<ThreadCore>(std::move(queue), notify_num);
    threads_.push_back(thread);
    return thread;
}

std::shared_ptr<ThreadObj> Comm::export_thread(const ThreadObj &source, CommEngine engine)
{
    std::lock_guard lock(mutex_);
    auto thread = std::make_shared<ThreadObj>();
    thread->comm = this;
    thread->comm_id = handle_;
    // Mutant: the exported handle keeps the source's engine, so its new engine's side refuses it.
    thread->engine = hcts::mutant("ref_export_keeps_source_engine") ? source.engine : engine;
    thread->core = source.core;
    // Mutant: the exported handle runs on the source's queue with a notify bank of its own
    // (blind set 7, M13): a record to one handle is not seen by a wait on the other.
    if (hcts::mutant("ref_exported_thread_own_notifies"))
        thread->core = std::make_shared<ThreadCore>(source.core->queue, source.core->notifies.size());
    threads_.push_back(thread);
    return thread;
}

size_t Comm::thread_count() const
{
    std::lock_guard lock(mutex_);
    return threads_.size();
}

HcclResult Comm::ensure_verbs()
{
    if (device_) {
        return HCCL_SUCCESS;
    }
    HcclResult rc = HCCL_SUCCESS;
    auto device = VerbsDevice::open(rank_, rc);
    if (!device) {
        return rc;
    }
    // Mutant: the registration leaves out the memory's last page.
    const uint64_t registered = memory_->size() - (hcts::mutant("ref_buffer_last_page_unregistered") ? 4096 : 0);
    auto mr = std::make_unique<MemoryRegion>(device->pd(), memory_->base(), registered);
    if (!mr->valid()) {
        HREF_LOG_ERROR(rank_, "registering ", memory_->size(),
                       " bytes of communication memory failed: ", std::strerror(errno));
        return HCCL_E_MEMORY;
    }
    device_ = std::move(device);
    polled_device_.store(device_.get());
    memory_mr_ = std::move(mr);
    return HCCL_SUCCESS;
}

uint32_t Comm::memory_lkey() const { return memory_mr_->lkey(); }

std::optional<uint32_t> Comm::local_key(uint64_t addr, uint64_t len) const
{
    len = std::max<uint64_t>(len, 1);
    if (memory_mr_ && range_inside(addr, len, reinterpret_cast<uint64_t>(memory_->base()), memory_->size()))
        return memory_mr_->lkey();
    std::shared_lock lock(user_mutex_);
    for (const auto *list : {&user_mems_, &implicit_mems_})
        for (const auto &m : *list)
            if (range_inside(addr, len, m->addr, m->size))
                return m->mr->lkey();
    return std::nullopt;
}

std::optional<uint32_t> ChannelObj::remote_key(uint64_t addr, uint64_t len) const
{
    len = std::max<uint64_t>(len, 1);
    if (range_inside(addr, len, peer.addr, peer.size))
        return peer.rkey;
    for (const auto &m : peer_mems)
        if (range_inside(addr, len, m.addr, m.size))
            return m.rkey;
    return std::nullopt;
}

HcclResult Comm::register_user_memory(const std::string &tag, CommMemType type, uint64_t addr, uint64_t size,
                                      uint64_t &handle, std::string &why)
{
    {
        std::shared_lock lock(user_mutex_);
        for (const auto &m : user_mems_) {
            if (m->tag != tag)
                continue;
            if (m->addr == addr && m->size == size && m->type == type) {
                handle = m->handle;
                return HCCL_SUCCESS;
            }
            why = "memTag '" + tag + "' is registered already for other memory";
            return HCCL_E_PARA;
        }
    }
    // The PD comes with the verbs device, which the first channel opens otherwise.
    std::lock_guard acquire(acquire_mutex_);
    if (closing_)
        return HCCL_E_INTERNAL;
    if (const HcclResult rc = ensure_verbs(); rc != HCCL_SUCCESS) {
        why = "the verbs device could not be opened";
        return rc;
    }
    std::unique_lock lock(user_mutex_);
    for (const auto &m : user_mems_) // a concurrent registration of the same tag
        if (m->tag == tag) {
            if (m->addr == addr && m->size == size && m->type == type) {
                handle = m->handle;
                return HCCL_SUCCESS;
            }
            why = "memTag '" + tag + "' is registered already for other memory";
            return HCCL_E_PARA;
        }
    if (user_mems_.size() >= kMaxUserMems) {
        why = "the comm holds " + std::to_string(user_mems_.size()) + " registered memories already (at most " +
              std::to_string(kMaxUserMems) + ")";
        return HCCL_E_UNAVAIL;
    }
    auto m = std::make_unique<UserMemory>();
    m->tag = tag;
    m->type = type;
    m->addr = addr;
    m->size = size;
    m->mr = std::make_unique<MemoryRegion>(device_->pd(), reinterpret_cast<void *>(addr), size);
    if (!m->mr->valid()) {
        why = std::string("ibv_reg_mr failed: ") + std::strerror(errno);
        return HCCL_E_MEMORY;
    }
    m->rkey = m->mr->rkey();
    m->handle = g_next_mem_handle.fetch_add(1);
    handle = m->handle;
    HREF_LOG_INFO(rank_, "registered user memory '", tag, "' [0x", std::hex, addr, std::dec, ", +", size, ")");
    user_mems_.push_back(std::move(m));
    return HCCL_SUCCESS;
}

std::optional<UserMemory> Comm::user_memory(uint64_t handle) const
{
    std::shared_lock lock(user_mutex_);
    for (const auto &m : user_mems_)
        if (m->handle == handle) {
            UserMemory copy;
            copy.handle = m->handle;
            copy.tag = m->tag;
            copy.type = m->type;
            copy.addr = m->addr;
            copy.size = m->size;
            copy.rkey = m->rkey;
            return copy;
        }
    return std::nullopt;
}

HcclResult Comm::register_implicit(uint64_t addr, uint64_t len, std::string &why, bool &fresh)
{
    fresh = false;
    if (!device_) {
        why = "no verbs device is open";
        return HCCL_E_INTERNAL;
    }
    constexpr uint64_t kPage = 4096;
    const uint64_t start = addr & ~(kPage - 1);
    const uint64_t end = ((addr + len - 1) | (kPage - 1)) + 1; // the caller checked the range does not wrap
    std::unique_lock lock(user_mutex_);
    for (const auto &m : implicit_mems_)
        if (range_inside(addr, len, m->addr, m->size))
            return HCCL_SUCCESS; // registered by an earlier call
    if (implicit_mems_.size() >= kMaxImplicitMems) {
        why = "HCOMM_REF_LOCAL_UNREGISTERED=warn registered " + std::to_string(implicit_mems_.size()) +
              " ranges already (at most " + std::to_string(kMaxImplicitMems) + "); register the memory instead";
        return HCCL_E_UNAVAIL;
    }
    auto m = std::make_unique<UserMemory>();
    m->tag = "(unregistered)";
    m->addr = start;
    m->size = end - start;
    m->mr = std::make_unique<MemoryRegion>(device_->pd(), reinterpret_cast<void *>(start), end - start);
    if (!m->mr->valid()) {
        why = std::string("ibv_reg_mr failed: ") + std::strerror(errno);
        return HCCL_E_MEMORY;
    }
    implicit_mems_.push_back(std::move(m));
    fresh = true;
    return HCCL_SUCCESS;
}

HcclResult Comm::stage_scratch(ThreadCore &caller, uint8_t *&scratch, uint32_t &lkey, uint64_t &size)
{
    // Called with caller.scratch_mutex held.
    ThreadCore *owner = &caller;
    // Mutant: one scratch per comm, the first thread's, while each thread still holds only
    // its own lock (blind set 7, M08): threads reducing at once mix their chunks.
    if (hcts::mutant("ref_reduce_scratch_shared_by_threads")) {
        std::lock_guard lock(mutex_);
        if (!threads_.empty())
            owner = threads_.front()->core.get();
    }
    ThreadCore &core = *owner;
    if (!core.scratch_mr) {
        core.scratch.assign(kScratchBytes, 0);
        core.scratch_mr = std::make_unique<MemoryRegion>(device_->pd(), core.scratch.data(), kScratchBytes);
        if (!core.scratch_mr->valid()) {
            core.scratch_mr.reset();
            return HCCL_E_MEMORY;
        }
    }
    scratch = core.scratch.data();
    lkey = core.scratch_mr->lkey();
    size = kScratchBytes;
    return HCCL_SUCCESS;
}

std::shared_ptr<ChannelObj> Comm::find_channel(CommEngine engine, uint32_t remote_rank, CommProtocol protocol)
{
    std::lock_guard lock(mutex_);
    for (const auto &c : channels_) {
        // Mutant: the key without the engine; another engine's channel is handed out.
        const bool engine_matches = c->engine == engine || hcts::mutant("ref_channel_key_without_engine");
        if (engine_matches && c->remote_rank == remote_rank && c->protocol == protocol && !c->destroyed) {
            return c;
        }
    }
    return nullptr;
}

HcclResult Comm::acquire_channels(CommEngine engine, const HcclChannelDesc *descs, uint32_t count, ChannelHandle *out)
{
    std::lock_guard acquire(acquire_mutex_);
    // A concurrent HcclCommDestroy shuts the bootstrap links down to end a handshake
    // (interrupt()): the failure is then that interruption, not the peer's.
    const auto interrupted = [this] {
        HREF_LOG_INFO(rank_, "channel acquisition interrupted by HcclCommDestroy");
        return HCCL_E_INTERNAL;
    };
    if (closing_)
        return interrupted();
    if (const HcclResult rc = ensure_verbs(); rc != HCCL_SUCCESS) {
        return rc;
    }
    // One WRITE carries at most 2 GiB: an SGE length is 32 bits, and real NICs cap
    // max_msg_sz at 2^31.
    const uint64_t device_max = std::min<uint64_t>(device_->max_message(), 1ULL << 31);
    const uint64_t max_write = env::max_write_cap() != 0 ? std::min(env::max_write_cap(), device_max) : device_max;
    // New channels in descriptor order; repeated keys reuse the channel (the vendor
    // reuses by (engine, remoteRank, protocol)).
    std::vector<std::shared_ptr<ChannelObj>> fresh;
    const std::vector<std::shared_ptr<ChannelObj>> none; // for the mutant seam below
    std::vector<std::shared_ptr<ChannelObj>> result(count);
    for (uint32_t i = 0; i < count; ++i) {
        const HcclChannelDesc &d = descs[i];
        if (auto existing = find_channel(engine, d.remoteRank, d.channelProtocol)) {
            result[i] = existing;
            continue;
        }
        bool repeated = false;
        // Mutant: a key repeated within one call makes a channel of its own.
        const auto &made = hcts::mutant("ref_channel_key_repeat_in_call_new") ? none : fresh;
        for (const auto &f : made) {
            if (f->remote_rank == d.remoteRank && f->protocol == d.channelProtocol) {
                result[i] = f;
                repeated = true;
            }
        }
        if (repeated)
            continue;
        auto c = std::make_shared<ChannelObj>();
        c->comm = this;
        c->comm_id = handle_;
        c->engine = engine;
        c->protocol = d.channelProtocol;
        c->remote_rank = d.remoteRank;
        // Mutant: the bank sized to a power of two rounding down (bit_floor, not bit_ceil).
        c->notify_num = hcts::mutant("ref_notify_num_bit_floor") ? std::bit_floor(d.notifyNum) : d.notifyNum;
        c->notifies = std::make_unique<NotifyBank>(c->notify_num);
        for (uint32_t k = 0; k < d.memHandleNum; ++k) // checked live by HcclChannelAcquire
            c->local_mems.push_back(reinterpret_cast<uint64_t>(d.memHandles[k]));
        ChannelObj *raw = c.get();
        c->link = RcLink::create(
            *device_,
            [this, raw](uint32_t imm) {
                const uint32_t index = imm & ~kImmTagMask;
                if ((imm & kImmTagMask) != kImmNotifyTag || index >= raw->notify_num) {
                    HREF_LOG_ERROR(rank_, "dropped a malformed notify immediate 0x", std::hex, imm, std::dec,
                                   " from rank ", raw->remote_rank, " (channel has ", raw->notify_num, " notifies)");
                    return;
                }
                if (hcts::mutant("ref_notify_channel_keyed_by_peer")) {
                    // Mutant: a second lookup by (peer, notifyNum) rather than by QP
                    // also records the notify on the first such channel.
                    std::lock_guard lock(mutex_);
                    for (const auto &other : channels_)
                        if (!other->destroyed && other.get() != raw && other->remote_rank == raw->remote_rank &&
                            other->notify_num == raw->notify_num) {
                            other->notifies->record(index);
                            break;
                        }
                }
                // Mutant: a bank whose size is not a power of two decodes its last,
                // unpaired slot as the pair (N-2, N-1): a write on N-1 also raises N-2.
                if (hcts::mutant("ref_notify_top_index_pairs") && index > 0 && index + 1 == raw->notify_num &&
                    !std::has_single_bit(raw->notify_num))
                    raw->notifies->record(index - 1);
                wait_report::notify_received(raw, rank_, raw->remote_rank, index);
                if (!raw->notifies->record(index)) {
                    ++stats_.notify_overruns;
                    HREF_LOG_DEBUG(rank_, "notify ", index, " from rank ", raw->remote_rank,
                                   " was already set: overrun (binary notifies coalesce)");
                }
            },
            max_write, token_);
        if (!c->link) {
            return HCCL_E_ROCE_CONNECT;
        }
        fresh.push_back(c);
        result[i] = c;
    }
    // Handshake: every hello first, then every answer, so no pair of ranks waits
    // on each other whatever order the descriptors name the peers in.
    const Deadline deadline = Clock::now() + env::bootstrap_timeout();
    for (const auto &c : fresh) {
        ChannelHello hello{};
        hello.engine = engine;
        hello.protocol = c->protocol;
        hello.notify_num = c->notify_num;
        hello.from_rank = rank_;
        hello.qp = c->link->local();
        hello.buffer_addr = reinterpret_cast<uint64_t>(memory_->base());
        hello.buffer_size = memory_->size();
        hello.rkey = memory_mr_->rkey();
        std::vector<WireMem> mems;
        for (const uint64_t handle : c->local_mems) {
            const std::optional<UserMemory> m = user_memory(handle);
            if (!m) // memories stay until the comm goes: checked by HcclChannelAcquire
                return HCCL_E_INTERNAL;
            WireMem e{};
            e.addr = m->addr;
            e.size = m->size;
            e.rkey = m->rkey;
            e.type = m->type;
            std::memcpy(e.tag, m->tag.data(), std::min(m->tag.size(), sizeof(e.tag) - 1));
            mems.push_back(e);
        }
        hello.mem_count = static_cast<uint32_t>(mems.size());
        std::vector<uint8_t> message(sizeof(hello) + mems.size() * sizeof(WireMem));
        std::memcpy(message.data(), &hello, sizeof(hello));
        if (!mems.empty())
            std::memcpy(message.data() + sizeof(hello), mems.data(), mems.size() * sizeof(WireMem));
        if (!send_message(mesh_.links[c->remote_rank], kChannelHello, message)) {
            if (closing_)
                return interrupted();
            HREF_LOG_ERROR(rank_, "sending the channel handshake to rank ", c->remote_rank, " failed");
            return HCCL_E_TCP_TRANSFER;
        }
    }
    HcclResult outcome = HCCL_SUCCESS;
    for (const auto &c : fresh) {
        uint32_t type = 0;
        std::vector<uint8_t> payload;
        if (!recv_message(mesh_.links[c->remote_rank], deadline, type, payload) || type != kChannelHello ||
            payload.size() < sizeof(ChannelHello)) {
            if (closing_)
                return interrupted();
            HREF_LOG_ERROR(rank_, "rank ", c->remote_rank, " did not answer the channel handshake in time");
            return HCCL_E_TIMEOUT;
        }
        ChannelHello peer;
        std::memcpy(&peer, payload.data(), sizeof(peer));
        if (peer.engine != engine || peer.protocol != c->protocol || peer.notify_num != c->notify_num ||
            peer.from_rank != c->remote_rank) {
            HREF_LOG_ERROR(rank_, "channel to rank ", c->remote_rank,
                           " does not match the peer's descriptor: ", "engine ", static_cast<int>(engine), "/",
                           peer.engine, ", protocol ", static_cast<int>(c->protocol), "/", peer.protocol,
                           ", notifyNum ", c->notify_num, "/", peer.notify_num,
                           " (both sides must acquire the same channel)");
            outcome = HCCL_E_PARA;
            continue;
        }
        std::vector<PeerUserMemory> peer_mems;
        const std::string malformed =
            parse_peer_mems(std::span(payload).subspan(sizeof(ChannelHello)), peer.mem_count, peer_mems);
        if (!malformed.empty()) {
            HREF_LOG_ERROR(rank_, "rank ", c->remote_rank, "'s channel handshake is malformed: ", malformed);
            outcome = HCCL_E_PARA;
            continue;
        }
        c->peer = {peer.buffer_addr, peer.buffer_size, peer.rkey};
        if (c != fresh.front() && hcts::mutant("ref_channels_take_first_peer_memory"))
            c->peer = fresh.front()->peer;
        c->peer_mems = std::move(peer_mems);
        c->remote_tags.assign(1, "HcclBuffer");
        c->remote_mems.assign(1, {COMM_MEM_TYPE_DEVICE, reinterpret_cast<void *>(peer.buffer_addr), peer.buffer_size});
        for (const auto &m : c->peer_mems) {
            c->remote_tags.push_back(m.tag);
            c->remote_mems.push_back({m.type, reinterpret_cast<void *>(m.addr), m.size});
        }
        c->remote_tag_ptrs.clear();
        for (auto &tag : c->remote_tags) // remote_tags no longer grows: the pointers stay valid
            c->remote_tag_ptrs.push_back(tag.data());
        if (const HcclResult rc = c->link->connect(peer.qp); rc != HCCL_SUCCESS) {
            outcome = rc;
        }
    }
    if (outcome != HCCL_SUCCESS) {
        return outcome;
    }
    // Both ends in RTS before either may send.
    for (const auto &c : fresh) {
        const uint32_t ready = 1;
        if (!send_message(mesh_.links[c->remote_rank], kChannelReady, bytes_of(ready))) {
            if (closing_)
                return interrupted();
            return HCCL_E_TCP_TRANSFER;
        }
    }
    for (const auto &c : fresh) {
        uint32_t type = 0;
        std::vector<uint8_t> payload;
        if (!recv_message(mesh_.links[c->remote_rank], deadline, type, payload) || type != kChannelReady) {
            if (closing_)
                return interrupted();
            HREF_LOG_ERROR(rank_, "rank ", c->remote_rank, " did not confirm the channel in time");
            return HCCL_E_TIMEOUT;
        }
    }
    {
        std::lock_guard lock(mutex_);
        for (const auto &c : fresh) {
            registry::add_channel(c);
            channels_.push_back(c);
        }
    }
    for (uint32_t i = 0; i < count; ++i) {
        out[i] = result[i]->handle;
    }
    HREF_LOG_INFO(rank_, "acquired ", count, " channels (", fresh.size(), " new)");
    return HCCL_SUCCESS;
}

HcclResult Comm::destroy_channel(ChannelHandle handle)
{
    std::shared_ptr<ChannelObj> channel;
    {
        std::lock_guard lock(mutex_);
        for (auto it = channels_.begin(); it != channels_.end(); ++it) {
            if ((*it)->handle == handle) {
                channel = *it;
                channels_.erase(it);
                break;
            }
        }
    }
    if (!channel) {
        return HCCL_E_NOT_FOUND;
    }
    // Mutant: the destroyed channel's handle stays in the table (a stale handle resolves).
    if (!hcts::mutant("ref_destroyed_channel_stays_registered"))
        registry::remove_channel(handle);
    channel->destroyed = true;
    channel->notifies->wake_all();
    channel->link->cancel_all();
    // Tasks still holding the channel finish with an error; the QP goes with the last reference.
    return HCCL_SUCCESS;
}

} // namespace hcomm_ref
