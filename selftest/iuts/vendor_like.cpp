// Legal variant: the vendor's library as its code reads (shared/spec/hcomm-api.md
// §9), wherever that differs from the reference. Every difference is a choice
// the vendor's documents leave open; the default gate must pass it, and the
// strict gate must fail exactly the STRICT clauses it departs from
// (catalogue/vendor.yaml). What it changes, over the reference:
//   * notifies stay binary (the reference's default, HCOMM_REF_NOTIFY unset);
//   * the notify index of a write with notify, a channel record and a channel
//     wait is not range-checked (§9.2, §9.3): an index >= the channel's notifyNum
//     is accepted and its notify dropped (a write still writes its payload, a
//     record raises nothing, a wait waits for nothing). HCTS_VENDOR_INDEX=wrap
//     wraps it instead (index % notifyNum), one reading of an unchecked vector
//     of notifies; it raises or consumes another index's notify (a HAZARD of
//     WWN.IDX.6), so the catalogue runs the default, drop;
//   * a zero-length write with notify returns success and sends nothing: no
//     byte, no notify (§9.2, UB makes no slices);
//   * [src, src+len) outside the local communication memory and every memory the
//     comm registered (HcclCommMemReg) is accepted with a warning (§9.1 check 7:
//     the vendor continues with the nearest buffer's token). The reference moves
//     data only from registered memory, so the shim cannot write from such a src:
//     it sends the notify alone (no byte) and says so on stderr;
//   * [dst, dst+len) outside the peer's communication memory and the memories the
//     peer exchanged on the channel returns HCCL_E_INTERNAL (§9.1 check 8: the
//     transport throws), checked after src; so does an overflowing length;
//   * COMM_ENGINE_AICPU is served as AICPU_TS (§9.5: AICPU_TS maps to AICPU
//     internally; the vendor's 950 sample mixes the two): threads, exports and
//     channels acquired on AICPU are AICPU_TS ones;
//   * HcclChannelAcquire checks notifyNum <= 64 on the first descriptor only
//     (§9.5): a later descriptor above 64 is accepted with 64 notifies;
//   * a host-side write with notify returns HCCL_E_PTR (§9.4: no stream on the
//     host; the vendor's unit tests pin it), where the reference says
//     HCCL_E_NOT_SUPPORT;
//   * a batch whose first bad entry has a transType outside the enum returns
//     HCCL_E_NOT_SUPPORT (§9.6, the vendor's unit test), moving nothing.
// Everything else is the reference, so its order of checks (NULL pointers and
// zero handles first, HCCL_E_PTR) and its handle checks stay.
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "hccl/hccl_channel.h"
#include "hccl/hccl_res.h"
#include "hccl/hccl_res_expt.h"
#include "shim_common.h"

namespace {

constexpr uint32_t kMaxChannelNotifyNum = 64; // HcclChannelDesc.md: notifyNum 0..64
constexpr uint32_t kMaxBatchDescs = 1U << 16; // beyond it the reference refuses the count before reading

// What the shim learned of a channel when it was acquired (host side, where the
// buffer queries are allowed): its notifies and both communication memories.
struct Range {
    uintptr_t base = 0;
    uint64_t size = 0;
};

struct ChannelInfo {
    HcclComm comm = nullptr;
    uint32_t notify_num = 0;
    uintptr_t local = 0, remote = 0;
    uint64_t local_size = 0, remote_size = 0;
    std::vector<Range> remote_mems; // what HcclChannelGetRemoteMems listed when it was acquired
};

std::mutex g_mu;
std::map<ChannelHandle, ChannelInfo> g_channels;
std::map<HcclComm, std::vector<Range>> g_registered; // HcclCommMemReg's memories, by comm

bool known_channel(ChannelHandle channel, ChannelInfo &out)
{
    const std::lock_guard lock(g_mu);
    const auto it = g_channels.find(channel);
    if (it == g_channels.end())
        return false;
    out = it->second;
    return true;
}

bool wrap_index()
{
    static const bool wrap = [] {
        const char *v = std::getenv("HCTS_VENDOR_INDEX");
        const std::string_view s = v != nullptr ? v : "";
        if (!s.empty() && s != "drop" && s != "wrap")
            std::fprintf(stderr, "hcts shim vendor_like: HCTS_VENDOR_INDEX='%s' is not drop or wrap; using drop\n", v);
        return s == "wrap";
    }();
    return wrap;
}

bool inside(const void *p, uint64_t len, uintptr_t base, uint64_t size)
{
    const auto a = reinterpret_cast<uintptr_t>(p);
    return a >= base && len <= size && a - base <= size - len;
}

bool inside_any(const void *p, uint64_t len, const std::vector<Range> &ranges)
{
    return std::any_of(ranges.begin(), ranges.end(), [&](const Range &r) { return inside(p, len, r.base, r.size); });
}

bool inside_registered(HcclComm comm, const void *p, uint64_t len)
{
    const std::lock_guard lock(g_mu);
    const auto it = g_registered.find(comm);
    return it != g_registered.end() && inside_any(p, len, it->second);
}

bool device_side() { return HcommRefIsDeviceSide() != 0; }

CommEngine served_engine(CommEngine engine) { return engine == COMM_ENGINE_AICPU ? COMM_ENGINE_AICPU_TS : engine; }

// Whether `len` bytes at `p` can be read by this process (an array the caller
// passed): process_vm_readv on ourselves fails with EFAULT where a load would fault.
bool readable(const void *p, uint64_t len)
{
    char sink[4096];
    for (uint64_t done = 0; done < len;) {
        const uint64_t n = std::min<uint64_t>(sizeof sink, len - done);
        iovec local{sink, n};
        iovec remote{const_cast<char *>(static_cast<const char *>(p)) + done, n};
        if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != static_cast<ssize_t>(n))
            return false;
        done += n;
    }
    return true;
}

