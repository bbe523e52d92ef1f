// The communicator and its memory (API.COM.*, API.BUF.*): rank queries, a second
// communicator made, used and destroyed beside the world's, the rank-table
// initialiser refusing a missing file, and the communication buffer calls.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include "case_kit.h"
#include "hcts/core/settings.h"

namespace hcts::cases_comm {
HCTS_SUITE(CommApi);
HCTS_SUITE(BufferApi);

namespace {

constexpr uint32_t kSecondNotify = 3; // notify index of the write on the second communicator
constexpr uint32_t kLastPageNotify = 6;
constexpr uint64_t kPage = 4096;

void check_rank_queries(const World &w, HcclComm comm, const std::string &which, Evidence &ev)
{
    const auto &api = w.iut().api();
    uint32_t id = UINT32_MAX, n = UINT32_MAX;
    const HcclResult irc = api.HcclGetRankId(comm, &id);
    const HcclResult nrc = api.HcclGetRankSize(comm, &n);
    ev.check("API.COM.1", irc == HCCL_SUCCESS && id == static_cast<uint32_t>(w.rank),
             "HcclGetRankId on " + which + " returned " + hccl_result_name(irc) + " and rank " + std::to_string(id) +
                 ", expected HCCL_SUCCESS and " + std::to_string(w.rank));
    ev.check("API.COM.1", nrc == HCCL_SUCCESS && n == static_cast<uint32_t>(w.size),
             "HcclGetRankSize on " + which + " returned " + hccl_result_name(nrc) + " and size " + std::to_string(n) +
                 ", expected HCCL_SUCCESS and " + std::to_string(w.size));
}

// Whether [p, p+len) of device memory reads as zero, in 1 MiB pieces; the offset
// of the first non-zero byte in *bad.
bool reads_zero(const Device &dev, const std::byte *p, uint64_t len, uint64_t &bad)
{
    for (uint64_t off = 0; off < len; off += 1U << 20) {
        const auto got = dev.get(p + off, static_cast<size_t>(std::min<uint64_t>(1U << 20, len - off)));
        for (size_t i = 0; i < got.size(); ++i)
            if (got[i] != std::byte{0}) {
                bad = off + i;
                return false;
            }
    }
    return true;
}

// The first call of HcclGetHcclBufferCleared on a new communicator: the memory
// reads as zero (its head, its tail and one page in every 16 MiB).
void judge_cleared(const Device &dev, std::byte *base, uint64_t size, Evidence &ev)
{
    uint64_t bad = 0;
    bool zero = reads_zero(dev, base, std::min<uint64_t>(size, 1U << 20), bad);
    for (uint64_t off = 16U << 20; zero && off + kPage <= size; off += 16U << 20)
        if (!reads_zero(dev, base + off, kPage, bad))
            bad += off, zero = false;
    if (zero && size > (1U << 20) && !reads_zero(dev, base + size - (1U << 20), 1U << 20, bad))
        bad += size - (1U << 20), zero = false;
    ev.check("API.BUF.3", zero,
             zero ? "the " + std::to_string(size) + "-byte buffer of HcclGetHcclBufferCleared reads as zero"
                  : "the buffer of HcclGetHcclBufferCleared holds a non-zero byte at offset " + std::to_string(bad));
}

// HCCL_BUFFSIZE for the communicators made while it lives, the old value back after: the
// second communicator of the write case gives each rank a size of its own, so a channel
// that reports its own side's size for the peer's shows.
class BuffsizeForNextComm {
  public:
    explicit BuffsizeForNextComm(uint64_t mb)
    {
        if (const auto old = settings::raw_any(suite_settings::hccl_buffsize))
            old_ = std::string(*old);
        ::setenv(suite_settings::hccl_buffsize.name, std::to_string(mb).c_str(), 1);
    }
    ~BuffsizeForNextComm()
    {
        if (old_)
            ::setenv(suite_settings::hccl_buffsize.name, old_->c_str(), 1);
        else
            ::unsetenv(suite_settings::hccl_buffsize.name);
    }
    BuffsizeForNextComm(const BuffsizeForNextComm &) = delete;
    BuffsizeForNextComm &operator=(const BuffsizeForNextComm &) = delete;

