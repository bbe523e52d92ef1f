// Communicator life cycle: root info, init, destroy, rank queries.
#include <hcts/mutant.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "acl_binding.h"
#include "api_util.h"
#include "hccl/hccl_comm.h"

using namespace hcomm_ref;

namespace {

// How long HcclCommDestroy waits for the calls inside the comm to return once it
// woke them; none blocks beyond a wake-up, so this only bounds a defect.
constexpr auto kDrainDeadline = std::chrono::seconds(30);

// HcclGetRankId and HcclGetRankSize differ only in what they read from the comm.
template <typename Read>
HcclResult query(const char *api, HcclComm comm, uint32_t *out, const char *out_name, Read read)
{
    if (comm == nullptr || out == nullptr) {
        return refuse(nullptr, api, HCCL_E_PTR, comm == nullptr ? "comm" : out_name, " is NULL");
    }
    registry::CommRef live;
    if (const HcclResult rc = live_comm(api, comm, live); rc != HCCL_SUCCESS)
        return rc;
    *out = read(*live);
    return HCCL_SUCCESS;
}

} // namespace

HCOMM_EXPORT HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo)
{
    return guarded("HcclGetRootInfo", [&]() -> HcclResult {
        if (rootInfo == nullptr) {
            return refuse(nullptr, "HcclGetRootInfo", HCCL_E_PTR, "rootInfo is NULL");
        }
        return create_root_info(*rootInfo);
    });
}

HCOMM_EXPORT HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                             HcclComm *comm)
{
    return guarded("HcclCommInitRootInfo", [&]() -> HcclResult {
        if (rootInfo == nullptr || comm == nullptr) {
            return refuse(nullptr, "HcclCommInitRootInfo", HCCL_E_PTR, rootInfo == nullptr ? "rootInfo" : "comm",
                          " is NULL");
        }
        if (nRanks == 0 || nRanks > 65536 || rank >= nRanks) {
            return refuse(nullptr, "HcclCommInitRootInfo", HCCL_E_PARA, "rank ", rank, " of nRanks ", nRanks,
                          ": nRanks must be in [1, 65536] and rank < nRanks");
        }
        const auto root = parse_root_info(*rootInfo);
        if (!root) {
            return refuse(nullptr, "HcclCommInitRootInfo", HCCL_E_PARA,
                          "rootInfo did not come from HcclGetRootInfo of this library");
        }
        std::unique_ptr<Comm> created;
        if (const HcclResult rc = Comm::create(nRanks, *root, rank, created); rc != HCCL_SUCCESS) {
            return rc;
        }
        // Owned by the registry until HcclCommDestroy; released only once registered, so a
        // registration that cannot allocate frees it (reference_fault_inject found the leak).
        *comm = registry::add_comm(created.get());
        created.release();
        offer_to_acl_device(*comm);
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm)
{
    return guarded("HcclCommInitClusterInfo", [&]() -> HcclResult {
        if (clusterInfo == nullptr || comm == nullptr) {
            return refuse(nullptr, "HcclCommInitClusterInfo", HCCL_E_PTR,
                          clusterInfo == nullptr ? "clusterInfo" : "comm", " is NULL");
        }
        // Mutant: the path is not opened until first use, so any path is accepted.
        if (hcts::mutant("ref_cluster_info_path_unchecked"))
            return HCCL_SUCCESS;
        // The rank-table file names device IPs but no bootstrap endpoint or job token
        // this library could reach the other ranks with; see reference_impl/README.md.
        return refuse(nullptr, "HcclCommInitClusterInfo", HCCL_E_NOT_SUPPORT, "rank ", rank,
                      ": rank-table initialisation is not supported by the reference; use HcclCommInitRootInfo");
    });
}

HCOMM_EXPORT HcclResult HcclCommDestroy(HcclComm comm)
{
    return guarded("HcclCommDestroy", [&]() -> HcclResult {
        if (comm == nullptr) {
            return refuse(nullptr, "HcclCommDestroy", HCCL_E_PTR, "comm is NULL");
        }
        {
            registry::CommRef live;
            if (const HcclResult rc = live_comm("HcclCommDestroy", comm, live); rc != HCCL_SUCCESS)
                return rc;
            if (is_device_side()) {
                return refuse(live, "HcclCommDestroy", HCCL_E_NOT_SUPPORT, "called from a device program");
            }
            // Mutant: a communicator that still owns threads is refused (busy).
            if (hcts::mutant("ref_comm_destroy_refuses_threads") && live->thread_count() > 0) {
                return refuse(live, "HcclCommDestroy", HCCL_E_UNAVAIL, "the communicator still has threads");
            }
        } // the checks' own hold ends before the destroy waits for the holders
        // 1. Unregister: later lookups of the comm, its threads and channels fail (HCCL_E_PARA).
        //    Of two concurrent destroys, one takes the comm; the other finds it gone.
        Comm *taken = registry::take_comm(comm);
        if (taken == nullptr)
            return refuse_dead_comm("HcclCommDestroy", comm);
        withdraw_from_acl(comm); // no later kernel launch runs on it
        // 2. Wake the calls inside that may block and wait until every call that found the
        //    comm has returned (waits fail with HCCL_E_INTERNAL, a channel handshake too).
        const Deadline deadline = Clock::now() + kDrainDeadline;
        bool drained = false;
        do {
            taken->interrupt(); // again each slice: a call may have started a wait since
            drained = taken->wait_calls_left(std::min(deadline, Clock::now() + std::chrono::milliseconds(100)));
        } while (!drained && Clock::now() < deadline);
        if (!drained) {
            // Freeing it now would pull the comm from under a call: leak it instead.
            HREF_LOG_ERROR(taken->rank(), "HcclCommDestroy: calls on the comm still running after ",
                           std::chrono::duration_cast<std::chrono::seconds>(kDrainDeadline).count(),
                           " s; the comm is left allocated (unreachable) rather than freed under them");
            return HCCL_E_TIMEOUT;
        }
        // 3. Free: stops and joins every thread's queue, then channels, device, memory.
        delete taken;
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank)
{
    return guarded("HcclGetRankId", [&]() -> HcclResult {
        return query("HcclGetRankId", comm, rank, "rank", [](const Comm &live) { return live.rank(); });
    });
}

HCOMM_EXPORT HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize)
{
    return guarded("HcclGetRankSize", [&]() -> HcclResult {
        return query("HcclGetRankSize", comm, rankSize, "rankSize", [](const Comm &live) {
            // Mutant: the highest rank id reported as the size.
            return hcts::mutant("ref_rank_size_highest_rank") ? live.size() - 1 : live.size();
        });
    });
}
