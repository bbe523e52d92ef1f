// The bad-input matrix: each row makes one bad call in a child process
// that owns a fresh one-rank job, under a deadline. A row passes when the child
// neither crashes nor hangs, the bad call is refused with the expected code, and a
// valid call afterwards still copies what it should (no side effect of the refusal).
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "hccl/hccl_res_expt.h"
#include "job.h"

using namespace hcts_test;
using namespace std::chrono_literals;

namespace {

// What a row's call may use: a live comm, its buffer, a host-side thread, and
// pages with chosen protections.
struct Ctx {
    HcclComm comm = nullptr;
    Buffer buf;
    ThreadHandle thread = 0;
    uint8_t *readonly = nullptr;   // one PROT_READ page
    uint8_t *noaccess = nullptr;   // one PROT_NONE page
    uint8_t *last = nullptr;       // one read-write page followed by a PROT_NONE one
    HcclComm stale_comm = nullptr; // a destroyed comm of another job
    ThreadHandle stale_thread = 0; // a thread of that destroyed comm
};

struct Row {
    std::string name;
    std::function<int32_t(Ctx &)> call;
    int32_t expected; // the refusal code, or kAnyRefusal
};

constexpr int32_t kAnyRefusal = INT32_MIN; // any code but HCCL_SUCCESS

constexpr int kExitRefusalWrong = 10;
constexpr int kExitAfterWrong = 11;
constexpr int kExitSetup = 12;
constexpr uint64_t kPage = 4096;

const auto kWild = reinterpret_cast<void *>(0x10);
const auto kWild2 = reinterpret_cast<void *>(0x7ff0dead0000ULL);
constexpr ThreadHandle kGarbageThread = 0x5448000000999999ULL;
constexpr ChannelHandle kGarbageChannel = 0x4348000000777777ULL;

uint8_t *map_pages(size_t pages, int prot)
{
    void *p = mmap(nullptr, pages * kPage, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<uint8_t *>(p);
}

// In the child: set up, make the bad call, check the code, then a valid copy.
// Returns the child's exit status; the jobs are destroyed on the way out, so no
// thread of theirs is still running at _exit (ThreadSanitizer reports those).
int child_status(const Row &row)
{
    Ctx c;
    {
        Job other(1);
        c.stale_comm = other[0];
        if (other.init_result() != HCCL_SUCCESS ||
            HcclThreadAcquire(other[0], COMM_ENGINE_CPU_TS, 1, 1, &c.stale_thread) != HCCL_SUCCESS)
            return kExitSetup;
    }
    Job job(1);
    c.comm = job[0];
    void *base = nullptr;
    if (job.init_result() != HCCL_SUCCESS || HcclGetHcclBuffer(c.comm, &base, &c.buf.size) != HCCL_SUCCESS ||
        HcclThreadAcquire(c.comm, COMM_ENGINE_CPU_TS, 1, 4, &c.thread) != HCCL_SUCCESS)
        return kExitSetup;
    c.buf.base = static_cast<uint8_t *>(base);
    c.readonly = map_pages(1, PROT_READ);
    c.noaccess = map_pages(1, PROT_NONE);
    uint8_t *two = map_pages(2, PROT_READ | PROT_WRITE);
    // A PROT_NONE page, not an unmapped one: a hole could be filled by a later mapping.
    if (c.readonly == nullptr || c.noaccess == nullptr || two == nullptr ||
        mprotect(two + kPage, kPage, PROT_NONE) != 0)
        return kExitSetup;
    c.last = two;
    const int32_t rc = row.call(c);
    HcommThreadJoin(c.thread, 5);
    if (row.expected == kAnyRefusal ? rc == HCCL_SUCCESS : rc != row.expected) {
        std::fprintf(stderr, "%s: returned %d, expected %d\n", row.name.c_str(), rc, row.expected);
        return kExitRefusalWrong;
    }
    // No side effect: the same thread still copies.
    std::memset(c.buf.base, 0x5A, 256);
    std::memset(c.buf.base + 4096, 0, 256);
    if (HcommLocalCopyOnThread(c.thread, c.buf.base + 4096, c.buf.base, 256) != HCCL_SUCCESS ||
        HcommThreadJoin(c.thread, 5) != HCCL_SUCCESS || std::memcmp(c.buf.base, c.buf.base + 4096, 256) != 0)
        return kExitAfterWrong;
    return 0;
}

[[noreturn]] void child(const Row &row)
{
    alarm(20); // a hang becomes SIGALRM, told apart from a crash by the parent
    _exit(child_status(row));
}

// "" when the row held; else what went wrong. Polls the child with a deadline.
std::string run_row(const Row &row)
{
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0)
        return "fork failed";
    if (pid == 0)
        child(row);
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return "hung past 30 s";
        }
        std::this_thread::sleep_for(5ms);
    }
    if (WIFSIGNALED(status))
        return WTERMSIG(status) == SIGALRM ? "hung past 20 s"
                                           : "crashed with signal " + std::to_string(WTERMSIG(status));
    switch (WEXITSTATUS(status)) {
    case 0: return "";
    case kExitRefusalWrong: return "not refused with the expected code (see stderr)";
    case kExitAfterWrong: return "a valid copy after the refusal failed (side effect)";
    case kExitSetup: return "setup failed";
    default: return "exit " + std::to_string(WEXITSTATUS(status));
    }
}