const auto &wwn_fn()
{
    static const auto f = real<decltype(&HcommWriteWithNotifyOnThread)>("HcommWriteWithNotifyOnThread");
    return f;
}

// The index the call goes on with: the index itself when in range, wrapped with
// HCTS_VENDOR_INDEX=wrap, else nothing (the notify is dropped).
std::optional<uint32_t> served_index(uint32_t idx, uint32_t notify_num)
{
    if (idx < notify_num)
        return idx;
    if (wrap_index() && notify_num != 0)
        return idx % notify_num;
    return std::nullopt;
}

} // namespace

HCTS_SHIM_EXPORT HcclResult HcclThreadAcquire(HcclComm comm, CommEngine engine, uint32_t threadNum,
                                              uint32_t notifyNumPerThread, ThreadHandle *threads)
{
    static const auto fn = real<decltype(&HcclThreadAcquire)>("HcclThreadAcquire");
    return fn(comm, served_engine(engine), threadNum, notifyNumPerThread, threads);
}

HCTS_SHIM_EXPORT HcclResult HcclThreadAcquireWithConfig(HcclComm comm, CommEngine engine, uint32_t threadNum,
                                                        ThreadType type, const ThreadConfig *config,
                                                        ThreadHandle *threads)
{
    static const auto fn = real<decltype(&HcclThreadAcquireWithConfig)>("HcclThreadAcquireWithConfig");
    return fn(comm, served_engine(engine), threadNum, type, config, threads);
}

HCTS_SHIM_EXPORT HcclResult HcclThreadExportToCommEngine(HcclComm comm, uint32_t threadNum, const ThreadHandle *threads,
                                                         CommEngine dstCommEngine, ThreadHandle *exportedThreads)
{
    static const auto fn = real<decltype(&HcclThreadExportToCommEngine)>("HcclThreadExportToCommEngine");
    return fn(comm, threadNum, threads, served_engine(dstCommEngine), exportedThreads);
}

HCTS_SHIM_EXPORT HcclResult HcclChannelAcquire(HcclComm comm, CommEngine engine, const HcclChannelDesc *descs,
                                               uint32_t n, ChannelHandle *channels)
{
    static const auto fn = real<decltype(&HcclChannelAcquire)>("HcclChannelAcquire");
    // Only the first descriptor's notifyNum is bounded: later ones get 64 notifies.
    std::vector<HcclChannelDesc> clamped;
    const HcclChannelDesc *used = descs;
    if (comm != nullptr && descs != nullptr && channels != nullptr && n > 1 && n <= (1U << 20) &&
        readable(descs, uint64_t{n} * sizeof(HcclChannelDesc)) && descs[0].notifyNum <= kMaxChannelNotifyNum) {
        clamped.assign(descs, descs + n);
        for (auto &d : clamped)
            d.notifyNum = std::min(d.notifyNum, kMaxChannelNotifyNum);
        used = clamped.data();
    }
    const HcclResult rc = fn(comm, served_engine(engine), used, n, channels);
    if (rc != HCCL_SUCCESS)
        return rc;
    void *local = nullptr;
    uint64_t local_size = 0;
    if (HcclGetHcclBuffer(comm, &local, &local_size) != HCCL_SUCCESS)
        local_size = 0;
    for (uint32_t i = 0; i < n; ++i) {
        ChannelInfo info;
        info.comm = comm;
        info.notify_num = used[i].notifyNum;
        info.local = reinterpret_cast<uintptr_t>(local);
        info.local_size = local_size;
        void *remote = nullptr;
        if (HcclChannelGetHcclBuffer(comm, channels[i], &remote, &info.remote_size) != HCCL_SUCCESS)
            info.remote_size = 0;
        info.remote = reinterpret_cast<uintptr_t>(remote);
        uint32_t num = 0;
        CommMem *mems = nullptr;
        char **tags = nullptr;
        if (HcclChannelGetRemoteMems(comm, channels[i], &num, &mems, &tags) == HCCL_SUCCESS && mems != nullptr)
            for (uint32_t k = 0; k < num && k < 4096; ++k)
                info.remote_mems.push_back(Range{reinterpret_cast<uintptr_t>(mems[k].addr), mems[k].size});
        const std::lock_guard lock(g_mu);
        g_channels[channels[i]] = info;
    }
    return rc;
}