  private:
    std::optional<std::string> old_;
};

// The second communicator's resources, acquired by every rank together.
struct Second {
    HcclComm comm = nullptr;
    ThreadHandle thread = 0;
    std::vector<ChannelHandle> to; // by rank
    std::byte *base = nullptr;
    uint64_t size = 0;
};

// One write with notify of kPage stamped bytes, rank 0 to rank 1, which waits
// for it. The payload must land (read by the host once both programs ended,
// polled for up to 2 s, so a notify raised early is not this clause's business).
// The wait must return 0, but one refused with HCCL_E_NOT_SUPPORT is not judged:
// a library may refuse waits on new threads, and the payload still shows the write.
struct OneWrite {
    ThreadHandle send_thread = 0;
    ChannelHandle send_ch = 0;
    std::byte *dst_remote = nullptr; // rank 1's target as rank 0 names it; null: rank 0 could not name it
    std::byte *src = nullptr;        // on rank 0
    ThreadHandle recv_thread = 0;
    ChannelHandle recv_ch = 0;
    std::byte *dst_local = nullptr; // the same target on rank 1
    uint32_t idx = 0;
    StampKey key{};
};

void one_write(const World &w, const Device &dev, const CaseSpec &spec, const OneWrite &o, const std::string &clause,
               const std::string &what, Evidence &ev)
{
    Script s;
    if (w.rank == 0 && o.dst_remote != nullptr) {
        std::vector<std::byte> p(kPage);
        fill_payload(p, o.key);
        dev.put(o.src, p);
        s.wwn(o.send_thread, o.send_ch, o.dst_remote, o.src, kPage, o.idx);
    } else if (w.rank == 1) {
        dev.poison(o.dst_local, kPage);
        // 5 s: a 4 KiB write lands in far less, and a lost one must not cost the run 20 s.
        s.wait(o.recv_thread, o.recv_ch, o.idx, w.unit.seconds.value_or(true) ? 5U : 5000U);
    }
    mpi::phase_barrier(what + ": source and target ready");
    const LaunchResult r = dev.run(s, 30000, &spec);
    mpi::phase_barrier(what + ": both programs ended");
    if (w.rank == 0 && !s.empty())
        ev.check(clause, s.rc(0) == 0 && r.ok(),
                 what + ": the write with notify returned " + hccl_result_name(s.rc(0)) + " (" + r.describe() + ")");
    if (w.rank != 1)
        return;
    PayloadCheck pc = check_payload(dev.get(o.dst_local, kPage), o.key);
    for (int k = 0; k < 200 && !pc.ok(); ++k) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        pc = check_payload(dev.get(o.dst_local, kPage), o.key);
    }
    ev.check(clause, pc.ok(),
             what + ": the payload " + (pc.ok() ? "landed" : "did not land within 2 s: " + pc.first_bad));
    if (s.rc(0) != HCCL_E_NOT_SUPPORT)
        ev.check(clause, s.rc(0) == 0 && r.ok(),
                 what + ": the wait for its notify returned " + hccl_result_name(s.rc(0)) + " (" + r.describe() + ")");
}

// Every rank's communication buffer (address, size) of `comm`, each rank giving its own.
using Buffers = std::vector<std::pair<uint64_t, uint64_t>>;
Buffers every_ranks_buffer(const World &w, const std::byte *base, uint64_t size)
{
    Buffers bufs(static_cast<size_t>(w.size));
    for (int r = 0; r < w.size; ++r) {
        auto &e = bufs[static_cast<size_t>(r)];
        if (r == w.rank)
            e = {reinterpret_cast<uint64_t>(base), size};
        mpi::broadcast(std::as_writable_bytes(std::span(&e, 1)), r, "a rank's communication buffer");
    }
    return bufs;
}

// API.BUF.1: what the channel to rank r reports as its peer's buffer is that rank's own
// HcclGetHcclBuffer answer, address and size.
void check_channel_buffer(const World &w, HcclComm comm, ChannelHandle ch, int r, const Buffers &bufs,
                          const std::string &where, Evidence &ev)
{
    const auto [pb, ps] = bufs[static_cast<size_t>(r)];
    void *rb = nullptr;
    uint64_t rs = 0;
    const HcclResult grc = w.iut().api().HcclChannelGetHcclBuffer(comm, ch, &rb, &rs);
    ev.check("API.BUF.1", grc == HCCL_SUCCESS && reinterpret_cast<uint64_t>(rb) == pb && rs == ps,
             where + "HcclChannelGetHcclBuffer for rank " + std::to_string(r) + " returned " + hccl_result_name(grc) +
                 ", " + hex(reinterpret_cast<uint64_t>(rb)) + " and " + std::to_string(rs) +
                 " bytes; that rank's HcclGetHcclBuffer returned " + hex(pb) + " and " + std::to_string(ps));
}

// The second communicator's channels report their peers' buffers; the ranks asked for
// different sizes, so a library answering with its own side's size fails here.
void check_channel_buffers(const World &w, const Second &s, Evidence &ev)
{
    const Buffers bufs = every_ranks_buffer(w, s.base, s.size);
    const bool differ =
        std::any_of(bufs.begin(), bufs.end(), [&](const auto &b) { return b.second != bufs[0].second; });
    ev.observe("second_buffer_sizes_differ", differ);
    const std::string where =
        "on the second communicator (this rank's HCCL_BUFFSIZE " + std::to_string(s.size / 2 >> 20) + " MB), ";
    for (int r = 0; r < w.size; ++r)
        if (r != w.rank)
            check_channel_buffer(w, s.comm, s.to[static_cast<size_t>(r)], r, bufs, where, ev);
}

// The second communicator's channels and one write with notify on them.
void second_write(const World &w, const Device &dev, const CaseSpec &spec, Evidence &ev, Second &s, HcclResult trc)
{
    const auto &api = w.iut().api();
    const bool have_buffer = s.base != nullptr;
    std::vector<HcclChannelDesc> d(static_cast<size_t>(w.size - 1));
    HcclChannelDescInit(d.data(), static_cast<uint32_t>(d.size()));
    for (int r = 0, i = 0; r < w.size; ++r)
        if (r != w.rank) {
            d[static_cast<size_t>(i)].remoteRank = static_cast<uint32_t>(r);
            d[static_cast<size_t>(i)].channelProtocol = w.protocol;
            d[static_cast<size_t>(i++)].notifyNum = World::kNotifyNum;
        }
    std::vector<ChannelHandle> got(d.size(), 0);
    const HcclResult crc = trc == HCCL_SUCCESS ? api.HcclChannelAcquire(s.comm, w.setup_engine, d.data(),
                                                                        static_cast<uint32_t>(d.size()), got.data())
                                               : trc;
    s.to.assign(static_cast<size_t>(w.size), 0);
    for (int r = 0, i = 0; r < w.size; ++r)
        if (r != w.rank)
            s.to[static_cast<size_t>(r)] = got[static_cast<size_t>(i++)];
    if (mpi::all_ranks(have_buffer && crc == HCCL_SUCCESS, "second communicator's thread and channels")) {
        check_channel_buffers(w, s, ev);
        void *rb = nullptr;
        uint64_t rsize = 0;
        if (w.rank == 0) {
            const HcclResult grc = api.HcclChannelGetHcclBuffer(s.comm, s.to[1], &rb, &rsize);
            ev.check("API.COM.2", grc == HCCL_SUCCESS && rb != nullptr && rsize >= 2 * kPage,
                     "HcclChannelGetHcclBuffer on the second communicator returned " + hccl_result_name(grc) +
                         ", size " + std::to_string(rsize));
            if (grc != HCCL_SUCCESS || rsize < 2 * kPage)
                rb = nullptr;
        }
        const OneWrite o{.send_thread = s.thread,
                         .send_ch = s.to[1],
                         .dst_remote = rb != nullptr ? static_cast<std::byte *>(rb) + kPage : nullptr,
                         .src = s.base + kPage,
                         .recv_thread = s.thread,
                         .recv_ch = s.to[0],
                         .dst_local = s.base + kPage,
                         .idx = kSecondNotify,
                         .key = StampKey{61, 0, 0}};
        one_write(w, dev, spec, o, "API.COM.2", "on the second communicator", ev);
    } else
        ev.check("API.COM.2", false,
                 "on the second communicator HcclThreadAcquire returned " + hccl_result_name(trc) +
                     " and HcclChannelAcquire " + hccl_result_name(crc) + " (this rank or another failed)");
}

// A second communicator beside the world's: made from a root info broadcast by
// rank 0, queried, given a thread (and with `write` a buffer size per rank, channels
// that report their peer's, and one write with notify), destroyed with them held; the
// world's communicator is then checked.
void second_communicator(const World &w, const Adapter &adapter, const CaseSpec &spec, Evidence &ev, bool write)
{
    const auto &api = w.iut().api();
    // Root info from rank 0, broadcast with its return code.
    struct {
        int32_t rc;
        HcclRootInfo root;
    } boot{};
    if (w.rank == 0)
        boot.rc = api.HcclGetRootInfo(&boot.root);
    mpi::broadcast(std::as_writable_bytes(std::span(&boot, 1)), 0, "the second root info");
    if (boot.rc != HCCL_SUCCESS) {
        ev.check("API.COM.2", false, "HcclGetRootInfo for a second communicator returned " + hccl_result_name(boot.rc));
        return;
    }
    Second s;
    HcclResult irc = HCCL_SUCCESS;
    {
        // 16, 24, 32 ... MB: small, and each rank's its own (the write case reads them back).
        std::optional<BuffsizeForNextComm> buffsize;
        if (write)
            buffsize.emplace(16 + 8 * static_cast<uint64_t>(w.rank));
        irc =
            api.HcclCommInitRootInfo(static_cast<uint32_t>(w.size), &boot.root, static_cast<uint32_t>(w.rank), &s.comm);
    }
    if (!mpi::all_ranks(irc == HCCL_SUCCESS && s.comm != nullptr, "second communicator made")) {
        ev.check("API.COM.2", false,
                 "HcclCommInitRootInfo of a second communicator returned " + hccl_result_name(irc) +
                     " on this rank or another");
        if (irc == HCCL_SUCCESS && s.comm != nullptr)
            (void)api.HcclCommDestroy(s.comm);
        return;
    }
    ev.check("API.COM.2", s.comm != w.comm, "the second communicator is a handle of its own");
    check_rank_queries(w, s.comm, "a second communicator", ev);
    const Device dev(adapter, s.comm, w.launch_timeout_ms, false);

    // Its memory: without the write, first asked for cleared (API.BUF.3).
    void *b = nullptr;
    const HcclResult brc =
        write ? api.HcclGetHcclBuffer(s.comm, &b, &s.size) : api.HcclGetHcclBufferCleared(s.comm, &b, &s.size);
    s.base = static_cast<std::byte *>(b);
    const bool have_buffer = brc == HCCL_SUCCESS && b != nullptr && s.size >= 2 * kPage;
    ev.check(write ? "API.COM.2" : "API.BUF.3", have_buffer,
             std::string(write ? "HcclGetHcclBuffer" : "HcclGetHcclBufferCleared") +
                 " on a new communicator returned " + hccl_result_name(brc) + ", size " + std::to_string(s.size));
    if (have_buffer && !write)
        judge_cleared(dev, s.base, s.size, ev);
    if (!have_buffer)
        s.base = nullptr;

    // A thread of its own (and with `write` channels and one write with notify).
    const HcclResult trc = api.HcclThreadAcquire(s.comm, w.setup_engine, 1, World::kNotifyNum, &s.thread);
    if (!write) {
        ev.check("API.COM.2", trc == HCCL_SUCCESS && s.thread != 0,
                 "HcclThreadAcquire on the second communicator returned " + hccl_result_name(trc));
    } else {
        second_write(w, dev, spec, ev, s, trc);
    }
    mpi::phase_barrier("second communicator used");

    const HcclResult drc = api.HcclCommDestroy(s.comm);
    ev.check("API.COM.2", drc == HCCL_SUCCESS,
             "HcclCommDestroy of the second communicator (with its thread and channels) " + std::string("returned ") +
                 hccl_result_name(drc) + ", expected HCCL_SUCCESS");
    mpi::phase_barrier("second communicator destroyed");

    // The world's communicator is undisturbed: its queries and a write with notify.
    check_rank_queries(w, w.comm, "the world's communicator after the second was destroyed", ev);
    if (write) {
        const OneWrite o{.send_thread = w.thread(),
                         .send_ch = w.channel_to(1),
                         .dst_remote = w.rank == 0 ? w.remote_inbox(1, 0) + kPage : nullptr,
                         .src = w.outbox() + kPage,
                         .recv_thread = w.thread(),
                         .recv_ch = w.channel_to(0),
                         .dst_local = w.inbox(0) + kPage,
                         .idx = 9,
                         .key = StampKey{62, 0, 0}};
        one_write(w, w.device(), spec, o, "API.COM.2", "on the world's communicator after the second was destroyed",
                  ev);
    }
}

} // namespace

