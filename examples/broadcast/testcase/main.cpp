// Test main of HcclBroadcastRead, one device per MPI rank: each rank sets its device, creates
// the communicator (root info broadcast over MPI), runs broadcasts from every root in turn
// (iteration i from rank i % size) with different data and checks every byte of buf on
// every rank. Exit status 0 only if every rank saw every byte right and no call failed;
// otherwise a message says what went wrong, where.
//   mpirun -np 4 broadcast_test [--bytes N] [--iterations N] [--sync-timeout-ms N]
#include <mpi.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "broadcast.h"
#include "hccl/hccl_comm.h"

namespace {

int g_rank = 0;

bool acl_ok(aclError rc, const char *what)
{
    if (rc == ACL_SUCCESS)
        return true;
    const char *msg = aclGetRecentErrMsg();
    std::fprintf(stderr, "broadcast_test rank %d: %s returned ACL error %d: %s\n", g_rank, what, static_cast<int>(rc),
                 msg != nullptr ? msg : "(no message)");
    return false;
}

bool hccl_ok(HcclResult rc, const char *what)
{
    if (rc == HCCL_SUCCESS)
        return true;
    std::fprintf(stderr, "broadcast_test rank %d: %s returned HcclResult %d\n", g_rank, what, static_cast<int>(rc));
    return false;
}

// Byte `offset` of what root `rank` broadcasts in iteration `iter`: differs between roots,
// iterations and chunks, so a stale or misplaced chunk shows.
uint8_t pattern(uint32_t iter, uint32_t rank, uint64_t offset)
{
    uint64_t x = offset * 0x9E3779B97F4A7C15ULL + (uint64_t{rank} << 40) + (uint64_t{iter} << 56) + 0x5bd1e995;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ULL;
    return static_cast<uint8_t>(x >> 32);
}

struct Options {
    uint64_t bytes = 200003; // several 32 KiB slots, and a short last chunk
    uint32_t iterations = 4;
    int32_t syncTimeoutMs = 60000;
};

bool parse(int argc, char **argv, Options &o)
{
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i + 1 >= argc) {
            std::fprintf(stderr, "broadcast_test: %s needs a value\n", arg.c_str());
            return false;
        }
        char *end = nullptr;
        const unsigned long long v = std::strtoull(argv[++i], &end, 10);
        if (*end != '\0' || v == 0) {
            std::fprintf(stderr, "broadcast_test: %s '%s' is not a positive number\n", arg.c_str(), argv[i]);
            return false;
        }
        if (arg == "--bytes")
            o.bytes = v;
        else if (arg == "--iterations")
            o.iterations = static_cast<uint32_t>(v);
        else if (arg == "--sync-timeout-ms")
            o.syncTimeoutMs = static_cast<int32_t>(v);
        else {
            std::fprintf(stderr,
                         "broadcast_test: unknown option %s; usage: broadcast_test [--bytes N] "
                         "[--iterations N] [--sync-timeout-ms N]\n",
                         arg.c_str());
            return false;
        }
    }
    return true;
}