HcommBatchTransferDesc write_desc(void *dst, const void *src, uint64_t len)
{
    HcommBatchTransferDesc d{};
    d.transType = HCOMM_TRANSFER_TYPE_WRITE;
    d.transferInfo.write.dst = dst;
    d.transferInfo.write.src = const_cast<void *>(src);
    d.transferInfo.write.len = len;
    return d;
}

// Zero, garbage, foreign (an address posing as a handle) and stale handles, for every
// call that takes a thread, channel or comm: refused, whatever the code.
void handle_rows(std::vector<Row> &r)
{
    struct Kind {
        const char *name;
        std::function<uint64_t(Ctx &)> handle;
    };
    const std::vector<Kind> threads{
        {"zero", [](Ctx &) { return uint64_t{0}; }},
        {"garbage", [](Ctx &) { return uint64_t{kGarbageThread}; }},
        {"foreign", [](Ctx &c) { return reinterpret_cast<uint64_t>(c.buf.base); }},
        {"stale", [](Ctx &c) { return uint64_t{c.stale_thread}; }},
    };
    using ThreadCall = std::function<int32_t(Ctx &, ThreadHandle)>;
    const std::vector<std::pair<const char *, ThreadCall>> thread_calls{
        {"HcommThreadNotifyRecordOnThread",
         [](Ctx &, ThreadHandle h) { return HcommThreadNotifyRecordOnThread(h, h, 0); }},
        {"HcommThreadNotifyWaitOnThread", [](Ctx &, ThreadHandle h) { return HcommThreadNotifyWaitOnThread(h, 0, 0); }},
        {"HcommThreadNotifyWaitOnThreadWithDefaultTimeout",
         [](Ctx &, ThreadHandle h) { return HcommThreadNotifyWaitOnThreadWithDefaultTimeout(h, 0); }},
        {"HcommAclrtNotifyRecordOnThread", [](Ctx &, ThreadHandle h) { return HcommAclrtNotifyRecordOnThread(h, 0); }},
        {"HcommAclrtNotifyWaitOnThread", [](Ctx &, ThreadHandle h) { return HcommAclrtNotifyWaitOnThread(h, 0, 0); }},
        {"HcommFenceOnThread", [](Ctx &, ThreadHandle h) { return HcommFenceOnThread(h); }},
        {"HcommThreadJoin", [](Ctx &, ThreadHandle h) { return int32_t{HcommThreadJoin(h, 0)}; }},
        {"HcommLocalCopyOnThread",
         [](Ctx &c, ThreadHandle h) { return HcommLocalCopyOnThread(h, c.buf.base + 64, c.buf.base, 8); }},
        {"HcclThreadResGetInfo",
         [](Ctx &c, ThreadHandle h) {
             void *info = nullptr;
             return int32_t{HcclThreadResGetInfo(c.comm, h, THREAD_RES_TYPE_STREAM, 8, &info)};
         }},
        {"HcclThreadExportToCommEngine",
         [](Ctx &c, ThreadHandle h) {
             ThreadHandle out = 0;
             return int32_t{HcclThreadExportToCommEngine(c.comm, 1, &h, COMM_ENGINE_AICPU_TS, &out)};
         }},
        {"HcommWriteOnThread (garbage channel)",
         [](Ctx &c, ThreadHandle h) { return HcommWriteOnThread(h, kGarbageChannel, c.buf.base, c.buf.base, 8); }},
    };
    for (const auto &[name, call] : thread_calls) {
        for (const Kind &k : threads) {
            r.push_back({std::string(name) + " " + k.name + " thread",
                         [call, k](Ctx &c) { return call(c, k.handle(c)); }, kAnyRefusal});
        }
    }
    // Channels: no live channel exists in a one-rank job, so every kind is foreign here.
    const std::vector<Kind> channels{
        {"zero", [](Ctx &) { return uint64_t{0}; }},
        {"garbage", [](Ctx &) { return uint64_t{kGarbageChannel}; }},
        {"foreign (a thread)", [](Ctx &c) { return uint64_t{c.thread}; }},
        {"foreign (an address)", [](Ctx &c) { return reinterpret_cast<uint64_t>(c.buf.base); }},
    };
    using ChannelCall = std::function<int32_t(Ctx &, ChannelHandle)>;
    const auto b = [](Ctx &c, uint64_t off) { return c.buf.base + off; };
    const std::vector<std::pair<const char *, ChannelCall>> channel_calls{
        {"HcommWriteOnThread",
         [b](Ctx &c, ChannelHandle h) { return HcommWriteOnThread(c.thread, h, b(c, 0), b(c, 64), 8); }},
        {"HcommReadOnThread",
         [b](Ctx &c, ChannelHandle h) { return HcommReadOnThread(c.thread, h, b(c, 0), b(c, 64), 8); }},
        {"HcommWriteWithNotifyOnThread",
         [b](Ctx &c, ChannelHandle h) { return HcommWriteWithNotifyOnThread(c.thread, h, b(c, 0), b(c, 64), 8, 0); }},
        {"HcommWriteReduceOnThread",
         [b](Ctx &c, ChannelHandle h) {
             return HcommWriteReduceOnThread(c.thread, h, b(c, 0), b(c, 64), 2, HCOMM_DATA_TYPE_INT32,
                                             HCOMM_REDUCE_SUM);
         }},
        {"HcommReadReduceOnThread",
         [b](Ctx &c, ChannelHandle h) {
             return HcommReadReduceOnThread(c.thread, h, b(c, 0), b(c, 64), 2, HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM);
         }},
        {"HcommWriteNbiOnThread",
         [b](Ctx &c, ChannelHandle h) { return HcommWriteNbiOnThread(c.thread, h, b(c, 0), b(c, 64), 8); }},
        {"HcommReadNbiOnThread",
         [b](Ctx &c, ChannelHandle h) { return HcommReadNbiOnThread(c.thread, h, b(c, 0), b(c, 64), 8); }},
        {"HcommWriteNbi", [b](Ctx &c, ChannelHandle h) { return HcommWriteNbi(h, b(c, 0), b(c, 64), 8); }},
        {"HcommReadNbi", [b](Ctx &c, ChannelHandle h) { return HcommReadNbi(h, b(c, 0), b(c, 64), 8); }},
        {"HcommWriteWithNotifyNbi",
         [b](Ctx &c, ChannelHandle h) { return HcommWriteWithNotifyNbi(h, b(c, 0), b(c, 64), 8, 0); }},
        {"HcommChannelNotifyRecordOnThread",
         [](Ctx &c, ChannelHandle h) { return HcommChannelNotifyRecordOnThread(c.thread, h, 0); }},
        {"HcommChannelNotifyRecord", [](Ctx &, ChannelHandle h) { return HcommChannelNotifyRecord(h, 0); }},
        {"HcommChannelNotifyWaitOnThread",
         [](Ctx &c, ChannelHandle h) { return HcommChannelNotifyWaitOnThread(c.thread, h, 0, 0); }},
        {"HcommChannelNotifyWait", [](Ctx &, ChannelHandle h) { return HcommChannelNotifyWait(h, 0, 0); }},
        {"HcommChannelFenceOnThread", [](Ctx &c, ChannelHandle h) { return HcommChannelFenceOnThread(c.thread, h); }},
        {"HcommChannelFence", [](Ctx &, ChannelHandle h) { return HcommChannelFence(h); }},
        {"HcommChannelDrainOnThread", [](Ctx &c, ChannelHandle h) { return HcommChannelDrainOnThread(c.thread, h); }},
        {"HcclChannelGetHcclBuffer",
         [](Ctx &c, ChannelHandle h) {
             void *p = nullptr;
             uint64_t n = 0;
             return int32_t{HcclChannelGetHcclBuffer(c.comm, h, &p, &n)};
         }},
        {"HcclChannelGetRemoteMems",
         [](Ctx &c, ChannelHandle h) {
             uint32_t n = 0;
             CommMem *mems = nullptr;
             char **tags = nullptr;
             return int32_t{HcclChannelGetRemoteMems(c.comm, h, &n, &mems, &tags)};
         }},
        {"HcclChannelDestroy", [](Ctx &c, ChannelHandle h) { return int32_t{HcclChannelDestroy(c.comm, &h, 1)}; }},
    };
    for (const auto &[name, call] : channel_calls) {
        for (const Kind &k : channels) {
            r.push_back({std::string(name) + " " + k.name + " channel",
                         [call, k](Ctx &c) { return call(c, k.handle(c)); }, kAnyRefusal});
        }
    }
    // Comms: null, foreign (an address that is no comm) and stale (destroyed).
    const std::vector<std::pair<const char *, std::function<HcclComm(Ctx &)>>> comms{
        {"null", [](Ctx &) { return HcclComm{nullptr}; }},
        {"foreign", [](Ctx &c) { return reinterpret_cast<HcclComm>(c.buf.base); }},
        {"stale", [](Ctx &c) { return c.stale_comm; }},
    };
    using CommCall = std::function<int32_t(Ctx &, HcclComm)>;
    const std::vector<std::pair<const char *, CommCall>> comm_calls{
        {"HcclGetRankId",
         [](Ctx &, HcclComm h) {
             uint32_t v = 0;
             return int32_t{HcclGetRankId(h, &v)};
         }},
        {"HcclGetRankSize",
         [](Ctx &, HcclComm h) {
             uint32_t v = 0;
             return int32_t{HcclGetRankSize(h, &v)};
         }},
        {"HcclGetHcclBuffer",
         [](Ctx &, HcclComm h) {
             void *p = nullptr;
             uint64_t n = 0;
             return int32_t{HcclGetHcclBuffer(h, &p, &n)};
         }},
        {"HcclGetHcclBufferCleared",
         [](Ctx &, HcclComm h) {
             void *p = nullptr;
             uint64_t n = 0;
             return int32_t{HcclGetHcclBufferCleared(h, &p, &n)};
         }},
        {"HcclThreadAcquire",
         [](Ctx &, HcclComm h) {
             ThreadHandle t = 0;
             return int32_t{HcclThreadAcquire(h, COMM_ENGINE_CPU_TS, 1, 1, &t)};
         }},
        {"HcclEngineCtxCreate",
         [](Ctx &, HcclComm h) {
             void *p = nullptr;
             return int32_t{HcclEngineCtxCreate(h, "t", COMM_ENGINE_CPU_TS, 8, &p)};
         }},
        {"HcclEngineCtxGet",
         [](Ctx &, HcclComm h) {
             void *p = nullptr;
             uint64_t n = 0;
             return int32_t{HcclEngineCtxGet(h, "t", COMM_ENGINE_CPU_TS, &p, &n)};
         }},
        {"HcclChannelAcquire",
         [](Ctx &, HcclComm h) {
             HcclChannelDesc d{};
             HcclChannelDescInit(&d, 1);
             ChannelHandle ch = 0;
             return int32_t{HcclChannelAcquire(h, COMM_ENGINE_CPU_TS, &d, 1, &ch)};
         }},
        {"HcclCommDestroy", [](Ctx &, HcclComm h) { return int32_t{HcclCommDestroy(h)}; }},
    };
    for (const auto &[name, call] : comm_calls) {
        for (const auto &[kind, comm] : comms) {
            r.push_back({std::string(name) + " " + kind + " comm", [call, comm](Ctx &c) { return call(c, comm(c)); },
                         kAnyRefusal});
        }
    }
}