HCTS_CASE(CommApi, RankQueries, clauses("API.COM.1"), needs())
{
    check_rank_queries(world(), world().comm, "the world's communicator", ev());
}

HCTS_CASE(CommApi, SecondCommunicator, clauses("API.COM.1", "API.COM.2", "API.BUF.3"), needs())
{
    second_communicator(world(), adapter(), spec(), ev(), false);
}

HCTS_CASE(CommApi, SecondCommunicatorCarriesWrite, clauses("API.COM.1", "API.COM.2", "API.BUF.1"),
          needs(Feature::WriteWithNotify, Feature::NotifyWait))
{
    second_communicator(world(), adapter(), spec(), ev(), true);
}

HCTS_CASE(CommApi, ClusterInfoMissingFile, clauses("API.COM.3"), needs())
{
    const auto &api = iut().api();
    HcclComm comm = nullptr;
    const std::string path = "/nonexistent/hcts-rank-table-" + std::to_string(world().rank) + ".json";
    const HcclResult rc = api.HcclCommInitClusterInfo(path.c_str(), static_cast<uint32_t>(world().rank), &comm);
    ev().check("API.COM.3", rc != HCCL_SUCCESS,
               "HcclCommInitClusterInfo(\"" + path + "\") returned " + hccl_result_name(rc) +
                   "; a rank table that does not exist must be refused");
    if (rc == HCCL_SUCCESS && comm != nullptr)
        (void)api.HcclCommDestroy(comm);
}