// One broadcast of `bytes` from rank iter % size; true if every byte of buf is right.
bool iteration(HcclComm comm, aclrtStream stream, uint32_t iter, uint32_t size, const Options &o, void *buf)
{
    const uint32_t root = iter % size;
    std::vector<uint8_t> host(o.bytes);
    for (uint64_t i = 0; i < o.bytes; ++i)
        host[i] = pattern(iter, root, i);
    if (static_cast<uint32_t>(g_rank) == root) {
        if (!acl_ok(aclrtMemcpy(buf, o.bytes, host.data(), o.bytes, ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy (buf)"))
            return false;
    } else if (!acl_ok(aclrtMemset(buf, o.bytes, 0xEE, o.bytes), "aclrtMemset (buf)")) {
        return false;
    }
    if (!hccl_ok(HcclBroadcastRead(buf, o.bytes, HCCL_DATA_TYPE_UINT8, root, comm, stream), "HcclBroadcastRead") ||
        !acl_ok(aclrtSynchronizeStreamWithTimeout(stream, o.syncTimeoutMs),
                "aclrtSynchronizeStreamWithTimeout (the broadcast kernel)"))
        return false;
    if (!acl_ok(aclrtMemcpy(host.data(), host.size(), buf, host.size(), ACL_MEMCPY_DEVICE_TO_HOST),
                "aclrtMemcpy (buf back)"))
        return false;
    uint64_t wrong = 0;
    for (uint64_t i = 0; i < o.bytes; ++i) {
        const uint8_t want = pattern(iter, root, i);
        if (host[i] != want && wrong++ == 0) {
            std::fprintf(stderr,
                         "broadcast_test rank %d: MISMATCH in iteration %u (root %u): byte %" PRIu64
                         " is 0x%02x, expected 0x%02x\n",
                         g_rank, iter, root, i, host[i], want);
        }
    }
    if (wrong != 0) {
        std::fprintf(stderr, "broadcast_test rank %d: %" PRIu64 " of %" PRIu64 " bytes wrong in iteration %u\n", g_rank,
                     wrong, o.bytes, iter);
        return false;
    }
    return true;
}

int run(const Options &o)
{
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    // One device per process (HCTS_ACL_DEVICES defaults to 1), as one NPU per rank on a server.
    // Before the communicator exists a failed rank cannot leave the others waiting: it ends the job.
    if (!acl_ok(aclInit(nullptr), "aclInit") || !acl_ok(aclrtSetDevice(0), "aclrtSetDevice(0)"))
        MPI_Abort(MPI_COMM_WORLD, 1);
    HcclRootInfo root{};
    if (g_rank == 0 && !hccl_ok(HcclGetRootInfo(&root), "HcclGetRootInfo"))
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Bcast(&root, sizeof(root), MPI_BYTE, 0, MPI_COMM_WORLD);
    // Created on this thread, whose device is set: the communicator serves device 0's launches.
    HcclComm comm = nullptr;
    if (!hccl_ok(HcclCommInitRootInfo(static_cast<uint32_t>(size), &root, static_cast<uint32_t>(g_rank), &comm),
                 "HcclCommInitRootInfo"))
        MPI_Abort(MPI_COMM_WORLD, 1);
    void *buf = nullptr;
    aclrtStream stream = nullptr;
    const bool ok = acl_ok(aclrtMalloc(&buf, o.bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc (buf)") &&
                    acl_ok(aclrtCreateStream(&stream), "aclrtCreateStream");
    // All ranks agree after each step, so every rank stops at the first failure of any
    // (none starts a launch whose peer will not come).
    int all = ok;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    for (uint32_t iter = 0; all && iter < o.iterations; ++iter) {
        all = iteration(comm, stream, iter, static_cast<uint32_t>(size), o, buf);
        MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    }
    if (stream != nullptr && !acl_ok(aclrtDestroyStream(stream), "aclrtDestroyStream"))
        all = 0;
    if (!hccl_ok(HcclCommDestroy(comm), "HcclCommDestroy"))
        all = 0;
    if (buf != nullptr && !acl_ok(aclrtFree(buf), "aclrtFree (buf)"))
        all = 0;
    (void)acl_ok(aclrtResetDevice(0), "aclrtResetDevice(0)");
    (void)acl_ok(aclFinalize(), "aclFinalize");
    if (all && g_rank == 0)
        std::printf("broadcast_test: %d ranks, %u broadcasts of %" PRIu64
                    " bytes, every rank the root in turn: every byte right\n",
                    size, o.iterations, o.bytes);
    return all ? 0 : 1;
}

} // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    Options o;
    int status = parse(argc, argv, o) ? run(o) : 2;
    // The worst status of any rank, so mpirun's exit status does not depend on which rank failed first.
    MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
