// One rank of a multi-process job (started by multiprocess_test): joins the job
// from a hex-encoded root info, connects to every other rank, and runs a WWN ring
// with stamped payloads. Exit status 0 = every check held; otherwise a message.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "hccl/hccl_channel.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_res.h"
#include "hcomm/hcomm_primitives.h"
#include "hcomm/hcomm_primitives_expt.h"
#include "hcomm_ref/hcomm_ref.h"

namespace {

int fail(uint32_t rank, const char *what, int rc)
{
    std::fprintf(stderr, "rank %u: %s (%d)\n", rank, what, rc);
    return 1;
}

uint64_t stamp(uint32_t round, uint32_t sender, uint64_t offset)
{
    return (static_cast<uint64_t>(round) << 48) ^ (static_cast<uint64_t>(sender) << 32) ^
           (offset * 0x9E3779B97F4A7C15ULL);
}

constexpr uint32_t kRounds = 5;

struct Args {
    HcclComm comm;
    ThreadHandle thread;
    ChannelHandle to_next, from_prev;
    uint8_t *local, *next_buffer;
    uint64_t len;
    uint32_t round;
};

uint32_t ring_program(void *p)
{
    // Credit-based: write only after the successor acknowledged the previous
    // round (notify 0), so a fast rank never overwrites data not yet consumed.
    auto *a = static_cast<Args *>(p);
    int32_t rc = 0;
    if (a->round > 1)
        rc |= HcommChannelNotifyWaitOnThread(a->thread, a->to_next, 0, 30);
    rc |= HcommWriteWithNotifyOnThread(a->thread, a->to_next, a->next_buffer + (1 << 20), a->local, a->len, 1);
    rc |= HcommChannelNotifyWaitOnThread(a->thread, a->from_prev, 1, 30);
    rc |= HcommLocalCopyOnThread(a->thread, a->local + (2 << 20), a->local + (1 << 20), a->len);
    if (a->round < kRounds)
        rc |= HcommChannelNotifyRecordOnThread(a->thread, a->from_prev, 0);
    return static_cast<uint32_t>(rc);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s <root-info-hex> <nRanks> <rank>\n", argv[0]);
        return 2;
    }
    HcclRootInfo root{};
    const std::string hex = argv[1];
    for (size_t i = 0; i + 1 < hex.size() && i / 2 < sizeof(root.internal); i += 2) {
        root.internal[i / 2] = static_cast<char>(std::stoul(hex.substr(i, 2), nullptr, 16));
    }
    const uint32_t n = static_cast<uint32_t>(std::atoi(argv[2]));
    const uint32_t rank = static_cast<uint32_t>(std::atoi(argv[3]));
    HcclComm comm = nullptr;
    if (int rc = HcclCommInitRootInfo(n, &root, rank, &comm); rc != 0)
        return fail(rank, "init", rc);
    ThreadHandle thread = 0;
    if (int rc = HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, 1, 2, &thread); rc != 0)
        return fail(rank, "thread", rc);
    const uint32_t next = (rank + 1) % n;
    const uint32_t prev = (rank + n - 1) % n;
    std::vector<HcclChannelDesc> descs(n == 2 ? 1 : 2);
    HcclChannelDescInit(descs.data(), static_cast<uint32_t>(descs.size()));
    descs[0].remoteRank = next;
    if (descs.size() == 2)
        descs[1].remoteRank = prev;
    for (auto &d : descs) {
        d.channelProtocol = COMM_PROTOCOL_UB_CTP;
        d.notifyNum = 2;
    }
    ChannelHandle channels[2] = {};
    if (int rc =
            HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, descs.data(), static_cast<uint32_t>(descs.size()), channels);
        rc != 0) {
        return fail(rank, "channels", rc);
    }
    Args a{};
    a.comm = comm;
    a.thread = thread;
    a.to_next = channels[0];
    a.from_prev = descs.size() == 2 ? channels[1] : channels[0];
    void *local = nullptr;
    uint64_t size = 0;
    HcclGetHcclBuffer(comm, &local, &size);
    void *remote = nullptr;
    HcclChannelGetHcclBuffer(comm, a.to_next, &remote, &size);
    a.local = static_cast<uint8_t *>(local);
    a.next_buffer = static_cast<uint8_t *>(remote);
    a.len = 300000;
    for (uint32_t round = 1; round <= kRounds; ++round) {
        for (uint64_t w = 0; w < a.len / 8; ++w) {
            const uint64_t v = stamp(round, rank, w);
            std::memcpy(a.local + w * 8, &v, 8);
        }
        a.round = round;
        HcommRefLaunchResult result{};
        if (int rc = HcommRefDeviceLaunch(comm, ring_program, &a, 60000, &result); rc != 0) {
            return fail(rank, "launch", rc);
        }
        if (result.programReturn != 0 || result.taskError != 0) {
            return fail(rank, "ring round",
                        result.taskError != 0 ? result.taskError : static_cast<int>(result.programReturn));
        }
        for (uint64_t w = 0; w < a.len / 8; ++w) {
            uint64_t v = 0;
            std::memcpy(&v, a.local + (2 << 20) + w * 8, 8);
            if (v != stamp(round, prev, w)) {
                std::fprintf(stderr, "rank %u round %u: word %lu after the wait is not the predecessor's stamp\n", rank,
                             round, static_cast<unsigned long>(w));
                return 1;
            }
        }
    }
    if (int rc = HcclCommDestroy(comm); rc != 0)
        return fail(rank, "destroy", rc);
    return 0;
}