// HcclCommInitAll in this rank's own process (a job of its own): its refusals first,
// which must leave the array as it was, then two devices listed in reverse, so the
// communicators' order is the list's, not the ids'.
HCTS_CASE(CommApi, InitAllOneProcess, clauses("API.COM.4", "API.COM.5", "API.COM.6"), needs())
{
    if (!iut().has("HcclCommInitAll")) {
        ev().case_not_supported("the IUT has no HcclCommInitAll");
        return;
    }
    const auto &api = iut().api();
    constexpr uint32_t kDevices = 2;
    // Not a handle any library makes: a refused call must leave it in place.
    HcclComm const kMarker = reinterpret_cast<HcclComm>(static_cast<uintptr_t>(0x4c54c0de));
    struct Refusal {
        std::string what;
        uint32_t ndev;
        std::vector<int32_t> devices; // empty: devices NULL
        bool comms_null;
        HcclResult want;
    };
    const std::vector<Refusal> refusals{
        {"devices {0, 0} (a device twice)", kDevices, {0, 0}, false, HCCL_E_PARA},
        {"devices {1, 0, 1} (a device twice)", 3, {1, 0, 1}, false, HCCL_E_PARA},
        {"ndev 0", 0, {0, 1}, false, HCCL_E_PARA},
        {"devices {-1, 0}", kDevices, {-1, 0}, false, HCCL_E_PARA},
        {"devices NULL", kDevices, {}, false, HCCL_E_PTR},
        {"comms NULL", kDevices, {0, 1}, true, HCCL_E_PTR},
    };
    for (const Refusal &r : refusals) {
        std::vector<int32_t> devices = r.devices;
        std::vector<HcclComm> comms(3, kMarker);
        const HcclResult rc = api.HcclCommInitAll(r.ndev, devices.empty() ? nullptr : devices.data(),
                                                  r.comms_null ? nullptr : comms.data());
        const std::string call = "HcclCommInitAll with " + r.what + " returned " + hccl_result_name(rc);
        if (r.what.find("twice") != std::string::npos)
            ev().check("API.COM.5", rc != HCCL_SUCCESS, call + "; a device listed twice must be refused");
        ev().check("API.COM.6", rc == r.want, call + ", expected " + hccl_result_name(r.want));
        const bool untouched = std::all_of(comms.begin(), comms.end(), [&](HcclComm c) { return c == kMarker; });
        ev().check("API.COM.6", rc == HCCL_SUCCESS || untouched,
                   call + " and wrote into comms; a refused call must leave it as it was");
        if (rc == HCCL_SUCCESS) // a library that accepted it made communicators: not ours to leak
            for (HcclComm c : comms)
                if (c != kMarker && c != nullptr)
                    (void)api.HcclCommDestroy(c);
    }

    int32_t devices[kDevices] = {1, 0};
    HcclComm comms[kDevices] = {nullptr, nullptr};
    const HcclResult rc = api.HcclCommInitAll(kDevices, devices, comms);
    if (!ev().check(
            "API.COM.4", rc == HCCL_SUCCESS && comms[0] != nullptr && comms[1] != nullptr && comms[0] != comms[1],
            "HcclCommInitAll(2, {1, 0}) returned " + hccl_result_name(rc) + " with comms " +
                hex(reinterpret_cast<uint64_t>(comms[0])) + " and " + hex(reinterpret_cast<uint64_t>(comms[1])) +
                ", expected HCCL_SUCCESS and two distinct communicators"))
        return;
    for (uint32_t i = 0; i < kDevices; ++i) {
        uint32_t id = UINT32_MAX, n = UINT32_MAX;
        const HcclResult irc = api.HcclGetRankId(comms[i], &id);
        const HcclResult nrc = api.HcclGetRankSize(comms[i], &n);
        ev().check("API.COM.4", irc == HCCL_SUCCESS && nrc == HCCL_SUCCESS && id == i && n == kDevices,
                   "comms[" + std::to_string(i) + "] of HcclCommInitAll(2, {1, 0}) is rank " + std::to_string(id) +
                       " (" + hccl_result_name(irc) + ") of " + std::to_string(n) + " (" + hccl_result_name(nrc) +
                       "); comms[i] must be rank i of ndev, in the order of the device list");
    }
    for (uint32_t i = 0; i < kDevices; ++i) {
        const HcclResult drc = api.HcclCommDestroy(comms[i]);
        ev().check("API.COM.4", drc == HCCL_SUCCESS,
                   "HcclCommDestroy(comms[" + std::to_string(i) + "]) of HcclCommInitAll returned " +
                       hccl_result_name(drc) + ", expected HCCL_SUCCESS");
    }
}

