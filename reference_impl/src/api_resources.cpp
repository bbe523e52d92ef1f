// Resources of a communicator: memory, threads, engine contexts, channels.
#include <algorithm>
#include <cstring>

#include <hcts/mutant.h>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "acl_binding.h"
#include "api_util.h"
#include "data_path.h"
#include "hccl/hccl_channel.h"
#include "hccl/hccl_res.h"
#include "hccl/hccl_res_expt.h"
#include "mem_probe.h"
#include "profile.h"

using namespace hcomm_ref;

namespace {

constexpr size_t kMaxThreadsPerComm = 256; // each is an OS thread here
constexpr uint32_t kMaxNotifyPerThread = 65535;
constexpr uint32_t kMaxNotifyPerChannel = 64;
constexpr uint32_t kMaxChannelsPerCall = 1U << 20;
constexpr uint64_t kMaxEngineCtxBytes = 1ULL << 30;
// What all engine contexts of one comm may hold together (there is no destroy call:
// they live as long as the comm), how many there may be, and the longest tag.
constexpr uint64_t kMaxEngineCtxTotalBytes = 1ULL << 30;
constexpr size_t kMaxEngineCtxCount = 4096;
constexpr size_t kMaxEngineCtxTagLen = 255;
// An engine parameter outside CommEngine's value range (-8..7) is read as 7, which
// names no engine and is refused like any other unknown engine.
constexpr CommEngine kNoEngine = static_cast<CommEngine>(7);

bool engine_can_host_threads(int32_t engine)
{
    return engine == COMM_ENGINE_CPU || engine == COMM_ENGINE_CPU_TS || engine == COMM_ENGINE_AICPU ||
           engine == COMM_ENGINE_AICPU_TS;
}

// Acquired and exported threads count alike against the per-comm limit; `make(i)`
// gives the i-th new thread.
template <typename Make>
HcclResult add_threads(const char *api, Comm *comm, uint32_t count, ThreadHandle *threads, Make make)
{
    if (comm->thread_count() + count > kMaxThreadsPerComm) {
        return refuse(comm, api, HCCL_E_UNAVAIL, "threadNum ", count, " with ", comm->thread_count(),
                      " threads already acquired exceeds the reference's ", kMaxThreadsPerComm, " per comm");
    }
    for (uint32_t i = 0; i < count; ++i) {
        // Mutant: one thread made and its handle copied into every slot of the batch.
        if (hcts::mutant("ref_thread_acquire_same_handle") && i > 0) {
            threads[i] = threads[0];
            continue;
        }
        auto made = make(i);
        if (!made) // said why; the batch's earlier threads stay the comm's until it is destroyed
            return refuse(comm, api, HCCL_E_UNAVAIL, "thread ", i, " of ", count, " could not be started");
        threads[i] = registry::add_thread(made);
    }
    return HCCL_SUCCESS;
}

HcclResult acquire_threads(const char *api, Comm *comm, CommEngine engine, uint32_t count, uint32_t notify_num,
                           ThreadHandle *threads)
{
    std::vector<std::shared_ptr<ThreadObj>> made;
    const HcclResult rc = add_threads(api, comm, count, threads, [&](uint32_t k) {
        // Mutant (survivors.yaml): every thread after the first of one acquire gets one notify fewer.
        const uint32_t mine =
            k > 0 && notify_num > 0 && hcts::mutant("ref_later_threads_one_notify_short") ? notify_num - 1 : notify_num;
        auto t = comm->new_thread(engine, mine);
        if (t)
            made.push_back(t);
        return t;
    });
    // Mutant: the threads of one acquire share one stream's error state (see submit()).
    if (rc == HCCL_SUCCESS && hcts::mutant("ref_thread_error_shared_by_batch"))
        for (const auto &t : made)
            for (const auto &other : made)
                if (other != t)
                    t->core->batch.push_back(other->core->queue);
    return rc;
}

// `comm` is held by the caller.
std::shared_ptr<ThreadObj> thread_of(const Comm *comm, ThreadHandle handle)
{
    auto thread = registry::thread(handle);
    return thread && thread->comm_id == comm->handle() ? thread : nullptr;
}

std::shared_ptr<ChannelObj> channel_of(const Comm *comm, ChannelHandle handle)
{
    auto channel = registry::channel(handle);
    return channel && channel->comm_id == comm->handle() ? channel : nullptr;
}

// Whether a product offers an engine is a support question only for engines the
// call could use at all; any other engine is a parameter error, judged after the comm.
std::optional<CommEngine> offered_if(bool usable, CommEngine engine)
{
    return usable ? std::optional<CommEngine>(engine) : std::nullopt;
}

// The support part of the check order for the calls made on the host: refused in
// a device program (for `device_reason`) and for an engine the product does not
// offer. `live` may be null: the comm is judged after support.
HcclResult host_support(const char *api, Comm *live, const char *device_reason, std::optional<CommEngine> engine)
{
    if (is_device_side()) {
        return refuse(live, api, HCCL_E_NOT_SUPPORT, device_reason);
    }
    if (engine && !profile_has_engine(*engine)) {
        return refuse(live, api, HCCL_E_NOT_SUPPORT, "engine ", static_cast<int>(*engine),
                      " is not offered by product ", profile().name);
    }
    return HCCL_SUCCESS;
}

// After a host-only call's null checks: support, then the comm.
HcclResult host_comm(const char *api, HcclComm comm, const char *device_reason, std::optional<CommEngine> engine,
                     registry::CommRef &live)
{
    live = registry::pin_comm(comm);
    if (const HcclResult rc = host_support(api, live, device_reason, engine); rc != HCCL_SUCCESS)
        return rc;
    return live != nullptr ? HCCL_SUCCESS : refuse_dead_comm(api, comm);
}

// After the null checks of the HcclThreadAcquire* calls: support, the comm, and
// an engine that can own threads.
HcclResult thread_acquire_comm(const char *api, HcclComm comm, CommEngine engine, registry::CommRef &live)
{
    if (const HcclResult rc = host_comm(api, comm, "threads are acquired on the host, not in a device program",
                                        offered_if(engine_can_host_threads(engine), engine), live);
        rc != HCCL_SUCCESS) {
        return rc;
    }
    if (!engine_can_host_threads(engine)) {
        return refuse(live, api, HCCL_E_PARA, "engine ", static_cast<int>(engine),
                      " cannot own threads (allowed: CPU 0, CPU_TS 1, AICPU 2, AICPU_TS 3)");
    }
    return HCCL_SUCCESS;
}

// HcclGetHcclBuffer and HcclGetHcclBufferCleared: one answer, the latter punches
// the pages out first.
HcclResult comm_buffer(const char *api, HcclComm comm, void **buffer, uint64_t *size, bool clear)
{
    if (comm == nullptr || buffer == nullptr || size == nullptr) {
        // Mutant: a NULL output with a valid comm reported as a bad parameter.
        const bool as_para = comm != nullptr && hcts::mutant("ref_buffer_null_as_para");
        return refuse(nullptr, api, as_para ? HCCL_E_PARA : HCCL_E_PTR, "comm, buffer and size must not be NULL");
    }
    registry::CommRef live;
    if (const HcclResult rc = live_comm(api, comm, live); rc != HCCL_SUCCESS)
        return rc;
    // Mutant: "cleared" taken from the allocator's word; the memory is not cleared.
    if (clear && !hcts::mutant("ref_buffer_cleared_dirty") && !live->memory().clear()) {
        HREF_LOG_ERROR(live->rank(), "clearing the communication memory failed");
        return HCCL_E_SYSCALL;
    }
    *buffer = live->memory().base();
    *size = live->memory().size();
    return HCCL_SUCCESS;
}

// The channel queries take a comm and one of its channels; either not live is HCCL_E_PARA.
HcclResult live_channel(const char *api, HcclComm comm, ChannelHandle channel, registry::CommRef &live,
                        std::shared_ptr<ChannelObj> &obj)
{
    live = registry::pin_comm(comm);
    obj = live != nullptr ? channel_of(live, channel) : nullptr;
    if (!obj) {
        return refuse(live, api, HCCL_E_PARA, "channel 0x", std::hex, channel, std::dec,
                      " is not a live channel of a live comm");
    }
    return HCCL_SUCCESS;
}

// The memHandles of channelDescs[i]: a readable array of at most kMaxChannelMems
// distinct live handles of this comm; a descriptor naming the same channel as an
// earlier one (in this call or acquired before) names the same memories, since
// memories are exchanged only when a channel connects.
HcclResult check_mem_handles(const char *api, Comm *live, const HcclChannelDesc *descs, uint32_t i)
{
    const HcclChannelDesc &d = descs[i];
    if (d.memHandleNum == 0)
        return HCCL_SUCCESS;
    if (d.memHandles == nullptr) {
        return refuse(live, api, HCCL_E_PTR, "channelDescs[", i, "]: memHandles is NULL with memHandleNum ",
                      d.memHandleNum);
    }
    if (d.memHandleNum > kMaxChannelMems) {
        return refuse(live, api, HCCL_E_PARA, "channelDescs[", i, "]: memHandleNum ", d.memHandleNum,
                      " exceeds the reference's ", kMaxChannelMems, " per channel");
    }
    if (!range_accessible(d.memHandles, uint64_t{d.memHandleNum} * sizeof(HcclMemHandle), Access::read)) {
        return refuse(live, api, HCCL_E_PARA, "channelDescs[", i, "]: memHandles ",
                      static_cast<const void *>(d.memHandles), " over ", d.memHandleNum,
                      " entries is not readable memory");
    }
    std::set<uint64_t> seen;
    for (uint32_t k = 0; k < d.memHandleNum; ++k) {
        const auto handle = reinterpret_cast<uint64_t>(d.memHandles[k]);
        // Mutant: a handle is trusted without looking it up in the comm's registrations.
        if (!live->user_memory(handle) && !hcts::mutant("ref_mem_handle_unchecked")) {
            return refuse(live, api, HCCL_E_PARA, "channelDescs[", i, "]: memHandles[", k, "] = 0x", std::hex, handle,
                          std::dec, " is not a memory registered with this comm (HcclCommMemReg)");
        }
        if (!seen.insert(handle).second) {
            return refuse(live, api, HCCL_E_PARA, "channelDescs[", i, "]: memHandles[", k, "] repeats a handle");
        }
    }
    return HCCL_SUCCESS;
}

// Whether two descriptors name the same memories (same handles, same order).
bool same_mem_handles(const HcclChannelDesc &a, const HcclChannelDesc &b)
{
    if (a.memHandleNum != b.memHandleNum)
        return false;
    for (uint32_t k = 0; k < a.memHandleNum; ++k)
        if (a.memHandles[k] != b.memHandles[k])
            return false;
    return true;
}

// The memories an existing channel exchanged when it connected, as a descriptor would name them.
bool exchanged_mem_handles(const ChannelObj &c, const HcclChannelDesc &d)
{
    if (d.memHandleNum == 0)
        return true; // naming no memory reuses the channel as it is
    if (c.local_mems.size() != d.memHandleNum)
        return false;
    for (uint32_t k = 0; k < d.memHandleNum; ++k)
        if (c.local_mems[k] != reinterpret_cast<uint64_t>(d.memHandles[k]))
            return false;
    return true;
}

} // namespace