HCTS_SHIM_EXPORT HcclResult HcclCommMemReg(HcclComm comm, const char *memTag, const CommMem *mem,
                                           HcclMemHandle *memHandle)
{
    static const auto fn = real<decltype(&HcclCommMemReg)>("HcclCommMemReg");
    const HcclResult rc = fn(comm, memTag, mem, memHandle);
    if (rc == HCCL_SUCCESS && mem != nullptr) {
        const std::lock_guard lock(g_mu);
        g_registered[comm].push_back(Range{reinterpret_cast<uintptr_t>(mem->addr), mem->size});
    }
    return rc;
}

HCTS_SHIM_EXPORT HcclResult HcclChannelDestroy(HcclComm comm, const ChannelHandle *channels, uint32_t n)
{
    static const auto fn = real<decltype(&HcclChannelDestroy)>("HcclChannelDestroy");
    const HcclResult rc = fn(comm, channels, n);
    if (rc == HCCL_SUCCESS) {
        const std::lock_guard lock(g_mu);
        for (uint32_t i = 0; i < n; ++i)
            g_channels.erase(channels[i]);
    }
    return rc;
}

// The channels of a destroyed comm are no longer the shim's to judge: the
// reference decides what their stale handles get.
HCTS_SHIM_EXPORT HcclResult HcclCommDestroy(HcclComm comm)
{
    static const auto fn = real<decltype(&HcclCommDestroy)>("HcclCommDestroy");
    const HcclResult rc = fn(comm);
    if (rc == HCCL_SUCCESS) {
        const std::lock_guard lock(g_mu);
        std::erase_if(g_channels, [comm](const auto &kv) { return kv.second.comm == comm; });
        g_registered.erase(comm);
    }
    return rc;
}

HCTS_SHIM_EXPORT int32_t HcommWriteWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                                      const void *src, uint64_t len, uint32_t idx)
{
    static const auto write = real<decltype(&HcommWriteOnThread)>("HcommWriteOnThread");
    static const auto record = real<decltype(&HcommChannelNotifyRecordOnThread)>("HcommChannelNotifyRecordOnThread");
    if (!device_side()) {
        // The host has no stream for the thread: the vendor's path says HCCL_E_PTR.
        const int32_t rc = wwn_fn()(thread, channel, dst, src, len, idx);
        return rc == HCCL_E_NOT_SUPPORT ? HCCL_E_PTR : rc;
    }
    ChannelInfo info;
    // NULL pointers and zero handles (checked first, as the vendor does), and a
    // channel the shim never acquired: the reference decides.
    if (dst == nullptr || src == nullptr || channel == 0 || thread == 0 || !known_channel(channel, info) ||
        info.local_size == 0 || info.remote_size == 0)
        return wwn_fn()(thread, channel, dst, src, len, idx);
    if (len == 0)
        return HCCL_SUCCESS; // no slices: nothing written, no notify
    const bool src_inside = inside(src, len, info.local, info.local_size) || inside_registered(info.comm, src, len);
    const bool dst_inside = inside(dst, len, info.remote, info.remote_size) || inside_any(dst, len, info.remote_mems);
    if (!src_inside)
        std::fprintf(stderr,
                     "hcts shim vendor_like: WARNING src %p over %llu bytes is outside the local communication memory "
                     "[%#llx, +%llu); accepted as the vendor does%s\n",
                     src, static_cast<unsigned long long>(len), static_cast<unsigned long long>(info.local),
                     static_cast<unsigned long long>(info.local_size),
                     dst_inside ? " (notify only: no byte is written)" : "");
    if (!dst_inside)
        return HCCL_E_INTERNAL; // the transport finds no remote buffer for [dst, dst+len)
    const std::optional<uint32_t> served = served_index(idx, info.notify_num);
    if (!src_inside) {
        if (!served)
            return HCCL_SUCCESS; // neither byte nor notify
        return record(thread, channel, *served);
    }
    if (!served)
        return write(thread, channel, dst, src, len); // the payload lands; the notify has nowhere to go
    return wwn_fn()(thread, channel, dst, src, len, *served);
}