HCTS_CASE(BufferApi, CommunicationBuffer, clauses("API.BUF.1", "API.BUF.2", "API.BUF.4", "API.BUF.5"), needs())
{
    const World &w = world();
    const auto &api = iut().api();
    void *b = nullptr;
    uint64_t size = 0;
    const HcclResult rc = api.HcclGetHcclBuffer(w.comm, &b, &size);
    ev().check("API.BUF.1", rc == HCCL_SUCCESS && b == w.local_base && size == w.local_size && size >= kPage,
               "HcclGetHcclBuffer returned " + hccl_result_name(rc) + ", " + hex(reinterpret_cast<uint64_t>(b)) +
                   " and " + std::to_string(size) + " bytes; at set-up it returned " +
                   hex(reinterpret_cast<uint64_t>(w.local_base)) + " and " + std::to_string(w.local_size));

    // The documented size: twice HCCL_BUFFSIZE (MB, default 200).
    // Read as strtoull reads it, as always: the library judges the value, this case the size.
    const auto env = settings::raw(suite_settings::hccl_buffsize);
    const uint64_t mb = env ? std::strtoull(std::string(*env).c_str(), nullptr, 10) : 200;
    ev().check("API.BUF.2", size == 2 * mb * (1ULL << 20),
               "HcclGetHcclBuffer returned " + std::to_string(size) + " bytes with HCCL_BUFFSIZE " +
                   std::to_string(mb) + " MB; the HcclGetHcclBuffer page documents twice the setting, " +
                   std::to_string(2 * mb * (1ULL << 20)) + " bytes");

    // NULL arguments (api §9.5).
    void *ob = nullptr;
    uint64_t os = 0;
    const ChannelHandle ch = w.channel_to(w.peer());
    const std::vector<std::pair<std::string, HcclResult>> nulls{
        {"HcclGetHcclBuffer(comm NULL)", api.HcclGetHcclBuffer(nullptr, &ob, &os)},
        {"HcclGetHcclBuffer(buffer NULL)", api.HcclGetHcclBuffer(w.comm, nullptr, &os)},
        {"HcclGetHcclBuffer(size NULL)", api.HcclGetHcclBuffer(w.comm, &ob, nullptr)},
        {"HcclGetHcclBufferCleared(comm NULL)", api.HcclGetHcclBufferCleared(nullptr, &ob, &os)},
        {"HcclChannelGetHcclBuffer(comm NULL)", api.HcclChannelGetHcclBuffer(nullptr, ch, &ob, &os)},
        {"HcclChannelGetHcclBuffer(buffer NULL)", api.HcclChannelGetHcclBuffer(w.comm, ch, nullptr, &os)},
        {"HcclChannelGetHcclBuffer(size NULL)", api.HcclChannelGetHcclBuffer(w.comm, ch, &ob, nullptr)},
    };
    for (const auto &[what, nrc] : nulls)
        ev().check("API.BUF.4", nrc == HCCL_E_PTR,
                   what + " returned " + hccl_result_name(nrc) + ", expected HCCL_E_PTR");

    // Every rank's buffer, so each can compare what its channels report.
    const Buffers bufs = every_ranks_buffer(w, w.local_base, w.local_size);
    for (int r = 0; r < w.size; ++r) {
        if (r == w.rank)
            continue;
        const auto [pb, ps] = bufs[static_cast<size_t>(r)];
        check_channel_buffer(w, w.comm, w.channel_to(r), r, bufs, "", ev());
        uint32_t n = 0;
        CommMem *mems = nullptr;
        char **tags = nullptr;
        const HcclResult mrc = api.HcclChannelGetRemoteMems(w.comm, w.channel_to(r), &n, &mems, &tags);
        bool found = false;
        for (uint32_t i = 0; mrc == HCCL_SUCCESS && mems != nullptr && i < n; ++i)
            found = found || (reinterpret_cast<uint64_t>(mems[i].addr) == pb && mems[i].size == ps);
        ev().check("API.BUF.5", found,
                   "HcclChannelGetRemoteMems for rank " + std::to_string(r) + " returned " + hccl_result_name(mrc) +
                       " with " + std::to_string(n) + " memories; none is that rank's buffer " + hex(pb) + " of " +
                       std::to_string(ps) + " bytes");
    }
}

// The last page of the returned size is registered: rank 0 writes it on rank 1.
HCTS_CASE(BufferApi, LastPageWritable, clauses("API.BUF.1"), needs(Feature::WriteWithNotify, Feature::NotifyWait))
{
    const World &w = world();
    const Peer &to1 = w.peers.at(1);
    const OneWrite o{.send_thread = w.thread(),
                     .send_ch = w.channel_to(1),
                     .dst_remote = w.rank == 0 ? to1.remote_base + to1.remote_size - kPage : nullptr,
                     .src = w.outbox(),
                     .recv_thread = w.thread(),
                     .recv_ch = w.channel_to(0),
                     .dst_local = w.local_base + w.local_size - kPage,
                     .idx = kLastPageNotify,
                     .key = StampKey{63, 0, 0}};
    one_write(w, w.device(), spec(), o, "API.BUF.1", "a write into the last 4 KiB of the returned size", ev());
}

} // namespace hcts::cases_comm
