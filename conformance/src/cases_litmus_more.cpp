// Litmus L5, L11, L13, L14, L15 and L16 (conformance-anchors.md §2), each with
// its outcome histogram. F rows fail their clause on one forbidden outcome; P
// rows report the observed profile and their litmus entry says PROFILE.
#include <algorithm>

#include "harness.h"
#include "mpi_glue.h"
#include "options.h"

namespace hcts {
namespace {

StampKey key_for(uint32_t iteration, int sender) { return {9, iteration & 0xfff, static_cast<uint32_t>(sender)}; }

// Repetitions of the slower litmus shapes: a fraction of --repeat, at least `floor`.
uint32_t reps_of(uint32_t divisor, uint32_t floor) { return std::max(floor, options().repeat / divisor); }

// A P row's entry: the histogram is kept, the verdict is the profile's, never FAIL.
nlohmann::json profile_entry(const std::string &id, const std::string &shape, const std::string &case_name,
                             const std::map<std::string, uint64_t> &hist, const std::vector<std::string> &weak)
{
    nlohmann::json e = litmus_entry(id, shape, case_name, hist, weak);
    e["verdict"] = "PROFILE";
    return e;
}

// Sums a histogram over ranks onto rank 0 (only rank 0 records it).
std::map<std::string, uint64_t> sum_on_root(const std::map<std::string, uint64_t> &hist)
{
    const auto all = ranks::gather(nlohmann::json(hist).dump());
    std::map<std::string, uint64_t> sum;
    for (const auto &[k, v] : hist)
        sum[k] = 0;
    for (const auto &s : all)
        for (const auto &[k, v] : nlohmann::json::parse(s).get<std::map<std::string, uint64_t>>())
            sum[k] += v;
    return sum;
}

} // namespace

// L5: S: Write(B); WWN(A, n) ‖ R: Wait(n); read B on its stream at once.
HCTS_CASE(Litmus, L5_Cumulativity, "WWN.LIT.5")
{
    HCTS_REQUIRE_WWN();
    if (Iut::get().api().HcommWriteOnThread == nullptr || Iut::get().api().HcommLocalCopyOnThread == nullptr)
        HCTS_NOT_SUPPORTED("the IUT lacks HcommWriteOnThread or HcommLocalCopyOnThread");
    World &w = World::get();
    const uint32_t reps = reps_of(16, 8);
    const uint64_t blen = 256 * 1024, boff = 65536, aoff = 4096;
    std::map<std::string, uint64_t> hist{{"new", 0}, {"stale", 0}, {"torn", 0}, {"absent", 0}, {"foreign", 0}};
    for (uint32_t rep = 0; rep < reps; ++rep) {
        const StampKey key = key_for(500 + rep, 0);
        if (w.rank == 1)
            w.poison(w.inbox(0) + boff, blen);
        if (w.rank == 0) {
            std::vector<std::byte> payload(blen);
            fill_payload(payload, key);
            w.put(w.outbox() + 65536, payload);
        }
        ranks::barrier();
        Script s;
        if (w.rank == 0) {
            s.write(w.thread(), w.peers[1].channel, w.remote_inbox(1, 0) + boff, w.outbox() + 65536, blen);
            s.wwn(w.thread(), w.peers[1].channel, w.remote_inbox(1, 0) + aoff, w.outbox(), 64, 40);
        } else if (w.rank == 1) {
            s.wait(w.threads[1], w.peers[0].channel, 40, w.ok_timeout());
            s.copy(w.threads[1], w.scratch(), w.inbox(0) + boff, blen);
        }
        const LaunchResult r = w.run(s);
        if (w.rank == 1) {
            Case::current().expect("WWN.LIT.5", r.ok() && s.rc(0) == 0,
                                   "the wait for the marker write did not complete: " + r.describe());
            ++hist[outcome_name(check_payload(w.get(w.scratch(), blen), key).overall())];
        }
        ranks::barrier();
    }
    const auto sum = sum_on_root(hist);
    if (w.rank == 0) {
        const uint64_t weak = sum.at("stale") + sum.at("torn") + sum.at("absent") + sum.at("foreign");
        Case::current().profile("WWN.LIT.5", weak != 0 ? "not-cumulative" : "cumulative",
                                std::to_string(weak) + " of " + std::to_string(reps) +
                                    " runs read the plain write B incomplete right after the wait for A");
        Case::current().litmus(profile_entry("L5", "cumulativity", "Litmus.L5_Cumulativity", sum,
                                             {"stale", "torn", "absent", "foreign"}));
    }
}

// L11, two forms. Known completion (F): the receiver answers its wait with an
// ack notify; only after waiting for the ack does the sender overwrite src on
// its thread, and dst must never hold the overwrite. Immediate reuse (P, like
// Nbi until completion): the overwrite is enqueued right behind the call; a
// stream moves on once the doorbell rang (api §7.4), so either outcome is allowed.
HCTS_CASE(Litmus, L11_SourceReuse, "WWN.LIT.11", "WWN.LIT.11N")
{
    HCTS_REQUIRE_WWN();
    if (Iut::get().api().HcommLocalCopyOnThread == nullptr || Iut::get().api().HcommChannelNotifyRecordOnThread == nullptr)
        HCTS_NOT_SUPPORTED("the IUT lacks HcommLocalCopyOnThread or HcommChannelNotifyRecordOnThread");
    World &w = World::get();
    Case &c = Case::current();
    const uint32_t total = reps_of(4, 16), batch = 16;
    const uint64_t len = 4096;
    const uint32_t ack = 49;
    std::map<std::string, uint64_t> hists[2];
    for (auto &h : hists)
        h = {{"original", 0}, {"overwritten", 0}, {"mixed", 0}, {"other", 0}};
    for (int form = 0; form < 2; ++form) {
        const bool handshake = form == 0;
        const char *clause = handshake ? "WWN.LIT.11" : "WWN.LIT.11N";
        for (uint32_t done = 0; done < total; done += batch) {
            const uint32_t n = std::min(batch, total - done);
            const uint32_t it = 1000 * static_cast<uint32_t>(form + 1) + done;
            // src_i at outbox + 2*i*len, its replacement right after it.
            if (w.rank == 1)
                for (uint32_t i = 0; i < n; ++i)
                    w.poison(w.inbox(0) + 4096 + i * 2 * len, len);
            if (w.rank == 0)
                for (uint32_t i = 0; i < n; ++i) {
                    std::vector<std::byte> p(len);
                    fill_payload(p, key_for(it + i, 0));
                    w.put(w.outbox() + i * 2 * len, p);
                    fill_payload(p, key_for(it + 500 + i, 0));
                    w.put(w.outbox() + i * 2 * len + len, p);
                }
            ranks::barrier();
            Script s;
            for (uint32_t i = 0; i < n; ++i) {
                // One index per write of the batch: notifies are binary, so two writes
                // to one index before its wait would coalesce (a slow receiver, e.g.
                // across nodes, then waits forever for the second).
                const uint32_t idx = 24 + i;
                if (w.rank == 0) {
                    s.wwn(w.thread(), w.peers[1].channel, w.remote_inbox(1, 0) + 4096 + i * 2 * len,
                          w.outbox() + i * 2 * len, len, idx);
                    if (handshake)
                        s.wait(w.thread(), w.peers[1].channel, ack, w.ok_timeout());
                    s.copy(w.thread(), w.outbox() + i * 2 * len, w.outbox() + i * 2 * len + len, len);
                } else if (w.rank == 1) {
                    s.wait(w.threads[1], w.peers[0].channel, idx, w.ok_timeout());
                    if (handshake)
                        s.record(w.threads[1], w.peers[0].channel, ack);
                }
            }
            const LaunchResult r = w.run(s);
            if (w.rank == 0 || w.rank == 1)
                for (size_t k = 0; k < s.size(); ++k)
                    c.expect(clause, s.rc(k) == 0,
                             "rank " + std::to_string(w.rank) + " op " + std::to_string(k) + " returned " +
                                 hccl_result_name(s.rc(k)) + " (" + r.describe() + ")");
            if (w.rank == 1) {
                c.expect(clause, r.ok(), "the receiver's program did not complete: " + r.describe());
                for (uint32_t i = 0; i < n; ++i) {
                    const auto got = w.get(w.inbox(0) + 4096 + i * 2 * len, len);
                    const auto orig = check_payload(got, key_for(it + i, 0));
                    const auto over = check_payload(got, key_for(it + 500 + i, 0));
                    ++hists[form][orig.ok() ? "original" : over.ok() ? "overwritten" : over.new_words ? "mixed" : "other"];
                    if (handshake)
                        c.expect(clause, over.new_words == 0,
                                 "write " + std::to_string(done + i) + ": " + std::to_string(over.new_words) +
                                     " words of dst hold the overwrite of src made after the receiver's ack");
                }
            }
            ranks::barrier();
        }
    }
    const auto sum0 = sum_on_root(hists[0]), sum1 = sum_on_root(hists[1]);
    if (w.rank == 0) {
        c.litmus(litmus_entry("L11", "src-reuse after known completion", "Litmus.L11_SourceReuse", sum0,
                              {"overwritten", "mixed"}));
        c.litmus(profile_entry("L11.nbi", "src-reuse right after the call (same thread)", "Litmus.L11_SourceReuse",
                               sum1, {"overwritten", "mixed"}));
        const uint64_t seen = sum1.at("overwritten") + sum1.at("mixed");
        c.profile("WWN.LIT.11N", seen != 0 ? "overwrite-seen" : "payload-kept",
                  std::to_string(seen) + " of " + std::to_string(total) +
                      " writes carried (part of) an overwrite of src enqueued right behind the call");
    }
}

// L13: P0: Write(D→P2); WWN(→P1, n1) ‖ P1: Wait(n1); WWN(→P2, n2) ‖ P2: Wait(n2); read D.
HCTS_CASE(Litmus, L13_ThreeParty, "WWN.LIT.13")
{
    HCTS_REQUIRE_WWN();
    World &w = World::get();
    if (w.size < 3)
        HCTS_NOT_SUPPORTED("L13 needs 3 ranks, the world has " + std::to_string(w.size) + " (run with mpirun -np 3)");
    if (Iut::get().api().HcommWriteOnThread == nullptr || Iut::get().api().HcommLocalCopyOnThread == nullptr)
        HCTS_NOT_SUPPORTED("the IUT lacks HcommWriteOnThread or HcommLocalCopyOnThread");
    const uint32_t reps = reps_of(32, 8);
    const uint64_t dlen = 64 * 1024, doff = 65536;
    std::map<std::string, uint64_t> hist{{"new", 0}, {"stale", 0}, {"torn", 0}, {"absent", 0}, {"foreign", 0}};
    for (uint32_t rep = 0; rep < reps; ++rep) {
        const StampKey key = key_for(3000 + rep, 0);
        if (w.rank == 2)
            w.poison(w.inbox(0) + doff, dlen);
        if (w.rank == 0) {
            std::vector<std::byte> p(dlen);
            fill_payload(p, key);
            w.put(w.outbox(), p);
        }
        ranks::barrier();
        Script s;
        if (w.rank == 0) {
            s.write(w.thread(), w.peers[2].channel, w.remote_inbox(2, 0) + doff, w.outbox(), dlen);
            s.wwn(w.thread(), w.peers[1].channel, w.remote_inbox(1, 0) + 4096, w.outbox() + dlen, 64, 50);
        } else if (w.rank == 1) {
            s.wait(w.threads[1], w.peers[0].channel, 50, w.ok_timeout());
            s.wwn(w.threads[1], w.peers[2].channel, w.remote_inbox(2, 1) + 4096, w.outbox(), 64, 51);
        } else if (w.rank == 2) {
            s.wait(w.threads[1], w.peers[1].channel, 51, w.ok_timeout());
            s.copy(w.threads[1], w.scratch(), w.inbox(0) + doff, dlen);
        }
        const LaunchResult r = w.run(s);
        if (w.rank <= 2)
            Case::current().expect("WWN.LIT.13", r.ok(), "rank " + std::to_string(w.rank) +
                                                             "'s part of the chain did not complete: " + r.describe());
        if (w.rank == 2)
            ++hist[outcome_name(check_payload(w.get(w.scratch(), dlen), key).overall())];
        ranks::barrier();
    }
    const auto sum = sum_on_root(hist);
    if (w.rank == 0) {
        const uint64_t weak = sum.at("stale") + sum.at("torn") + sum.at("absent") + sum.at("foreign");
        Case::current().profile("WWN.LIT.13", weak != 0 ? "not-cumulative" : "cumulative",
                                std::to_string(weak) + " of " + std::to_string(reps) +
                                    " runs: rank 2 read D incomplete after the chain's last wait");
        Case::current().litmus(profile_entry("L13", "3-party (WRC-like)", "Litmus.L13_ThreeParty", sum,
                                             {"stale", "torn", "absent", "foreign"}));
    }
}

// L14: WWN(len = 0), repeated: rejected, notify-only (the SHMEM choice) or
// success without a notify (a hazard: the peer would wait forever).
HCTS_CASE(Litmus, L14_ZeroLength, "WWN.LIT.14")
{
    HCTS_REQUIRE_WWN();
    World &w = World::get();
    const uint32_t reps = reps_of(64, 4);
    const uint64_t off = 8192;
    std::map<std::string, uint64_t> hist{{"rejected", 0}, {"notify-only", 0}, {"success-no-notify", 0},
                                         {"bytes-written", 0}};
    for (uint32_t rep = 0; rep < reps; ++rep) {
        if (w.rank == 1)
            w.poison(w.inbox(0) + off - 64, 192);
        ranks::barrier();
        Script s;
        if (w.rank == 0)
            s.wwn(w.thread(), w.peers[1].channel, w.remote_inbox(1, 0) + off, w.outbox(), 0, 52);
        (void)w.run(s, 30000);
        int32_t rc = w.rank == 0 ? s.rc(0) : 0;
        ranks::broadcast(&rc, sizeof rc, 0);
        bool notified = false;
        if (rc == HCCL_SUCCESS && w.rank == 1) {
            // A short wait: a success that raised no notify must not hang the case.
            const ThreadHandle t = w.fresh_thread(COMM_ENGINE_AICPU_TS);
            Script ws;
            ws.wait(t, w.peers[0].channel, 52, w.short_timeout());
            const LaunchResult r = w.run(ws, 30000);
            notified = t != 0 && r.ok() && ws.rc(0) == 0;
        }
        ranks::barrier();
        if (w.rank == 1) {
            const size_t bad = count_not_pattern(w.get(w.inbox(0) + off - 64, 192), kPoisonWord);
            ++hist[bad != 0 ? "bytes-written" : rc != HCCL_SUCCESS ? "rejected" : notified ? "notify-only"
                                                                                           : "success-no-notify"];
        }
    }
    const auto sum = sum_on_root(hist);
    if (w.rank == 0) {
        std::string observed = "rejected";
        for (const char *k : {"bytes-written", "success-no-notify", "notify-only"})
            if (sum.at(k) != 0) {
                observed = k;
                break;
            }
        Case::current().profile("WWN.LIT.14", observed,
                                "of " + std::to_string(reps) + " zero-length calls: " + nlohmann::json(sum).dump());
        Case::current().litmus(profile_entry("L14", "zero-len", "Litmus.L14_ZeroLength", sum,
                                             {"success-no-notify", "bytes-written"}));
    }
}

// L15: after the wait, read dst via (a) the waiting device thread, (b) the host
// once the launch completed — both valid paths (WWN.VIS.1) — and (c) another
// device thread that is not ordered after the wait (PROFILE: no path the
// documents call valid, so a stale read there is reported, not failed).
HCTS_CASE(Litmus, L15_ObserverPaths, "WWN.VIS.1", "WWN.LIT.15")
{
    HCTS_REQUIRE_WWN();
    if (Iut::get().api().HcommLocalCopyOnThread == nullptr)
        HCTS_NOT_SUPPORTED("the IUT lacks HcommLocalCopyOnThread (device-side reads)");
    World &w = World::get();
    Case &c = Case::current();
    const uint32_t reps = reps_of(16, 8);
    const uint64_t len = 64 * 1024, doff = 65536;
    std::map<std::string, uint64_t> a, b, cc;
    for (auto *h : {&a, &b, &cc})
        *h = {{"new", 0}, {"stale", 0}, {"torn", 0}, {"absent", 0}, {"foreign", 0}};
    for (uint32_t rep = 0; rep < reps; ++rep) {
        const StampKey key = key_for(4000 + rep, 0);
        if (w.rank == 1) {
            w.poison(w.inbox(0) + doff, len);
            w.poison(w.scratch(), 2 * len);
        }
        if (w.rank == 0) {
            std::vector<std::byte> p(len);
            fill_payload(p, key);
            w.put(w.outbox(), p);
        }
        ranks::barrier();
        Script s;
        if (w.rank == 0) {
            s.wwn(w.thread(), w.peers[1].channel, w.remote_inbox(1, 0) + doff, w.outbox(), len, 53);
        } else if (w.rank == 1) {
            // (c) is enqueued first on the other thread so it is not ordered after the wait.
            s.copy(w.threads[0], w.scratch() + len, w.inbox(0) + doff, len);
            s.wait(w.threads[1], w.peers[0].channel, 53, w.ok_timeout());
            s.copy(w.threads[1], w.scratch(), w.inbox(0) + doff, len);
        }
        const LaunchResult r = w.run(s);
        if (w.rank == 1) {
            c.expect("WWN.VIS.1", r.ok() && s.rc(1) == 0, "L15: the wait did not complete: " + r.describe());
            const auto pa = check_payload(w.get(w.scratch(), len), key, "dst read by the waiting thread (L15 a)");
            const auto pb = check_payload(w.get(w.inbox(0) + doff, len), key, "dst read by the host (L15 b)");
            const auto pc = check_payload(w.get(w.scratch() + len, len), key);
            c.expect("WWN.VIS.1", pa.ok(), pa.first_bad);
            c.expect("WWN.VIS.1", pb.ok(), pb.first_bad);
            ++a[outcome_name(pa.overall())];
            ++b[outcome_name(pb.overall())];
            ++cc[outcome_name(pc.overall())];
        }
        ranks::barrier();
    }
    const auto sa = sum_on_root(a), sb = sum_on_root(b), sc = sum_on_root(cc);
    if (w.rank == 0) {
        const std::vector<std::string> weak{"stale", "torn", "absent", "foreign"};
        c.litmus(litmus_entry("L15.a", "observer: waiting device thread", "Litmus.L15_ObserverPaths", sa, weak));
        c.litmus(litmus_entry("L15.b", "observer: host after the launch", "Litmus.L15_ObserverPaths", sb, weak));
        c.litmus(profile_entry("L15.c", "observer: another device thread, unordered", "Litmus.L15_ObserverPaths", sc,
                               weak));
        const uint64_t seen = sc.at("new");
        c.profile("WWN.LIT.15", seen == reps ? "new-observed" : "stale-observed",
                  std::to_string(reps - seen) + " of " + std::to_string(reps) +
                      " reads by another device thread (not ordered after the wait) missed the payload");
    }
}

// L16: bad calls are refused, deliver no byte and raise no notify. Each call is
// judged under the clause of its error class; the histogram counts refusals.
HCTS_CASE(Litmus, L16_ErrorPaths, "WWN.ERR.1", "WWN.ERR.3", "WWN.ERR.4", "WWN.IDX.2")
{
    HCTS_REQUIRE_WWN();
    World &w = World::get();
    Case &c = Case::current();
    struct Bad {
        const char *what;
        const char *clause;
        int32_t expected;
    };
    static const Bad kBad[] = {{"dst NULL", "WWN.ERR.1", HCCL_E_PTR},
                               {"src NULL", "WWN.ERR.1", HCCL_E_PTR},
                               {"channel 0", "WWN.ERR.1", HCCL_E_PTR},
                               {"idx = notifyNum", "WWN.IDX.2", HCCL_E_PARA},
                               {"dst outside the peer's communication memory", "WWN.ERR.3", HCCL_E_PARA},
                               {"len overflowing dst + len", "WWN.ERR.4", HCCL_E_PARA}};
    const uint64_t off = 8192, len = 4096;
    const uint32_t idx = 54;
    // A bad call accepted where only a STRICT clause (the reference's stricter
    // choice) forbids it is counted apart: it fails that clause, which the report
    // shows, but must not make the litmus entry decide the MUST gate.
    std::map<std::string, uint64_t> hist{
        {"refused", 0}, {"refused-wrong-code", 0}, {"accepted", 0}, {"accepted-strict", 0}};
    const uint32_t reps = reps_of(128, 2);
    for (uint32_t rep = 0; rep < reps; ++rep)
        for (const Bad &b : kBad) {
            if (w.rank == 1)
                w.poison(w.inbox(0) + off, len);
            if (w.rank == 0) {
                std::vector<std::byte> p(len);
                fill_payload(p, key_for(5000 + rep, 0));
                w.put(w.outbox(), p);
            }
            ranks::barrier();
            Script s;
            if (w.rank == 0) {
                std::byte *dst = w.remote_inbox(1, 0) + off;
                const std::byte *src = w.outbox();
                ChannelHandle ch = w.peers[1].channel;
                uint32_t i = idx;
                uint64_t l = len;
                const std::string what = b.what;
                if (what == "dst NULL")
                    dst = nullptr;
                else if (what == "src NULL")
                    src = nullptr;
                else if (what == "channel 0")
                    ch = 0;
                else if (what == "idx = notifyNum")
                    i = World::kNotifyNum;
                else if (what == "len overflowing dst + len")
                    l = UINT64_MAX - 7;
                else
                    dst = w.peers[1].remote_base + w.peers[1].remote_size + 4096;
                s.wwn(w.thread(), ch, dst, src, l, i);
            }
            (void)w.run(s, 30000);
            if (w.rank == 0) {
                const int32_t rc = s.rc(0);
                const Clause *clause = options().catalogue.find(b.clause);
                const bool strict = clause != nullptr && clause->kind == "STRICT";
                ++hist[rc == b.expected            ? "refused"
                       : rc != HCCL_SUCCESS        ? "refused-wrong-code"
                       : strict                    ? "accepted-strict"
                                                   : "accepted"];
                c.expect(b.clause, rc != HCCL_SUCCESS,
                         std::string("L16: ") + b.what + " returned HCCL_SUCCESS");
            }
            // The probe write after the bad call proves no byte and no notify arrived.
            prove_no_effect(0, 1, 0, 0, idx + 1, {{off, len}}, {idx}, b.clause);
        }
    const auto sum = sum_on_root(hist);
    if (w.rank == 0)
        c.litmus(litmus_entry("L16", "error paths", "Litmus.L16_ErrorPaths", sum, {"accepted"}));
}

} // namespace hcts
