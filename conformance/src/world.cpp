#include "world.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string_view>

#include "mpi_glue.h"
#include "stamp.h"

namespace hcts {

namespace {
std::unique_ptr<World> g_world;

void require(int32_t rc, const char *what)
{
    if (rc != HCCL_SUCCESS)
        throw std::runtime_error(std::string(what) + " failed: " + hccl_result_name(rc) + " (" + std::to_string(rc) +
                                 ")");
}

CommProtocol protocol_from_env(bool alternate)
{
    const char *p = std::getenv(alternate ? "HCTS_PROTOCOL_ALT" : "HCTS_PROTOCOL");
    if (alternate && p == nullptr)
        return protocol_from_env(false) == COMM_PROTOCOL_UB_CTP ? COMM_PROTOCOL_UBOE : COMM_PROTOCOL_UB_CTP;
    const std::string_view v = p != nullptr ? p : "UB_CTP";
    if (v == "UB_CTP")
        return COMM_PROTOCOL_UB_CTP;
    if (v == "UBOE")
        return COMM_PROTOCOL_UBOE;
    if (v == "ROCE")
        return COMM_PROTOCOL_ROCE;
    if (v == "HCCS")
        return COMM_PROTOCOL_HCCS;
    throw std::runtime_error("HCTS_PROTOCOL='" + std::string(v) + "' is not one of UB_CTP, UBOE, ROCE, HCCS");
}
} // namespace

const char *hccl_result_name(int32_t rc)
{
    switch (rc) {
    case HCCL_SUCCESS: return "HCCL_SUCCESS";
    case HCCL_E_PARA: return "HCCL_E_PARA";
    case HCCL_E_PTR: return "HCCL_E_PTR";
    case HCCL_E_MEMORY: return "HCCL_E_MEMORY";
    case HCCL_E_INTERNAL: return "HCCL_E_INTERNAL";
    case HCCL_E_NOT_SUPPORT: return "HCCL_E_NOT_SUPPORT";
    case HCCL_E_NOT_FOUND: return "HCCL_E_NOT_FOUND";
    case HCCL_E_UNAVAIL: return "HCCL_E_UNAVAIL";
    case HCCL_E_TIMEOUT: return "HCCL_E_TIMEOUT";
    case HCCL_E_AGAIN: return "HCCL_E_AGAIN";
    case HCCL_E_REMOTE: return "HCCL_E_REMOTE";
    case HCTS_OP_RC_MISSING: return "symbol absent from the IUT";
    default: return "HcclResult";
    }
}

std::string LaunchResult::describe() const
{
    return "launch rc " + std::string(hccl_result_name(rc)) + ", program returned " +
           std::to_string(status.program_return) + ", task error " + hccl_result_name(status.task_error) +
           (status.timed_out != 0 ? ", deadline passed" : "");
}

Script::Script() : args_(std::make_unique<hcts_prog_ops_args>())
{
    std::memset(args_.get(), 0, sizeof(*args_));
    args_->version = HCTS_PROG_ABI_VERSION;
    args_->size = sizeof(hcts_prog_ops_args);
    const HcommDispatch &api = Iut::get().api();
    args_->api.write_with_notify = api.HcommWriteWithNotifyOnThread;
    args_->api.write = api.HcommWriteOnThread;
    args_->api.notify_record = api.HcommChannelNotifyRecordOnThread;
    args_->api.notify_wait = api.HcommChannelNotifyWaitOnThread;
    args_->api.local_copy = api.HcommLocalCopyOnThread;
    args_->api.channel_fence = api.HcommChannelFenceOnThread;
}

Script &Script::add(const hcts_op &op)
{
    if (args_->op_count >= HCTS_PROG_MAX_OPS)
        throw std::length_error("a device script holds at most " + std::to_string(HCTS_PROG_MAX_OPS) + " ops");
    args_->ops[args_->op_count++] = op;
    return *this;
}

Script &Script::wwn(ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t len, uint32_t idx)
{
    return add({HCTS_OP_WWN, idx, t, c, reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), len, 0, 0});
}
Script &Script::write(ThreadHandle t, ChannelHandle c, void *dst, const void *src, uint64_t len)
{
    return add({HCTS_OP_WRITE, 0, t, c, reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), len, 0, 0});
}
Script &Script::record(ThreadHandle t, ChannelHandle c, uint32_t idx)
{
    return add({HCTS_OP_RECORD, idx, t, c, 0, 0, 0, 0, 0});
}
Script &Script::wait(ThreadHandle t, ChannelHandle c, uint32_t idx, uint32_t timeout)
{
    return add({HCTS_OP_WAIT, idx, t, c, 0, 0, 0, timeout, 0});
}
Script &Script::copy(ThreadHandle t, void *dst, const void *src, uint64_t len)
{
    return add({HCTS_OP_LOCAL_COPY, 0, t, 0, reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), len, 0,
                0});
}
Script &Script::fence(ThreadHandle t, ChannelHandle c) { return add({HCTS_OP_FENCE, 0, t, c, 0, 0, 0, 0, 0}); }

