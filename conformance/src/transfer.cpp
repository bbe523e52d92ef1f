#include "transfer.h"

#include <cinttypes>
#include <cstdio>
#include <stdexcept>

#include "hcts/core/library.h"
#include "hcts/mpi_harness.h"
#include "world.h"

namespace hcts {

namespace {
constexpr uint64_t align64(uint64_t v) { return (v + 63) & ~uint64_t{63}; }

std::string guard_detail(const Device &dev, const std::byte *dst, uint64_t len, size_t &bad)
{
    size_t first = 0;
    std::string detail;
    const size_t before = count_not_pattern(dev.get(dst - World::kGuard, World::kGuard), kGuardWord, &first);
    if (before != 0)
        detail =
            std::to_string(before) + " bytes changed before dst, first at dst-" + std::to_string(World::kGuard - first);
    const size_t after = count_not_pattern(dev.get(dst + len, World::kGuard), kGuardWord, &first);
    if (after != 0 && detail.empty())
        detail = std::to_string(after) + " bytes changed after dst+len, first at dst+len+" + std::to_string(first);
    bad = before + after;
    return detail;
}
} // namespace

std::string hex(uint64_t v)
{
    char b[24];
    std::snprintf(b, sizeof b, "0x%" PRIx64, v);
    return b;
}

Exchange run_exchange(const Ctx &ctx, const std::vector<Xfer> &plan)
{
    const World &w = ctx.w;
    const Device &dev = w.device();
    const bool can_copy = ctx.spec.has(Feature::LocalCopy);
    std::vector<uint64_t> snap_off(plan.size(), UINT64_MAX);
    std::vector<std::string> no_snap(plan.size());
    uint64_t cursor = 0;
    for (size_t i = 0; i < plan.size(); ++i) {
        const Xfer &x = plan[i];
        if (x.dst_off < World::kGuard || x.dst_off + x.len + World::kGuard > w.layout.lane_size)
            throw std::invalid_argument("transfer " + std::to_string(i) + ": dst offset " + std::to_string(x.dst_off) +
                                        " + len " + std::to_string(x.len) + " does not fit the inbox lane (" +
                                        std::to_string(w.layout.lane_size) + " bytes) with 64-byte guards");
        if (x.src_off + x.len > w.layout.outbox_size())
            throw std::invalid_argument("transfer " + std::to_string(i) + ": source does not fit the outbox");
        if (x.receiver != w.rank || !x.snapshot || !x.wait)
            continue;
        if (!can_copy)
            no_snap[i] = "the case cannot snapshot dst on the device stream (no LocalCopy)";
        else if (cursor + x.len > w.layout.scratch_size())
            no_snap[i] = "the snapshots of this plan do not fit the scratch area";
        else {
            snap_off[i] = cursor;
            cursor = align64(cursor + x.len);
        }
    }
    for (const Xfer &x : plan) {
        if (x.receiver == w.rank) {
            std::byte *dst = w.inbox(x.sender) + x.dst_off;
            if (x.poison_dst)
                dev.poison(dst, x.len);
            dev.stamp(dst - World::kGuard, World::kGuard, kGuardWord);
            dev.stamp(dst + x.len, World::kGuard, kGuardWord);
        }
        if (x.sender == w.rank) {
            std::vector<std::byte> p(x.len);
            fill_payload(p, x.key);
            dev.put(w.outbox() + x.src_off, p);
        }
    }
    mpi::phase_barrier("exchange: prepared");
    Script s;
    std::vector<int> send_op(plan.size(), -1), wait_op(plan.size(), -1), copy_op(plan.size(), -1);
    for (size_t i = 0; i < plan.size(); ++i) {
        const Xfer &x = plan[i];
        if (x.sender != w.rank)
            continue;
        send_op[i] = static_cast<int>(s.size());
        s.wwn(w.threads.at(static_cast<size_t>(x.thread)), x.send_ch != 0 ? x.send_ch : w.channel_to(x.receiver),
              w.remote_inbox(x.receiver, x.sender) + x.dst_off, w.outbox() + x.src_off, x.len, x.idx);
    }
    for (size_t i = 0; i < plan.size(); ++i) {
        const Xfer &x = plan[i];
        if (x.receiver != w.rank || !x.wait)
            continue;
        wait_op[i] = static_cast<int>(s.size());
        s.wait(w.threads.at(1), x.recv_ch != 0 ? x.recv_ch : w.channel_to(x.sender), x.idx, w.ok_timeout());
        if (snap_off[i] != UINT64_MAX) {
            copy_op[i] = static_cast<int>(s.size());
            s.copy(w.threads.at(1), w.scratch() + snap_off[i], w.inbox(x.sender) + x.dst_off, x.len);
        }
    }
    Exchange ex;
    ex.launch = ctx.run(s);
    mpi::phase_barrier("exchange: launched");
    ex.x.resize(plan.size());
    for (size_t i = 0; i < plan.size(); ++i) {
        const Xfer &x = plan[i];
        XferResult &r = ex.x[i];
        r.no_snapshot = no_snap[i];
        if (send_op[i] >= 0) {
            r.wwn_rc = s.rc(static_cast<size_t>(send_op[i]));
            std::vector<std::byte> want(x.len);
            fill_payload(want, x.key);
            const auto got = dev.get(w.outbox() + x.src_off, x.len);
            for (size_t b = 0; b < x.len; ++b)
                r.src_bad += got[b] != want[b];
        }
        if (x.receiver != w.rank)
            continue;
        if (wait_op[i] >= 0)
            r.wait_rc = s.rc(static_cast<size_t>(wait_op[i]));
        const std::byte *dst = w.inbox(x.sender) + x.dst_off;
        r.host = check_payload(dev.get(dst, x.len), x.key, "dst (host read)");
        if (copy_op[i] >= 0) {
            r.copy_rc = s.rc(static_cast<size_t>(copy_op[i]));
            r.have_snapshot = r.copy_rc == 0 && ex.launch.trouble() != Trouble::Harness;
            if (r.have_snapshot)
                r.snap = check_payload(dev.get(w.scratch() + snap_off[i], x.len), x.key,
                                       "dst (device-stream read right after the wait)");
            else
                r.no_snapshot = r.copy_rc != 0 ? "the snapshot copy returned " + hccl_result_name(r.copy_rc)
                                               : "the launch failed: " + ex.launch.describe();
        }
        r.guard_detail = guard_detail(dev, dst, x.len, r.guard_bad);
    }
    return ex;
}

Exchange exchange_checked(const Ctx &ctx, const std::vector<Xfer> &plan, const StdClauses &cl)
{
    Exchange ex = run_exchange(ctx, plan);
    check_exchange(plan, ex, ctx.rank(), cl, ctx.ev);
    return ex;
}

void count_seen(const std::vector<Xfer> &plan, const Exchange &ex, int rank, std::map<std::string, uint64_t> &hist)
{
    for (size_t i = 0; i < plan.size(); ++i)
        if (plan[i].receiver == rank)
            ++hist[std::string(outcome_name(ex.x[i].seen().overall()))];
}

void judge_launch(const LaunchResult &r, const std::string &clause, const std::string &what, Evidence &ev)
{
    switch (r.trouble()) {
    case Trouble::None: ev.check(clause, true, ""); break;
    case Trouble::Iut: ev.check(clause, false, what + " did not complete: " + r.describe()); break;
    case Trouble::Harness: ev.error(clause, what + ": the launch failed: " + r.describe()); break;
    case Trouble::Missing: ev.unsupported(clause, what + ": a call the script needs is absent from the IUT"); break;
    }
}

void check_exchange(const std::vector<Xfer> &plan, const Exchange &ex, int rank, const StdClauses &cl, Evidence &ev)
{
    bool launch_judged = false;
    for (size_t i = 0; i < plan.size(); ++i) {
        const Xfer &x = plan[i];
        const XferResult &r = ex.x[i];
        const std::string what = "write " + std::to_string(i) + " (len " + std::to_string(x.len) + ", idx " +
                                 std::to_string(x.idx) + ", rank " + std::to_string(x.sender) + "->" +
                                 std::to_string(x.receiver) + ")";
        if (x.sender == rank) {
            if (!cl.visible.empty())
                ev.check(cl.visible, r.wwn_rc == 0, what + " returned " + hccl_result_name(r.wwn_rc));
            if (!cl.source.empty())
                ev.check(cl.source, r.src_bad == 0, what + " changed " + std::to_string(r.src_bad) + " source bytes");
        }
        if (x.receiver != rank)
            continue;
        if (!cl.visible.empty()) {
            if (!launch_judged) {
                judge_launch(ex.launch, cl.visible, "the receiver's program", ev);
                launch_judged = true;
            }
            if (x.wait)
                ev.check(cl.visible, r.wait_rc == 0, what + ": the wait returned " + hccl_result_name(r.wait_rc));
            ev.check(cl.visible, r.host.ok(), what + ", after every program completed: " + r.host.first_bad);
        }
        if (!cl.at_wait.empty() && x.wait && x.snapshot) {
            if (r.have_snapshot)
                ev.check(cl.at_wait, r.snap.ok(), what + ": " + r.snap.first_bad);
            else if (!r.no_snapshot.empty())
                ev.unsupported(cl.at_wait, what + ": no snapshot right after the wait: " + r.no_snapshot);
        }
        if (!cl.guards.empty())
            ev.check(cl.guards, r.guard_bad == 0, what + ": " + r.guard_detail);
    }
}

std::string describe(const PayloadCheck &c)
{
    if (c.ok())
        return "the whole payload";
    return std::to_string(c.new_words) + " of " + std::to_string(c.words) + " words of the payload; " + c.first_bad;
}

void stage_write_pair(const World &w, const StampKey &first, const StampKey &second, uint64_t len, std::byte *snap)
{
    if (len > kPairSlot)
        throw std::logic_error("stage_write_pair: len " + std::to_string(len) + " exceeds the slot of " +
                               std::to_string(kPairSlot) + " bytes");
    const Device &dev = w.device();
    if (w.rank == 0) {
        std::vector<std::byte> p(len);
        fill_payload(p, first);
        dev.put(w.outbox(), p);
        fill_payload(p, second);
        dev.put(w.outbox() + kPairSlot, p);
    } else if (w.rank == 1) {
        dev.poison(w.inbox(0), 2 * kPairSlot);
        dev.poison(snap, len);
    }
}

} // namespace hcts