HCTS_SHIM_EXPORT int32_t HcommChannelNotifyRecordOnThread(ThreadHandle thread, ChannelHandle channel, uint32_t idx)
{
    static const auto fn = real<decltype(&HcommChannelNotifyRecordOnThread)>("HcommChannelNotifyRecordOnThread");
    ChannelInfo info;
    if (!device_side() || thread == 0 || channel == 0 || !known_channel(channel, info))
        return fn(thread, channel, idx);
    const std::optional<uint32_t> served = served_index(idx, info.notify_num);
    return served ? fn(thread, channel, *served) : HCCL_SUCCESS;
}

HCTS_SHIM_EXPORT int32_t HcommChannelNotifyWaitOnThread(ThreadHandle thread, ChannelHandle channel, uint32_t idx,
                                                        uint32_t timeOut)
{
    static const auto fn = real<decltype(&HcommChannelNotifyWaitOnThread)>("HcommChannelNotifyWaitOnThread");
    ChannelInfo info;
    if (!device_side() || thread == 0 || channel == 0 || !known_channel(channel, info))
        return fn(thread, channel, idx, timeOut);
    const std::optional<uint32_t> served = served_index(idx, info.notify_num);
    return served ? fn(thread, channel, *served, timeOut) : HCCL_SUCCESS;
}

HCTS_SHIM_EXPORT int32_t HcommChannelNotifyWaitOnThreadWithDefaultTimeout(ThreadHandle thread, ChannelHandle channel,
                                                                          uint32_t idx)
{
    static const auto fn = real<decltype(&HcommChannelNotifyWaitOnThreadWithDefaultTimeout)>(
        "HcommChannelNotifyWaitOnThreadWithDefaultTimeout");
    ChannelInfo info;
    if (!device_side() || thread == 0 || channel == 0 || !known_channel(channel, info))
        return fn(thread, channel, idx);
    const std::optional<uint32_t> served = served_index(idx, info.notify_num);
    return served ? fn(thread, channel, *served) : HCCL_SUCCESS;
}

HCTS_SHIM_EXPORT int32_t HcommBatchTransferOnThread(ThreadHandle thread, ChannelHandle channel,
                                                    const HcommBatchTransferDesc *descs, uint32_t n)
{
    static const auto fn = real<decltype(&HcommBatchTransferOnThread)>("HcommBatchTransferOnThread");
    if (thread == 0 || channel == 0 || descs == nullptr || n == 0 || n > kMaxBatchDescs ||
        !readable(descs, uint64_t{n} * sizeof(HcommBatchTransferDesc)))
        return fn(thread, channel, descs, n);
    // The first entry the vendor refuses: a NULL pointer (HCCL_E_PTR, the
    // reference's code too) or a type outside the enum (HCCL_E_NOT_SUPPORT).
    for (uint32_t i = 0; i < n; ++i) {
        int32_t type = 0;
        static_assert(sizeof(descs[i].transType) == sizeof(type));
        std::memcpy(&type, &descs[i].transType, sizeof type); // may hold a value outside the enum
        const auto &info = descs[i].transferInfo;
        switch (type) {
        case HCOMM_TRANSFER_TYPE_WRITE:
        case HCOMM_TRANSFER_TYPE_READ:
            if (info.write.dst == nullptr || info.write.src == nullptr)
                return fn(thread, channel, descs, n);
            break;
        case HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY:
            if (info.writeWithNotify.dst == nullptr || info.writeWithNotify.src == nullptr)
                return fn(thread, channel, descs, n);
            break;
        case HCOMM_TRANSFER_TYPE_WRITE_REDUCE:
        case HCOMM_TRANSFER_TYPE_READ_REDUCE:
        case HCOMM_TRANSFER_TYPE_WRITE_REDUCE_WITH_NOTIFY:
            if (info.reduce.dst == nullptr || info.reduce.src == nullptr)
                return fn(thread, channel, descs, n);
            break;
        case HCOMM_TRANSFER_TYPE_NOTIFY_RECORD: break;
        default: return HCCL_E_NOT_SUPPORT;
        }
    }
    return fn(thread, channel, descs, n);
}