std::vector<Row> rows()
{
    std::vector<Row> r;
    const auto copy = [&r](std::string name, auto dst, auto src, uint64_t len) {
        r.push_back({"LocalCopy " + std::move(name),
                     [dst, src, len](Ctx &c) { return HcommLocalCopyOnThread(c.thread, dst(c), src(c), len); },
                     HCCL_E_PARA});
    };
    const auto reduce = [&r](std::string name, auto dst, auto src, uint64_t count, int32_t type, int32_t op,
                             int32_t expected) {
        r.push_back({"LocalReduce " + std::move(name),
                     [dst, src, count, type, op](Ctx &c) {
                         return HcommLocalReduceOnThread(c.thread, dst(c), src(c), count,
                                                         static_cast<HcommDataType>(type),
                                                         static_cast<HcommReduceOp>(op));
                     },
                     expected});
    };
    const auto buf = [](uint64_t off) { return [off](Ctx &c) -> void * { return c.buf.base + off; }; };
    const auto at = [](void *p) { return [p](Ctx &) { return p; }; };
    const auto ro = [](Ctx &c) -> void * { return c.readonly; };
    const auto none = [](Ctx &c) -> void * { return c.noaccess; };
    const auto tail = [](Ctx &c) -> void * { return c.last + kPage - 64; };
    const auto end = [](Ctx &c) -> void * { return c.buf.base + c.buf.size - 64; };
    // Wild, read-only, no-access and past-the-end ranges (these killed the process).
    copy("wild dst", at(kWild), buf(0), 64);
    copy("wild src", buf(0), at(kWild2), 64);
    copy("read-only dst", ro, buf(0), 64);
    copy("no-access src", buf(0), none, 64);
    copy("src past a no-access page", buf(0), tail, 128);
    copy("dst past a no-access page", tail, buf(0), 128);
    copy("dst past the comm buffer", end, buf(8192), 1ULL << 40);
    copy("huge len", buf(8192), buf(0), UINT64_MAX / 2);
    reduce("wild dst", at(kWild), buf(0), 16, HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM, HCCL_E_PARA);
    reduce("read-only dst", ro, buf(0), 16, HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM, HCCL_E_PARA);
    reduce("no-access src", buf(0), none, 16, HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM, HCCL_E_PARA);
    reduce("src past a no-access page", buf(0), tail, 32, HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM, HCCL_E_PARA);
    reduce("out-of-range data type", buf(4096), buf(0), 16, 999, HCOMM_REDUCE_SUM, HCCL_E_PARA);
    reduce("negative data type", buf(4096), buf(0), 16, -1, HCOMM_REDUCE_SUM, HCCL_E_PARA);
    reduce("out-of-range op", buf(4096), buf(0), 16, HCOMM_DATA_TYPE_INT32, 77, HCCL_E_PARA);
    reduce("huge count", buf(4096), buf(0), UINT64_MAX / 2, HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM, HCCL_E_PARA);
    // Garbage and zero handles.
    r.push_back({"LocalCopy garbage thread",
                 [](Ctx &c) { return HcommLocalCopyOnThread(kGarbageThread, c.buf.base + 64, c.buf.base, 8); },
                 HCCL_E_PARA});
    r.push_back(
        {"ThreadJoin garbage thread", [](Ctx &) { return int32_t{HcommThreadJoin(kGarbageThread, 0)}; }, HCCL_E_PARA});
    r.push_back({"ThreadAcquire foreign comm pointer",
                 [](Ctx &c) {
                     ThreadHandle t = 0;
                     return int32_t{
                         HcclThreadAcquire(reinterpret_cast<HcclComm>(c.buf.base), COMM_ENGINE_CPU_TS, 1, 1, &t)};
                 },
                 HCCL_E_PARA});
    r.push_back({"ThreadAcquire out-of-range engine",
                 [](Ctx &c) {
                     ThreadHandle t = 0;
                     return int32_t{HcclThreadAcquire(c.comm, static_cast<CommEngine>(1000), 1, 1, &t)};
                 },
                 HCCL_E_PARA});
    // Counts first (a huge count read past the caller's array).
    r.push_back({"BatchTransfer huge count",
                 [](Ctx &c) {
                     HcommBatchTransferDesc d = write_desc(c.buf.base, c.buf.base + 64, 8);
                     return HcommBatchTransferOnThread(c.thread, kGarbageChannel, &d, UINT32_MAX);
                 },
                 HCCL_E_PARA});
    r.push_back({"BatchTransfer count past the array's page",
                 [](Ctx &c) {
                     auto *d = reinterpret_cast<HcommBatchTransferDesc *>(c.last + kPage) - 1;
                     *d = write_desc(c.buf.base, c.buf.base + 64, 8);
                     return HcommBatchTransferOnThread(c.thread, kGarbageChannel, d, 2);
                 },
                 HCCL_E_PARA});
    r.push_back({"BatchTransfer out-of-range transType, garbage channel",
                 [](Ctx &c) {
                     HcommBatchTransferDesc d = write_desc(c.buf.base, c.buf.base + 64, 8);
                     const int32_t bad = 999;
                     std::memcpy(&d.transType, &bad, sizeof bad);
                     return HcommBatchTransferOnThread(c.thread, kGarbageChannel, &d, 1);
                 },
                 HCCL_E_PARA});
    r.push_back({"ChannelAcquire count past the array's page",
                 [](Ctx &c) {
                     auto *d = reinterpret_cast<HcclChannelDesc *>(c.last + kPage) - 1;
                     HcclChannelDescInit(d, 1);
                     ChannelHandle ch[4] = {};
                     return int32_t{HcclChannelAcquire(c.comm, COMM_ENGINE_CPU_TS, d, 4, ch)};
                 },
                 HCCL_E_PARA});
    // Found by fuzz_control_plane: both read on past a short array while looking at entries.
    r.push_back({"ChannelDestroy count past the array's page",
                 [](Ctx &c) {
                     auto *h = reinterpret_cast<ChannelHandle *>(c.last + kPage) - 1;
                     *h = kGarbageChannel;
                     return int32_t{HcclChannelDestroy(c.comm, h, 4)};
                 },
                 HCCL_E_PARA});
    r.push_back({"ChannelDestroy huge count",
                 [](Ctx &c) {
                     auto *h = reinterpret_cast<ChannelHandle *>(c.last + kPage) - 1;
                     *h = kGarbageChannel;
                     return int32_t{HcclChannelDestroy(c.comm, h, UINT32_MAX)};
                 },
                 HCCL_E_PARA});
    r.push_back({"ThreadExportToCommEngine count past the array's page",
                 [](Ctx &c) {
                     auto *h = reinterpret_cast<ThreadHandle *>(c.last + kPage) - 1;
                     *h = c.thread;
                     ThreadHandle out[2] = {};
                     return int32_t{HcclThreadExportToCommEngine(c.comm, 2, h, COMM_ENGINE_AICPU_TS, out)};
                 },
                 HCCL_E_PARA});
    r.push_back({"ThreadExportToCommEngine count past the thread limit",
                 [](Ctx &c) {
                     auto *h = reinterpret_cast<ThreadHandle *>(c.last + kPage) - 1;
                     *h = c.thread;
                     ThreadHandle out[1] = {};
                     return int32_t{HcclThreadExportToCommEngine(c.comm, UINT32_MAX, h, COMM_ENGINE_AICPU_TS, out)};
                 },
                 HCCL_E_UNAVAIL});
    r.push_back({"ChannelAcquire out-of-range protocol",
                 [](Ctx &c) {
                     HcclChannelDesc d{};
                     HcclChannelDescInit(&d, 1);
                     const int32_t bad = 12345;
                     std::memcpy(&d.channelProtocol, &bad, sizeof bad);
                     ChannelHandle ch = 0;
                     return int32_t{HcclChannelAcquire(c.comm, COMM_ENGINE_CPU_TS, &d, 1, &ch)};
                 },
                 HCCL_E_PARA});
    // Engine contexts are bounded: per context, per comm, per tag.
    r.push_back({"EngineCtxCreate 1 TiB",
                 [](Ctx &c) {
                     void *ctx = nullptr;
                     return int32_t{HcclEngineCtxCreate(c.comm, "t", COMM_ENGINE_CPU_TS, 1ULL << 40, &ctx)};
                 },
                 HCCL_E_PARA});
    r.push_back({"EngineCtxCreate past the context count",
                 [](Ctx &c) {
                     void *ctx = nullptr;
                     for (int i = 0; i < 4096; ++i) {
                         const std::string tag = "t" + std::to_string(i);
                         if (HcclEngineCtxCreate(c.comm, tag.c_str(), COMM_ENGINE_CPU_TS, 1, &ctx) != HCCL_SUCCESS)
                             return int32_t{-1};
                     }
                     return int32_t{HcclEngineCtxCreate(c.comm, "one-more", COMM_ENGINE_CPU_TS, 1, &ctx)};
                 },
                 HCCL_E_MEMORY});
    r.push_back({"EngineCtxCreate unterminated long tag",
                 [](Ctx &c) {
                     std::memset(c.last, 'x', kPage); // no terminator before the unmapped page
                     void *ctx = nullptr;
                     return int32_t{HcclEngineCtxCreate(c.comm, reinterpret_cast<const char *>(c.last),
                                                        COMM_ENGINE_CPU_TS, 8, &ctx)};
                 },
                 HCCL_E_PARA});
    // Unjoined root infos are bounded (each holds a thread and 2 fds).
    r.push_back({"HcclGetRootInfo past 256 unjoined",
                 [](Ctx &) {
                     HcclRootInfo root{};
                     for (int i = 0; i < 256; ++i) {
                         if (HcclGetRootInfo(&root) != HCCL_SUCCESS)
                             return int32_t{-1};
                     }
                     return int32_t{HcclGetRootInfo(&root)};
                 },
                 HCCL_E_UNAVAIL});
    handle_rows(r);
    return r;
}

TEST(BadInput, EveryRowRefusedWithoutCrashHangOrSideEffect)
{
    int failures = 0;
    for (const Row &row : rows()) {
        const std::string what = run_row(row);
        EXPECT_EQ(what, "") << row.name;
        failures += what.empty() ? 0 : 1;
    }
    EXPECT_EQ(failures, 0);
}

} // namespace
