// Litmus L1 (message passing), repeated: the receiver waits, then reads on its
// own stream at once; any word that is not the new payload is a forbidden
// outcome. L1_UnderStress repeats it with random sender delays and competing traffic.
#include <random>

#include "case_kit.h"

namespace hcts::litmus_message_passing {

namespace {

// One write of L1 under stress, as every rank draws it.
struct W {
    uint64_t dst, src, len;
    uint32_t idx;
    StampKey key;
    bool delay = false; // the sender runs a local copy of delay_len bytes first
    uint64_t delay_len = 0;
    bool wait_late = false; // receiver jitter: a local copy before this wait
};

// `count` writes of `len` bytes at fixed strides on indices from `idx0`, the
// competing traffic; the iteration of `first` counts up.
std::vector<W> competing(size_t count, uint64_t dst0, uint64_t dst_step, uint64_t src0, uint64_t src_step, uint64_t len,
                         uint32_t idx0, StampKey first)
{
    std::vector<W> out;
    for (uint32_t j = 0; j < count; ++j)
        out.push_back(W{dst0 + j * dst_step, src0 + j * src_step, len, idx0 + j,
                        StampKey{first.run, (first.iteration + j) & 0xfff, first.sender}});
    return out;
}

} // namespace

HCTS_CASE(Litmus, L1_MessagePassing, clauses("WWN.VIS.1"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    ev().seed(c.seed);
    std::mt19937_64 rng(c.seed);
    Histogram hist = payload_histogram();
    uint32_t done = 0, batch = 0;
    while (done < c.repeat) {
        // One batch: up to 64 writes in flight on distinct indices and
        // destinations, random lengths and misalignments, alternating direction.
        const uint32_t n = std::min<uint32_t>(World::kNotifyNum, c.repeat - done);
        const int sender = static_cast<int>(batch % 2);
        std::vector<Xfer> plan;
        uint64_t dst = 4096, src = 0;
        for (uint32_t i = 0; i < n; ++i) {
            const uint64_t len = 1 + rng() % 6000;
            const uint64_t mis = rng() % 64;
            const uint64_t smis = rng() % 64;
            plan.push_back(Xfer{sender, 1 - sender, dst + mis, src + smis, len, i, 0, 0, 0,
                                StampKey{8, (done + i) & 0xfff, static_cast<uint32_t>(sender)}});
            dst += 8192 + 4096;
            src += 8192;
        }
        const Exchange ex = exchange_checked(c, plan, {"WWN.VIS.1", "WWN.VIS.1", "", ""});
        if (w.rank == 1 - sender)
            for (const auto &r : ex.x)
                ++hist[std::string(outcome_name(r.seen().overall()))];
        done += n;
        ++batch;
    }
    // Both ranks received half the batches.
    const Histogram sum = sum_on_root(hist);
    if (w.rank == 0)
        ev().litmus(litmus_entry("L1", "MP", "Litmus.L1_MessagePassing", sum, weak_outcomes()));
}

// L1 under stress (anchors §2 "repeat under stress"): before each write the
// sender may run a local copy of random size on the same thread (a random
// delay, on the device, of up to ~64 KiB of memory traffic); meanwhile the
// receiver sends competing writes back on other indices, the sender sends
// competing writes on a second channel, and the receiver sometimes runs a copy
// before a wait (polling jitter), all in the same launch.
HCTS_CASE(Litmus, L1_UnderStress, clauses("WWN.VIS.1"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const Device &dev = w.device();
    ev().seed(c.seed);
    std::mt19937_64 rng(c.seed ^ 0x4c31ULL);
    const ScopedChannels second(w, World::kNotifyNum);
    // Ranks 0 and 1 take turns as sender and receiver, so each one's second
    // channel goes to the other; without a distinct second channel the
    // competing traffic stays on other indices of the first.
    const bool have_alt = second.distinct_from_default();
    const ChannelHandle alt = have_alt && w.rank < 2 ? second.to(1 - w.rank) : 0;
    constexpr uint32_t kMain = 24, kBack = 8, kSide = 8;
    Histogram hist = payload_histogram();
    Histogram extra{{"delays", 0}, {"competing", 0}};
    for (uint32_t done = 0, batch = 0; done < c.repeat; ++batch) {
        const uint32_t n = std::min(kMain, c.repeat - done);
        const int sender = static_cast<int>(batch % 2), receiver = 1 - sender;
        // Every rank draws the same plan from the same generator.
        std::vector<W> main(n), back(kBack), side(have_alt ? kSide : 0);
        for (uint32_t i = 0; i < n; ++i)
            main[i] = W{4096 + i * 12288ULL + rng() % 64,
                        i * 8192ULL + rng() % 64,
                        1 + rng() % 6000,
                        i,
                        StampKey{10, (done + i) & 0xfff, static_cast<uint32_t>(sender)},
                        rng() % 2 == 0,
                        4096 + rng() % 61440};
        for (uint32_t i = 0; i < n; ++i)
            main[i].wait_late = rng() % 4 == 0;
        back = competing(kBack, 4096, 20480, 1ULL << 20, 16384, 16384, 32, {11, batch * kBack, uint32_t(receiver)});
        side = competing(side.size(), 512ULL << 10, 40960, 512ULL << 10, 32768, 32768, 40,
                         {12, batch * kSide, uint32_t(sender)});
        // Prepare: receivers poison, senders stamp.
        auto prepare = [&](const std::vector<W> &ws, int from) {
            for (const W &x : ws) {
                if (w.rank == 1 - from)
                    dev.poison(w.inbox(from) + x.dst, x.len);
                if (w.rank == from) {
                    std::vector<std::byte> p(x.len);
                    fill_payload(p, x.key);
                    dev.put(w.outbox() + x.src, p);
                }
            }
        };
        prepare(main, sender);
        prepare(side, sender);
        prepare(back, receiver);
        mpi::phase_barrier("L1 under stress: prepared");
        Script s;
        std::vector<size_t> snap_op(n, 0); // on the receiver: the copy that snapshots main[i]
        if (w.rank == sender) {
            const ChannelHandle to_peer = w.channel_to(receiver);
            for (uint32_t i = 0; i < n; ++i) {
                if (main[i].delay)
                    s.copy(w.thread(), w.scratch() + (1ULL << 20), w.outbox() + (2ULL << 20), main[i].delay_len);
                s.wwn(w.thread(), to_peer, w.remote_inbox(receiver, sender) + main[i].dst, w.outbox() + main[i].src,
                      main[i].len, main[i].idx);
                if (i < side.size())
                    s.wwn(w.thread(), alt, w.remote_inbox(receiver, sender) + side[i].dst, w.outbox() + side[i].src,
                          side[i].len, side[i].idx);
            }
            for (const W &x : back)
                s.wait(w.threads[1], to_peer, x.idx, w.ok_timeout());
        } else if (w.rank == receiver) {
            const ChannelHandle to_peer = w.channel_to(sender);
            for (const W &x : back)
                s.wwn(w.thread(), to_peer, w.remote_inbox(sender, receiver) + x.dst, w.outbox() + x.src, x.len, x.idx);
            for (uint32_t i = 0; i < n; ++i) {
                if (main[i].wait_late)
                    s.copy(w.threads[1], w.scratch() + (1ULL << 20), w.outbox() + (2ULL << 20), 16384);
                s.wait(w.threads[1], to_peer, main[i].idx, w.ok_timeout());
                snap_op[i] = s.size();
                s.copy(w.threads[1], w.scratch() + i * 8192ULL, w.inbox(sender) + main[i].dst, main[i].len);
                if (i < side.size())
                    s.wait(w.threads[1], alt, side[i].idx, w.ok_timeout());
            }
        }
        const LaunchResult r = c.run(s);
        const std::string tag = "L1 under stress, batch " + std::to_string(batch);
        for (size_t k = 0; k < s.size(); ++k) {
            const std::string what = tag + ": op " + std::to_string(k) + " returned " + hccl_result_name(s.rc(k)) +
                                     " (" + r.describe() + ")";
            // A refused local copy (the stress copies, the snapshots) is the
            // harness's tool failing, not the write: the run shows nothing.
            if (s.op(k).kind == HCTS_OP_LOCAL_COPY && s.rc(k) != 0)
                ev().unsupported("WWN.VIS.1", what + ": a local copy the litmus needs was refused");
            else
                ev().check("WWN.VIS.1", s.rc(k) == 0, what);
        }
        if (w.rank <= 1)
            judge_launch(r, "WWN.VIS.1", tag, ev());
        if (w.rank == receiver) {
            for (uint32_t i = 0; i < n; ++i) {
                if (s.rc(snap_op[i]) != 0)
                    continue; // no snapshot was taken (reported above)
                const auto snap = check_payload(dev.get(w.scratch() + i * 8192ULL, main[i].len), main[i].key,
                                                "dst (device-stream read right after the wait, under stress)");
                ++hist[std::string(outcome_name(snap.overall()))];
                ev().check("WWN.VIS.1", snap.ok(), "write " + std::to_string(done + i) + ": " + snap.first_bad);
                extra["delays"] += main[i].delay ? 1 : 0;
            }
            for (const W &x : side) {
                const auto got =
                    check_payload(dev.get(w.inbox(sender) + x.dst, x.len), x.key, "competing write (channel 2)");
                ev().check("WWN.VIS.1", got.ok(), got.first_bad);
                ++extra["competing"];
            }
        } else if (w.rank == sender) {
            for (const W &x : back) {
                const auto got =
                    check_payload(dev.get(w.inbox(receiver) + x.dst, x.len), x.key, "competing write back");
                ev().check("WWN.VIS.1", got.ok(), got.first_bad);
                ++extra["competing"];
            }
        }
        mpi::phase_barrier("L1 under stress: checked");
        done += n;
    }
    const Histogram sum = sum_on_root(hist), extras = sum_on_root(extra);
    if (w.rank == 0) {
        ev().litmus(litmus_entry("L1.stress", "MP under stress", "Litmus.L1_UnderStress", sum, weak_outcomes()));
        ev().observe("delayed_writes", extras.at("delays"));
        ev().observe("competing_writes", extras.at("competing"));
        ev().observe("second_channel", have_alt);
    }
}

} // namespace hcts::litmus_message_passing
