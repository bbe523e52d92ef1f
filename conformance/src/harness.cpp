#include "harness.h"

#include <cinttypes>
#include <cstdio>
#include <stdexcept>

#include "adapter.h"
#include "mpi_glue.h"

namespace hcts {

namespace {
constexpr uint64_t align64(uint64_t v) { return (v + 63) & ~uint64_t{63}; }
} // namespace

std::string hex(uint64_t v)
{
    char b[24];
    std::snprintf(b, sizeof b, "0x%" PRIx64, v);
    return b;
}

bool product_has_wwn(const std::string &product) { return product == "atlas350"; }

bool wwn_usable(std::string &why)
{
    const Iut &iut = Iut::get();
    for (const char *s : {"HcommWriteWithNotifyOnThread", "HcommChannelNotifyWaitOnThread"})
        if (!iut.has(s)) {
            why = std::string("the IUT lacks ") + s;
            return false;
        }
    const std::string product = Adapter::get().product();
    if (!product_has_wwn(product)) {
        why = "product '" + product + "' has no HcommWriteWithNotifyOnThread (seed product table)";
        return false;
    }
    return true;
}

Exchange run_exchange(const std::vector<Xfer> &plan)
{
    World &w = World::get();
    const bool can_copy = Iut::get().api().HcommLocalCopyOnThread != nullptr;
    std::vector<uint64_t> snap_off(plan.size(), UINT64_MAX);
    uint64_t cursor = 0;
    for (size_t i = 0; i < plan.size(); ++i) {
        const Xfer &x = plan[i];
        if (x.dst_off < World::kGuard || x.dst_off + x.len + World::kGuard > w.layout.lane_size)
            throw std::invalid_argument("transfer " + std::to_string(i) + ": dst offset " + std::to_string(x.dst_off) +
                                        " + len " + std::to_string(x.len) + " does not fit the inbox lane (" +
                                        std::to_string(w.layout.lane_size) + " bytes) with 64-byte guards");
        if (x.src_off + x.len > w.layout.outbox_size())
            throw std::invalid_argument("transfer " + std::to_string(i) + ": source does not fit the outbox");
        if (x.receiver == w.rank && x.snapshot && x.wait && can_copy && cursor + x.len <= w.layout.scratch_size()) {
            snap_off[i] = cursor;
            cursor = align64(cursor + x.len);
        }
    }
    // Prepare what this rank owns.
    for (const Xfer &x : plan) {
        if (x.receiver == w.rank) {
            std::byte *dst = w.inbox(x.sender) + x.dst_off;
            if (x.poison_dst)
                w.poison(dst, x.len);
            std::vector<std::byte> g(World::kGuard);
            fill_pattern(g, kGuardWord);
            w.put(dst - World::kGuard, g);
            w.put(dst + x.len, g);
        }
        if (x.sender == w.rank) {
            std::vector<std::byte> p(x.len);
            fill_payload(p, x.key);
            w.put(w.outbox() + x.src_off, p);
        }
    }
    ranks::barrier();
    Script s;
    std::vector<int> send_op(plan.size(), -1), wait_op(plan.size(), -1), copy_op(plan.size(), -1);
    for (size_t i = 0; i < plan.size(); ++i) {
        const Xfer &x = plan[i];
        if (x.sender != w.rank)
            continue;
        const ChannelHandle ch = x.send_ch != 0 ? x.send_ch : w.peers.at(static_cast<size_t>(x.receiver)).channel;
        send_op[i] = static_cast<int>(s.size());
        s.wwn(w.threads.at(static_cast<size_t>(x.thread)), ch, w.remote_inbox(x.receiver, x.sender) + x.dst_off,
              w.outbox() + x.src_off, x.len, x.idx);
    }
    for (size_t i = 0; i < plan.size(); ++i) {
        const Xfer &x = plan[i];
        if (x.receiver != w.rank || !x.wait)
            continue;
        const ChannelHandle ch = x.recv_ch != 0 ? x.recv_ch : w.peers.at(static_cast<size_t>(x.sender)).channel;
        wait_op[i] = static_cast<int>(s.size());
        s.wait(w.threads.at(1), ch, x.idx, w.ok_timeout());
        if (snap_off[i] != UINT64_MAX) {
            copy_op[i] = static_cast<int>(s.size());
            s.copy(w.threads.at(1), w.scratch() + snap_off[i], w.inbox(x.sender) + x.dst_off, x.len);
        }
    }
    Exchange ex;
    ex.launch = w.run(s);
    ranks::barrier();
    ex.x.resize(plan.size());
    for (size_t i = 0; i < plan.size(); ++i) {
        const Xfer &x = plan[i];
        XferResult &r = ex.x[i];
        if (send_op[i] >= 0) {
            r.wwn_rc = s.rc(static_cast<size_t>(send_op[i]));
            std::vector<std::byte> want(x.len);
            fill_payload(want, x.key);
            const auto got = w.get(w.outbox() + x.src_off, x.len);
            size_t first = 0;
            r.src_bad = 0;
            for (size_t b = 0; b < x.len; ++b)
                if (got[b] != want[b] && r.src_bad++ == 0)
                    first = b;
            (void)first;
        }
        if (x.receiver == w.rank) {
            if (wait_op[i] >= 0)
                r.wait_rc = s.rc(static_cast<size_t>(wait_op[i]));
            const std::byte *dst = w.inbox(x.sender) + x.dst_off;
            r.host = check_payload(w.get(dst, x.len), x.key, "dst (host read)");
            if (copy_op[i] >= 0) {
                r.copy_rc = s.rc(static_cast<size_t>(copy_op[i]));
                r.have_snapshot = r.copy_rc == 0;
                if (r.have_snapshot)
                    r.snap = check_payload(w.get(w.scratch() + snap_off[i], x.len), x.key,
                                           "dst (device-stream read right after the wait)");
            }
            size_t first = 0;
            const size_t before = count_not_pattern(w.get(dst - World::kGuard, World::kGuard), kGuardWord, &first);
            if (before != 0)
                r.guard_detail = std::to_string(before) + " bytes changed before dst, first at dst-" +
                                 std::to_string(World::kGuard - first);
            const size_t after = count_not_pattern(w.get(dst + x.len, World::kGuard), kGuardWord, &first);
            if (after != 0 && r.guard_detail.empty())
                r.guard_detail = std::to_string(after) + " bytes changed after dst+len, first at dst+len+" +
                                 std::to_string(first);
            r.guard_bad = before + after;
        }
    }
    return ex;
}

void check_exchange(const std::vector<Xfer> &plan, const Exchange &ex, const StdClauses &cl)
{
    World &w = World::get();
    Case &c = Case::current();
    bool launch_reported = false;
    for (size_t i = 0; i < plan.size(); ++i) {
        const Xfer &x = plan[i];
        const XferResult &r = ex.x[i];
        const std::string what = "write " + std::to_string(i) + " (len " + std::to_string(x.len) + ", idx " +
                                 std::to_string(x.idx) + ", rank " + std::to_string(x.sender) + "->" +
                                 std::to_string(x.receiver) + ")";
        if (x.sender == w.rank) {
            if (!cl.visible.empty())
                c.expect(cl.visible, r.wwn_rc == 0, what + " returned " + hccl_result_name(r.wwn_rc));
            if (!cl.source.empty())
                c.expect(cl.source, r.src_bad == 0, what + " changed " + std::to_string(r.src_bad) + " source bytes");
        }
        if (x.receiver != w.rank)
            continue;
        if (!cl.visible.empty()) {
            if (!ex.launch_ok() && !launch_reported) {
                c.fail(cl.visible, "receiver's program did not complete: " + ex.launch.describe());
                launch_reported = true;
            }
            if (x.wait)
                c.expect(cl.visible, r.wait_rc == 0, what + ": the wait returned " + hccl_result_name(r.wait_rc));
            c.expect(cl.visible, r.host.ok(), what + ", after every program completed: " + r.host.first_bad);
        }
        if (!cl.at_wait.empty() && r.have_snapshot)
            c.expect(cl.at_wait, r.snap.ok(), what + ": " + r.snap.first_bad);
        if (!cl.guards.empty())
            c.expect(cl.guards, r.guard_bad == 0, what + ": " + r.guard_detail);
    }
}

bool notify_is_set(ChannelHandle channel, uint32_t idx, std::string &how)
{
    World &w = World::get();
    const int peek = Adapter::get().peek_notify(w.comm, channel, idx);
    if (peek >= 0) {
        how = "adapter peek";
        return peek == 1;
    }
    how = "short wait on a fresh thread";
    const ThreadHandle t = w.fresh_thread(COMM_ENGINE_AICPU_TS);
    if (t == 0)
        return false;
    Script s;
    s.wait(t, channel, idx, w.short_timeout());
    const LaunchResult r = w.run(s, 30000);
    return r.ok() && s.rc(0) == 0;
}

void prove_no_effect(int sender, int receiver, ChannelHandle send_ch, ChannelHandle recv_ch, uint32_t probe_idx,
                     const std::vector<Untouched> &untouched, const std::vector<uint32_t> &quiet,
                     const std::string &clause)
{
    World &w = World::get();
    Case &c = Case::current();
    const uint64_t probe_off = w.layout.lane_size - 4096;
    const uint64_t probe_src = w.layout.outbox_size() - 4096;
    const StampKey key{7, 1, static_cast<uint32_t>(sender)};
    std::vector<Xfer> plan(1);
    plan[0] = Xfer{sender, receiver, probe_off, probe_src, 64, probe_idx, 0, send_ch, recv_ch, key};
    const Exchange ex = run_exchange(plan);
    if (w.rank == sender && ex.x[0].wwn_rc != 0)
        c.fail(clause, "the probe write (a valid call after the rejected ones) returned " +
                           std::string(hccl_result_name(ex.x[0].wwn_rc)) + "; cannot prove the rejected calls had no effect");
    if (w.rank != receiver)
        return;
    if (!ex.launch_ok() || !ex.x[0].host.ok()) {
        c.fail(clause, "the probe write after the rejected calls did not arrive (" + ex.launch.describe() +
                           "); cannot prove they had no effect");
        return;
    }
    for (const Untouched &u : untouched) {
        size_t first = 0;
        const size_t bad = count_not_pattern(w.get(w.inbox(sender) + u.off, u.len), kPoisonWord, &first);
        c.expect(clause, bad == 0,
                 std::to_string(bad) + " bytes of a rejected call's destination changed (first at +" +
                     std::to_string(first) + " of the " + std::to_string(u.len) + "-byte region)");
    }
    const ChannelHandle ch = recv_ch != 0 ? recv_ch : w.peers.at(static_cast<size_t>(sender)).channel;
    for (uint32_t q : quiet) {
        std::string how;
        c.expect(clause, !notify_is_set(ch, q, how),
                 "notify " + std::to_string(q) + " is set after only rejected calls targeted it (" + how + ")");
    }
}

nlohmann::json litmus_entry(const std::string &id, const std::string &shape, const std::string &case_name,
                            const std::map<std::string, uint64_t> &outcomes, const std::vector<std::string> &forbidden)
{
    uint64_t total = 0, bad = 0;
    for (const auto &[k, v] : outcomes) {
        total += v;
        for (const auto &f : forbidden)
            if (f == k)
                bad += v;
    }
    const std::string observation = bad == 0 ? "never" : bad == total ? "always" : "sometimes";
    char bound[96];
    if (bad == 0 && total > 0)
        std::snprintf(bound, sizeof bound, "p < %.3g at 95%% confidence (0 of %llu)", 3.0 / static_cast<double>(total),
                      static_cast<unsigned long long>(total));
    else
        std::snprintf(bound, sizeof bound, "observed in %llu of %llu (rate %.3g)", static_cast<unsigned long long>(bad),
                      static_cast<unsigned long long>(total),
                      total != 0 ? static_cast<double>(bad) / static_cast<double>(total) : 0.0);
    return {{"id", id},
            {"shape", shape},
            {"case", case_name},
            {"repetitions", total},
            {"outcomes", outcomes},
            {"forbidden", forbidden},
            {"observation", observation},
            {"bound", bound},
            {"verdict", bad == 0 ? "PASS" : "FAIL"}};
}

} // namespace hcts
