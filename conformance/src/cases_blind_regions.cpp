// Regions where mutants written blind to the self-test catalogue survived the
// default gate, each spanned by construction: a thread's
// record to its own notify (every index, several threads, repeated), one
// HcclThreadAcquire of many threads (distinct, independent, concurrent),
// batch mode holding 2 to 40 tasks whose order shows, default wait timeouts
// above 16 bits, write-reduces with notify of every small count of every type
// and op, and a channel record queued behind several 1 MiB writes.
// None is in a suite the segment and adversarial configurations run: each is a
// behaviour of the call, not of the transport's segments or timing.
#include <chrono>
#include <set>
#include <thread>

#include "case_kit.h"
#include "hcomm/hcomm_primitives.h"
#include "reduce_data.h"

namespace hcts::cases_blind_regions {
namespace {

constexpr uint64_t kMiB = 1ULL << 20;

std::string rc_of(const Script &s, size_t i) { return hccl_result_name(s.rc(i)); }

} // namespace

// HcommThreadNotifyRecordOnThread with dstThread == thread, then a wait on the
// same thread and index: on 3 threads of one acquire with 8 notifies each, on
// every index, twice per index (the first wait consumed the first record). A
// payload copied before each record must be seen by a copy right after the wait.
HCTS_CASE(Threads, RecordToItself, clauses("API.TN.4"), needs(Feature::ThreadNotify, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const char *cl = "API.TN.4";
    if (w.rank == 0) {
        constexpr uint32_t kThreads = 3, kNotifies = 8, kRounds = 2;
        constexpr uint64_t kLen = 29;
        std::vector<ThreadHandle> t(kThreads, 0);
        const HcclResult arc = iut().api().HcclThreadAcquire(w.comm, w.setup_engine, kThreads, kNotifies, t.data());
        if (arc != HCCL_SUCCESS) {
            ev().error(cl, "HcclThreadAcquire of 3 threads with 8 notifies returned " + hccl_result_name(arc));
        } else {
            struct Step {
                uint32_t thread, idx, round;
                uint64_t src, dst, snap;
            };
            std::vector<Step> steps;
            for (uint32_t round = 0; round < kRounds; ++round)
                for (uint32_t k = 0; k < kNotifies; ++k)
                    for (uint32_t i = 0; i < kThreads; ++i) {
                        const uint64_t base = steps.size() * 256;
                        steps.push_back({i, k, round, base, base + 64, base + 128});
                    }
            for (size_t n = 0; n < steps.size(); ++n) {
                std::vector<std::byte> p(kLen);
                fill_payload(p, StampKey{95, static_cast<uint32_t>(n), 0});
                dev.put(w.scratch() + steps[n].src, p);
                dev.poison(w.scratch() + steps[n].dst, kLen);
                dev.poison(w.scratch() + steps[n].snap, kLen);
            }
            Script s;
            for (const Step &p : steps) {
                const ThreadHandle h = t[p.thread];
                s.copy(h, w.scratch() + p.dst, w.scratch() + p.src, kLen);
                s.thread_record(h, h, p.idx);
                s.thread_wait(h, p.idx, w.timeout_of(2));
                s.copy(h, w.scratch() + p.snap, w.scratch() + p.dst, kLen).only_if_previous_ok();
            }
            const LaunchResult r = c.run(s, 30000);
            if (r.trouble() == Trouble::Missing) {
                ev().unsupported(cl, "a call of the self-record is absent (" + r.describe() + ")");
            } else {
                judge_launch(r, cl, "the program of records to the recording thread itself", ev());
                uint32_t bad = 0, refused = 0;
                std::string first;
                for (size_t n = 0; n < steps.size(); ++n) {
                    const Step &p = steps[n];
                    const std::string what = "thread #" + std::to_string(p.thread) + " (" + hex(t[p.thread]) +
                                             ") recording its own notify " + std::to_string(p.idx) + ", round " +
                                             std::to_string(p.round);
                    const size_t at = 4 * n;
                    bool refused_here = false;
                    for (size_t k = 0; k < 4; ++k)
                        refused_here = refused_here || s.rc(at + k) == HCCL_E_NOT_SUPPORT;
                    if (refused_here) {
                        ++refused;
                        continue;
                    }
                    std::string why;
                    if (s.rc(at) != 0 || s.rc(at + 1) != 0)
                        why = what + ": the copy returned " + rc_of(s, at) + ", the record " + rc_of(s, at + 1);
                    else if (s.rc(at + 2) != 0)
                        why = what + ": the wait on the same thread returned " + rc_of(s, at + 2) + " (" +
                              r.describe() + ")";
                    else if (s.rc(at + 3) != 0)
                        why = what + ": the copy after the wait returned " + rc_of(s, at + 3);
                    else if (const PayloadCheck got = check_payload(dev.get(w.scratch() + p.snap, kLen),
                                                                    StampKey{95, static_cast<uint32_t>(n), 0});
                             !got.ok())
                        why = what + ": the copy right after the wait saw " + describe(got);
                    if (!why.empty() && bad++ == 0)
                        first = why;
                }
                ev().observe("self_records", steps.size());
                if (refused > 0)
                    ev().unsupported(cl, std::to_string(refused) + " of " + std::to_string(steps.size()) +
                                             " self-records (their copy, record, wait or snapshot) were refused "
                                             "with HCCL_E_NOT_SUPPORT");
                else
                    ev().check(cl, bad == 0,
                               std::to_string(bad) + " of " + std::to_string(steps.size()) +
                                   " self-records failed; first: " + first);
            }
        }
    }
    mpi::phase_barrier("blind regions: self-records");
}

// One HcclThreadAcquire of 16 threads (8 when 16 are refused): distinct non-zero
// handles (WWN.THR.1), each running a local copy of its own (WWN.THR.1), and a
// token passed once around all of them by thread notifies, issued in reverse
// order (thread 15's wait first, thread 0's record last): each thread waits for
// its predecessor, copies what it handed over, hands its own payload on. Only
// threads that run concurrently and independently get the token round (API.TN.1).
HCTS_CASE(Threads, ManyThreadsOneAcquire, clauses("WWN.THR.1", "API.TN.1"),
          needs(Feature::ThreadNotify, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    if (w.rank == 0) {
        std::vector<ThreadHandle> t;
        HcclResult arc = HCCL_SUCCESS;
        for (uint32_t n : {16U, 8U}) {
            t.assign(n, 0);
            arc = iut().api().HcclThreadAcquire(w.comm, w.setup_engine, n, 4, t.data());
            if (arc == HCCL_SUCCESS)
                break;
        }
        const uint32_t n = static_cast<uint32_t>(t.size());
        std::string handles;
        for (ThreadHandle h : t)
            handles += (handles.empty() ? "" : ", ") + hex(h);
        ev().observe("threads", n);
        if (arc != HCCL_SUCCESS) {
            ev().error("WWN.THR.1", "HcclThreadAcquire of 16 and of 8 threads returned " + hccl_result_name(arc));
        } else if (ev().check("WWN.THR.1", std::find(t.begin(), t.end(), ThreadHandle{0}) == t.end(),
                              "HcclThreadAcquire(threadNum " + std::to_string(n) + ") gave handles " + handles +
                                  "; expected non-zero handles")) {
            // Aliased handles are judged, and the ring still runs on them: it shows what they do.
            ev().check("WWN.THR.1", std::set<ThreadHandle>(t.begin(), t.end()).size() == n,
                       "HcclThreadAcquire(threadNum " + std::to_string(n) + ") gave handles " + handles +
                           "; expected " + std::to_string(n) + " distinct handles");
            constexpr uint64_t kLen = 45, kSlot = 256;
            // Per thread i: its own copy (src, own), the hand-over slot it fills for
            // its successor (hand), and its snapshot of its predecessor's hand-over.
            const auto src = [&](uint32_t i) { return w.scratch() + i * kSlot; };
            const auto own = [&](uint32_t i) { return w.scratch() + (n + i) * kSlot; };
            const auto hand = [&](uint32_t i) { return w.scratch() + (2 * n + i) * kSlot; };
            const auto snap = [&](uint32_t i) { return w.scratch() + (3 * n + i) * kSlot; };
            const auto key = [](uint32_t i) { return StampKey{96, i, 0}; };
            for (uint32_t i = 0; i < n; ++i) {
                std::vector<std::byte> p(kLen);
                fill_payload(p, key(i));
                dev.put(src(i), p);
                for (auto *d : {own(i), hand(i), snap(i)})
                    dev.poison(d, kLen);
            }
            // Each thread's own copy first, in a program of its own: a library that
            // refuses copies gives the ring no snapshots, so it is not run at all.
            Script copies;
            for (uint32_t i = 0; i < n; ++i)
                copies.copy(t[i], own(i), src(i), kLen);
            const LaunchResult cr = c.run(copies, 30000);
            if (cr.trouble() == Trouble::Missing || copies.first_unsupported()) {
                const std::string why =
                    cr.trouble() == Trouble::Missing
                        ? "a local copy is absent (" + cr.describe() + ")"
                        : "the copy on thread #" + std::to_string(*copies.first_unsupported()) +
                              " was refused with HCCL_E_NOT_SUPPORT; the ring's hand-overs are such copies";
                ev().unsupported("WWN.THR.1", why);
                ev().unsupported("API.TN.1", why);
                mpi::phase_barrier("blind regions: many threads");
                return;
            }
            judge_launch(cr, "WWN.THR.1", "one local copy on each thread of one acquire", ev());
            uint32_t bad_own = 0;
            std::string first_own;
            for (uint32_t i = 0; i < n; ++i) {
                const PayloadCheck got = check_payload(dev.get(own(i), kLen), key(i));
                if ((copies.rc(i) != 0 || !got.ok()) && bad_own++ == 0)
                    first_own = "the copy on thread #" + std::to_string(i) + " (" + hex(t[i]) + ") returned " +
                                rc_of(copies, i) + " and left " + describe(got);
            }
            ev().check("WWN.THR.1", bad_own == 0,
                       std::to_string(bad_own) + " of " + std::to_string(n) +
                           " threads of one acquire did not run their own copy; first: " + first_own);
            Script s;
            const uint32_t timeout = w.timeout_of(3);
            // Threads n-1 .. 1: wait, snapshot, hand on (4 ops each).
            for (uint32_t i = n - 1; i >= 1; --i) {
                s.thread_wait(t[i], 0, timeout);
                s.copy(t[i], snap(i), hand(i - 1), kLen).only_if_previous_ok();
                s.copy(t[i], hand(i), src(i), kLen);
                s.thread_record(t[i], t[(i + 1) % n], 0);
            }
            // Thread 0 starts the token and waits for it to come round.
            s.copy(t[0], hand(0), src(0), kLen);
            s.thread_record(t[0], t[1], 0);
            s.thread_wait(t[0], 0, timeout);
            s.copy(t[0], snap(0), hand(n - 1), kLen).only_if_previous_ok();
            const LaunchResult r = c.run(s, 30000);
            if (r.trouble() == Trouble::Missing) {
                ev().unsupported("API.TN.1", "a call of the ring is absent (" + r.describe() + ")");
            } else {
                // Where thread i's wait and snapshot are in the script.
                const auto wait_at = [&](uint32_t i) { return i == 0 ? 4 * (n - 1) + 2 : 4 * (n - 1 - i); };
                uint32_t bad = 0, refused = 0;
                std::string first;
                for (uint32_t i = 0; i < n; ++i) {
                    const size_t at = wait_at(i);
                    const uint32_t from = (i + n - 1) % n;
                    const std::string what = "thread #" + std::to_string(i) + " of " + std::to_string(n) +
                                             " waiting for thread #" + std::to_string(from);
                    if (s.rc(at) == HCCL_E_NOT_SUPPORT || s.rc(at + 1) == HCCL_E_NOT_SUPPORT) {
                        ++refused;
                        continue;
                    }
                    std::string why;
                    if (s.rc(at) != 0)
                        why = what + ": the wait returned " + rc_of(s, at) + " (" + r.describe() + ")";
                    else if (s.rc(at + 1) != 0)
                        why = what + ": the copy after the wait returned " + rc_of(s, at + 1);
                    else if (const PayloadCheck got = check_payload(dev.get(snap(i), kLen), key(from)); !got.ok())
                        why = what + ": the copy right after the wait saw " + describe(got);
                    if (!why.empty() && bad++ == 0)
                        first = why;
                }
                // A refused wait lets its thread hand on unsynchronised, so the later
                // hand-overs show nothing either.
                if (refused > 0) {
                    ev().unsupported("API.TN.1", std::to_string(refused) + " of " + std::to_string(n) +
                                                     " waits of the ring (or the copies behind them) were refused "
                                                     "with HCCL_E_NOT_SUPPORT");
                } else {
                    judge_launch(r, "API.TN.1", "the ring of thread notifies through one acquire's threads", ev());
                    ev().check("API.TN.1", bad == 0,
                               std::to_string(bad) + " of " + std::to_string(n) +
                                   " hand-overs of the ring failed; first: " + first);
                }
            }
        }
    }
    mpi::phase_barrier("blind regions: many threads");
}

// Batch mode holding 2, 3, 4, 7, 16, 33 and 40 local copies on one thread, in
// two shapes whose result shows their order: every copy to the same destination
// (the last one's payload must be there), and a chain (copy k reads what copy
// k-1 wrote: the first source must reach the last destination). Judged once the
// program ended (the held tasks run at HcommBatchModeEnd).
HCTS_CASE(Batch, HeldTasksKeepOrder, clauses("API.BM.3"), needs(Feature::BatchMode, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const char *cl = "API.BM.3";
    if (w.rank == 0) {
        const std::vector<uint32_t> sizes{2, 3, 4, 7, 16, 33, 40};
        constexpr uint64_t kLen = 37, kSlot = 64;
        struct Held {
            uint32_t held;
            bool chain;
            uint64_t base; // held + 1 slots
        };
        std::vector<Held> batches;
        uint64_t cursor = 0;
        for (uint32_t n : sizes)
            for (bool chain : {false, true}) {
                batches.push_back({n, chain, cursor});
                cursor += (n + 1) * kSlot;
            }
        const auto slot = [&](const Held &b, uint32_t k) { return w.scratch() + b.base + k * kSlot; };
        const auto key = [](size_t b, uint32_t k) { return StampKey{97, static_cast<uint32_t>(b), k}; };
        Script s;
        std::vector<size_t> ends;
        for (size_t bi = 0; bi < batches.size(); ++bi) {
            const Held &b = batches[bi];
            // Same destination: sources in slots 1..n, destination slot 0. Chain: the
            // source in slot 0, copy k from slot k to slot k+1, the result in slot n.
            for (uint32_t k = 0; k <= b.held; ++k) {
                std::vector<std::byte> p(kLen);
                fill_payload(p, key(bi, k));
                if (b.chain ? k == 0 : k > 0)
                    dev.put(slot(b, k), p);
                else
                    dev.poison(slot(b, k), kLen);
            }
            const std::string tag = "hcts-order-" + std::to_string(bi);
            s.batch_start(tag);
            for (uint32_t k = 0; k < b.held; ++k)
                if (b.chain)
                    s.copy(w.thread(), slot(b, k + 1), slot(b, k), kLen);
                else
                    s.copy(w.thread(), slot(b, 0), slot(b, k + 1), kLen);
            s.batch_end(tag);
            ends.push_back(s.size() - 1);
        }
        const LaunchResult r = c.run(s, 30000);
        if (r.trouble() == Trouble::Missing) {
            ev().unsupported(cl, "HcommBatchModeStart/End or the local copy is absent (" + r.describe() + ")");
        } else if (const auto refused = s.first_unsupported()) {
            ev().unsupported(cl, "call #" + std::to_string(*refused) + " of the batches (" +
                                     (*refused == 0 ? "HcommBatchModeStart" : "a held copy or the batch's end") +
                                     ") was refused with HCCL_E_NOT_SUPPORT");
        } else {
            judge_launch(r, cl, "the program of batches", ev());
            uint32_t bad = 0;
            std::string first;
            for (size_t bi = 0; bi < batches.size(); ++bi) {
                const Held &b = batches[bi];
                const size_t end = ends[bi], start = end - b.held - 1;
                const std::string what = std::string(b.chain ? "a chain of " : "") + std::to_string(b.held) +
                                         (b.chain ? " copies" : " copies to one destination") + " held by batch mode";
                std::string why;
                bool calls_ok = true;
                for (size_t i = start; i <= end; ++i)
                    calls_ok = calls_ok && s.rc(i) == 0;
                if (!calls_ok) {
                    why =
                        what + ": a call returned non-zero (Start " + rc_of(s, start) + ", End " + rc_of(s, end) + ")";
                } else {
                    const uint32_t at = b.chain ? b.held : 0;
                    const uint32_t want = b.chain ? 0 : b.held; // the first source, or the last copy's
                    if (const PayloadCheck got = check_payload(dev.get(slot(b, at), kLen), key(bi, want)); !got.ok())
                        why = what + ": once the program ended the destination held " + describe(got) +
                              (b.chain ? "; the first source must have gone down the chain"
                                       : "; the last copy's payload must be there");
                }
                if (!why.empty() && bad++ == 0)
                    first = why;
            }
            ev().check(cl, bad == 0,
                       std::to_string(bad) + " of " + std::to_string(batches.size()) +
                           " batches did not keep the order of their held copies; first: " + first);
        }
    }
    mpi::phase_barrier("blind regions: batch order");
}

// Default wait timeouts above 16 bits: rank 1 sets 65537, 196609, 1048577 and
// 16711681 (each 1 in its low 16 bits) before one default-timeout wait each, on
// its own fresh thread; rank 0 sends the four notifies 1.6 s later (400 ms where
// waits count milliseconds): every wait must complete with its payload there.
// The default is set back to 1836 afterwards.
HCTS_CASE(Timeouts, DefaultTimeoutAbove16Bits, clauses("WWN.TMO.6"),
          needs(Feature::SetWaitTimeout, Feature::DefaultTimeoutWait, Feature::WriteWithNotify, Feature::NotifyWait,
                Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const char *cl = "WWN.TMO.6";
    const std::vector<float> values{65537.0F, 196609.0F, 1048577.0F, 16711681.0F};
    constexpr uint32_t kFirstIdx = 40;
    constexpr uint64_t kLen = 24, kSlot = 64;
    const bool unit_known = mpi::all_ranks(w.unit.seconds.has_value(), "blind regions: timeout unit known");
    if (!unit_known) {
        if (w.rank <= 1) {
            if (w.unit.refused)
                ev().unsupported(cl, "waits are not supported here: " + w.unit.note);
            else
                ev().error(cl, "the timeOut unit is unknown (WWN.PRF.3) on this rank or another: " + w.unit.note);
        }
        return;
    }
    const auto late = std::chrono::milliseconds(*w.unit.seconds ? 1600 : 400);
    std::vector<ThreadHandle> t;
    HcclResult arc = HCCL_SUCCESS;
    if (w.rank == 1)
        for (size_t i = 0; i < values.size() && arc == HCCL_SUCCESS; ++i)
            if (const ThreadHandle h = w.fresh_thread(w.setup_engine, &arc); h != 0)
                t.push_back(h);
    if (!mpi::all_ranks(w.rank != 1 || t.size() == values.size(), "blind regions: fresh threads for large defaults")) {
        if (w.rank <= 1)
            ev().error(cl, "no fresh threads for the default waits on rank 1 (HcclThreadAcquire returned " +
                               hccl_result_name(arc) + " there)");
        return;
    }
    const auto key = [](size_t i) { return StampKey{98, static_cast<uint32_t>(i), 0}; };
    if (w.rank == 0) {
        std::vector<std::byte> p(kLen * values.size());
        for (size_t i = 0; i < values.size(); ++i)
            fill_payload(std::span(p).subspan(i * kLen, kLen), key(i));
        dev.put(w.outbox(), p);
    }
    if (w.rank == 1)
        for (size_t i = 0; i < values.size(); ++i) {
            dev.poison(w.inbox(0) + i * kSlot, kLen);
            dev.poison(w.scratch() + i * kSlot, kLen);
        }
    mpi::phase_barrier("blind regions: large defaults start");
    bool all_done = true;
    if (w.rank == 0) {
        std::this_thread::sleep_for(late);
        Script n;
        for (size_t i = 0; i < values.size(); ++i)
            n.wwn(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + i * kSlot, w.outbox() + i * kLen, kLen,
                  kFirstIdx + static_cast<uint32_t>(i));
        const LaunchResult rn = c.run(n, 10000);
        if (n.first_failure() || !rn.ok())
            ev().error(cl, "the writes with notify that end rank 1's waits failed (" + rn.describe() + ")");
    } else if (w.rank == 1) {
        Script s;
        for (size_t i = 0; i < values.size(); ++i) {
            s.set_wait_timeout(values[i]);
            s.wait_default(t[i], w.channel_to(0), kFirstIdx + static_cast<uint32_t>(i));
            s.copy(t[i], w.scratch() + i * kSlot, w.inbox(0) + i * kSlot, kLen).only_if_previous_ok();
        }
        const LaunchResult r = c.run(s, 15000);
        if (r.trouble() == Trouble::Missing) {
            ev().unsupported(cl, "HcommSetNotifyWaitTimeOut or the default-timeout wait is absent");
        } else {
            for (size_t i = 0; i < values.size(); ++i) {
                const std::string set =
                    "HcommSetNotifyWaitTimeOut(" + std::to_string(static_cast<uint32_t>(values[i])) + ")";
                const size_t at = 3 * i;
                all_done = all_done && s.rc(at + 1) == 0 && s.rc(at + 2) == 0;
                if (s.rc(at + 1) == HCCL_E_NOT_SUPPORT || s.rc(at + 2) == HCCL_E_NOT_SUPPORT) {
                    ev().unsupported(cl, std::string("the ") +
                                             (s.rc(at + 1) == HCCL_E_NOT_SUPPORT ? "default-timeout wait"
                                                                                 : "snapshot copy after it") +
                                             " was refused with HCCL_E_NOT_SUPPORT");
                    continue;
                }
                if (!ev().check(cl, s.rc(at) == 0, set + " returned " + rc_of(s, at)))
                    continue;
                if (!ev().check(cl, s.rc(at + 1) == 0 && s.rc(at + 2) == 0,
                                "after " + set + " a default wait for a notify sent about " +
                                    std::to_string(late.count()) + " ms later returned " + rc_of(s, at + 1) +
                                    " (the copy after it " + rc_of(s, at + 2) + ", " + r.describe() +
                                    "); no default of 65536 units or more may end it that soon"))
                    continue;
                const PayloadCheck got = check_payload(dev.get(w.scratch() + i * kSlot, kLen), key(i));
                ev().check(cl, got.ok(),
                           "after " + set + " the copy right after the default wait saw " + describe(got) + " (" +
                               r.describe() + ")");
            }
            judge_launch(r, cl, "the program of large defaults and their waits", ev());
        }
    }
    // Waits that gave up early leave their notifies set: consume them on a fresh thread.
    if (!mpi::all_ranks(all_done, "blind regions: the late notifies were consumed") && w.rank == 1) {
        const ThreadHandle u = w.fresh_thread(w.setup_engine);
        if (u != 0) {
            Script s;
            for (size_t i = 0; i < values.size(); ++i)
                s.wait(u, w.channel_to(0), kFirstIdx + static_cast<uint32_t>(i), w.timeout_of(2));
            (void)c.run(s, 15000);
        }
    }
    if (w.rank <= 1)
        restore_default_wait_timeout(c, cl);
    mpi::phase_barrier("blind regions: large defaults judged");
}

// Write-reduces with notify of every count from 1 to 16 for every data type and
// op the reference reduces (1 to 128 bytes: the smallest reductions included),
// rank 0 to rank 1, in windows of 64 (one notify index each); rank 1 waits for
// each and copies dst on its stream at once: the reduced values must be there.
HCTS_CASE(Reduce, WithNotifyEverySmallCount, clauses("API.RED.4"),
          needs(Feature::WriteReduceWithNotify, Feature::NotifyWait, Feature::NotifyRecord, Feature::LocalCopy,
                Feature::DeviceThreads))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const char *cl = "API.RED.4";
    constexpr uint64_t kMaxCount = 16, kExtra = 4, kSlot = 256;
    struct Call {
        const ReduceType *type;
        uint32_t op;
        uint64_t count;
        std::string name() const
        {
            return std::string(type->name) + " " + reduce_op_name(op) + " of " + std::to_string(count) + " (" +
                   std::to_string(count * type->size) + " bytes)";
        }
    };
    std::vector<Call> calls;
    for (const ReduceType &t : reduce_types())
        for (uint32_t op : reduce_ops())
            for (uint64_t n = 1; n <= kMaxCount; ++n)
                calls.push_back({&t, op, n});
    if (calls.size() * kSlot > std::min(w.layout.lane_size, w.layout.outbox_size())) {
        ev().unsupported(cl, "the memory's regions are too small for " + std::to_string(calls.size()) + " slots");
        return;
    }
    std::vector<ReduceCase> data;
    for (size_t i = 0; i < calls.size(); ++i)
        data.push_back(
            reduce_case(*calls[i].type, calls[i].op, static_cast<uint32_t>(200 + i), calls[i].count, kExtra));
    if (w.rank == 0)
        for (size_t i = 0; i < calls.size(); ++i)
            dev.put(w.outbox() + i * kSlot, data[i].src);
    if (w.rank == 1)
        for (size_t i = 0; i < calls.size(); ++i) {
            dev.put(w.inbox(0) + i * kSlot, data[i].dst);
            dev.poison(w.scratch() + i * kSlot, data[i].want.size());
        }
    mpi::phase_barrier("blind regions: small reductions placed");
    constexpr size_t kWindow = World::kNotifyNum;
    std::vector<int32_t> rcs(calls.size(), HCCL_SUCCESS), wait_rc(calls.size()), copy_rc(calls.size());
    std::string launches;
    for (size_t from = 0; from < calls.size(); from += kWindow) {
        const size_t to = std::min(calls.size(), from + kWindow);
        Script s;
        // A refused call raises no notify: a plain record stands in for it.
        if (w.rank == 0)
            for (size_t i = from; i < to; ++i) {
                s.write_reduce_notify(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + i * kSlot,
                                      w.outbox() + i * kSlot, calls[i].count, calls[i].type->type, calls[i].op,
                                      static_cast<uint32_t>(i - from));
                s.record(w.thread(), w.channel_to(1), static_cast<uint32_t>(i - from)).only_if_previous_failed();
            }
        if (w.rank == 1)
            for (size_t i = from; i < to; ++i) {
                s.wait(w.thread(), w.channel_to(0), static_cast<uint32_t>(i - from), w.timeout_of(5));
                s.copy(w.thread(), w.scratch() + i * kSlot, w.inbox(0) + i * kSlot, data[i].want.size())
                    .only_if_previous_ok();
            }
        const LaunchResult r = c.run(s, 30000);
        if (w.rank <= 1 && !r.ok() && launches.empty())
            launches = "window from call " + std::to_string(from) + ": " + r.describe();
        for (size_t i = from; i < to; ++i) {
            if (w.rank == 0)
                rcs[i] = s.rc(2 * (i - from));
            if (w.rank == 1) {
                wait_rc[i] = s.rc(2 * (i - from));
                copy_rc[i] = s.rc(2 * (i - from) + 1);
            }
        }
        // The next window reuses the indices: every wait of this one must have ended.
        mpi::phase_barrier("blind regions: small reductions window");
    }
    mpi::broadcast(std::as_writable_bytes(std::span(rcs)), 0, "blind regions: small reduction return codes");
    if (w.rank == 1) {
        uint32_t bad = 0, refused = 0, unsupported = 0;
        std::string first;
        for (size_t i = 0; i < calls.size(); ++i) {
            const std::string what = "HcommWriteReduceWithNotifyOnThread " + calls[i].name();
            if (rcs[i] == HCCL_E_PARA) { // an unsupported type or op (API.RED.5 judges that)
                ++refused;
                continue;
            }
            if (rcs[i] == HCCL_E_NOT_SUPPORT || wait_rc[i] == HCCL_E_NOT_SUPPORT || copy_rc[i] == HCCL_E_NOT_SUPPORT) {
                ++unsupported;
                continue;
            }
            std::string why;
            if (rcs[i] != HCCL_SUCCESS)
                why = what + " returned " + hccl_result_name(rcs[i]);
            else if (wait_rc[i] != HCCL_SUCCESS || copy_rc[i] != HCCL_SUCCESS)
                why = what + ": the wait returned " + hccl_result_name(wait_rc[i]) + ", the copy after it " +
                      hccl_result_name(copy_rc[i]);
            else if (const std::string m = reduce_mismatch(
                         *calls[i].type, dev.get(w.scratch() + i * kSlot, data[i].want.size()), data[i].want);
                     !m.empty())
                why = what + ", right after the wait: " + m + " (dst = dst op src over count elements, the " +
                      std::to_string(kExtra) + " after them unchanged)";
            if (!why.empty() && bad++ == 0)
                first = why;
        }
        ev().observe("calls", calls.size());
        if (refused + unsupported == calls.size())
            ev().unsupported(cl, "every small write-reduce with notify was refused");
        else
            ev().check(cl, bad == 0,
                       std::to_string(bad) + " of " + std::to_string(calls.size()) +
                           " small write-reduces with notify went wrong (" + std::to_string(refused) +
                           " refused with HCCL_E_PARA, " + std::to_string(unsupported) +
                           " with HCCL_E_NOT_SUPPORT, the call or its wait or snapshot); first: " + first +
                           (launches.empty() ? "" : "; " + launches));
    }
}

// A channel record queued behind writes of 1 MiB and more on the same thread and
// channel: rank 0 issues 4 writes (1 MiB + 3, 2 MiB, 1 MiB + 1, 1 MiB) then
// HcommChannelNotifyRecordOnThread, three times with other destinations and
// indices, in one program; rank 1 waits for each record and copies the four
// destinations on its stream at once: every byte of every write must be there.
HCTS_CASE(Ordering, RecordAfterLargeWrites, clauses("API.REC.2"),
          needs(Feature::Write, Feature::NotifyRecord, Feature::NotifyWait, Feature::LocalCopy, Feature::DeviceThreads))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    const char *cl = "API.REC.2";
    const std::vector<uint64_t> lens{kMiB + 3, 2 * kMiB, kMiB + 1, kMiB};
    constexpr uint32_t kRounds = 3, kFirstIdx = 20;
    uint64_t per_round = 0;
    for (uint64_t l : lens)
        per_round += l + 4096;
    const uint64_t need = kRounds * per_round;
    if (need > w.layout.lane_size || need > w.layout.outbox_size() || need > w.layout.scratch_size()) {
        ev().unsupported(cl, "the memory's regions hold less than the " + std::to_string(need) + " bytes needed");
        return;
    }
    struct Place {
        uint32_t round;
        uint64_t off, len;
    };
    std::vector<Place> places;
    uint64_t cursor = 0;
    for (uint32_t round = 0; round < kRounds; ++round)
        for (uint64_t l : lens) {
            places.push_back({round, cursor + 8 * places.size(), l});
            cursor += l + 4096;
        }
    const auto key = [](size_t i) { return StampKey{99, static_cast<uint32_t>(i), 0}; };
    if (w.rank == 0)
        for (size_t i = 0; i < places.size(); ++i) {
            std::vector<std::byte> p(places[i].len);
            fill_payload(p, key(i));
            dev.put(w.outbox() + places[i].off, p);
        }
    if (w.rank == 1)
        for (const Place &p : places) {
            dev.poison(w.inbox(0) + p.off, p.len);
            dev.poison(w.scratch() + p.off, p.len);
        }
    mpi::phase_barrier("blind regions: large writes prepared");
    Script s;
    if (w.rank == 0)
        for (uint32_t round = 0; round < kRounds; ++round) {
            for (const Place &p : places)
                if (p.round == round)
                    s.write(w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + p.off, w.outbox() + p.off, p.len);
            s.record(w.thread(), w.channel_to(1), kFirstIdx + round);
        }
    std::vector<size_t> wait_at;
    if (w.rank == 1)
        for (uint32_t round = 0; round < kRounds; ++round) {
            wait_at.push_back(s.size());
            s.wait(w.thread(), w.channel_to(0), kFirstIdx + round, w.timeout_of(10));
            for (const Place &p : places)
                if (p.round == round)
                    s.copy(w.thread(), w.scratch() + p.off, w.inbox(0) + p.off, p.len).only_if_previous_ok();
        }
    const LaunchResult r = c.run(s, 60000);
    std::vector<int32_t> rcs(places.size() + kRounds, HCCL_SUCCESS);
    if (w.rank == 0)
        for (size_t i = 0; i < rcs.size(); ++i)
            rcs[i] = s.rc(i);
    mpi::broadcast(std::as_writable_bytes(std::span(rcs)), 0, "blind regions: large write return codes");
    if (w.rank == 1) {
        std::string sender;
        for (size_t i = 0; i < rcs.size(); ++i)
            if (rcs[i] != HCCL_SUCCESS && sender.empty())
                sender = "the sender's call #" + std::to_string(i) + " returned " + hccl_result_name(rcs[i]);
        if (std::find(rcs.begin(), rcs.end(), HCCL_E_NOT_SUPPORT) != rcs.end()) {
            ev().unsupported(cl, sender + " (refused as unsupported)");
        } else if (const auto refused = s.first_unsupported()) {
            ev().unsupported(cl, "the receiver's call #" + std::to_string(*refused) + " (" +
                                     (std::find(wait_at.begin(), wait_at.end(), *refused) != wait_at.end()
                                          ? "a wait"
                                          : "a snapshot copy") +
                                     ") was refused with HCCL_E_NOT_SUPPORT");
        } else if (!ev().check(cl, sender.empty(), sender)) {
        } else {
            judge_launch(r, cl, "the receiver's program of waits and snapshots", ev());
            uint32_t bad = 0;
            std::string first;
            for (uint32_t round = 0; round < kRounds; ++round) {
                const size_t at = wait_at[round];
                const std::string what =
                    "round " + std::to_string(round) + " (notify " + std::to_string(kFirstIdx + round) + ")";
                if (s.rc(at) != HCCL_SUCCESS) {
                    if (bad++ == 0)
                        first = what + ": the wait for the record returned " + rc_of(s, at) + " (" + r.describe() + ")";
                    continue;
                }
                size_t k = at + 1;
                for (size_t i = 0; i < places.size(); ++i) {
                    const Place &p = places[i];
                    if (p.round != round)
                        continue;
                    const size_t op = k++;
                    std::string why;
                    if (s.rc(op) != HCCL_SUCCESS)
                        why = "the copy after the wait returned " + rc_of(s, op);
                    else if (const PayloadCheck got = check_payload(dev.get(w.scratch() + p.off, p.len), key(i));
                             !got.ok())
                        why = "right after the wait the write of " + std::to_string(p.len) + " bytes showed " +
                              describe(got);
                    if (!why.empty() && bad++ == 0)
                        first = what + ": " + why;
                }
            }
            ev().check(cl, bad == 0,
                       std::to_string(bad) + " of " + std::to_string(places.size() + kRounds) +
                           " waits and writes behind a channel record were wrong; first: " + first);
        }
    }
    mpi::phase_barrier("blind regions: large writes judged");
}

} // namespace hcts::cases_blind_regions