HCOMM_EXPORT HcclResult HcclCommMemReg(HcclComm comm, const char *memTag, const CommMem *mem, HcclMemHandle *memHandle)
{
    return guarded("HcclCommMemReg", [&]() -> HcclResult {
        const char *api = "HcclCommMemReg";
        if (comm == nullptr || memTag == nullptr || mem == nullptr || memHandle == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "comm, memTag, mem and memHandle must not be NULL");
        }
        registry::CommRef live;
        if (const HcclResult rc =
                host_comm(api, comm, "memory is registered on the host, not in a device program", std::nullopt, live);
            rc != HCCL_SUCCESS) {
            return rc;
        }
        if (!range_accessible(mem, sizeof(CommMem), Access::read)) {
            return refuse(live, api, HCCL_E_PARA, "mem ", static_cast<const void *>(mem), " is not readable memory");
        }
        // The tag is read at most HCCL_RES_TAG_MAX_LEN + 1 bytes far, each byte only once it is known readable.
        size_t tag_len = 0;
        while (tag_len <= HCCL_RES_TAG_MAX_LEN && range_accessible(memTag + tag_len, 1, Access::read) &&
               memTag[tag_len] != '\0')
            ++tag_len;
        // Mutant: the longest tag the header allows refused (its NUL counted in the limit).
        const uint32_t longest =
            hcts::mutant("ref_mem_tag_longest_refused") ? HCCL_RES_TAG_MAX_LEN - 1 : HCCL_RES_TAG_MAX_LEN;
        if (tag_len == 0 || tag_len > longest || !range_accessible(memTag + tag_len, 1, Access::read)) {
            return refuse(live, api, HCCL_E_PARA, "memTag must be a NUL-terminated string of 1..", HCCL_RES_TAG_MAX_LEN,
                          " characters");
        }
        const int32_t type = raw_enum(mem->type);
        const auto addr = reinterpret_cast<uint64_t>(mem->addr);
        if (type != COMM_MEM_TYPE_DEVICE && type != COMM_MEM_TYPE_HOST) {
            return refuse(live, api, HCCL_E_PARA, "mem->type ", type, " is not COMM_MEM_TYPE_DEVICE (0) or _HOST (1)");
        }
        if (mem->addr == nullptr) {
            return refuse(live, api, HCCL_E_PTR, "mem->addr is NULL");
        }
        if (mem->size == 0 || addr > UINT64_MAX - mem->size) {
            return refuse(live, api, HCCL_E_PARA, "mem->size ", mem->size, " at ", mem->addr,
                          ": the memory must be non-empty and not wrap");
        }
        // Device memory is host memory under the reference's ACL runtime: either kind must be
        // this process's, readable and writable (the peer writes into it, transfers read it).
        if (!range_accessible(mem->addr, mem->size, Access::write)) {
            return refuse(live, api, HCCL_E_PARA, "mem [", mem->addr, ", +", mem->size,
                          ") is not readable and writable memory of this process");
        }
        const auto base = reinterpret_cast<uint64_t>(live->memory().base());
        // Mutant: memory overlapping the communication memory is registered a second time.
        if (addr < base + live->memory().size() && base < addr + mem->size &&
            !hcts::mutant("ref_mem_reg_overlap_accepted")) {
            return refuse(live, api, HCCL_E_PARA, "mem [", mem->addr, ", +", mem->size,
                          ") overlaps the communication memory [", live->memory().base(), ", +", live->memory().size(),
                          "), which every channel exchanges already");
        }
        uint64_t handle = 0;
        std::string why;
        if (const HcclResult rc = live->register_user_memory(
                std::string(memTag, tag_len), static_cast<CommMemType>(type), addr, mem->size, handle, why);
            rc != HCCL_SUCCESS) {
            return refuse(live, api, rc, why.empty() ? "the comm is being destroyed" : why);
        }
        *memHandle = reinterpret_cast<HcclMemHandle>(handle);
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclGetHcclBuffer(HcclComm comm, void **buffer, uint64_t *size)
{
    return guarded("HcclGetHcclBuffer",
                   [&]() -> HcclResult { return comm_buffer("HcclGetHcclBuffer", comm, buffer, size, false); });
}

HCOMM_EXPORT HcclResult HcclGetHcclBufferCleared(HcclComm comm, void **buffer, uint64_t *size)
{
    return guarded("HcclGetHcclBufferCleared",
                   [&]() -> HcclResult { return comm_buffer("HcclGetHcclBufferCleared", comm, buffer, size, true); });
}

HCOMM_EXPORT HcclResult HcclThreadAcquire(HcclComm comm, CommEngine engine_arg, uint32_t threadNum,
                                          uint32_t notifyNumPerThread, ThreadHandle *threads)
{
    return guarded("HcclThreadAcquire", [&]() -> HcclResult {
        const CommEngine engine = enum_or(engine_arg, -8, 7, kNoEngine);
        const char *api = "HcclThreadAcquire";
        if (comm == nullptr || threads == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, comm == nullptr ? "comm" : "threads", " is NULL");
        }
        registry::CommRef live;
        if (const HcclResult rc = thread_acquire_comm(api, comm, engine, live); rc != HCCL_SUCCESS)
            return rc;
        // Mutant (survivors.yaml): notifyNumPerThread 0 (documented as allowed) refused.
        if (notifyNumPerThread == 0 && hcts::mutant("ref_thread_notify_num_zero_refused"))
            return refuse(live, api, HCCL_E_PARA, "notifyNumPerThread 0: a thread needs at least one notify");
        // Mutant: threadNum 0 taken as "nothing to do" and accepted. Mutant: the documented top
        // of notifyNumPerThread's range (65535) refused as if the bound were exclusive.
        const uint32_t top =
            hcts::mutant("ref_notify_count_top_refused") ? kMaxNotifyPerThread - 1 : kMaxNotifyPerThread;
        if ((threadNum == 0 && !hcts::mutant("ref_thread_num_zero_accepted")) || notifyNumPerThread > top) {
            return refuse(live, api, HCCL_E_PARA, "threadNum ", threadNum, ", notifyNumPerThread ", notifyNumPerThread,
                          ": threadNum must be > 0 and notifyNumPerThread <= 65535");
        }
        const HcclResult rc = acquire_threads(api, live, engine, threadNum, notifyNumPerThread, threads);
        // Mutant (blind-regions.yaml): threads 5.. of one acquisition are threads 1-4 again.
        if (rc == HCCL_SUCCESS && hcts::mutant("ref_thread_acquire_aliases_after_4"))
            for (uint32_t i = 4; i < threadNum; ++i)
                threads[i] = threads[i % 4];
        return rc;
    });
}

HCOMM_EXPORT HcclResult HcclThreadAcquireWithConfig(HcclComm comm, CommEngine engine_arg, uint32_t threadNum,
                                                    ThreadType type_arg, const ThreadConfig *config,
                                                    ThreadHandle *threads)
{
    return guarded("HcclThreadAcquireWithConfig", [&]() -> HcclResult {
        const ThreadType type = enum_or(type_arg, -1, 0, THREAD_TYPE_INVALID);
        CommEngine engine = enum_or(engine_arg, -8, 7, kNoEngine);
        const char *api = "HcclThreadAcquireWithConfig";
        if (comm == nullptr || config == nullptr || threads == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "comm, config and threads must not be NULL");
        }
        // Mutant: AIV and CCU threads quietly served by AICPU_TS threads instead of refused.
        if (hcts::mutant("ref_thread_config_aiv_fallback") && (engine == COMM_ENGINE_AIV || engine == COMM_ENGINE_CCU))
            engine = COMM_ENGINE_AICPU_TS;
        registry::CommRef live;
        if (const HcclResult rc = thread_acquire_comm(api, comm, engine, live); rc != HCCL_SUCCESS)
            return rc;
        // Mutant: the config header is not checked (any ThreadConfig-sized block taken).
        if (hcts::mutant("ref_thread_config_header_unchecked")) {
            // nothing: straight to the type check
        } else if (config->header.magicWord != HCOMM_THREAD_CONFIG_MAGIC_WORD ||
                   config->header.version != HCOMM_THREAD_CONFIG_VERSION ||
                   config->header.size != sizeof(ThreadConfig)) {
            return refuse(live, api, HCCL_E_PARA, "config header {version ", config->header.version, ", magic 0x",
                          std::hex, config->header.magicWord, std::dec, ", size ", config->header.size,
                          "} was not made by ThreadConfigInit");
        }
        if (type != THREAD_TYPE_TS || threadNum == 0) {
            return refuse(live, api, HCCL_E_PARA, "type ", static_cast<int>(type), ", threadNum ", threadNum,
                          ": type must be THREAD_TYPE_TS (0) and threadNum > 0");
        }
        // Mutant: one thread made whatever threadNum asks (the rest of the array left alone).
        const uint32_t made = hcts::mutant("ref_config_acquire_one_thread") ? 1 : threadNum;
        return acquire_threads(api, live, engine, made, config->notifyNumPerThread, threads);
    });
}