World &World::get()
{
    if (!g_world)
        throw std::logic_error("hcts: World::get() before World::init()");
    return *g_world;
}

World &World::init()
{
    g_world.reset(new World());
    World &w = *g_world;
    const HcommDispatch &api = Iut::get().api();
    w.rank = ranks::rank();
    w.size = ranks::size();
    if (w.size < 2)
        throw std::runtime_error("the conformance suite needs at least 2 ranks (mpirun -np 2), got " +
                                 std::to_string(w.size));
    for (const char *sym : {"HcclGetRootInfo", "HcclCommInitRootInfo", "HcclThreadAcquire", "HcclChannelAcquire",
                            "HcclGetHcclBuffer", "HcclChannelGetHcclBuffer"})
        if (!Iut::get().has(sym))
            throw std::runtime_error(std::string("the IUT lacks ") + sym + ", needed to set up any case");

    HcclRootInfo root{};
    if (w.rank == 0)
        require(api.HcclGetRootInfo(&root), "HcclGetRootInfo");
    ranks::broadcast(&root, sizeof root);
    require(api.HcclCommInitRootInfo(static_cast<uint32_t>(w.size), &root, static_cast<uint32_t>(w.rank), &w.comm),
            "HcclCommInitRootInfo");

    w.threads.resize(2);
    HcclResult trc = api.HcclThreadAcquire(w.comm, COMM_ENGINE_AICPU_TS, 2, kNotifyNum, w.threads.data());
    if (trc == HCCL_E_NOT_SUPPORT) {
        w.setup_engine = COMM_ENGINE_CPU_TS;
        trc = api.HcclThreadAcquire(w.comm, w.setup_engine, 2, kNotifyNum, w.threads.data());
    }
    require(trc, w.setup_engine == COMM_ENGINE_AICPU_TS ? "HcclThreadAcquire(AICPU_TS, 2 threads)"
                                                   : "HcclThreadAcquire(CPU_TS, 2 threads; AICPU_TS is not supported)");

    HcclResult rc = HCCL_SUCCESS;
    const auto channels = w.acquire_channels(kNotifyNum, rc);
    require(rc, "HcclChannelAcquire(notifyNum 64, one per peer)");

    void *base = nullptr;
    uint64_t size = 0;
    require(api.HcclGetHcclBuffer(w.comm, &base, &size), "HcclGetHcclBuffer");
    w.local_base = static_cast<std::byte *>(base);
    w.local_size = size;
    w.layout.size = size & ~uint64_t{4095};
    w.layout.lane_size = (w.layout.size / 2 / static_cast<uint64_t>(w.size)) & ~uint64_t{4095};
    w.peers.resize(static_cast<size_t>(w.size));
    for (int r = 0; r < w.size; ++r) {
        if (r == w.rank)
            continue;
        Peer &p = w.peers[static_cast<size_t>(r)];
        p.channel = channels[static_cast<size_t>(r)];
        void *rb = nullptr;
        require(api.HcclChannelGetHcclBuffer(w.comm, p.channel, &rb, &p.remote_size), "HcclChannelGetHcclBuffer");
        p.remote_base = static_cast<std::byte *>(rb);
        if ((p.remote_size & ~uint64_t{4095}) != w.layout.size)
            throw std::runtime_error("rank " + std::to_string(r) + "'s communication buffer is " +
                                     std::to_string(p.remote_size) + " bytes, this rank's is " +
                                     std::to_string(size) + "; the suite needs equal sizes");
    }
    if (w.layout.lane_size < (1U << 20))
        throw std::runtime_error("the communication buffer (" + std::to_string(size) +
                                 " bytes) is too small: the suite needs at least 2 MiB per rank per lane");
    ranks::barrier();
    w.measure_timeout_unit();
    // Decide the unit together, so every rank uses the same timeouts.
    w.timeout_in_seconds = ranks::all(w.timeout_in_seconds);
    return w;
}

