// HcommWriteWithNotifyOnThread, the documented call sequence done right.
//
// Two ranks. Rank 0 writes its whole communication memory into rank 1's and
// raises notify 0 there; rank 1 waits on notify 0, then checks every byte.
// Differences from the vendor's page, each required by the real API:
//   * HcclThreadAcquire takes the communicator first;
//   * the channel descriptor is filled after HcclChannelDescInit: remoteRank,
//     channelProtocol (UB_CTP on Atlas 350) and notifyNum (>= 1 to use index 0);
//   * the wait has a finite timeout (seconds), so a lost notify is an error, not a hang.
// The device-side halves run through HcommRefDeviceLaunch, the reference's
// stand-in for launching an AICPU kernel. MPI carries only the root info and barriers.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "hccl/hccl_channel.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_res.h"
#include "hcomm/hcomm_primitives.h"
#include "hcomm_ref/hcomm_ref.h"

namespace {

constexpr uint32_t kNotifyIdx = 0;
constexpr uint32_t kWaitSeconds = 60;

// What the device programs need: handles and addresses, like a kernel's argument block.
struct DeviceArgs {
    ThreadHandle thread;
    ChannelHandle channel;
    void *remote_buffer;
    void *local_buffer;
    uint64_t len;
};

// extern "C" uint32_t prog(void *args): the AICPU kernel convention.
extern "C" uint32_t sender_program(void *p)
{
    const auto *a = static_cast<const DeviceArgs *>(p);
    return static_cast<uint32_t>(
        HcommWriteWithNotifyOnThread(a->thread, a->channel, a->remote_buffer, a->local_buffer, a->len, kNotifyIdx));
}

extern "C" uint32_t receiver_program(void *p)
{
    const auto *a = static_cast<const DeviceArgs *>(p);
    return static_cast<uint32_t>(HcommChannelNotifyWaitOnThread(a->thread, a->channel, kNotifyIdx, kWaitSeconds));
}

uint8_t pattern(uint64_t offset) { return static_cast<uint8_t>((offset * 131 + (offset >> 12)) & 0xff); }

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        const int rc_ = (call);                                                                                        \
        if (rc_ != 0) {                                                                                                \
            std::fprintf(stderr, "rank %d: %s failed with %d\n", rank, #call, rc_);                                    \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                              \
        }                                                                                                              \
    } while (0)

} // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            std::fprintf(stderr, "run with exactly 2 ranks (mpirun -np 2), not %d\n", size);
        MPI_Finalize();
        return 2;
    }

    // 1. Communicator: rank 0 makes the root info, MPI hands it to rank 1.
    HcclRootInfo root{};
    if (rank == 0)
        CHECK(HcclGetRootInfo(&root));
    MPI_Bcast(&root, sizeof(root), MPI_BYTE, 0, MPI_COMM_WORLD);
    HcclComm comm = nullptr;
    CHECK(HcclCommInitRootInfo(2, &root, static_cast<uint32_t>(rank), &comm));

    // 2. A thread on the AICPU_TS engine, one notify per thread.
    const CommEngine engine = COMM_ENGINE_AICPU_TS;
    ThreadHandle thread = 0;
    CHECK(HcclThreadAcquire(comm, engine, 1, 1, &thread));

    // 3. A channel to the other rank: Init, then fill what Init leaves unset.
    HcclChannelDesc desc;
    CHECK(HcclChannelDescInit(&desc, 1));
    desc.remoteRank = static_cast<uint32_t>(1 - rank);
    desc.channelProtocol = COMM_PROTOCOL_UB_CTP;
    desc.notifyNum = 1;
    ChannelHandle channel = 0;
    CHECK(HcclChannelAcquire(comm, engine, &desc, 1, &channel));

    // 4. Local and remote communication memory; len = the smaller of the two.
    void *local_buffer = nullptr;
    uint64_t local_size = 0;
    void *remote_buffer = nullptr;
    uint64_t remote_size = 0;
    CHECK(HcclGetHcclBuffer(comm, &local_buffer, &local_size));
    CHECK(HcclChannelGetHcclBuffer(comm, channel, &remote_buffer, &remote_size));
    const uint64_t len = std::min(local_size, remote_size);
    auto *local = static_cast<uint8_t *>(local_buffer);
    if (rank == 0) {
        for (uint64_t i = 0; i < len; ++i)
            local[i] = pattern(i);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    // 5. Device side: rank 0 writes with notify, rank 1 waits for the notify.
    DeviceArgs args{thread, channel, remote_buffer, local_buffer, len};
    HcommRefLaunchResult result{};
    CHECK(HcommRefDeviceLaunch(comm, rank == 0 ? sender_program : receiver_program, &args, 120000, &result));
    CHECK(static_cast<int>(result.programReturn));
    CHECK(result.taskError);

    // 6. After the wait every byte is in place.
    int bad = 0;
    if (rank == 1) {
        for (uint64_t i = 0; i < len; ++i) {
            if (local[i] != pattern(i)) {
                std::fprintf(stderr, "rank 1: byte %llu is 0x%02x, expected 0x%02x\n",
                             static_cast<unsigned long long>(i), local[i], pattern(i));
                bad = 1;
                break;
            }
        }
        if (bad == 0) {
            std::printf("rank 1: %llu bytes arrived before notify %u (%.3f ms device time)\n",
                        static_cast<unsigned long long>(len), kNotifyIdx, static_cast<double>(result.elapsedNs) / 1e6);
        }
    }
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(HcclCommDestroy(comm));
    MPI_Finalize();
    return any_bad;
}
