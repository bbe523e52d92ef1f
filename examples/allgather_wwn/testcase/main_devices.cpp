// Test main of HcclAllGatherWwn with every rank in this one process: one thread per device,
// as the vendor's single-server test programs are written. The main thread creates the root
// info; thread i sets device i, creates rank i of the communicator from that root info, and runs
// the allgather a few times on its own stream with its own device memory, checking every byte.
// With --init-all the main thread makes every rank's communicator at once with HcclCommInitAll
// (devices listed last to first, so comms[i], rank i, is device n-1-i), as most of the vendor's
// single-server samples do, and thread i takes comms[i].
// The process needs as many devices as ranks (HCTS_ACL_DEVICES, or `hcts launch --devices N`).
// Exit status 0 only if every thread saw every byte right and no call failed.
//   HCTS_ACL_DEVICES=4 allgather_wwn_devices_test [--init-all] [--bytes N] [--iterations N] [--sync-timeout-ms N]
#include <atomic>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "allgather_wwn.h"
#include "hccl/hccl_comm.h"

namespace {

bool acl_ok(uint32_t device, aclError rc, const char *what)
{
    if (rc == ACL_SUCCESS)
        return true;
    const char *msg = aclGetRecentErrMsg();
    std::fprintf(stderr, "allgather_wwn_devices_test device %u: %s returned ACL error %d: %s\n", device, what,
                 static_cast<int>(rc), msg != nullptr ? msg : "(no message)");
    return false;
}

bool hccl_ok(uint32_t device, HcclResult rc, const char *what)
{
    if (rc == HCCL_SUCCESS)
        return true;
    std::fprintf(stderr, "allgather_wwn_devices_test device %u: %s returned HcclResult %d\n", device, what,
                 static_cast<int>(rc));
    return false;
}

// Byte `offset` of what rank `rank` sends in iteration `iter`.
uint8_t pattern(uint32_t iter, uint32_t rank, uint64_t offset)
{
    uint64_t x = offset * 0x9E3779B97F4A7C15ULL + (uint64_t{rank} << 40) + (uint64_t{iter} << 56) + 0x2545F491;
    x ^= x >> 31;
    x *= 0xD6E8FEB86659FD93ULL;
    return static_cast<uint8_t>(x >> 32);
}

struct Options {
    uint64_t bytes = 100003; // several 32 KiB slots per peer, and a short last chunk
    uint32_t iterations = 3;
    int32_t syncTimeoutMs = 60000;
    bool initAll = false;
};

bool parse(int argc, char **argv, Options &o)
{
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--init-all") {
            o.initAll = true;
            continue;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "allgather_wwn_devices_test: %s needs a value\n", arg.c_str());
            return false;
        }
        char *end = nullptr;
        const unsigned long long v = std::strtoull(argv[++i], &end, 10);
        if (*end != '\0' || v == 0) {
            std::fprintf(stderr, "allgather_wwn_devices_test: %s '%s' is not a positive number\n", arg.c_str(),
                         argv[i]);
            return false;
        }
        if (arg == "--bytes")
            o.bytes = v;
        else if (arg == "--iterations")
            o.iterations = static_cast<uint32_t>(v);
        else if (arg == "--sync-timeout-ms")
            o.syncTimeoutMs = static_cast<int32_t>(v);
        else {
            std::fprintf(stderr, "allgather_wwn_devices_test: unknown option %s\n", arg.c_str());
            return false;
        }
    }
    return true;
}

// The threads agree after each step, so none starts a launch whose peers will not come: each
// step's vote is the AND of every thread's (a reusable barrier with a verdict).
class Vote {
  public:
    explicit Vote(uint32_t n) : n_(n) {}
    bool all(bool mine)
    {
        std::unique_lock lock(mutex_);
        const uint64_t round = round_;
        ok_ = ok_ && mine;
        if (++arrived_ == n_) {
            result_ = ok_;
            ok_ = true;
            arrived_ = 0;
            ++round_;
            changed_.notify_all();
            return result_;
        }
        changed_.wait(lock, [&] { return round_ != round; });
        return result_;
    }

