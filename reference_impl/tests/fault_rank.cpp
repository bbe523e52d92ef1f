// One rank of a two-process fault job (started by fault_test): joins the job,
// acquires its channel to the other rank, touches <marker>.<rank>, then waits
// with timeOut = 0 for a notify the peer never raises. The parent then kills or
// destroys one side; the survivor's wait must end with an error, and a second
// wait must fail at once. Exit 0 = every check held; otherwise a message.
//   fault_rank <root-hex> <rank> <marker> <mode>   mode: wait | destroy
// `destroy`: once the parent creates <marker>.go, this rank destroys its comm while
// its own wait (timeOut = 0) is in flight; the wait must end, then it sleeps.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include <unistd.h>

#include "hccl/hccl_channel.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_res.h"
#include "hcomm/hcomm_primitives.h"
#include "hcomm_ref/hcomm_ref.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Wait {
    ThreadHandle thread;
    ChannelHandle channel;
};

uint32_t wait_forever(void *p)
{
    const auto *w = static_cast<Wait *>(p);
    return static_cast<uint32_t>(HcommChannelNotifyWaitOnThread(w->thread, w->channel, 0, 0));
}

int fail(uint32_t rank, const std::string &what, long value)
{
    std::fprintf(stderr, "rank %u: %s (%ld)\n", rank, what.c_str(), value);
    return 1;
}

bool exists(const std::string &path) { return access(path.c_str(), F_OK) == 0; }

} // namespace

int main(int argc, char **argv)
{
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s <root-info-hex> <rank> <marker> <wait|destroy>\n", argv[0]);
        return 2;
    }
    HcclRootInfo root{};
    const std::string hex = argv[1];
    for (size_t i = 0; i + 1 < hex.size() && i / 2 < sizeof(root.internal); i += 2)
        root.internal[i / 2] = static_cast<char>(std::stoul(hex.substr(i, 2), nullptr, 16));
    const uint32_t rank = static_cast<uint32_t>(std::atoi(argv[2]));
    const std::string marker = argv[3];
    const std::string mode = argv[4];
    HcclComm comm = nullptr;
    if (int rc = HcclCommInitRootInfo(2, &root, rank, &comm); rc != 0)
        return fail(rank, "init", rc);
    Wait w{};
    if (int rc = HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, 1, 2, &w.thread); rc != 0)
        return fail(rank, "thread", rc);
    HcclChannelDesc d;
    HcclChannelDescInit(&d, 1);
    d.remoteRank = 1 - rank;
    d.channelProtocol = COMM_PROTOCOL_UB_CTP;
    d.notifyNum = 2;
    if (int rc = HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, &d, 1, &w.channel); rc != 0)
        return fail(rank, "channel", rc);
    std::ofstream(marker + "." + std::to_string(rank)) << "ready\n";

    if (mode == "destroy") {
        HcommRefLaunchResult result{};
        int launch_rc = -1;
        std::thread waiter([&] { launch_rc = HcommRefDeviceLaunch(comm, wait_forever, &w, 0, &result); });
        const auto give_up = Clock::now() + std::chrono::seconds(30);
        while (!exists(marker + ".go") && Clock::now() < give_up)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        std::this_thread::sleep_for(std::chrono::milliseconds(200)); // the wait is in flight
        if (int rc = HcclCommDestroy(comm); rc != 0)
            return fail(rank, "destroy during a wait", rc);
        waiter.join(); // a hang here is caught by the parent's deadline
        if (result.taskError == 0)
            return fail(rank, "the wait in flight across the destroy reported no error", result.taskError);
        std::this_thread::sleep_for(std::chrono::seconds(30)); // stays alive: the peer must not need our exit
        return 0;
    }

    // mode wait: the peer is killed or destroys its comm meanwhile.
    const auto start = Clock::now();
    HcommRefLaunchResult result{};
    HcommRefDeviceLaunch(comm, wait_forever, &w, 0, &result);
    const auto first = Clock::now() - start;
    if (result.taskError != HCCL_E_REMOTE)
        return fail(rank, "the wait on the lost peer's channel did not end with HCCL_E_REMOTE", result.taskError);
    // The thread keeps its error (sticky); a fresh thread shows that a later wait fails at once.
    ThreadHandle again = 0;
    if (int rc = HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, 1, 2, &again); rc != 0)
        return fail(rank, "second thread", rc);
    w.thread = again;
    const auto second_start = Clock::now();
    HcommRefDeviceLaunch(comm, wait_forever, &w, 0, &result);
    const auto second = Clock::now() - second_start;
    if (result.taskError != HCCL_E_REMOTE)
        return fail(rank, "a later wait did not fail with HCCL_E_REMOTE", result.taskError);
    if (second > std::chrono::milliseconds(50))
        return fail(rank, "a later wait did not fail at once (ms)",
                    std::chrono::duration_cast<std::chrono::milliseconds>(second).count());
    std::printf("rank %u: first wait ended after %lld ms\n", rank,
                static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(first).count()));
    if (int rc = HcclCommDestroy(comm); rc != 0)
        return fail(rank, "destroy", rc);
    return 0;
}
