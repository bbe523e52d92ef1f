// Device-only: on Atlas 350 only AICPU_TS threads on the device side may call.
#include "adapter.h"
#include "harness.h"
#include "mpi_glue.h"

namespace hcts {
namespace {
StampKey key_for(uint32_t iteration, int sender) { return {4, iteration, static_cast<uint32_t>(sender)}; }
}

HCTS_CASE(DeviceOnly, HostSideCallRejected, "WWN.DEV.1", "WWN.DEV.4")
{
    HCTS_REQUIRE_WWN();
    World &w = World::get();
    const Untouched region{8192, 4096};
    if (w.rank == 1)
        w.poison(w.inbox(0) + region.off, region.len);
    ranks::barrier();
    if (w.rank == 0) {
        std::vector<std::byte> src(region.len);
        fill_payload(src, key_for(1, 0));
        w.put(w.outbox(), src);
        // Called right here, on the host, with otherwise valid arguments.
        const int32_t rc = Iut::get().api().HcommWriteWithNotifyOnThread(
            w.thread(), w.peers[1].channel, w.remote_inbox(1, 0) + region.off, w.outbox(), region.len, 9);
        Case::current().expect("WWN.DEV.1", rc != HCCL_SUCCESS,
                               "a host-side call returned HCCL_SUCCESS; the seed allows the call only on the device");
        Case::current().expect("WWN.DEV.4", rc == HCCL_E_NOT_SUPPORT,
                               std::string("a host-side call returned ") + hccl_result_name(rc) +
                                   ", expected HCCL_E_NOT_SUPPORT");
    }
    // Let anything the call might have queued run, then prove nothing landed.
    prove_no_effect(0, 1, 0, 0, 10, {region}, {9}, "WWN.DEV.1");
}

HCTS_CASE(DeviceOnly, OnlyAicpuTsThreads, "WWN.DEV.2")
{
    HCTS_REQUIRE_WWN();
    World &w = World::get();
    Case &c = Case::current();
    nlohmann::json seen = nlohmann::json::object();
    uint32_t k = 0;
    for (CommEngine e : {COMM_ENGINE_CPU, COMM_ENGINE_CPU_TS, COMM_ENGINE_AICPU, COMM_ENGINE_AIV, COMM_ENGINE_CCU}) {
        HcclResult arc = HCCL_SUCCESS;
        const ThreadHandle t = w.fresh_thread(e, &arc);
        const bool any = ranks::any(t != 0);
        seen[std::to_string(static_cast<int>(e))] = {{"acquire", hccl_result_name(arc)}};
        if (!any)
            continue; // no such thread exists on this product: nothing can misuse it
        const Untouched region{8192 + k * 8192ULL, 4096};
        if (w.rank == 1)
            w.poison(w.inbox(0) + region.off, region.len);
        ranks::barrier();
        Script s;
        if (w.rank == 0 && t != 0) {
            std::vector<std::byte> src(region.len);
            fill_payload(src, key_for(k, 0));
            w.put(w.outbox(), src);
            s.wwn(t, w.peers[1].channel, w.remote_inbox(1, 0) + region.off, w.outbox(), region.len, 11);
        }
        const LaunchResult r = w.run(s, 30000);
        if (w.rank == 0 && t != 0) {
            seen[std::to_string(static_cast<int>(e))]["wwn"] = hccl_result_name(s.rc(0));
            c.expect("WWN.DEV.2", s.rc(0) != HCCL_SUCCESS,
                     "a write with notify on a thread of engine " + std::to_string(static_cast<int>(e)) +
                         " (not AICPU_TS) returned HCCL_SUCCESS (" + r.describe() + ")");
        }
        prove_no_effect(0, 1, 0, 0, 12, {region}, {11}, "WWN.DEV.2");
        ++k;
    }
    c.observe("other_engines", seen);
}

HCTS_CASE(DeviceOnly, ProductTableRow, "WWN.DEV.3")
{
    World &w = World::get();
    Case &c = Case::current();
    const std::string product = Adapter::get().product();
    c.observe("product", product);
    if (!Iut::get().has("HcommWriteWithNotifyOnThread"))
        HCTS_NOT_SUPPORTED("the IUT lacks HcommWriteWithNotifyOnThread");
    static const char *const kRows[] = {"atlas350", "a3", "a2", "atlas200i_500_a2", "inference", "training"};
    bool known = false;
    for (const char *row : kRows)
        known = known || product == row;
    if (!known) {
        c.fail("WWN.DEV.3", "the adapter reports product '" + product +
                                "', not a row of the seed's table (atlas350, a3, a2, atlas200i_500_a2, inference, training)");
        return;
    }
    if (product_has_wwn(product)) {
        std::vector<Xfer> plan{Xfer{0, 1, 4096, 0, 1000, 13, 0, 0, 0, key_for(99, 0)}};
        const Exchange ex = run_exchange(plan);
        check_exchange(plan, ex, {"", "WWN.DEV.3", "", ""});
        return;
    }
    // A product without the call: refused with HCCL_E_NOT_SUPPORT wherever it is
    // made (seed product table), and nothing moves. On rows without AICPU_TS the
    // world's threads are host-side (CPU_TS): the call is judged on the device and
    // on the host, since neither side may make it on such a product.
    c.observe("engine", static_cast<int>(w.setup_engine));
    const Untouched region{8192, 4096};
    if (w.rank == 1)
        w.poison(w.inbox(0) + region.off, region.len);
    if (w.rank == 0) {
        std::vector<std::byte> src(region.len);
        fill_payload(src, key_for(98, 0));
        w.put(w.outbox(), src);
    }
    ranks::barrier();
    Script s;
    if (w.rank == 0)
        s.wwn(w.thread(), w.peers[1].channel, w.remote_inbox(1, 0) + region.off, w.outbox(), region.len, 13);
    const LaunchResult r = w.run(s, 30000);
    if (w.rank == 0) {
        const std::string engine = w.setup_engine == COMM_ENGINE_AICPU_TS ? "AICPU_TS" : "CPU_TS";
        c.expect("WWN.DEV.3", s.rc(0) == HCCL_E_NOT_SUPPORT,
                 "product '" + product + "' has no write with notify, yet a device-side call on a " + engine +
                     " thread returned " + hccl_result_name(s.rc(0)) + " (expected HCCL_E_NOT_SUPPORT; " +
                     r.describe() + ")");
        const int32_t host_rc = Iut::get().api().HcommWriteWithNotifyOnThread(
            w.thread(), w.peers[1].channel, w.remote_inbox(1, 0) + region.off, w.outbox(), region.len, 13);
        c.expect("WWN.DEV.3", host_rc == HCCL_E_NOT_SUPPORT,
                 "product '" + product + "' has no write with notify, yet a host-side call on a " + engine +
                     " thread returned " + hccl_result_name(host_rc) + " (expected HCCL_E_NOT_SUPPORT)");
    }
    ranks::barrier();
    // Without the call there is no probe write; the region must simply be
    // untouched and notify 13 clear (checked where the adapter can peek).
    if (w.rank == 1) {
        const size_t bad = count_not_pattern(w.get(w.inbox(0) + region.off, region.len), kPoisonWord);
        c.expect("WWN.DEV.3", bad == 0, std::to_string(bad) + " bytes of the destination changed");
        const int peek = Adapter::get().peek_notify(w.comm, w.peers[0].channel, 13);
        c.observe("notify_peek", peek);
        c.expect("WWN.DEV.3", peek != 1, "notify 13 is set although every call was refused");
    }
}

} // namespace hcts
