// Error paths: bad arguments are refused with the right code and no effect.
#include "case_kit.h"

namespace hcts {
namespace {

StampKey key_for(uint32_t iteration, int sender) { return {5, iteration, static_cast<uint32_t>(sender)}; }

struct BadCall {
    std::string what;
    ThreadHandle thread;
    ChannelHandle channel;
    std::byte *dst;
    const std::byte *src;
    uint64_t len;
    uint32_t idx;
    int32_t expected;
};

// Rank 0 makes each call on the device; rank 1 owns the destinations. Return
// codes are judged under `code_clause`; no effect under `effect_clause`.
void run_bad_calls(const Ctx &c, const std::vector<BadCall> &calls, const std::vector<Untouched> &regions,
                   const std::string &code_clause, const std::string &effect_clause, uint32_t probe_idx,
                   const std::vector<uint32_t> &quiet)
{
    const World &w = c.w;
    const Device &dev = w.device();
    if (w.rank == 1)
        for (const auto &u : regions)
            dev.poison(w.inbox(0) + u.off, u.len);
    mpi::phase_barrier("bad calls: prepared");
    Script s;
    if (w.rank == 0) {
        std::vector<std::byte> src(65536);
        fill_payload(src, key_for(1, 0));
        dev.put(w.outbox(), src);
        for (const auto &b : calls)
            s.wwn(b.thread, b.channel, b.dst, b.src, b.len, b.idx);
    }
    const LaunchResult r = c.run(s, 30000);
    if (w.rank == 0)
        for (size_t k = 0; k < calls.size(); ++k)
            c.ev.check(code_clause, s.rc(k) == calls[k].expected,
                       calls[k].what + " returned " + hccl_result_name(s.rc(k)) + ", expected " +
                           hccl_result_name(calls[k].expected) + " (" + r.describe() + ")");
    prove_no_effect(c, 0, 1, 0, 0, probe_idx, regions, quiet, effect_clause);
}

} // namespace

HCTS_CASE(Errors, NullPointersAndZeroHandles, clauses("WWN.ERR.1"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    std::byte *dst = w.rank == 0 ? w.remote_inbox(1, 0) : nullptr;
    const std::vector<Untouched> regions{{8192, 4096}, {16384, 4096}, {24576, 4096}};
    std::vector<BadCall> calls;
    if (w.rank == 0)
        calls = {
            {"dst NULL", w.thread(), w.channel_to(1), nullptr, w.outbox(), 4096, 14, HCCL_E_PTR},
            {"src NULL", w.thread(), w.channel_to(1), dst + regions[0].off, nullptr, 4096, 14, HCCL_E_PTR},
            {"channel 0", w.thread(), 0, dst + regions[1].off, w.outbox(), 4096, 14, HCCL_E_PTR},
            {"thread 0", 0, w.channel_to(1), dst + regions[2].off, w.outbox(), 4096, 14, HCCL_E_PTR},
        };
    run_bad_calls(c, calls, regions, "WWN.ERR.1", "WWN.ERR.1", 15, {14});
}

HCTS_CASE(Errors, ForeignHandles, clauses("WWN.ERR.2"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const std::vector<Untouched> regions{{8192, 4096}, {16384, 4096}};
    std::vector<BadCall> calls;
    // Values no acquisition returned: a plausible-looking pointer-sized number.
    const uint64_t foreign = 0x00007f5a5a5a0000ULL;
    if (w.rank == 0)
        calls = {
            {"a foreign channel handle", w.thread(), foreign, w.remote_inbox(1, 0) + regions[0].off, w.outbox(), 4096,
             16, HCCL_E_PARA},
            {"a foreign thread handle", foreign, w.channel_to(1), w.remote_inbox(1, 0) + regions[1].off, w.outbox(),
             4096, 16, HCCL_E_PARA},
        };
    run_bad_calls(c, calls, regions, "WWN.ERR.2", "WWN.ERR.2", 17, {16});
}

HCTS_CASE(Errors, RangesOutsideCommMemory, clauses("WWN.ERR.3"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const std::vector<Untouched> regions{{8192, 4096}};
    std::vector<std::byte> host_buffer(4096); // ordinary host memory, never registered
    std::vector<BadCall> calls;
    if (w.rank == 0) {
        const Peer &p = w.peers[1];
        std::byte *peer_end = p.remote_base + p.remote_size;
        std::byte *local_end = w.local_base + w.local_size;
        calls = {
            {"src in unregistered host memory", w.thread(), p.channel, w.remote_inbox(1, 0) + regions[0].off,
             host_buffer.data(), 4096, 18, HCCL_E_PARA},
            {"src running past the end of local communication memory", w.thread(), p.channel,
             w.remote_inbox(1, 0) + regions[0].off, local_end - 32, 64, 18, HCCL_E_PARA},
            {"dst running past the end of the peer's communication memory", w.thread(), p.channel, peer_end - 32,
             w.outbox(), 64, 18, HCCL_E_PARA},
            {"dst before the peer's communication memory", w.thread(), p.channel, p.remote_base - 4096, w.outbox(), 64,
             18, HCCL_E_PARA},
        };
    }
    run_bad_calls(c, calls, regions, "WWN.ERR.3", "WWN.ERR.3", 19, {18});
}

HCTS_CASE(Errors, AddressOverflow, clauses("WWN.ERR.4"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const std::vector<Untouched> regions{{8192, 4096}};
    std::vector<BadCall> calls;
    if (w.rank == 0)
        calls = {
            {"len UINT64_MAX - 7", w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + regions[0].off, w.outbox(),
             UINT64_MAX - 7, 20, HCCL_E_PARA},
            {"len 2^63", w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + regions[0].off, w.outbox(), 1ULL << 63, 20,
             HCCL_E_PARA},
        };
    run_bad_calls(c, calls, regions, "WWN.ERR.4", "WWN.ERR.4", 21, {20});
}

HCTS_CASE(Errors, WaitZeroHandles, clauses("WWN.ERR.5"), needs(Feature::NotifyWait))
{
    const Ctx c = ctx();
    const World &w = c.w;
    HcclResult arc = HCCL_SUCCESS;
    const ThreadHandle t = w.fresh_thread(w.setup_engine, &arc);
    if (t == 0) {
        ev().error("WWN.ERR.5",
                   "no fresh thread for the channel-0 wait: HcclThreadAcquire returned " + hccl_result_name(arc));
    } else {
        Script s;
        s.wait(t, 0, 0, w.short_timeout());
        s.wait(0, w.channel_to(w.peer()), 0, w.short_timeout());
        const LaunchResult r = c.run(s, 30000);
        ev().check("WWN.ERR.5", s.rc(0) == HCCL_E_PTR,
                   "wait with channel 0 returned " + hccl_result_name(s.rc(0)) + ", expected HCCL_E_PTR (" +
                       r.describe() + ")");
        ev().check("WWN.ERR.5", s.rc(1) == HCCL_E_PTR,
                   "wait with thread 0 returned " + hccl_result_name(s.rc(1)) + ", expected HCCL_E_PTR");
    }
    mpi::phase_barrier("zero-handle waits");
}

HCTS_CASE(Errors, VendorCheckOrder, clauses("WWN.ERR.6"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait, Feature::LocalCopy))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const std::vector<Untouched> regions{{8192, 4096}};
    std::vector<BadCall> calls;
    if (w.rank == 0)
        calls = {
            {"dst NULL with index UINT32_MAX", w.thread(), w.channel_to(1), nullptr, w.outbox(), 64, UINT32_MAX,
             HCCL_E_PTR},
            {"src NULL with len 0", w.thread(), w.channel_to(1), w.remote_inbox(1, 0) + regions[0].off, nullptr, 0, 22,
             HCCL_E_PTR},
            {"thread 0 with len 0", 0, w.channel_to(1), w.remote_inbox(1, 0) + regions[0].off, w.outbox(), 0, 22,
             HCCL_E_PTR},
        };
    run_bad_calls(c, calls, regions, "WWN.ERR.6", "WWN.ERR.6", 23, {22});
}

} // namespace hcts
