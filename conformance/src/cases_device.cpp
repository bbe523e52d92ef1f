// Device-only: on Atlas 350 only AICPU_TS threads (AICPU is the same engine) on
// the device side may call, and the product table decides where the call exists at all.
#include "case_kit.h"
#include "hcts/core/adapter.h"
#include "hcts/core/products.h"

namespace hcts::cases_device {
namespace {
StampKey key_for(uint32_t iteration, int sender) { return {4, iteration, static_cast<uint32_t>(sender)}; }

} // namespace

HCTS_CASE(DeviceOnly, HostSideCallRejected, clauses("WWN.DEV.1", "WWN.DEV.4"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Untouched region{8192, 4096};
    prepare_targets(c, 0, 1, {region}, region.len, key_for(1, 0));
    if (w.rank == 0) {
        // Called right here, on the host, with otherwise valid arguments.
        const int32_t rc = iut().api().HcommWriteWithNotifyOnThread(
            w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + region.off, w.outbox(), region.len, 9);
        ev().check("WWN.DEV.1", rc != HCCL_SUCCESS,
                   "a host-side call returned HCCL_SUCCESS; the seed allows the call only on the device");
        // The vendor's host path returns HCCL_E_NOT_SUPPORT, or HCCL_E_PTR for a thread
        // without a legacy stream (hcomm-api.md §9.4): both say "not here".
        ev().check("WWN.DEV.4", rc == HCCL_E_NOT_SUPPORT || rc == HCCL_E_PTR,
                   "a host-side call returned " + hccl_result_name(rc) + ", expected HCCL_E_NOT_SUPPORT or HCCL_E_PTR");
    }
    // Let anything the call might have queued run, then prove nothing landed.
    prove_no_effect(c, 0, 1, 0, 0, 10, {region}, {9}, "WWN.DEV.1");
}

// WWN.DEV.2 (STRICT): the seed supports the call "in AICPU_TS mode" and does not
// say other engines are refused. Threads of host engines (CPU, CPU_TS), and of AIV or
// CCU where such a thread can be acquired at all, are refused with no effect: the
// reference's choice.
HCTS_CASE(DeviceOnly, OnlyAicpuTsThreads, clauses("WWN.DEV.2"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    nlohmann::json seen = nlohmann::json::object();
    uint32_t k = 0;
    for (CommEngine e : {COMM_ENGINE_CPU, COMM_ENGINE_CPU_TS, COMM_ENGINE_AIV, COMM_ENGINE_CCU}) {
        const std::string engine(products::engine_name(e));
        HcclResult arc = HCCL_SUCCESS;
        const ThreadHandle t = w.fresh_thread(e, &arc);
        seen[engine] = {{"acquire", hccl_result_name(arc)}};
        if (!mpi::any_rank(t != 0, "other-engine thread"))
            continue; // no such thread exists: nothing can misuse it
        const Untouched region{8192 + k * 8192ULL, 4096};
        prepare_targets(c, 0, 1, {region}, region.len, key_for(k, 0));
        Script s;
        if (w.rank == 0 && t != 0)
            s.wwn(t, w.channel_to(1), w.remote_inbox(1, 0) + region.off, w.outbox(), region.len, 11);
        const LaunchResult r = c.run(s, 30000);
        if (w.rank == 0 && t != 0) {
            seen[engine]["wwn"] = hccl_result_name(s.rc(0));
            ev().check("WWN.DEV.2", s.rc(0) != HCCL_SUCCESS,
                       "a write with notify on a thread of engine " + engine +
                           " (not AICPU or AICPU_TS) returned HCCL_SUCCESS (" + r.describe() + ")");
        }
        prove_no_effect(c, 0, 1, 0, 0, 12, {region}, {11}, "WWN.DEV.2");
        ++k;
    }
    ev().observe("engines", seen);
}

namespace {

// One write with notify from rank 0 to rank 1 on `sender` over `to_peer`, waited for on
// rank 1 over `from_peer` by the world's thread, which copies dst right after the wait:
// accepted, notified and delivered (WWN.DEV.5), `what` naming the pairing.
void engine_pair_delivers(const Ctx &c, ThreadHandle sender, ChannelHandle to_peer, ChannelHandle from_peer,
                          uint32_t slot, const std::string &what)
{
    const World &w = c.w;
    const Device &dev = w.device();
    constexpr uint32_t kIdx = 13;
    const Untouched region{8192 + slot * 8192ULL, 4096};
    const StampKey key = key_for(100 + slot, 0);
    prepare_targets(c, 0, 1, {region}, region.len, key);
    std::byte *snap = w.scratch();
    Script s;
    if (w.rank == 0) {
        s.wwn(sender, to_peer, w.remote_inbox(1, 0) + region.off, w.outbox(), region.len, kIdx);
    } else if (w.rank == 1) {
        s.wait(w.thread(), from_peer, kIdx, w.ok_timeout());
        s.copy(w.thread(), snap, w.inbox(0) + region.off, region.len).only_if_previous_ok();
    }
    const LaunchResult r = c.run(s, 30000);
    if (w.rank == 0) {
        c.ev.check("WWN.DEV.5", s.rc(0) == HCCL_SUCCESS && r.ok(),
                   "a write with notify " + what + " returned " + hccl_result_name(s.rc(0)) +
                       "; AICPU and AICPU_TS are one engine to the vendor, expected HCCL_SUCCESS (" + r.describe() +
                       ")");
    } else if (w.rank == 1) {
        c.ev.check("WWN.DEV.5", s.rc(0) == HCCL_SUCCESS && r.ok(),
                   "the wait for a write with notify " + what + " returned " + hccl_result_name(s.rc(0)) + " (" +
                       r.describe() + ")");
        if (s.rc(0) == HCCL_SUCCESS && s.rc(1) == HCCL_SUCCESS) {
            const PayloadCheck at_wait = check_payload(dev.get(snap, region.len), key);
            c.ev.check("WWN.DEV.5", at_wait.ok(),
                       "a write with notify " + what + ": right after its wait dst showed " + describe(at_wait));
        }
    }
}

} // namespace

// WWN.DEV.5 (MUST): the vendor treats AICPU and AICPU_TS as one engine
// (HcclThreadAcquire maps AICPU_TS to AICPU, api §9.5) and its 950 custom-operator
// sample acquires channels on AICPU and drives them from AICPU_TS threads (§9.6).
// Both pairings deliver and notify: the world's AICPU_TS thread over channels both
// ranks acquired on AICPU (the sample's), and an AICPU thread over the world's
// AICPU_TS channel.
HCTS_CASE(DeviceOnly, AicpuAndAicpuTsAreOneEngine, clauses("WWN.DEV.5"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    nlohmann::json seen = nlohmann::json::object();
    if (w.setup_engine != COMM_ENGINE_AICPU_TS) {
        ev().unsupported("WWN.DEV.5", "the world's threads are not AICPU_TS (" +
                                          std::string(products::engine_name(w.setup_engine)) + ")");
        return;
    }
    // The sample's pairing: channels acquired on AICPU by both ranks.
    std::vector<HcclChannelDesc> descs(1);
    HcclChannelDescInit(descs.data(), 1);
    descs[0].remoteRank = static_cast<uint32_t>(1 - w.rank);
    descs[0].channelProtocol = w.protocol;
    descs[0].notifyNum = World::kNotifyNum;
    ChannelHandle aicpu_channel = 0;
    HcclResult crc = HCCL_E_INTERNAL;
    if (w.rank <= 1)
        crc = iut().api().HcclChannelAcquire(w.comm, COMM_ENGINE_AICPU, descs.data(), 1, &aicpu_channel);
    seen["AICPU channel"] = hccl_result_name(crc);
    if (!mpi::all_ranks(w.rank > 1 || (crc == HCCL_SUCCESS && aicpu_channel != 0), "AICPU channels acquired")) {
        if (w.rank <= 1)
            ev().check("WWN.DEV.5", crc == HCCL_SUCCESS,
                       "HcclChannelAcquire(COMM_ENGINE_AICPU, " + std::string(products::protocol_name(w.protocol)) +
                           ") returned " + hccl_result_name(crc) +
                           "; the vendor's 950 sample acquires its channels on AICPU");
    } else {
        engine_pair_delivers(c, w.thread(), aicpu_channel, aicpu_channel, 0,
                             "on an AICPU_TS thread over a channel acquired on AICPU");
    }
    // A library that keys channels by engine family hands back the world's own channel:
    // only a channel of its own is destroyed (the vendor may keep it, API.CHN.5: not judged).
    if (w.rank <= 1 && aicpu_channel != 0 && aicpu_channel != w.channel_to(1 - w.rank))
        (void)w.destroy_channels({aicpu_channel});
    // An AICPU thread over the world's AICPU_TS channel.
    HcclResult arc = HCCL_SUCCESS;
    const ThreadHandle t = w.fresh_thread(COMM_ENGINE_AICPU, &arc);
    seen["AICPU thread"] = hccl_result_name(arc);
    if (!mpi::any_rank(w.rank == 0 && t != 0, "AICPU thread on the sender")) {
        if (w.rank == 0)
            ev().check("WWN.DEV.5", false,
                       "HcclThreadAcquire(COMM_ENGINE_AICPU) returned " + hccl_result_name(arc) +
                           "; AICPU is the engine the vendor runs AICPU_TS threads on, so it must be acquirable");
    } else {
        engine_pair_delivers(c, t, w.channel_to(1), w.channel_to(0), 1,
                             "on an AICPU thread over a channel acquired on AICPU_TS");
    }
    ev().observe("engines", seen);
}

HCTS_CASE(DeviceOnly, ProductTableRow, clauses("WWN.DEV.3"), needs(Feature::ProductRow, Feature::NotifyWait))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const std::string product = adapter().product();
    ev().observe("product", product);
    const products::Product *row = products::Table::builtin().find(product);
    if (row == nullptr || !row->seed_row) {
        ev().check("WWN.DEV.3", false,
                   "the adapter reports product '" + product + "', not a row of the seed's table (" +
                       products::Table::builtin().names(true) + ")");
        return;
    }
    if (iut().api().HcommWriteWithNotifyOnThread == nullptr) {
        ev().case_not_supported("the IUT lacks HcommWriteWithNotifyOnThread");
        return;
    }
    if (row->write_with_notify) {
        std::vector<Xfer> plan{Xfer{0, 1, 4096, 0, 1000, 13, 0, 0, 0, key_for(99, 0)}};
        // Judged here by completion and data; the device-stream view is WWN.VIS.1's.
        const Exchange ex = exchange_checked(c, plan, {"", "WWN.DEV.3", "", ""});
        return;
    }
    // A product without the call: refused wherever it is made (non-zero, the
    // exact code observed), and nothing moves. On rows without AICPU_TS the
    // world's threads are host-side (CPU_TS): the call is judged on the device
    // and on the host, since neither side may make it on such a product.
    ev().observe("engine", std::string(products::engine_name(w.setup_engine)));
    const Untouched region{8192, 4096};
    prepare_targets(c, 0, 1, {region}, region.len, key_for(98, 0));
    Script s;
    if (w.rank == 0)
        s.wwn(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + region.off, w.outbox(), region.len, 13);
    const LaunchResult r = c.run(s, 30000);
    if (w.rank == 0) {
        const std::string engine(products::engine_name(w.setup_engine));
        ev().observe("device_rc", hccl_result_name(s.rc(0)));
        ev().check("WWN.DEV.3", s.rc(0) != HCCL_SUCCESS,
                   "product '" + product + "' has no write with notify, yet a device-side call on a " + engine +
                       " thread returned HCCL_SUCCESS (" + r.describe() + ")");
        const int32_t host_rc = iut().api().HcommWriteWithNotifyOnThread(
            w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + region.off, w.outbox(), region.len, 13);
        ev().observe("host_rc", hccl_result_name(host_rc));
        ev().check("WWN.DEV.3", host_rc != HCCL_SUCCESS,
                   "product '" + product + "' has no write with notify, yet a host-side call on a " + engine +
                       " thread returned HCCL_SUCCESS");
    }
    mpi::phase_barrier("product row: calls made");
    // Without the call there is no probe write: the region must simply be
    // untouched, and notify 13 clear where the adapter can tell.
    if (w.rank == 1) {
        const size_t bad = count_not_pattern(dev.get(w.inbox(0) + region.off, region.len), kPoisonWord);
        ev().check("WWN.DEV.3", bad == 0, std::to_string(bad) + " bytes of the destination changed");
        const auto set = dev.peek_notify(w.channel_to(0), 13);
        if (set)
            ev().check("WWN.DEV.3", !*set, "notify 13 is set although every call was refused (adapter peek)");
        else
            ev().unsupported("WWN.DEV.3", "cannot observe notify 13 on a product without write with notify: the "
                                          "adapter has no peek_notify");
    }
}

} // namespace hcts::cases_device