HCOMM_EXPORT HcclResult HcclThreadAcquireWithStream(HcclComm comm, CommEngine engine_arg, aclrtStream stream,
                                                    uint32_t notifyNum, ThreadHandle *thread)
{
    return guarded("HcclThreadAcquireWithStream", [&]() -> HcclResult {
        const CommEngine engine = enum_or(engine_arg, -8, 7, kNoEngine);
        const char *api = "HcclThreadAcquireWithStream";
        // Mutant: a NULL stream taken as "the thread's own stream" and accepted.
        if (comm == nullptr || (stream == nullptr && !hcts::mutant("ref_thread_stream_null_accepted")) ||
            thread == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "comm, stream and thread must not be NULL");
        }
        registry::CommRef live = registry::pin_comm(comm);
        if (is_device_side() || !profile_has_engine(COMM_ENGINE_CPU_TS)) {
            return refuse(live, api, HCCL_E_NOT_SUPPORT, "needs the host side and a CPU_TS engine");
        }
        if (live == nullptr)
            return refuse_dead_comm(api, comm);
        if (engine != COMM_ENGINE_CPU_TS || notifyNum > kMaxNotifyPerThread) {
            return refuse(live, api, HCCL_E_PARA, "engine ", static_cast<int>(engine), ", notifyNum ", notifyNum,
                          ": a stream thread is CPU_TS (1) with at most 65535 notifies");
        }
        // The stream is the caller's; the reference runs the thread's tasks in its own
        // order, which is what a stream guarantees.
        return acquire_threads(api, live, engine, 1, notifyNum, thread);
    });
}

