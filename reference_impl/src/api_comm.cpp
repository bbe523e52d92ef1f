// Communicator life cycle: root info, init, destroy, rank queries.
#include <sys/stat.h>

#include <hcts/mutant.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "acl_binding.h"
#include "api_util.h"
#include "hccl/hccl_comm.h"
#include "mem_probe.h"

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

// HcclCommInitClusterInfo.md: the path is at most 4096 bytes with its NUL.
constexpr size_t kClusterInfoMaxLen = 4095;

// What the rank-table file at `path` is, as far as it matters to its reader: missing or
// unreadable (with why), not a rank table, or how many ranks it lists and whether `rank`
// is one of them. Reads at most 1 MiB; counts "rank_id" entries, no full JSON parse.
std::string describe_rank_table(const char *path, uint32_t rank)
{
    struct stat st {};
    if (::stat(path, &st) != 0)
        return std::string("cannot be opened (") + std::strerror(errno) + ")";
    if (!S_ISREG(st.st_mode))
        return "is not a regular file"; // a FIFO would block the read
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return "cannot be opened";
    std::string text(1 << 20, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    if (in.bad())
        return "cannot be read";
    const std::string key = "\"rank_id\"";
    size_t ranks = 0;
    bool listed = false;
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + key.size())) {
        ++ranks;
        size_t v = text.find_first_not_of(" \t\r\n:\"", at + key.size());
        if (v == std::string::npos)
            continue;
        const size_t e = text.find_first_not_of("0123456789", v);
        if (e != v && text.substr(v, e - v) == std::to_string(rank))
            listed = true;
    }
    if (ranks == 0)
        return "lists no \"rank_id\" (not a rank table)";
    return "lists " + std::to_string(ranks) + " rank(s), " +
           (listed ? "this rank among them" : "but not rank " + std::to_string(rank));
}

// HcclCommInitAll makes one communicator per device of one server; the bound only keeps
// a hostile ndev from starting that many threads (the vendor's servers hold 8 or 16).
constexpr uint32_t kMaxInitAllDevices = 1024;

// Rank `rank` of the job at `root`, registered in `out`.
HcclResult init_rank(uint32_t n_ranks, const RootInfoWire &root, uint32_t rank, HcclComm &out)
{
    std::unique_ptr<Comm> created;
    if (const HcclResult rc = Comm::create(n_ranks, root, rank, created); rc != HCCL_SUCCESS)
        return rc;
    // Owned by the registry until HcclCommDestroy; released only once registered, so a
    // registration that cannot allocate frees it (reference_fault_inject found the leak).
    out = registry::add_comm(created.get());
    created.release();
    return HCCL_SUCCESS;
}

// Why HcclCommInitAll's device list is refused, "" when it is not: a negative id, one
// beyond the ACL runtime's devices (when the process has it), or one listed twice
// (HcclCommInitAll.md: "cannot contain duplicate device IDs").
std::string bad_device_list(std::span<const int32_t> devices)
{
    // Mutant: duplicates pass, and two communicators claim one device.
    const bool check_duplicates = !hcts::mutant("ref_init_all_duplicates_accepted");
    const std::optional<uint32_t> count = acl_device_count();
    for (size_t i = 0; i < devices.size(); ++i) {
        const int32_t d = devices[i];
        if (d < 0 || (count && static_cast<uint32_t>(d) >= *count))
            return "devices[" + std::to_string(i) + "] = " + std::to_string(d) + " is not a device id: " +
                   (count ? "the process has devices 0.." + std::to_string(*count - 1) : std::string("ids are >= 0"));
        for (size_t j = 0; check_duplicates && j < i; ++j)
            if (devices[j] == d)
                return "devices[" + std::to_string(j) + "] and devices[" + std::to_string(i) + "] are both device " +
                       std::to_string(d) + ": the list must not repeat a device";
    }
    return "";
}