  private:
    std::mutex mutex_;
    std::condition_variable changed_;
    const uint32_t n_;
    uint32_t arrived_ = 0;
    uint64_t round_ = 0;
    bool ok_ = true;
    bool result_ = true;
};

struct Shared {
    const Options *o;
    const HcclRootInfo *root;  // HcclCommInitRootInfo per thread, or
    const HcclComm *rankComms; // comms[rank] of HcclCommInitAll
    uint32_t devices;
    Vote *vote;
};

// Thread `rank_id`: rank `rank_id` of the communicator, on its own device (the same number,
// or n-1-rank with --init-all), stream and memory.
bool run_device(const Shared &s, uint32_t rank_id)
{
    const Options &o = *s.o;
    const uint32_t n = s.devices;
    const uint32_t device = rank_id;
    const int32_t id = static_cast<int32_t>(s.rankComms != nullptr ? n - 1 - rank_id : rank_id);
    bool ok = acl_ok(device, aclrtSetDevice(id), "aclrtSetDevice");
    int32_t current = -1;
    // The runtime keeps the current device per thread: each thread sees its own.
    if (ok && (!acl_ok(device, aclrtGetDevice(&current), "aclrtGetDevice") || current != id)) {
        std::fprintf(stderr, "allgather_wwn_devices_test device %u: aclrtGetDevice says %d\n", device, current);
        ok = false;
    }
    HcclComm comm = nullptr;
    // Every rank must reach the init (the bootstrap waits for all of them), so a thread that
    // failed before it still votes before giving up.
    if (!s.vote->all(ok))
        return false;
    if (s.rankComms != nullptr)
        comm = s.rankComms[rank_id];
    else
        ok = hccl_ok(device, HcclCommInitRootInfo(n, s.root, device, &comm), "HcclCommInitRootInfo");
    uint32_t rank = n;
    if (ok && (!hccl_ok(device, HcclGetRankId(comm, &rank), "HcclGetRankId") || rank != device)) {
        std::fprintf(stderr, "allgather_wwn_devices_test device %u: the comm's rank is %u\n", device, rank);
        ok = false;
    }
    void *send = nullptr;
    void *recv = nullptr;
    aclrtStream stream = nullptr;
    ok = ok && acl_ok(device, aclrtMalloc(&send, o.bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc (send)") &&
         acl_ok(device, aclrtMalloc(&recv, o.bytes * n, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc (recv)") &&
         acl_ok(device, aclrtCreateStream(&stream), "aclrtCreateStream");
    std::vector<uint8_t> host(o.bytes * n);
    bool all = s.vote->all(ok);
    for (uint32_t iter = 0; all && iter < o.iterations; ++iter) {
        for (uint64_t i = 0; i < o.bytes; ++i)
            host[i] = pattern(iter, device, i);
        ok = acl_ok(device, aclrtMemcpy(send, o.bytes, host.data(), o.bytes, ACL_MEMCPY_HOST_TO_DEVICE),
                    "aclrtMemcpy (send)") &&
             acl_ok(device, aclrtMemset(recv, o.bytes * n, 0xEE, o.bytes * n), "aclrtMemset (recv)") &&
             hccl_ok(device, HcclAllGatherWwn(send, recv, o.bytes, HCCL_DATA_TYPE_UINT8, comm, stream),
                     "HcclAllGatherWwn") &&
             acl_ok(device, aclrtSynchronizeStreamWithTimeout(stream, o.syncTimeoutMs),
                    "aclrtSynchronizeStreamWithTimeout (the allgather kernel)") &&
             acl_ok(device, aclrtMemcpy(host.data(), host.size(), recv, host.size(), ACL_MEMCPY_DEVICE_TO_HOST),
                    "aclrtMemcpy (recv)");
        uint64_t wrong = 0;
        for (uint32_t src = 0; ok && src < n; ++src) {
            for (uint64_t i = 0; i < o.bytes; ++i) {
                const uint8_t got = host[src * o.bytes + i];
                const uint8_t want = pattern(iter, src, i);
                if (got != want && wrong++ == 0) {
                    std::fprintf(stderr,
                                 "allgather_wwn_devices_test device %u: MISMATCH in iteration %u: byte %" PRIu64
                                 " from rank %u is 0x%02x, expected 0x%02x\n",
                                 device, iter, i, src, got, want);
                }
            }
        }
        if (wrong != 0) {
            std::fprintf(stderr, "allgather_wwn_devices_test device %u: %" PRIu64 " of %zu bytes wrong\n", device,
                         wrong, host.size());
            ok = false;
        }
        all = s.vote->all(ok);
    }
    if (stream != nullptr && !acl_ok(device, aclrtDestroyStream(stream), "aclrtDestroyStream"))
        all = false;
    if (comm != nullptr && !hccl_ok(device, HcclCommDestroy(comm), "HcclCommDestroy"))
        all = false;
    if ((send != nullptr && !acl_ok(device, aclrtFree(send), "aclrtFree (send)")) ||
        (recv != nullptr && !acl_ok(device, aclrtFree(recv), "aclrtFree (recv)")))
        all = false;
    if (!acl_ok(device, aclrtResetDevice(id), "aclrtResetDevice"))
        all = false;
    return all;
}

} // namespace

int main(int argc, char **argv)
{
    Options o;
    if (!parse(argc, argv, o))
        return 2;
    uint32_t devices = 0;
    if (!acl_ok(0, aclInit(nullptr), "aclInit") || !acl_ok(0, aclrtGetDeviceCount(&devices), "aclrtGetDeviceCount"))
        return 1;
    if (devices < 2) {
        std::fprintf(stderr, "allgather_wwn_devices_test: %u device(s); needs at least 2 (HCTS_ACL_DEVICES)\n",
                     devices);
        return 1;
    }
    HcclRootInfo root{};
    std::vector<HcclComm> comms(devices, nullptr);
    if (o.initAll) {
        // As the vendor's samples: every device set from the main thread, then one call.
        std::vector<int32_t> ids(devices);
        for (uint32_t d = 0; d < devices; ++d) {
            ids[d] = static_cast<int32_t>(devices - 1 - d);
            if (!acl_ok(d, aclrtSetDevice(ids[d]), "aclrtSetDevice"))
                return 1;
        }
        if (!hccl_ok(0, HcclCommInitAll(devices, ids.data(), comms.data()), "HcclCommInitAll"))
            return 1;
    } else if (!hccl_ok(0, HcclGetRootInfo(&root), "HcclGetRootInfo"))
        return 1;
    Vote vote(devices);
    const Shared shared{&o, &root, o.initAll ? comms.data() : nullptr, devices, &vote};
    std::vector<std::thread> threads;
    std::atomic<uint32_t> passed{0};
    for (uint32_t d = 0; d < devices; ++d)
        threads.emplace_back([&, d] { passed += run_device(shared, d) ? 1 : 0; });
    for (std::thread &t : threads)
        t.join();
    if (!acl_ok(0, aclFinalize(), "aclFinalize"))
        return 1;
    if (passed != devices) {
        std::fprintf(stderr, "allgather_wwn_devices_test: %u of %u device thread(s) failed\n", devices - passed,
                     devices);
        return 1;
    }
    std::printf("allgather_wwn_devices_test: %u devices in one process (%s), %u iterations of %" PRIu64
                " bytes per rank: every byte right\n",
                devices, o.initAll ? "HcclCommInitAll" : "HcclCommInitRootInfo per thread", o.iterations, o.bytes);
    return 0;
}
