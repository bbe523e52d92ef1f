// fuzz_control_plane: each input is a program of hcomm/hccl control-plane calls with
// fuzzed arguments, run against the reference (libhcomm.so) in this one process.
// Worlds have one rank: a channel to another rank would wait for that rank's
// collective acquisition, so channel descriptors are fuzzed up to their refusal,
// which is the reference's whole input check (header, protocol, notifyNum, ranks).
// Everything an input creates is destroyed before the next one starts.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "hccl/hccl_channel.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_res.h"
#include "hccl/hccl_res_expt.h"
#include "hcomm/hcomm_primitives.h"
#include "hcomm/hcomm_primitives_expt.h"
#include "hcomm_ref/hcomm_ref.h"
#include "input_reader.h"

using hcts_fuzz::InputReader;

namespace {

// Every wait bounds the time of one input (libFuzzer's -timeout is 1 s): timeouts are
// in milliseconds (HCOMM_REF_TIMEOUT_UNIT=ms) and an input may spend at most this
// much on waits of its own; beyond it every wait is 1 ms.
constexpr uint32_t kWaitBudgetMs = 200;
constexpr uint32_t kDefaultWaitTimeout = 1836; // the reference's initial default (README decision 11)
constexpr size_t kMaxOps = 48;
// Arrays handed to the library hold min(count, kArrayCap) entries: above the
// reference's limits (256 threads per comm), so a count past them must be refused
// before the array is read or written (asan reports the read past its end).
constexpr uint32_t kArrayCap = 300;
constexpr size_t kMaxComms = 2;

// Pages with fixed protections, made once: the targets of wild-range checks, and
// a read-write page followed by a no-access one, at whose end arrays are placed
// when their count is fuzzed past their entries (as the bad-input matrix does): a
// heap array would be followed by readable memory the library cannot tell apart.
struct Pages {
    uint8_t *readonly = nullptr;
    uint8_t *noaccess = nullptr;
    uint8_t *before_noaccess = nullptr;
    size_t page = 0;
};
const Pages &pages()
{
    static const Pages p = [] {
        Pages q;
        q.page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        const auto map = [&q](size_t n, int prot) {
            void *m = mmap(nullptr, n * q.page, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (m == MAP_FAILED)
                std::abort(); // the harness itself is broken
            return static_cast<uint8_t *>(m);
        };
        q.readonly = map(1, PROT_READ);
        q.noaccess = map(1, PROT_NONE);
        q.before_noaccess = map(2, PROT_READ | PROT_WRITE);
        if (mprotect(q.before_noaccess + q.page, q.page, PROT_NONE) != 0)
            std::abort();
        return q;
    }();
    return p;
}

// Copies the entries to the end of the page before the no-access page: whatever
// count the library is given, entries past these are unreadable.
template <typename T>
T *at_page_end(const std::vector<T> &v)
{
    static_assert(std::is_trivially_copyable_v<T>);
    const size_t bytes = v.size() * sizeof(T);
    if (bytes > pages().page)
        std::abort();
    T *dst = reinterpret_cast<T *>(pages().before_noaccess + pages().page - bytes);
    if (bytes != 0)
        std::memcpy(static_cast<void *>(dst), v.data(), bytes);
    return dst;
}

// What one input has made so far. Handles of destroyed comms stay in the lists:
// they are the stale handles later calls get.
struct State {
    std::vector<HcclComm> comms;         // every comm made (destroyed ones stay, as stale handles)
    std::vector<HcclComm> live;          // those not destroyed yet
    std::vector<ThreadHandle> threads;   // every thread handle returned
    std::vector<ChannelHandle> channels; // every channel handle returned
    uint8_t *buf = nullptr;              // buf_owner's communication memory
    HcclComm buf_owner = nullptr;
    uint64_t buf_size = 0;
    uint32_t waited_ms = 0;
    bool device_side = false;
};

uint32_t wait_ms(State &s, InputReader &in)
{
    const uint32_t want = 1 + in.u8() % 20;
    if (s.waited_ms + want > kWaitBudgetMs)
        return 1;
    s.waited_ms += want;
    return want;
}

// A fuzzed value for an enum parameter: mostly in range, sometimes anything.
template <typename E>
E any_enum(InputReader &in, int32_t lo, int32_t hi)
{
    const uint8_t pick = in.u8();
    const int32_t v = (pick & 0x80) ? static_cast<int32_t>(in.u32()) : lo + pick % (hi - lo + 1);
    return static_cast<E>(v);
}

HcclComm pick_comm(State &s, InputReader &in)
{
    const uint8_t k = in.u8();
    switch (k % 8) {
    case 0: return nullptr;
    case 1: return reinterpret_cast<HcclComm>(in.u64()); // garbage or foreign: looked up, never dereferenced
    default: return s.comms.empty() ? nullptr : s.comms[k % s.comms.size()];
    }
}

template <typename H>
H pick_handle(const std::vector<H> &made, InputReader &in)
{
    const uint8_t k = in.u8();
    switch (k % 8) {
    case 0: return 0;
    case 1: return in.u64();
    case 2: return made.empty() ? 0 : made[k % made.size()] ^ (uint64_t{1} << (in.u8() % 64)); // a near miss
    default: return made.empty() ? 0 : made[k % made.size()];
    }
}

// A pointer the library may be handed as a data address: inside or at the edge of
// the communication memory, a read-only or no-access page, null or wild. Never the
// harness's own heap, which a legal copy would be free to overwrite.
void *pick_addr(State &s, InputReader &in)
{
    const uint8_t k = in.u8();
    switch (k % 8) {
    case 0: return nullptr;
    case 1: return reinterpret_cast<void *>(uintptr_t{0x10} + in.u8());
    case 2: return pages().readonly;
    case 3: return pages().noaccess;
    case 4: return s.buf == nullptr ? nullptr : s.buf + s.buf_size - 1 - (in.u8() % 128);
    case 5: return pages().before_noaccess + pages().page - (in.u8() % 128); // runs into the no-access page
    default: return s.buf == nullptr ? nullptr : s.buf + in.u32() % s.buf_size;
    }
}

// A byte count for a local copy from/to p: a range that starts in the comm memory or
// the read-only page and runs past its end would reach whatever the process maps
// next, memory the library may rightly copy (and asan's own, which it reports), so
// it is cut at the region's end. Past the page before the no-access page, and from
// unreadable starts, any length stays: those the library must refuse.
uint64_t fit(const State &s, const void *p, uint64_t len)
{
    const auto *b = static_cast<const uint8_t *>(p);
    const auto cut = [&](const uint8_t *lo, uint64_t size) {
        if (b >= lo && b <= lo + size) // its end too: what follows is not ours
            len = std::min<uint64_t>(len, static_cast<uint64_t>(lo + size - b));
    };
    if (s.buf != nullptr)
        cut(s.buf, s.buf_size);
    cut(pages().readonly, pages().page);
    return len;
}

uint64_t pick_len(InputReader &in)
{
    const uint8_t k = in.u8();
    switch (k % 8) {
    case 0: return 0;
    case 1: return in.u64();
    case 2: return UINT64_MAX - in.u8();
    default: return 1 + in.u16() % 8192;
    }
}

// Makes a one-rank comm; with fuzzed arguments first, which the reference must refuse
// before any network (or take, for a one-rank world). The root info is always joined
// in the end, so no rendezvous is left waiting for ranks.
void op_comm_init(State &s, InputReader &in)
{
    if (s.live.size() >= kMaxComms || s.device_side)
        return;
    HcclRootInfo root{};
    if (HcclGetRootInfo(&root) != HCCL_SUCCESS)
        return;
    HcclComm comm = nullptr;
    const uint8_t how = in.u8();
    if (how & 1) {
        HcclRootInfo bad = root;
        // The header (magic "HCTSREF", version: bytes 0..11) or a zero port (16..17):
        // another address or port would make the call connect to whatever listens
        // there (another job's root), so the endpoint itself is never fuzzed.
        const uint8_t at = in.u8() % 14;
        if (at < 12)
            bad.internal[at] = static_cast<char>(bad.internal[at] ^ (1 + in.u8() % 255));
        else
            std::memset(bad.internal + 16, 0, 2);
        uint32_t n = in.u32();
        uint32_t r = in.u32();
        if (how & 2) { // nRanks and rank out of range, or a one-rank world
            n = n % 4 == 0 ? 0 : (n % 4 == 1 ? 1 : n);
            r = (n == 1 && r % 2 == 0) ? 0 : (r | 1);
        } else {
            n = 1;
            r = 0;
        }
        // An in-range nRanks > 1 would wait for the missing ranks: never asked.
        if (n >= 2 && n <= 65536 && r < n)
            r = n;
        if (HcclCommInitRootInfo(n, &bad, r, &comm) != HCCL_SUCCESS)
            comm = nullptr;
    }
    if (comm == nullptr && HcclCommInitRootInfo(1, &root, 0, &comm) != HCCL_SUCCESS)
        return;
    s.comms.push_back(comm);
    s.live.push_back(comm);
    if (s.buf == nullptr) {
        void *base = nullptr;
        if (HcclGetHcclBuffer(comm, &base, &s.buf_size) == HCCL_SUCCESS && s.buf_size > 0) {
            s.buf = static_cast<uint8_t *>(base);
            s.buf_owner = comm;
        }
    }
}

void op_comm_destroy(State &s, InputReader &in)
{
    const HcclComm c = pick_comm(s, in);
    if (s.device_side)
        return; // a destroy from the device program would wait for its own launch
    if (c != nullptr && c == s.buf_owner) {
        // The data addresses point into this comm's memory, and tasks of the other comms
        // may still be queued on them: those comms go first, so no task outlives the memory
        // (unmapping memory under one's own queued copies is the caller's race, README 18).
        for (HcclComm other : s.live) {
            if (other != c)
                HcclCommDestroy(other);
        }
        s.live.assign(1, c);
        s.buf = nullptr;
        s.buf_size = 0;
        s.buf_owner = nullptr;
    }
    HcclCommDestroy(c);
    std::erase(s.live, c);
}

void op_comm_queries(State &s, InputReader &in)
{
    const HcclComm c = pick_comm(s, in);
    uint32_t v = 0;
    void *p = nullptr;
    uint64_t n = 0;
    char name[64];
    HcommRefStats st{};
    switch (in.below(7)) {
    case 0: HcclGetRankId(c, &v); break;
    case 1: HcclGetRankSize(c, &v); break;
    case 2: HcclGetHcclBuffer(c, &p, &n); break;
    case 3: HcclGetHcclBufferCleared(c, &p, &n); break;
    case 4: HcommRefGetCommName(c, name, 1 + in.u8() % sizeof name); break;
    case 5:
        st.version = in.below(3);
        st.size = in.below(2) ? sizeof st : in.u32() % (sizeof st + 1);
        HcommRefGetStats(c, &st);
        break;
    default: {
        const std::string path = in.text(32);
        HcclComm out = nullptr;
        HcclCommInitClusterInfo(path.c_str(), in.u32(), &out); // not supported: must not make a comm
        if (out != nullptr)
            __builtin_trap();
    }
    }
}

void keep_threads(State &s, const std::vector<ThreadHandle> &got, uint32_t n, int32_t rc)
{
    if (rc != HCCL_SUCCESS)
        return;
    s.threads.insert(s.threads.end(), got.begin(), got.begin() + std::min<size_t>(n, got.size()));
}

void op_thread_acquire(State &s, InputReader &in)
{
    const HcclComm c = pick_comm(s, in);
    const auto engine = any_enum<CommEngine>(in, -1, 7);
    // Small counts (each thread is an OS thread); the limit's edge; huge ones.
    uint32_t n = in.count(4);
    if (in.below(8) == 0)
        n = 256 + in.below(3);
    std::vector<ThreadHandle> got(std::min(n, kArrayCap));
    ThreadHandle *out = in.below(16) == 0 ? nullptr : got.data();
    switch (in.below(3)) {
    case 0: {
        uint32_t notifies = in.below(2) ? in.u8() % 9 : in.u32();
        keep_threads(s, got, n, HcclThreadAcquire(c, engine, n, notifies, out));
        break;
    }
    case 1: {
        ThreadConfig cfg{};
        ThreadConfigInit(&cfg, 1);
        if (in.below(2))
            in.overwrite(cfg.header);
        cfg.notifyNumPerThread = in.u8() % 9;
        const auto type = any_enum<ThreadType>(in, -1, 1);
        keep_threads(s, got, n, HcclThreadAcquireWithConfig(c, engine, n, type, in.below(16) ? &cfg : nullptr, out));
        break;
    }
    default: {
        int stream_dummy = 0; // a stream is an opaque handle the reference must not dereference
        void *stream = in.below(4) == 0 ? nullptr : &stream_dummy;
        std::vector<ThreadHandle> one(1);
        keep_threads(s, one, 1,
                     HcclThreadAcquireWithStream(c, engine, stream, in.u8() % 9, in.below(16) ? one.data() : nullptr));
    }
    }
}

// n handles for an input array: each picked, all distinct (garbage counting up), or all
// one picked handle; placed before the no-access page, so a library that reads past
// min(n, kArrayCap) entries faults there (and asan reports it) instead of reading on.
template <typename H>
H *handle_array(std::vector<H> &made, uint32_t n, InputReader &in)
{
    std::vector<H> v(std::min(n, kArrayCap));
    const uint8_t mode = in.below(3);
    const H first = pick_handle(made, in);
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = mode == 0 ? pick_handle(made, in) : (mode == 1 ? first + i : first);
    return at_page_end(v);
}

void op_thread_export(State &s, InputReader &in)
{
    const HcclComm c = pick_comm(s, in);
    const uint32_t n = in.count(3);
    ThreadHandle *src = handle_array(s.threads, n, in);
    std::vector<ThreadHandle> out(std::min(n, kArrayCap));
    const auto engine = any_enum<CommEngine>(in, -1, 7);
    keep_threads(s, out, n, HcclThreadExportToCommEngine(c, n, src, engine, out.data()));
}

void op_thread_info(State &s, InputReader &in)
{
    void *info = nullptr;
    const HcclComm c = pick_comm(s, in);
    const ThreadHandle t = pick_handle(s.threads, in);
    HcclThreadResGetInfo(c, t, any_enum<ThreadResType>(in, -1, 1), in.u8() % 12, &info);
}

HcclChannelDesc fuzzed_desc(InputReader &in, HcclMemHandle *mem)
{
    HcclChannelDesc d;
    HcclChannelDescInit(&d, 1);
    const uint8_t what = in.u8();
    if (what & 1)
        in.overwrite(d.header);
    d.remoteRank = (what & 2) ? in.u32() : in.below(3);
    const int32_t protocol = (what & 4) ? static_cast<int32_t>(in.u32()) : static_cast<int32_t>(in.below(11)) - 1;
    std::memcpy(&d.channelProtocol, &protocol, sizeof protocol); // raw: out-of-range values too
    d.notifyNum = (what & 8) ? in.u32() : in.u8() % 70;
    if (what & 16) {
        d.memHandles = mem;
        d.memHandleNum = in.u8() % 3;
    }
    if (what & 32)
        in.overwrite(d.raws);
    return d;
}

void op_channel_acquire(State &s, InputReader &in)
{
    const HcclComm c = pick_comm(s, in);
    const auto engine = any_enum<CommEngine>(in, -1, 7);
    const uint32_t n = in.count(4);
    HcclMemHandle mem[2] = {pages().readonly, pages().noaccess};
    std::vector<HcclChannelDesc> descs;
    for (uint32_t i = 0; i < std::min(n, 8u); ++i)
        descs.push_back(fuzzed_desc(in, mem));
    if (descs.empty())
        descs.push_back(fuzzed_desc(in, mem));
    // A count beyond the descriptors: the reference must find the array unreadable (or refuse
    // an earlier entry) rather than read past it; the entries after it are a no-access page.
    std::vector<ChannelHandle> out(std::min(n, kArrayCap));
    const uint32_t count = std::min<uint32_t>(n, static_cast<uint32_t>(descs.size()));
    const HcclResult rc = HcclChannelAcquire(c, engine, at_page_end(descs), in.below(4) ? count : n, out.data());
    if (rc == HCCL_SUCCESS) // a one-rank world has no other rank: no descriptor may pass
        __builtin_trap();
}

void op_channel_destroy(State &s, InputReader &in)
{
    const HcclComm c = pick_comm(s, in);
    const uint32_t n = in.count(3);
    ChannelHandle *chans = handle_array(s.channels, n, in);
    HcclChannelDestroy(c, in.below(16) ? chans : nullptr, n);
}

void op_channel_queries(State &s, InputReader &in)
{
    const HcclComm c = pick_comm(s, in);
    const ChannelHandle ch = pick_handle(s.channels, in);
    void *p = nullptr;
    uint64_t n = 0;
    uint32_t mems = 0;
    CommMem *remote = nullptr;
    char **tags = nullptr;
    int32_t set = 0;
    switch (in.below(3)) {
    case 0: HcclChannelGetHcclBuffer(c, ch, &p, &n); break;
    case 1: HcclChannelGetRemoteMems(c, ch, &mems, &remote, &tags); break;
    default: HcommRefPeekNotify(c, ch, in.u32() % 70, &set); break;
    }
}

void op_engine_ctx(State &s, InputReader &in)
{
    const HcclComm c = pick_comm(s, in);
    const std::string tag = in.text(300);
    const char *t = in.below(16) ? tag.c_str() : nullptr;
    const auto engine = any_enum<CommEngine>(in, -1, 7);
    void *ctx = nullptr;
    uint64_t size = 0;
    if (in.below(2)) {
        HcclEngineCtxGet(c, t, engine, &ctx, &size);
        return;
    }
    const uint8_t k = in.u8();
    // Past the 1 GiB limit (its edge, or anything above 2 GiB), or up to 16 MiB: never a real
    // gigabyte, which two comms could hold at once past libFuzzer's -rss_limit_mb.
    switch (k % 4) {
    case 0: size = (1ULL << 30) + 1; break;
    case 1: size = in.u64() | (1ULL << 31); break;
    case 2: size = in.u32() % (16U << 20); break;
    default: size = in.u16(); break;
    }
    HcclEngineCtxCreate(c, t, engine, size, &ctx);
}

void op_global_timeouts(InputReader &in)
{
    float v = 0;
    in.overwrite(v); // NaN, infinities, negatives, huge
    if (in.below(2))
        HcommSetNotifyWaitTimeOut(v);
    else
        HcommThreadResAcquireTimeOut(v);
}

void op_thread_sync(State &s, InputReader &in)
{
    const ThreadHandle t = pick_handle(s.threads, in);
    const uint32_t idx = in.below(4) ? in.below(10) : in.u32();
    switch (in.below(6)) {
    case 0: HcommThreadNotifyRecordOnThread(t, pick_handle(s.threads, in), idx); break;
    case 1: HcommThreadNotifyWaitOnThread(t, idx, in.below(8) ? wait_ms(s, in) : 0); break;
    case 2: HcommThreadNotifyWaitOnThreadWithDefaultTimeout(t, idx); break;
    case 3: HcommAclrtNotifyRecordOnThread(t, in.below(4)); break;
    case 4: HcommAclrtNotifyWaitOnThread(t, in.below(4), wait_ms(s, in)); break;
    default: HcommFenceOnThread(t); break;
    }
}

void op_thread_join(State &s, InputReader &in)
{
    if (s.device_side)
        return; // a program must not join its own launch's queues
    // Never 0 (forever): a wait queued with timeout 0 would hold the input.
    HcommThreadJoin(pick_handle(s.threads, in), wait_ms(s, in));
}

void op_local(State &s, InputReader &in)
{
    const ThreadHandle t = pick_handle(s.threads, in);
    void *dst = pick_addr(s, in);
    void *src = pick_addr(s, in);
    if (in.below(2)) {
        HcommLocalCopyOnThread(t, dst, src, fit(s, src, fit(s, dst, pick_len(in))));
        return;
    }
    const uint64_t count = in.below(2) ? in.u16() % 512 : pick_len(in);
    // Elements of up to 8 bytes: the cut is in elements (an overflowing count stays whole
    // when it starts nowhere we own, so the library's overflow check is reached).
    const uint64_t fitted = std::min(count, std::min(fit(s, src, UINT64_MAX), fit(s, dst, UINT64_MAX)) / 8);
    HcommLocalReduceOnThread(t, dst, src, fitted, any_enum<HcommDataType>(in, -1, 16),
                             any_enum<HcommReduceOp>(in, -1, 4));
}

void op_data(State &s, InputReader &in)
{
    const ThreadHandle t = pick_handle(s.threads, in);
    const ChannelHandle ch = pick_handle(s.channels, in);
    void *dst = pick_addr(s, in);
    void *src = pick_addr(s, in);
    const uint64_t len = pick_len(in);
    const uint32_t idx = in.below(70);
    const auto type = any_enum<HcommDataType>(in, -1, 16);
    const auto op = any_enum<HcommReduceOp>(in, -1, 4);
    switch (in.below(18)) {
    case 0: HcommWriteOnThread(t, ch, dst, src, len); break;
    case 1: HcommReadOnThread(t, ch, dst, src, len); break;
    case 2: HcommWriteWithNotifyOnThread(t, ch, dst, src, len, idx); break;
    case 3: HcommWriteReduceOnThread(t, ch, dst, src, len, type, op); break;
    case 4: HcommWriteReduceWithNotifyOnThread(t, ch, dst, src, len, type, op, idx); break;
    case 5: HcommReadReduceOnThread(t, ch, dst, src, len, type, op); break;
    case 6: HcommWriteNbiOnThread(t, ch, dst, src, len); break;
    case 7: HcommWriteNbi(ch, dst, src, len); break;
    case 8: HcommWriteWithNotifyNbiOnThread(t, ch, dst, src, len, idx); break;
    case 9: HcommWriteWithNotifyNbi(ch, dst, src, len, idx); break;
    case 10: HcommReadNbiOnThread(t, ch, dst, src, len); break;
    case 11: HcommReadNbi(ch, dst, src, len); break;
    case 12: HcommChannelNotifyRecordOnThread(t, ch, idx); break;
    case 13: HcommChannelNotifyRecord(ch, idx); break;
    case 14: HcommChannelNotifyWaitOnThread(t, ch, idx, wait_ms(s, in)); break;
    case 15: HcommChannelNotifyWait(ch, idx, wait_ms(s, in)); break;
    case 16: HcommChannelFenceOnThread(t, ch); break;
    default:
        HcommChannelFence(ch);
        HcommChannelDrainOnThread(t, ch);
        HcommChannelNotifyWaitOnThreadWithDefaultTimeout(t, ch, idx);
        break;
    }
}

void op_batch(State &s, InputReader &in)
{
    const ThreadHandle t = pick_handle(s.threads, in);
    const ChannelHandle ch = pick_handle(s.channels, in);
    const uint32_t n = in.count(4);
    std::vector<HcommBatchTransferDesc> descs(std::min(n, 8u));
    for (HcommBatchTransferDesc &d : descs) {
        const int32_t type = static_cast<int32_t>(in.below(9)) - 1;
        std::memcpy(&d.transType, &type, sizeof type);
        in.overwrite(d.transferInfo.raws);
        d.transferInfo.write.dst = pick_addr(s, in);
        d.transferInfo.write.src = pick_addr(s, in);
    }
    // As for channel descriptors: a count past the array must not be read through.
    HcommBatchTransferOnThread(t, ch, descs.empty() ? nullptr : at_page_end(descs),
                               in.below(4) ? static_cast<uint32_t>(descs.size()) : n);
}

void op_tags(InputReader &in)
{
    const std::string tag = in.text(40);
    const char *t = in.below(8) ? tag.c_str() : nullptr;
    bool hit = false;
    void *addrs[2] = {};
    uint64_t sizes[2] = {};
    switch (in.below(9)) {
    case 0: HcommBatchModeStart(t); break;
    case 1: HcommBatchModeEnd(t); break;
    case 2: HcommAcquireComm(t); break;
    case 3: HcommReleaseComm(t); break;
    case 4: HcommAicpuTsTaskCacheLookup(t, &hit); break;
    case 5: HcommAicpuTsTaskCacheStart(t, addrs, sizes, in.below(3)); break;
    case 6: HcommAicpuTsTaskCacheEnd(t); break;
    case 7: HcommAicpuTsTaskCacheExecute(t, addrs, sizes, in.below(3)); break;
    default: HcommAicpuTsTaskCacheClear(t); break;
    }
}

void run_ops(State &s, InputReader &in, size_t max_ops);

// A device program: the same kind of calls, made from the emulated device side.
struct Program {
    State *s;
    InputReader *in;
};
uint32_t device_program(void *arg)
{
    auto *p = static_cast<Program *>(arg);
    p->s->device_side = true;
    run_ops(*p->s, *p->in, 8);
    p->s->device_side = false;
    return 0;
}

void op_launch(State &s, InputReader &in)
{
    if (s.device_side)
        return;
    const HcclComm c = pick_comm(s, in);
    Program p{&s, &in};
    HcommRefLaunchResult result{};
    HcommRefDeviceLaunch(c, device_program, &p, wait_ms(s, in), in.below(16) ? &result : nullptr);
}

void run_ops(State &s, InputReader &in, size_t max_ops)
{
    for (size_t i = 0; i < max_ops && !in.empty(); ++i) {
        switch (in.below(20)) {
        case 0: op_comm_init(s, in); break;
        case 1: op_comm_destroy(s, in); break;
        case 2: op_comm_queries(s, in); break;
        case 3:
        case 4: op_thread_acquire(s, in); break;
        case 5: op_thread_export(s, in); break;
        case 6: op_thread_info(s, in); break;
        case 7:
        case 8: op_channel_acquire(s, in); break;
        case 9: op_channel_destroy(s, in); break;
        case 10: op_channel_queries(s, in); break;
        case 11: op_engine_ctx(s, in); break;
        case 12: op_global_timeouts(in); break;
        case 13: op_thread_sync(s, in); break;
        case 14: op_thread_join(s, in); break;
        case 15: op_local(s, in); break;
        case 16: op_data(s, in); break;
        case 17: op_batch(s, in); break;
        case 18: op_tags(in); break;
        default: op_launch(s, in); break;
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    // Small comm memory, millisecond timeouts, short bootstraps; read before the first call.
    setenv("HCCL_BUFFSIZE", "1", 1);
    setenv("HCOMM_REF_TIMEOUT_UNIT", "ms", 1);
    setenv("HCOMM_REF_BOOTSTRAP_TIMEOUT_S", "2", 1);
    if (std::getenv("HCOMM_REF_LOG") == nullptr)
        setenv("HCOMM_REF_LOG", "error", 1); // every refusal would be a log line
    pages();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    InputReader in(data, size);
    State s;
    // The first comm is made before any call: most calls are about its handles.
    op_comm_init(s, in);
    run_ops(s, in, kMaxOps);
    // Nothing outlives the input: destroying a comm stops and joins its threads,
    // releases its engine contexts and cancels pending waits.
    // The owner of the data addresses goes last, after every queue that may still copy
    // into its memory (as in op_comm_destroy).
    std::stable_partition(s.live.begin(), s.live.end(), [&s](HcclComm c) { return c != s.buf_owner; });
    for (HcclComm c : s.live)
        HcclCommDestroy(c);
    HcommSetNotifyWaitTimeOut(static_cast<float>(kDefaultWaitTimeout));
    HcommThreadResAcquireTimeOut(0.0F);
    return 0;
}