// One job of `ndev` ranks in this process, each rank joined on a thread of its own (the
// rendezvous needs them all at once); `made[i]` is rank i. On any failure every comm
// made is destroyed and the first failure returned.
HcclResult init_all(uint32_t ndev, std::vector<HcclComm> &made)
{
    HcclRootInfo info{};
    if (const HcclResult rc = create_root_info(info); rc != HCCL_SUCCESS)
        return rc;
    const std::optional<RootInfoWire> root = parse_root_info(info);
    if (!root)
        return HCCL_E_INTERNAL;
    std::vector<HcclComm> comms(ndev, nullptr);
    std::vector<HcclResult> rcs(ndev, HCCL_E_INTERNAL);
    std::vector<std::thread> joiners;
    joiners.reserve(ndev);
    try {
        for (uint32_t r = 0; r < ndev; ++r)
            joiners.emplace_back([&, r]() noexcept {
                try {
                    rcs[r] = init_rank(ndev, *root, r, comms[r]);
                } catch (...) {
                    rcs[r] = exception_to_code("HcclCommInitAll");
                }
                if (rcs[r] != HCCL_SUCCESS)
                    end_root_service(root->token); // the ranks still joining fail now
            });
    } catch (...) {
        // No thread for rank joiners.size(): its std::thread could not allocate or start.
        (void)exception_to_code("HcclCommInitAll");
        end_root_service(root->token);
    }
    for (std::thread &t : joiners)
        t.join();
    HcclResult first = joiners.size() < ndev ? HCCL_E_INTERNAL : HCCL_SUCCESS;
    for (uint32_t r = 0; r < ndev && first == HCCL_SUCCESS; ++r)
        first = rcs[r];
    if (first != HCCL_SUCCESS) {
        for (HcclComm c : comms)
            if (c != nullptr)
                (void)HcclCommDestroy(c);
        return first;
    }
    made = std::move(comms);
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
        if (const HcclResult rc = init_rank(nRanks, *root, rank, *comm); rc != HCCL_SUCCESS)
            return rc;
        offer_to_acl_device(*comm);
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms)
{
    return guarded("HcclCommInitAll", [&]() -> HcclResult {
        const char *api = "HcclCommInitAll";
        if (devices == nullptr || comms == nullptr)
            return refuse(nullptr, api, HCCL_E_PTR, devices == nullptr ? "devices" : "comms", " is NULL");
        if (ndev == 0 || ndev > kMaxInitAllDevices)
            return refuse(nullptr, api, HCCL_E_PARA, "ndev ", ndev, " must be in [1, ", kMaxInitAllDevices, "]");
        // Mutant (legal: no document pins the code or the array's fate): the vendor's VM
        // shape, which clears comms first and fails a bad list with HCCL_E_INTERNAL.
        const bool vendor_refusals = hcts::mutant("ref_init_all_vendor_refusals");
        if (vendor_refusals)
            std::fill_n(comms, ndev, nullptr);
        if (const std::string why = bad_device_list(std::span<const int32_t>(devices, ndev)); !why.empty())
            return refuse(nullptr, api, vendor_refusals ? HCCL_E_INTERNAL : HCCL_E_PARA, why);
        std::vector<HcclComm> made;
        if (const HcclResult rc = init_all(ndev, made); rc != HCCL_SUCCESS)
            return rc;
        // Mutant: the communicators come back in reverse: comms[i] is rank ndev-1-i.
        if (hcts::mutant("ref_init_all_ranks_reversed"))
            std::reverse(made.begin(), made.end());
        // Written only now: a refused or failed call leaves the caller's array as it was.
        for (uint32_t i = 0; i < ndev; ++i) {
            comms[i] = made[i];
            offer_to_acl_device(made[i], devices[i]);
        }
        return HCCL_SUCCESS;
    });
}

HCOMM_EXPORT HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm)
{
    return guarded("HcclCommInitClusterInfo", [&]() -> HcclResult {
        const char *api = "HcclCommInitClusterInfo";
        if (clusterInfo == nullptr || comm == nullptr) {
            return refuse(nullptr, api, HCCL_E_PTR, clusterInfo == nullptr ? "clusterInfo" : "comm", " is NULL");
        }
        // The vendor bounds the path at 4096 bytes with its NUL (HcclCommInitClusterInfo.md).
        const std::optional<size_t> len = readable_strnlen(clusterInfo, kClusterInfoMaxLen);
        if (!len || *len == 0 || *len > kClusterInfoMaxLen) {
            return refuse(nullptr, api, HCCL_E_PARA, "rank ", rank, ": clusterInfo ",
                          !len        ? "is not readable memory"
                          : *len == 0 ? "is empty"
                                      : "is longer than 4095 characters",
                          "; it must be the path of a rank-table file, at most 4096 bytes with its NUL");
        }
        // Mutant: the path is not opened until first use, so any path is accepted.
        if (hcts::mutant("ref_cluster_info_path_unchecked"))
            return HCCL_SUCCESS;
        // Said as a warning, not only as an info-level refusal: a program written for the
        // device stops here, and its author needs the reason and the way out.
        HREF_LOG_WARN(-1, api, ": rank ", rank, ": refused (HCCL_E_NOT_SUPPORT): the rank table '", clusterInfo, "' ",
                      describe_rank_table(clusterInfo, rank),
                      "; the reference cannot create a communicator from a rank table: it names the ranks' devices and "
                      "device IPs, but no bootstrap endpoint or job token its ranks could meet at. Create the "
                      "communicator with HcclGetRootInfo on one rank and HcclCommInitRootInfo on every rank (the root "
                      "info passed over MPI, or shared by the threads of one process)");
        return refuse(nullptr, api, HCCL_E_NOT_SUPPORT, "rank ", rank,
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
