// A tiny hcomm program for the tests of `hcts launch` (label launch): an even number
// of ranks under MPI, in pairs (rank r and r ^ 1), each with a channel to its partner. Each rank records notifies 1 and
// 2 on its channel, then waits for 1 and 2 from its peer.
//   launch_probe pass        then exits 0
//   launch_probe fail N      then exits N (hcts launch passes the status through)
//   launch_probe deadlock    then waits on notify 3, which nobody records, and a second
//                            thread waits on its thread notify 1, which nobody records
//                            either: a hang that hcts launch's deadline ends, printing
//                            who waits for what
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "hccl/hccl_channel.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_res.h"
#include "hcomm/hcomm_primitives.h"
#include "hcomm_ref/hcomm_ref.h"

namespace {

struct Args {
    ThreadHandle thread;
    ThreadHandle second;
    ChannelHandle channel;
    bool deadlock;
};

uint32_t program(void *p)
{
    const auto *a = static_cast<Args *>(p);
    int32_t rc = HcommChannelNotifyRecordOnThread(a->thread, a->channel, 1);
    rc |= HcommChannelNotifyRecordOnThread(a->thread, a->channel, 2);
    rc |= HcommChannelNotifyWaitOnThread(a->thread, a->channel, 1, 20);
    rc |= HcommChannelNotifyWaitOnThread(a->thread, a->channel, 2, 20);
    if (a->deadlock) { // nobody records either
        rc |= HcommThreadNotifyWaitOnThread(a->second, 1, 60);
        rc |= HcommChannelNotifyWaitOnThread(a->thread, a->channel, 3, 60);
    }
    return static_cast<uint32_t>(rc);
}

int fail(int rank, const char *what, int rc)
{
    std::fprintf(stderr, "launch_probe rank %d: %s failed (%d)\n", rank, what, rc);
    MPI_Abort(MPI_COMM_WORLD, 3);
    return 3;
}

} // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const std::string mode = argc > 1 ? argv[1] : "";
    if ((mode != "pass" && mode != "deadlock" && mode != "fail") || (mode == "fail" && argc != 3) || size < 2 ||
        size % 2 != 0) {
        if (rank == 0)
            std::fprintf(
                stderr,
                "usage: launch_probe pass|deadlock|fail N, on an even number of ranks (got mode '%s', %d rank(s))\n",
                mode.c_str(), size);
        MPI_Finalize();
        return 2;
    }
    HcclRootInfo root{};
    if (rank == 0)
        if (const int rc = HcclGetRootInfo(&root); rc != 0)
            return fail(rank, "HcclGetRootInfo", rc);
    MPI_Bcast(&root, sizeof root, MPI_BYTE, 0, MPI_COMM_WORLD);
    HcclComm comm = nullptr;
    if (const int rc = HcclCommInitRootInfo(static_cast<uint32_t>(size), &root, static_cast<uint32_t>(rank), &comm);
        rc != 0)
        return fail(rank, "HcclCommInitRootInfo", rc);
    Args a{};
    a.deadlock = mode == "deadlock";
    ThreadHandle threads[2] = {};
    if (const int rc = HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, 2, 2, threads); rc != 0)
        return fail(rank, "HcclThreadAcquire", rc);
    a.thread = threads[0];
    a.second = threads[1];
    HcclChannelDesc desc{};
    HcclChannelDescInit(&desc, 1);
    desc.remoteRank = static_cast<uint32_t>(rank ^ 1);
    desc.channelProtocol = COMM_PROTOCOL_UB_CTP;
    desc.notifyNum = 4;
    if (const int rc = HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, &desc, 1, &a.channel); rc != 0)
        return fail(rank, "HcclChannelAcquire", rc);
    HcommRefLaunchResult result{};
    if (const int rc = HcommRefDeviceLaunch(comm, program, &a, 90000, &result); rc != 0)
        return fail(rank, "HcommRefDeviceLaunch", rc);
    if (result.programReturn != 0 || result.taskError != 0) {
        std::fprintf(stderr, "launch_probe rank %d: the device program returned %u, task error %d\n", rank,
                     result.programReturn, result.taskError);
        return 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    HcclCommDestroy(comm);
    MPI_Finalize();
    std::printf("launch_probe rank %d: %s\n", rank, mode.c_str());
    return mode == "fail" ? std::atoi(argv[2]) : 0;
}