HCOMM_EXPORT HcclResult HcclEngineCtxCreate(HcclComm comm, const char *ctxTag, CommEngine engine_arg, uint64_t size,
                                            void **ctx)
{
    return guarded("HcclEngineCtxCreate", [&]() -> HcclResult {
        const CommEngine engine = enum_or(engine_arg, -8, 7, kNoEngine);
        const char *api = "HcclEngineCtxCreate";
        if (comm == nullptr || ctxTag == nullptr || ctx == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "comm, ctxTag and ctx must not be NULL");
        }
        registry::CommRef live;
        if (const HcclResult rc = host_comm(api, comm, "called from a device program", std::nullopt, live);
            rc != HCCL_SUCCESS) {
            return rc;
        }
        // Mutant: size 0 accepted (an empty context).
        if (!engine_is_valid(engine) || (size == 0 && !hcts::mutant("ref_engine_ctx_size_zero_accepted")) ||
            size > kMaxEngineCtxBytes || ctxTag[0] == '\0' ||
            ::strnlen(ctxTag, kMaxEngineCtxTagLen + 1) > kMaxEngineCtxTagLen) {
            return refuse(live, api, HCCL_E_PARA, "engine ", static_cast<int>(engine), ", size ", size,
                          ": engine must be 0..5, size in [1, 1 GiB], ctxTag of 1..255 characters");
        }
        std::lock_guard lock(live->ctx_mutex);
        uint64_t held = 0;
        for (const auto &[k, v] : live->engine_ctx)
            held += v.size();
        if (live->engine_ctx.size() >= kMaxEngineCtxCount || size > kMaxEngineCtxTotalBytes - held) {
            return refuse(live, api, HCCL_E_MEMORY, "size ", size, " with ", held, " bytes in ",
                          live->engine_ctx.size(), " contexts held: at most 1 GiB in 4096 contexts per comm");
        }
        const auto key = std::make_pair(std::string(ctxTag), static_cast<int>(engine));
        // Mutant: a tag names one context of the comm, whatever the engine.
        if (hcts::mutant("ref_engine_ctx_tag_one_engine") &&
            std::any_of(live->engine_ctx.begin(), live->engine_ctx.end(),
                        [&](const auto &kv) { return kv.first.first == ctxTag; })) {
            return refuse(live, api, HCCL_E_PARA, "context '", ctxTag, "' already exists");
        }
        // Mutant: a second create with the same tag replaces the context.
        if (live->engine_ctx.count(key) != 0 && !hcts::mutant("ref_engine_ctx_duplicate_replaces")) {
            return refuse(live, api, HCCL_E_PARA, "context '", ctxTag, "' already exists for engine ",
                          static_cast<int>(engine));
        }
        try {
            std::vector<uint8_t> memory(size, 0);
            *ctx = live->engine_ctx.insert_or_assign(key, std::move(memory)).first->second.data();
        } catch (const std::bad_alloc &) {
            return refuse(live, api, HCCL_E_MEMORY, "no memory for a context of ", size, " bytes");
        }
        // A device engine's context is device memory: operators fill it with aclrtMemcpy
        // (HCCL's custom-operator samples do), which must take it as such.
        if (engine_on_device(engine))
            offer_device_memory(comm, *ctx, size);
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclEngineCtxGet(HcclComm comm, const char *ctxTag, CommEngine engine_arg, void **ctx,
                                         uint64_t *size)
{
    return guarded("HcclEngineCtxGet", [&]() -> HcclResult {
        const CommEngine engine = enum_or(engine_arg, -8, 7, kNoEngine);
        const char *api = "HcclEngineCtxGet";
        if (comm == nullptr || ctxTag == nullptr || ctx == nullptr || size == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "comm, ctxTag, ctx and size must not be NULL");
        }
        registry::CommRef live;
        if (const HcclResult rc = live_comm(api, comm, live); rc != HCCL_SUCCESS)
            return rc;
        std::lock_guard lock(live->ctx_mutex);
        auto it = live->engine_ctx.find(std::make_pair(std::string(ctxTag), static_cast<int>(engine)));
        if (it == live->engine_ctx.end() && hcts::mutant("ref_engine_ctx_falls_back_to_device")) {
            // Mutant: a tag without a context for this engine gives its AICPU_TS context.
            it = live->engine_ctx.find(std::make_pair(std::string(ctxTag), static_cast<int>(COMM_ENGINE_AICPU_TS)));
        }
        if (it == live->engine_ctx.end()) {
            return refuse(live, api, HCCL_E_NOT_FOUND, "no context '", ctxTag, "' for engine ",
                          static_cast<int>(engine));
        }
        *ctx = it->second.data();
        *size = it->second.size();
        if (hcts::mutant("ref_engine_ctx_size_rounded")) // Mutant: the size in whole 64-byte lines.
            *size = (*size + 63) / 64 * 64;
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclThreadResGetInfo(HcclComm comm, ThreadHandle thread, ThreadResType resTypeArg,
                                             uint32_t infoLen, void **info)
{
    return guarded("HcclThreadResGetInfo", [&]() -> HcclResult {
        const ThreadResType resType = enum_or(resTypeArg, -1, 0, THREAD_RES_TYPE_INVALID);
        const char *api = "HcclThreadResGetInfo";
        if (comm == nullptr || thread == 0 || info == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "comm, thread and info must not be NULL/0");
        }
        registry::CommRef live;
        if (const HcclResult rc = live_comm(api, comm, live); rc != HCCL_SUCCESS)
            return rc;
        auto obj = thread_of(live, thread);
        if (!obj || resType != THREAD_RES_TYPE_STREAM || infoLen == 0 || infoLen > sizeof(ThreadHandle)) {
            return refuse(live, api, HCCL_E_PARA, "thread 0x", std::hex, thread, std::dec, ", resType ",
                          static_cast<int>(resType), ", infoLen ", infoLen,
                          ": needs a thread of this comm, THREAD_RES_TYPE_STREAM and infoLen in [1, 8]");
        }
        // The reference's "stream" is the thread's own queue; its identity is the handle.
        *info = &obj->handle;
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclThreadExportToCommEngine(HcclComm comm, uint32_t threadNum, const ThreadHandle *threads,
                                                     CommEngine dstCommEngineArg, ThreadHandle *exportedThreads)
{
    return guarded("HcclThreadExportToCommEngine", [&]() -> HcclResult {
        const CommEngine dstCommEngine = enum_or(dstCommEngineArg, -8, 7, kNoEngine);
        const char *api = "HcclThreadExportToCommEngine";
        if (comm == nullptr || threads == nullptr || exportedThreads == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "comm, threads and exportedThreads must not be NULL");
        }
        registry::CommRef live;
        if (const HcclResult rc = host_comm(api, comm, "called from a device program",
                                            offered_if(engine_can_host_threads(dstCommEngine), dstCommEngine), live);
            rc != HCCL_SUCCESS) {
            return rc;
        }
        // Mutant: threadNum 0 accepted (nothing exported).
        if ((threadNum == 0 && !hcts::mutant("ref_thread_export_zero_accepted")) ||
            !engine_can_host_threads(dstCommEngine)) {
            return refuse(live, api, HCCL_E_PARA, "threadNum ", threadNum, ", engine ", static_cast<int>(dstCommEngine),
                          ": needs threadNum > 0 and a thread engine (0..3)");
        }
        // Counts before arrays (found by fuzz_control_plane): a count the limit refuses anyway
        // is refused before an entry is read, and the array must be readable for all of it.
        if (live->thread_count() + threadNum > kMaxThreadsPerComm) {
            return refuse(live, api, HCCL_E_UNAVAIL, "threadNum ", threadNum, " with ", live->thread_count(),
                          " threads already acquired exceeds the reference's ", kMaxThreadsPerComm, " per comm");
        }
        if (threadNum > 0 && !range_accessible(threads, uint64_t{threadNum} * sizeof(ThreadHandle), Access::read)) {
            return refuse(live, api, HCCL_E_PARA, "threads ", static_cast<const void *>(threads), " over ", threadNum,
                          " entries is not readable memory");
        }
        std::vector<std::shared_ptr<ThreadObj>> sources;
        for (uint32_t i = 0; i < threadNum; ++i) {
            auto obj = thread_of(live, threads[i]);
            if (!obj) {
                return refuse(live, api, HCCL_E_PARA, "threads[", i, "] = 0x", std::hex, threads[i], std::dec,
                              " is not a thread of this comm");
            }
            sources.push_back(obj);
        }
        return add_threads(api, live, threadNum, exportedThreads, [&](uint32_t i) {
            // Mutant: the handles come back in reverse order (exportedThreads[i]
            // is the export of threads[threadNum-1-i]).
            const uint32_t from = hcts::mutant("ref_export_handles_reversed") ? threadNum - 1 - i : i;
            return live->export_thread(*sources[from], dstCommEngine);
        });
    });
}

// Mutant seam: a protocol left RESERVED by HcclChannelDescInit becomes the product's default
// instead of being refused. Returns the copy the call then reads.
static const HcclChannelDesc *mutant_default_reserved_protocols(CommEngine engine,
                                                                std::span<const HcclChannelDesc> descs,
                                                                std::vector<HcclChannelDesc> &copy)
{
    copy.assign(descs.begin(), descs.end());
    for (HcclChannelDesc &d : copy)
        if (raw_enum(d.channelProtocol) == COMM_PROTOCOL_RESERVED)
            d.channelProtocol =
                profile_allows_protocol(engine, COMM_PROTOCOL_UB_CTP) ? COMM_PROTOCOL_UB_CTP : COMM_PROTOCOL_ROCE;
    return copy.data();
}

HCOMM_EXPORT HcclResult HcclChannelAcquire(HcclComm comm, CommEngine engine_arg, const HcclChannelDesc *channelDescs,
                                           uint32_t channelNum, ChannelHandle *channels)
{
    return guarded("HcclChannelAcquire", [&]() -> HcclResult {
        const CommEngine engine = enum_or(engine_arg, -8, 7, kNoEngine);
        const char *api = "HcclChannelAcquire";
        if (comm == nullptr || channelDescs == nullptr || channels == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "comm, channelDescs and channels must not be NULL");
        }
        registry::CommRef live = registry::pin_comm(comm);
        if (const HcclResult rc = host_support(api, live, "channels are acquired on the host, not in a device program",
                                               offered_if(engine_is_valid(engine), engine));
            rc != HCCL_SUCCESS) {
            return rc;
        }
        // Only an in-range channelNum is trusted as the array's length: a huge one is
        // refused below without reading past the caller's descriptors.
        const uint32_t checked = channelNum <= kMaxChannelsPerCall ? channelNum : 0;
        if (checked != 0 &&
            !range_accessible(channelDescs, uint64_t{checked} * sizeof(HcclChannelDesc), Access::read)) {
            return refuse(live, api, HCCL_E_PARA, "channelDescs ", static_cast<const void *>(channelDescs), " over ",
                          checked, " entries is not readable memory");
        }
        std::vector<HcclChannelDesc> defaulted;
        if (hcts::mutant("ref_reserved_protocol_defaulted") && checked != 0 && engine_is_valid(engine))
            channelDescs = mutant_default_reserved_protocols(engine, {channelDescs, checked}, defaulted);
        if (engine_is_valid(engine)) {
            for (uint32_t i = 0; i < checked; ++i) {
                const int32_t protocol = raw_enum(channelDescs[i].channelProtocol);
                if (protocol_is_valid(protocol) &&
                    !profile_allows_protocol(engine, static_cast<CommProtocol>(protocol))) {
                    return refuse(live, api, HCCL_E_NOT_SUPPORT, "channelDescs[", i, "]: protocol ",
                                  static_cast<int>(protocol), " is not available on engine ", static_cast<int>(engine),
                                  " of product ", profile().name);
                }
            }
        }
        if (live == nullptr)
            return refuse_dead_comm(api, comm);
        // Mutant: channelNum 0 accepted (nothing acquired).
        if (!engine_is_valid(engine) || (channelNum == 0 && !hcts::mutant("ref_channel_num_zero_accepted")) ||
            channelNum > kMaxChannelsPerCall) {
            return refuse(live, api, HCCL_E_PARA, "engine ", static_cast<int>(engine), ", channelNum ", channelNum,
                          ": engine must be 0..5 and channelNum in [1, 1048576]");
        }
        for (uint32_t i = 0; i < channelNum; ++i) {
            const HcclChannelDesc &d = channelDescs[i];
            // Mutant: the magic word is not checked, only version and size.
            if ((d.header.magicWord != HCCL_CHANNEL_MAGIC_WORD && !hcts::mutant("ref_channel_magic_unchecked")) ||
                d.header.version != HCCL_CHANNEL_VERSION || d.header.size != sizeof(HcclChannelDesc)) {
                return refuse(live, api, HCCL_E_PARA, "channelDescs[", i, "] header {version ", d.header.version,
                              ", magic 0x", std::hex, d.header.magicWord, std::dec, ", size ", d.header.size,
                              "} was not made by HcclChannelDescInit");
            }
            if (!protocol_is_valid(raw_enum(d.channelProtocol))) {
                return refuse(live, api, HCCL_E_PARA, "channelDescs[", i, "]: protocol ", raw_enum(d.channelProtocol),
                              " is not a CommProtocol (0..9); set channelProtocol");
            }
            // Mutant: the bound is the notify bank's capacity (128), not the API's 64.
            // Mutant: only the first descriptor's notifyNum is bounded (the vendor's quirk, api §9.5).
            if ((i == 0 || !hcts::mutant("ref_notify_num_first_desc_only")) &&
                d.notifyNum >
                    (hcts::mutant("ref_notify_num_limit_128") ? 2 * kMaxNotifyPerChannel : kMaxNotifyPerChannel)) {
                // Mutant: the limit reported as a resource shortage, not as a bad parameter.
                if (hcts::mutant("ref_notify_num_limit_unavail"))
                    return refuse(live, api, HCCL_E_UNAVAIL, "channelDescs[", i, "]: no room for ", d.notifyNum,
                                  " notifies");
                return refuse(live, api, HCCL_E_PARA, "channelDescs[", i, "]: notifyNum ", d.notifyNum, " exceeds 64");
            }
            if (d.remoteRank >= live->size() || d.remoteRank == live->rank()) {
                return refuse(live, api, HCCL_E_PARA, "channelDescs[", i, "]: remoteRank ", d.remoteRank,
                              " must be another rank of this comm (size ", live->size(), ", own rank ", live->rank(),
                              ")");
            }
            for (uint32_t j = 0; j < i; ++j) {
                const HcclChannelDesc &e = channelDescs[j];
                if (e.remoteRank == d.remoteRank && e.channelProtocol == d.channelProtocol &&
                    e.notifyNum != d.notifyNum) {
                    return refuse(live, api, HCCL_E_PARA, "channelDescs[", j, "] and [", i,
                                  "] name the same channel with different notifyNum");
                }
                if (e.remoteRank == d.remoteRank && e.channelProtocol == d.channelProtocol && !same_mem_handles(e, d)) {
                    return refuse(live, api, HCCL_E_PARA, "channelDescs[", j, "] and [", i,
                                  "] name the same channel with different memHandles");
                }
            }
            if (const HcclResult rc = check_mem_handles(api, live, channelDescs, i); rc != HCCL_SUCCESS)
                return rc;
            // Mutant: an existing channel is reused whatever notifyNum the descriptor asks for.
            if (auto existing = live->find_channel(engine, d.remoteRank, d.channelProtocol);
                existing && existing->notify_num != d.notifyNum && !hcts::mutant("ref_channel_rekey_reused")) {
                return refuse(live, api, HCCL_E_PARA, "channelDescs[", i, "]: the channel to rank ", d.remoteRank,
                              " exists with notifyNum ", existing->notify_num, ", not ", d.notifyNum);
            }
            if (auto existing = live->find_channel(engine, d.remoteRank, d.channelProtocol);
                existing && !exchanged_mem_handles(*existing, d)) {
                return refuse(live, api, HCCL_E_PARA, "channelDescs[", i, "]: the channel to rank ", d.remoteRank,
                              " exists and exchanged ", existing->local_mems.size(),
                              " memories when it connected; memHandles must name those or none");
            }
        }
        return live->acquire_channels(engine, channelDescs, channelNum, channels);
    });
}

HCOMM_EXPORT HcclResult HcclChannelDestroy(HcclComm comm, const ChannelHandle *channels, uint32_t channelNum)
{
    return guarded("HcclChannelDestroy", [&]() -> HcclResult {
        const char *api = "HcclChannelDestroy";
        if (comm == nullptr || channels == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "comm and channels must not be NULL");
        }
        registry::CommRef live;
        if (const HcclResult rc = host_comm(api, comm, "called from a device program", std::nullopt, live);
            rc != HCCL_SUCCESS) {
            return rc;
        }
        // Counts before arrays (found by fuzz_control_plane: a huge count read on past the
        // caller's array while looking for repeats): bounded as for acquisition, and the
        // array must be readable for all of it before an entry is read.
        if (channelNum == 0 || channelNum > kMaxChannelsPerCall) {
            return refuse(live, api, HCCL_E_PARA, "channelNum ", channelNum, " must be in [1, 1048576]");
        }
        if (!range_accessible(channels, uint64_t{channelNum} * sizeof(ChannelHandle), Access::read)) {
            return refuse(live, api, HCCL_E_PARA, "channels ", static_cast<const void *>(channels), " over ",
                          channelNum, " entries is not readable memory");
        }
        std::set<ChannelHandle> seen;
        for (uint32_t i = 0; i < channelNum; ++i) {
            if (!seen.insert(channels[i]).second) {
                return refuse(live, api, HCCL_E_PARA, "channels[", i, "] repeats a handle");
            }
        }
        for (uint32_t i = 0; i < channelNum; ++i) {
            // Mutant: handles that are no longer live are skipped, as if already done.
            if (!channel_of(live, channels[i]) && !hcts::mutant("ref_channel_destroy_stale_ignored")) {
                return refuse(live, api, HCCL_E_NOT_FOUND, "channels[", i, "] = 0x", std::hex, channels[i], std::dec,
                              " is not a live channel of this comm");
            }
        }
        for (uint32_t i = 0; i < channelNum; ++i) {
            if (channel_of(live, channels[i]))
                live->destroy_channel(channels[i]);
        }
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclChannelGetHcclBuffer(HcclComm comm, ChannelHandle channel, void **buffer, uint64_t *size)
{
    return guarded("HcclChannelGetHcclBuffer", [&]() -> HcclResult {
        const char *api = "HcclChannelGetHcclBuffer";
        if (comm == nullptr || channel == 0 || buffer == nullptr || size == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "comm, channel, buffer and size must not be NULL/0");
        }
        registry::CommRef live;
        std::shared_ptr<ChannelObj> obj;
        if (const HcclResult rc = live_channel(api, comm, channel, live, obj); rc != HCCL_SUCCESS)
            return rc;
        *buffer = reinterpret_cast<void *>(obj->peer.addr);
        // Mutant: the size of this side's memory, as if every rank's had the comm's size.
        *size = hcts::mutant("ref_channel_buffer_local_size") ? live->memory().size() : obj->peer.size;
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclChannelGetRemoteMems(HcclComm comm, ChannelHandle channel, uint32_t *memNum,
                                                 CommMem **remoteMems, char ***memTags)
{
    return guarded("HcclChannelGetRemoteMems", [&]() -> HcclResult {
        const char *api = "HcclChannelGetRemoteMems";
        if (comm == nullptr || channel == 0 || memNum == nullptr || remoteMems == nullptr || memTags == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, "comm, channel, memNum, remoteMems and memTags must not be NULL/0");
        }
        registry::CommRef live;
        std::shared_ptr<ChannelObj> obj;
        if (const HcclResult rc = live_channel(api, comm, channel, live, obj); rc != HCCL_SUCCESS)
            return rc;
        // The peer's communication memory first, then the memories the peer registered
        // and named in its descriptor (HcclCommMemReg), with their tags; the arrays stay
        // valid until the channel or the comm is destroyed.
        // Mutant: only the communication memory is listed (the peer's registered memories are left out).
        *memNum = hcts::mutant("ref_remote_mems_user_omitted") ? 1 : static_cast<uint32_t>(obj->remote_mems.size());
        // Mutant: the local communication memory reported instead of the peer's.
        if (hcts::mutant("ref_remote_mems_local")) {
            static thread_local CommMem local;
            local = {COMM_MEM_TYPE_DEVICE, live->memory().base(), live->memory().size()};
            *memNum = 1;
            *remoteMems = &local;
            *memTags = obj->remote_tag_ptrs.data();
            return HCCL_SUCCESS;
        }
        *remoteMems = obj->remote_mems.data();
        *memTags = obj->remote_tag_ptrs.data();
        return HCCL_SUCCESS;
    });
}