std::vector<ChannelHandle> World::acquire_channels(uint32_t notify_num, HcclResult &rc, bool alternate)
{
    const HcommDispatch &api = Iut::get().api();
    const CommProtocol protocol = protocol_from_env(alternate);
    std::vector<HcclChannelDesc> descs(static_cast<size_t>(size - 1));
    HcclChannelDescInit(descs.data(), static_cast<uint32_t>(descs.size()));
    size_t i = 0;
    for (int r = 0; r < size; ++r) {
        if (r == rank)
            continue;
        descs[i].remoteRank = static_cast<uint32_t>(r);
        descs[i].channelProtocol = protocol;
        descs[i].notifyNum = notify_num;
        ++i;
    }
    std::vector<ChannelHandle> got(descs.size(), 0);
    rc = api.HcclChannelAcquire(comm, setup_engine, descs.data(), static_cast<uint32_t>(descs.size()),
                                got.data());
    std::vector<ChannelHandle> by_rank(static_cast<size_t>(size), 0);
    i = 0;
    for (int r = 0; r < size; ++r)
        if (r != rank)
            by_rank[static_cast<size_t>(r)] = got[i++];
    return by_rank;
}

ScopedChannels::ScopedChannels(uint32_t notify_num)
{
    World &w = World::get();
    by_rank_ = w.acquire_channels(notify_num, rc_, true);
    ok_ = ranks::all(rc_ == HCCL_SUCCESS);
    bool mine = rc_ == HCCL_SUCCESS;
    for (int r = 0; r < w.size; ++r)
        if (r != w.rank)
            mine = mine && by_rank_[static_cast<size_t>(r)] != 0 &&
                   by_rank_[static_cast<size_t>(r)] != w.peers[static_cast<size_t>(r)].channel;
    distinct_ = ranks::all(mine);
}

ScopedChannels::~ScopedChannels()
{
    World &w = World::get();
    ranks::barrier(); // every rank is done with them
    if (rc_ != HCCL_SUCCESS || Iut::get().api().HcclChannelDestroy == nullptr)
        return;
    std::vector<ChannelHandle> live;
    for (ChannelHandle c : by_rank_)
        if (c != 0)
            live.push_back(c);
    // Best effort: a library that cannot destroy such channels keeps them.
    (void)Iut::get().api().HcclChannelDestroy(w.comm, live.data(), static_cast<uint32_t>(live.size()));
    ranks::barrier();
}

ThreadHandle World::fresh_thread(CommEngine engine, HcclResult *rc)
{
    ThreadHandle t = 0;
    const HcclResult r = Iut::get().api().HcclThreadAcquire(comm, engine, 1, kNotifyNum, &t);
    if (rc != nullptr)
        *rc = r;
    return r == HCCL_SUCCESS ? t : 0;
}

std::byte *World::remote_inbox(int receiver, int sender) const
{
    return peers.at(static_cast<size_t>(receiver)).remote_base + layout.inbox(sender);
}

LaunchResult World::run(Script &s, uint32_t timeout_ms)
{
    LaunchResult r;
    if (s.empty())
        return r;
    r.rc = Adapter::get().run(comm, "ops", &s.args(), sizeof(hcts_prog_ops_args),
                              timeout_ms != 0 ? timeout_ms : launch_timeout_ms, r.status);
    return r;
}

void World::put(void *dev, std::span<const std::byte> host) const
{
    Adapter::get().to_device(dev, host.data(), host.size());
}

std::vector<std::byte> World::get(const void *dev, size_t len) const
{
    std::vector<std::byte> out(len);
    Adapter::get().to_host(out.data(), dev, len);
    return out;
}

void World::poison(void *dev, size_t len) const
{
    std::vector<std::byte> p(len);
    fill_pattern(p, kPoisonWord);
    put(dev, p);
}

// A wait with timeOut 1 on a notify nobody raises: ~1 s means seconds, ~1 ms
// milliseconds. Every rank does it on a fresh thread at the same time.
void World::measure_timeout_unit()
{
    if (Iut::get().api().HcommChannelNotifyWaitOnThread == nullptr) {
        unit_probe_note = "HcommChannelNotifyWaitOnThread absent";
        return;
    }
    const ThreadHandle t = fresh_thread(COMM_ENGINE_AICPU_TS);
    if (t == 0) {
        unit_probe_note = "no spare AICPU_TS thread for the probe";
        return;
    }
    Script s;
    s.wait(t, peers[static_cast<size_t>(peer())].channel, kNotifyNum - 1, 1);
    const auto t0 = std::chrono::steady_clock::now();
    const LaunchResult r = run(s, 10000);
    unit_probe_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (s.rc(0) != 0) {
        unit_probe_note = std::string("the probe wait was rejected: ") + hccl_result_name(s.rc(0));
        return;
    }
    timeout_in_seconds = unit_probe_ms >= 400.0;
    unit_probe_note = "wait with timeOut 1 ended after " + std::to_string(unit_probe_ms) + " ms (" + r.describe() + ")";
    if (r.status.task_error == 0 && r.rc == 0)
        unit_probe_note += "; the wait did not report a timeout";
}

} // namespace hcts
