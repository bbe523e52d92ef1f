#include "world.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "hcts/core/adapter.h"
#include "hcts/core/library.h"
#include "hcts/core/products.h"
#include "hcts/core/settings.h"
#include "hcts/mpi_harness.h"

namespace hcts {

namespace {

void require(int32_t rc, const std::string &what)
{
    if (rc != HCCL_SUCCESS)
        throw std::runtime_error(what + " failed: " + hccl_result_name(rc));
}

// The product's row, or the table's default for a product it does not know
// (WWN.DEV.3 reports the unknown name; set-up still needs an engine).
const products::Product &row_of(const std::string &product)
{
    const products::Product *p = products::Table::builtin().find(product);
    return p != nullptr ? *p : products::Table::builtin().default_product();
}

// AICPU_TS when the product has it with channels, else the first host engine
// with channels (CPU_TS before CPU, as the legacy rows hand work to the device).
CommEngine setup_engine_of(const products::Product &p)
{
    for (CommEngine e : {COMM_ENGINE_AICPU_TS, COMM_ENGINE_CPU_TS, COMM_ENGINE_CPU})
        if (!p.protocols(e).empty())
            return e;
    throw std::runtime_error("product '" + p.name + "' has no engine with channels in spec/products.yaml");
}

// HCTS_PROTOCOL / HCTS_PROTOCOL_ALT override the table (hardware whose driver
// offers another transport); otherwise the engine's first and second protocols.
CommProtocol protocol_for(const products::Product &p, CommEngine engine, bool alternate)
{
    const settings::Setting &setting = alternate ? suite_settings::protocol_alt : suite_settings::protocol;
    if (const auto env = settings::raw(setting)) {
        const auto named = products::protocol_from_name(*env);
        if (!named)
            throw std::runtime_error(std::string(setting.name) + "='" + std::string(*env) +
                                     "' is not a protocol name of spec/products.yaml (e.g. UB_CTP, UBOE, ROCE, HCCS)");
        return *named;
    }
    const auto ps = p.protocols(engine);
    return alternate && ps.size() > 1 ? ps[1] : ps.front();
}

} // namespace

std::unique_ptr<World> World::bootstrap(const Library &iut, const Adapter &adapter, int rank, int size, bool use_peek)
{
    std::unique_ptr<World> w(new World(iut));
    const HcommApi &api = iut.api();
    w->rank = rank;
    w->size = size;
    if (size < 2)
        throw std::runtime_error("the conformance suite needs at least 2 ranks (mpirun -np 2), got " +
                                 std::to_string(size));
    for (const char *sym : {"HcclGetRootInfo", "HcclCommInitRootInfo", "HcclThreadAcquire", "HcclChannelAcquire",
                            "HcclGetHcclBuffer", "HcclChannelGetHcclBuffer"})
        if (!iut.has(sym))
            throw std::runtime_error(std::string("the IUT lacks ") + sym + ", needed to set up any case");

    HcclRootInfo root{};
    if (rank == 0)
        require(api.HcclGetRootInfo(&root), "HcclGetRootInfo");
    mpi::broadcast(std::as_writable_bytes(std::span(&root, 1)), 0, "the root info");
    require(api.HcclCommInitRootInfo(static_cast<uint32_t>(size), &root, static_cast<uint32_t>(rank), &w->comm),
            "HcclCommInitRootInfo");
    w->device_ = std::make_unique<Device>(adapter, w->comm, w->launch_timeout_ms, use_peek);

    const products::Product &row = row_of(adapter.product());
    w->setup_engine = setup_engine_of(row);
    w->protocol = protocol_for(row, w->setup_engine, false);
    w->alt_protocol = protocol_for(row, w->setup_engine, true);
    const std::string engine(products::engine_name(w->setup_engine));
    w->threads.resize(2);
    require(api.HcclThreadAcquire(w->comm, w->setup_engine, 2, kNotifyNum, w->threads.data()),
            "HcclThreadAcquire(" + engine + ", 2 threads)");
    w->acquire_default_channels();

    void *base = nullptr;
    uint64_t bytes = 0;
    require(api.HcclGetHcclBuffer(w->comm, &base, &bytes), "HcclGetHcclBuffer");
    w->local_base = static_cast<std::byte *>(base);
    w->local_size = bytes;
    w->layout.size = bytes & ~uint64_t{4095};
    w->layout.lane_size = (w->layout.size / 2 / static_cast<uint64_t>(size)) & ~uint64_t{4095};
    for (int r = 0; r < size; ++r) {
        if (r == rank)
            continue;
        Peer &p = w->peers[static_cast<size_t>(r)];
        void *rb = nullptr;
        require(api.HcclChannelGetHcclBuffer(w->comm, p.channel, &rb, &p.remote_size), "HcclChannelGetHcclBuffer");
        p.remote_base = static_cast<std::byte *>(rb);
        if ((p.remote_size & ~uint64_t{4095}) != w->layout.size)
            throw std::runtime_error("rank " + std::to_string(r) + "'s communication buffer is " +
                                     std::to_string(p.remote_size) + " bytes, this rank's is " + std::to_string(bytes) +
                                     "; the suite needs equal sizes");
    }
    if (w->layout.lane_size < (1U << 20))
        throw std::runtime_error("the communication buffer (" + std::to_string(bytes) +
                                 " bytes) is too small: the suite needs at least 2 MiB per rank per lane");
    w->channels_refreshable = mpi::all_ranks(api.HcclChannelDestroy != nullptr, "HcclChannelDestroy present");
    mpi::phase_barrier("resources acquired");
    w->measure_timeout_unit();
    // Every rank uses the same timeouts: seconds unless every rank measured milliseconds.
    if (w->unit.seconds)
        w->unit.seconds = !mpi::all_ranks(!*w->unit.seconds, "the timeout unit");
    else
        (void)mpi::all_ranks(false, "the timeout unit");
    return w;
}

void World::acquire_default_channels()
{
    HcclResult rc = HCCL_SUCCESS;
    const auto channels = acquire_channels(kNotifyNum, rc);
    require(rc,
            "HcclChannelAcquire(" + std::string(products::protocol_name(protocol)) + ", notifyNum 64, one per peer)");
    peers.resize(static_cast<size_t>(size));
    for (int r = 0; r < size; ++r)
        peers[static_cast<size_t>(r)].channel = channels[static_cast<size_t>(r)];
}

std::vector<ChannelHandle> World::acquire_channels(uint32_t notify_num, HcclResult &rc, bool alternate,
                                                   std::span<const HcclMemHandle> mem_handles) const
{
    std::vector<HcclMemHandle> handles(mem_handles.begin(), mem_handles.end());
    std::vector<HcclChannelDesc> descs(static_cast<size_t>(size - 1));
    HcclChannelDescInit(descs.data(), static_cast<uint32_t>(descs.size()));
    size_t i = 0;
    for (int r = 0; r < size; ++r) {
        if (r == rank)
            continue;
        descs[i].remoteRank = static_cast<uint32_t>(r);
        descs[i].channelProtocol = alternate ? alt_protocol : protocol;
        descs[i].notifyNum = notify_num;
        if (!handles.empty()) {
            descs[i].memHandles = handles.data();
            descs[i].memHandleNum = static_cast<uint32_t>(handles.size());
        }
        ++i;
    }
    std::vector<ChannelHandle> got(descs.size(), 0);
    rc = iut_.api().HcclChannelAcquire(comm, setup_engine, descs.data(), static_cast<uint32_t>(descs.size()),
                                       got.data());
    std::vector<ChannelHandle> by_rank(static_cast<size_t>(size), 0);
    i = 0;
    for (int r = 0; r < size; ++r)
        if (r != rank)
            by_rank[static_cast<size_t>(r)] = got[i++];
    return by_rank;
}

HcclResult World::destroy_channels(const std::vector<ChannelHandle> &by_rank) const
{
    if (iut_.api().HcclChannelDestroy == nullptr)
        return HCCL_E_NOT_SUPPORT;
    std::vector<ChannelHandle> live;
    for (ChannelHandle c : by_rank)
        if (c != 0)
            live.push_back(c);
    return live.empty() ? HCCL_SUCCESS
                        : iut_.api().HcclChannelDestroy(comm, live.data(), static_cast<uint32_t>(live.size()));
}

ThreadHandle World::fresh_thread(CommEngine engine, HcclResult *rc) const
{
    ThreadHandle t = 0;
    const HcclResult r = iut_.api().HcclThreadAcquire(comm, engine, 1, kNotifyNum, &t);
    if (rc != nullptr)
        *rc = r;
    return r == HCCL_SUCCESS ? t : 0;
}

std::byte *World::remote_inbox(int receiver, int sender) const
{
    return peers.at(static_cast<size_t>(receiver)).remote_base + layout.inbox(sender);
}

// A thread an earlier case left in its error state (a wait that timed out, a
// failed transfer) skips every later task; a tiny copy on each tells (unless
// the library refuses every copy as unsupported: then nothing tells).
bool World::threads_work() const
{
    if (iut_.api().HcommLocalCopyOnThread == nullptr)
        return false; // cannot tell: replace them
    Script s;
    for (size_t i = 0; i < threads.size(); ++i)
        s.copy(threads[i], scratch() + 64 * i, scratch() + 4096 + 64 * i, 8);
    const LaunchResult r = device_->run(s, 10000);
    // Copies refused as unsupported tell nothing, and a replacement would be
    // refused the same way: replacing after every case would only use up the
    // comm's threads.
    bool all_unsupported = true;
    for (size_t i = 0; i < s.size(); ++i)
        all_unsupported = all_unsupported && s.rc(i) == HCCL_E_NOT_SUPPORT;
    if (all_unsupported)
        return true;
    for (size_t i = 0; i < s.size(); ++i)
        if (s.rc(i) != 0)
            return false;
    return r.ok();
}

std::string World::isolate()
{
    std::string did;
    // Channels first: a notify an earlier case left set lives in them.
    if (channels_refreshable) {
        std::vector<ChannelHandle> old;
        for (const Peer &p : peers)
            old.push_back(p.channel);
        const HcclResult rc = destroy_channels(old);
        const bool all = mpi::all_ranks(rc == HCCL_SUCCESS, "channel destroy");
        if (mpi::any_rank(rc == HCCL_SUCCESS, "channel destroy")) {
            acquire_default_channels();
            did = "fresh channels";
        }
        if (!all) {
            channels_refreshable = false;
            did += (did.empty() ? "" : "; ") + std::string("HcclChannelDestroy returned ") + hccl_result_name(rc) +
                   ": later cases share the channels";
        }
    }
    if (!mpi::all_ranks(threads_work(), "thread check")) {
        HcclResult rc = HCCL_SUCCESS;
        for (ThreadHandle &t : threads) {
            t = fresh_thread(setup_engine, &rc);
            require(rc, "HcclThreadAcquire(a replacement thread)");
        }
        did += (did.empty() ? "" : "; ") + std::string("fresh threads");
    }
    return did;
}

// A wait with timeOut 1 on a notify nobody raises: ~1 s means seconds, ~1 ms
// milliseconds. Every rank does it on a fresh thread at the same time. The unit
// is known only if the wait ended with HCCL_E_TIMEOUT.
void World::measure_timeout_unit()
{
    if (iut_.api().HcommChannelNotifyWaitOnThread == nullptr) {
        unit.note = "HcommChannelNotifyWaitOnThread absent";
        return;
    }
    HcclResult arc = HCCL_SUCCESS;
    const ThreadHandle t = fresh_thread(setup_engine, &arc);
    if (t == 0) {
        unit.note = "no spare thread for the probe: HcclThreadAcquire returned " + hccl_result_name(arc);
        return;
    }
    Script s;
    s.wait(t, peers[static_cast<size_t>(peer())].channel, kNotifyNum - 1, 1);
    if (rank == 0) // the library may well log this timeout as an error: say it is ours
        std::fprintf(stderr,
                     "hcts: probing the wait timeout's unit: a wait with timeOut 1 on notify %u, which no "
                     "rank raises; a timeout the library logs now is expected\n",
                     kNotifyNum - 1);
    const auto t0 = std::chrono::steady_clock::now();
    const LaunchResult r = device_->run(s, 10000);
    unit.probe_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const bool timed_out = s.rc(0) == HCCL_E_TIMEOUT || (s.rc(0) == 0 && r.status.task_error == HCCL_E_TIMEOUT);
    unit.note = "wait with timeOut 1 ended after " + std::to_string(unit.probe_ms) + " ms (wait rc " +
                hccl_result_name(s.rc(0)) + ", " + r.describe() + ")";
    if (!timed_out) {
        unit.refused = s.rc(0) == HCCL_E_NOT_SUPPORT;
        unit.note += "; it did not end with HCCL_E_TIMEOUT, so the unit is unknown";
        return;
    }
    unit.seconds = unit.probe_ms >= 400.0;
}

} // namespace hcts
