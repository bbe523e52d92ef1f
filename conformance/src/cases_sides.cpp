// Which side and which product a call belongs to: the channel fence on 950
// (API.FEN.1), host-only calls made on the device (API.HST.1), the legacy-only
// drain and ACL notifies (API.ROW.1), device-only calls made on the host
// (API.CM.1), comm access by name (API.CM.2) and the AICPU task cache (API.TC.*).
#include "case_kit.h"
#include "hcts/core/adapter.h"
#include "hcts/core/products.h"

namespace hcts::cases_sides {
namespace {

constexpr uint64_t kLen = 4096;
constexpr uint32_t kLaunchMs = 30000;

std::string rc_name(const Script &s, size_t i) { return hccl_result_name(s.rc(i)); }

const products::Product *product_row(const Adapter &adapter)
{
    return products::Table::builtin().find(adapter.product());
}

} // namespace

// Rank 0: a plain write to d1, a channel fence, a write with notify to d2.
// Rank 1 waits for the notify and copies d1 at once: the fence completes the
// write before the write with notify, so d1 holds its payload.
HCTS_CASE(Ordering, ChannelFenceOrdersWrites, clauses("API.FEN.1"),
          needs(Feature::ChannelFence, Feature::Write, Feature::WriteWithNotify, Feature::NotifyWait,
                Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    constexpr uint32_t kIdx = 32;
    const StampKey k1{34, 1, 0}, k2{34, 2, 0};
    std::byte *snap = w.scratch();
    stage_write_pair(w, k1, k2, kLen, snap);
    mpi::phase_barrier("fence prepared");
    Script s;
    if (w.rank == 0) {
        const ChannelHandle ch = w.channel_to(1);
        s.write(w.thread(), ch, w.remote_inbox(1, 0), w.outbox(), kLen);
        s.fence(w.thread(), ch);
        s.wwn(w.thread(), ch, w.remote_inbox(1, 0) + 8192, w.outbox() + 8192, kLen, kIdx);
    } else if (w.rank == 1) {
        s.wait(w.thread(), w.channel_to(0), kIdx, w.ok_timeout());
        s.copy(w.thread(), snap, w.inbox(0), kLen).only_if_previous_ok();
    }
    const LaunchResult r = c.run(s, kLaunchMs);
    mpi::phase_barrier("fence done");
    if (w.rank == 0) {
        ev().check("API.FEN.1", s.rc(0) == 0 && s.rc(1) == 0 && s.rc(2) == 0 && r.ok(),
                   "write, HcommChannelFenceOnThread and write with notify returned " + rc_name(s, 0) + ", " +
                       rc_name(s, 1) + " and " + rc_name(s, 2) +
                       "; a 950 product supports the fence (api §7.5), "
                       "so all must be 0 (" +
                       r.describe() + ")");
    } else if (w.rank == 1) {
        if (s.rc(0) == 0 && s.rc(1) == HCCL_E_NOT_SUPPORT) {
            ev().unsupported("API.FEN.1", "the copy right after the wait was refused with HCCL_E_NOT_SUPPORT");
        } else if (s.rc(0) != 0 || s.rc(1) != 0) {
            ev().check("API.FEN.1", false,
                       "the wait for the write with notify behind the fence returned " + rc_name(s, 0) + ", the copy " +
                           rc_name(s, 1) + " (" + r.describe() + ")");
        } else {
            const PayloadCheck seen = check_payload(dev.get(snap, kLen), k1);
            ev().check("API.FEN.1", seen.ok(),
                       "the plain write before the fence was incomplete when the write with notify behind it was "
                       "waited for: " +
                           describe(seen));
        }
    }
}

// From a device program the calls of the host CPU engine and HcommFenceOnThread
// (host only) return HCCL_E_NOT_SUPPORT; the refused record raises nothing.
HCTS_CASE(DeviceOnly, HostOnlyCallsRefusedOnDevice, clauses("API.HST.1"),
          needs(Feature::HostOnlyCalls, Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    constexpr uint32_t kQuiet = 26;
    Script s;
    if (w.rank == 0) {
        const ChannelHandle ch = w.channel_to(1);
        s.fence_on_thread(w.thread());
        s.channel_fence(ch);
        s.channel_record(ch, kQuiet);
        s.channel_wait(ch, kQuiet + 1, w.short_timeout());
    }
    const LaunchResult r = c.run(s, kLaunchMs);
    if (w.rank == 0) {
        const char *names[] = {"HcommFenceOnThread", "HcommChannelFence", "HcommChannelNotifyRecord",
                               "HcommChannelNotifyWait"};
        for (size_t i = 0; i < std::size(names); ++i)
            ev().check("API.HST.1", s.rc(i) == HCCL_E_NOT_SUPPORT,
                       std::string(names[i]) + " in a device program returned " + rc_name(s, i) +
                           ", expected HCCL_E_NOT_SUPPORT (api §9.3: AICPU path) (" + r.describe() + ")");
    }
    check_quiet(c, 0, 1, 0, 0, {kQuiet}, "API.HST.1");
}

// HcommChannelDrainOnThread and the ACL notifies exist on A2/A3, not on 950.
HCTS_CASE(DeviceOnly, DrainAndAclNotifiesFollowProductRow, clauses("API.ROW.1"),
          needs(Feature::Drain, Feature::AclrtNotify))
{
    const Ctx c = ctx();
    const World &w = c.w;
    if (w.rank == 0) {
        const products::Product *row = product_row(adapter());
        const uint64_t id = 0x48435453'00000000ULL + static_cast<uint64_t>(w.rank);
        Script s;
        s.drain(w.thread(), w.channel_to(1));
        s.aclrt_record(w.thread(), id);
        s.aclrt_wait(w.thread(), id, w.short_timeout());
        const char *names[] = {"HcommChannelDrainOnThread", "HcommAclrtNotifyRecordOnThread",
                               "HcommAclrtNotifyWaitOnThread"};
        if (row == nullptr) {
            ev().error("API.ROW.1", "the adapter's product '" + adapter().product() + "' is not in the table");
        } else if (row->generation == products::Generation::Ascend950) {
            const LaunchResult r = c.run(s, kLaunchMs);
            for (size_t i = 0; i < std::size(names); ++i)
                ev().check("API.ROW.1", s.rc(i) != 0,
                           std::string(names[i]) + " returned " + rc_name(s, i) + " on '" + row->name +
                               "'; a 950 product does not support it (api §8), expected non-zero (" + r.describe() +
                               ")");
        } else if (w.setup_engine != COMM_ENGINE_AICPU_TS) {
            ev().unsupported("API.ROW.1", "the world's threads on '" + row->name + "' are " +
                                              std::string(products::engine_name(w.setup_engine)) +
                                              " (host side); the device scripts cannot use them");
        } else {
            const LaunchResult r = c.run(s, kLaunchMs);
            // Drain is documented for RoCE channels only.
            for (size_t i = w.protocol == COMM_PROTOCOL_ROCE ? 0 : 1; i < std::size(names); ++i)
                ev().check("API.ROW.1", s.rc(i) == 0 && r.ok(),
                           std::string(names[i]) + " returned " + rc_name(s, i) + " on '" + row->name +
                               "', which supports it (api §8); expected 0 and a clean launch (" + r.describe() + ")");
        }
    }
    mpi::phase_barrier("drain and ACL notifies");
}

// The task cache and comm access exist on the device side only (the vendor's
// pages: "only in AI CPU mode, on the device side"): from the host they fail.
HCTS_CASE(DeviceOnly, DeviceOnlyCallsRefusedOnHost, clauses("API.CM.1"), needs(Feature::TaskCache, Feature::CommAccess))
{
    const World &w = world();
    if (w.rank == 0) {
        const HcommApi &api = iut().api();
        const char *tag = "hcts-host-tag";
        bool hit = false;
        const struct {
            const char *what;
            int32_t rc;
        } calls[] = {
            {"HcommAicpuTsTaskCacheLookup", api.HcommAicpuTsTaskCacheLookup(tag, &hit)},
            {"HcommAicpuTsTaskCacheStart", api.HcommAicpuTsTaskCacheStart(tag, nullptr, nullptr, 0)},
            {"HcommAicpuTsTaskCacheEnd", api.HcommAicpuTsTaskCacheEnd(tag)},
            {"HcommAicpuTsTaskCacheExecute", api.HcommAicpuTsTaskCacheExecute(tag, nullptr, nullptr, 0)},
            {"HcommAicpuTsTaskCacheClear", api.HcommAicpuTsTaskCacheClear(tag)},
            {"HcommAcquireComm", api.HcommAcquireComm("hcts-host-comm")},
            {"HcommReleaseComm", api.HcommReleaseComm("hcts-host-comm")},
        };
        for (const auto &call : calls)
            ev().check("API.CM.1", call.rc != 0,
                       std::string(call.what) + " from the host returned " + hccl_result_name(call.rc) +
                           "; it is a device-side call, expected non-zero (the reference: HCCL_E_NOT_SUPPORT)");
    }
    mpi::phase_barrier("device-only calls on the host");
}

// In a device program a comm name that names no comm, and NULL, are refused.
HCTS_CASE(DeviceOnly, UnknownCommNameRefused, clauses("API.CM.2"), needs(Feature::CommAccess))
{
    const Ctx c = ctx();
    if (c.w.rank == 0) {
        Script s;
        s.acquire_comm("hcts-no-such-comm");
        s.release_comm("hcts-no-such-comm");
        s.acquire_comm(std::nullopt);
        s.release_comm(std::nullopt);
        const struct {
            const char *what;
            int32_t code;
        } rows[] = {{"HcommAcquireComm(\"hcts-no-such-comm\")", HCCL_E_NOT_FOUND},
                    {"HcommReleaseComm(\"hcts-no-such-comm\")", HCCL_E_NOT_FOUND},
                    {"HcommAcquireComm(NULL)", HCCL_E_PTR},
                    {"HcommReleaseComm(NULL)", HCCL_E_PTR}};
        const LaunchResult r = c.run(s, kLaunchMs);
        for (size_t i = 0; i < std::size(rows); ++i)
            ev().check("API.CM.2", s.rc(i) == rows[i].code,
                       std::string(rows[i].what) + " in a device program returned " + rc_name(s, i) + ", expected " +
                           hccl_result_name(rows[i].code) + " (" + r.describe() + ")");
    }
    mpi::phase_barrier("unknown comm names");
}

// A lookup of a tag never cached: a miss (0, isHit false) or no task cache here.
HCTS_CASE(Profiles, TaskCacheLookupOfUnknownTag, clauses("API.TC.1"), needs(Feature::TaskCache))
{
    const Ctx c = ctx();
    if (c.w.rank == 0) {
        Script s;
        s.tc_lookup("hcts-never-cached");
        const LaunchResult r = c.run(s, kLaunchMs);
        const int32_t rc = s.rc(0);
        const std::string observed = rc == 0                    ? (s.is_hit(0) ? "hit" : "miss")
                                     : rc == HCCL_E_NOT_SUPPORT ? "not-supported"
                                                                : "refused-" + hccl_result_name(rc);
        ev().profile("API.TC.1", observed,
                     "HcommAicpuTsTaskCacheLookup of a tag never cached returned " + hccl_result_name(rc) + " (" +
                         r.describe() + ")");
    }
    mpi::phase_barrier("task cache lookup");
}

HCTS_CASE(Errors, TaskCacheNullArguments, clauses("API.TC.2"), needs(Feature::TaskCache))
{
    const Ctx c = ctx();
    if (c.w.rank == 0) {
        Script s;
        s.tc_lookup(std::nullopt);
        s.tc_lookup("hcts-tag", false);
        s.tc_start(std::nullopt);
        s.tc_end(std::nullopt);
        s.tc_execute(std::nullopt);
        s.tc_clear(std::nullopt);
        const char *what[] = {"Lookup(tag NULL)", "Lookup(isHit NULL)", "Start(tag NULL)",
                              "End(tag NULL)",    "Execute(tag NULL)",  "Clear(tag NULL)"};
        const LaunchResult r = c.run(s, kLaunchMs);
        for (size_t i = 0; i < std::size(what); ++i)
            ev().check("API.TC.2", s.rc(i) == HCCL_E_PTR,
                       std::string("HcommAicpuTsTaskCache") + what[i] + " in a device program returned " +
                           rc_name(s, i) + ", expected HCCL_E_PTR (" + r.describe() + ")");
    }
    mpi::phase_barrier("task cache null arguments");
}

} // namespace hcts::cases_sides
