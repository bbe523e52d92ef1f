// HcclCommDestroy racing every other kind of call on the same comm.
// Each round: a 2-rank job with a channel pair; racing threads call in a loop on
// rank 0's comm (getters, thread and channel acquisition, engine contexts, thread
// notifies, local copies, device programs submitting writes with notify, reads
// and a channel wait with timeOut 0, a join without deadline) while two threads
// destroy it at seeded times. Every call returns HCCL_SUCCESS or HCCL_E_PARA (or
// HCCL_E_INTERNAL for a call the destroy interrupted, see race_ledger.h), exactly
// one destroy succeeds, nothing crashes or hangs (a deadline per round), and
// afterwards every call with the comm's handles is HCCL_E_PARA.
//
// HCTS_DESTROY_RACE_SEED (default: random, printed) and HCTS_DESTROY_RACE_ROUNDS
// (default 12) repeat a schedule. Under HCOMM_REF_PRODUCT=ascend950 the host calls
// that run in the caller (a channel wait with timeOut 0, Nbi writes) race too.
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <random>
#include <string>
#include <thread>

#include "race_ledger.h"
#include "verbs_job.h"

using namespace hcts_test;
using namespace std::chrono_literals;

namespace {

// Generous: one round takes tens of milliseconds, a few seconds under tsan.
constexpr auto kRoundDeadline = 60s;
constexpr uint32_t kNotifies = 4;
constexpr uint32_t kWaitIndex = 2; // never recorded by the peer: the wait only ends by the destroy

uint64_t env_number(const char *name, uint64_t fallback)
{
    const char *text = std::getenv(name);
    if (text == nullptr || *text == '\0')
        return fallback;
    char *end = nullptr;
    const uint64_t value = std::strtoull(text, &end, 10);
    if (*end != '\0') {
        std::fprintf(stderr, "%s=%s is not a decimal number\n", name, text);
        std::exit(2);
    }
    return value;
}

// What one round races on: rank 0's comm and its handles; rank 1 stays alive.
struct Round {
    std::string where;
    HcclComm comm = nullptr;
    HcclComm peer = nullptr;
    ThreadHandle thread = 0;        // AICPU_TS: writes and reads, in device programs
    ThreadHandle wait_thread = 0;   // AICPU_TS: the channel wait with timeOut 0
    ThreadHandle host_thread = 0;   // CPU_TS: thread notifies and local copies, from the host
    ChannelHandle channel = 0;      // to rank 1
    ChannelHandle host_channel = 0; // CPU engine over RoCE to rank 1 (ascend950 only, else 0)
    Buffer local;
    Buffer remote;
    RaceLedger *ledger = nullptr;
    std::shared_future<void> go;
    std::atomic<bool> raced{false};       // the getters saw the comm live, then gone
    std::atomic<bool> getter_live{false}; // the getters' first call succeeded
};

HcclChannelDesc channel_desc(CommProtocol protocol)
{
    HcclChannelDesc d{};
    HcclChannelDescInit(&d, 1);
    d.remoteRank = 1;
    d.channelProtocol = protocol;
    d.notifyNum = kNotifies;
    return d;
}

constexpr uint64_t kMaxLoops = 1000000; // a bound for a racer whose destroy never comes

void race_getters(Round &r)
{
    Racer racer(*r.ledger, r.where);
    r.go.wait();
    bool live = false;
    for (uint64_t n = 0; n < kMaxLoops && !racer.gone(); ++n) {
        uint32_t value = 0;
        live = racer.note("HcclGetRankSize", HcclGetRankSize(r.comm, &value)) == HCCL_SUCCESS || live;
        if (live)
            r.getter_live = true;
        racer.note("HcclGetRankId", HcclGetRankId(r.comm, &value));
        void *base = nullptr;
        uint64_t size = 0;
        racer.note("HcclGetHcclBuffer", HcclGetHcclBuffer(r.comm, &base, &size));
        HcommRefStats stats{};
        stats.size = sizeof(stats);
        racer.note("HcommRefGetStats", HcommRefGetStats(r.comm, &stats));
    }
    r.raced = live && racer.gone();
}

void race_threads_and_notifies(Round &r)
{
    Racer racer(*r.ledger, r.where);
    r.go.wait();
    for (uint64_t n = 0; n < kMaxLoops && !racer.gone(); ++n) {
        if (n < 24) { // each thread is an OS thread: a few, not hundreds
            ThreadHandle t = 0;
            racer.note("HcclThreadAcquire", HcclThreadAcquire(r.comm, COMM_ENGINE_CPU_TS, 1, kNotifies, &t));
        }
        // A record then a wait without deadline on the same in-order thread: the wait
        // never blocks unless the destroy cancels it.
        if (racer.note("HcommThreadNotifyRecordOnThread",
                       HcommThreadNotifyRecordOnThread(r.host_thread, r.host_thread, 0)) == HCCL_SUCCESS)
            racer.note("HcommThreadNotifyWaitOnThread", HcommThreadNotifyWaitOnThread(r.host_thread, 0, 0));
        racer.note("HcommLocalCopyOnThread",
                   HcommLocalCopyOnThread(r.host_thread, r.local.base + 65536, r.local.base, 256));
    }
}

void race_engine_contexts(Round &r)
{
    Racer racer(*r.ledger, r.where);
    r.go.wait();
    for (uint64_t n = 0; n < kMaxLoops && !racer.gone(); ++n) {
        const std::string tag = "race" + std::to_string(n % 256);
        void *ctx = nullptr;
        uint64_t size = 0;
        if (n < 256)
            racer.note("HcclEngineCtxCreate",
                       HcclEngineCtxCreate(r.comm, tag.c_str(), COMM_ENGINE_AICPU_TS, 4096, &ctx));
        racer.note("HcclEngineCtxGet", HcclEngineCtxGet(r.comm, tag.c_str(), COMM_ENGINE_AICPU_TS, &ctx, &size));
    }
}

// The channel exists: acquiring it again returns it without a handshake.
void race_channel_reuse(Round &r)
{
    Racer racer(*r.ledger, r.where);
    const HcclChannelDesc desc = channel_desc(default_protocol());
    r.go.wait();
    for (uint64_t n = 0; n < kMaxLoops && !racer.gone(); ++n) {
        ChannelHandle h = 0;
        if (racer.note("HcclChannelAcquire", HcclChannelAcquire(r.comm, COMM_ENGINE_AICPU_TS, &desc, 1, &h), true) ==
                HCCL_SUCCESS &&
            h != r.channel)
            r.ledger->fail(r.where + ": HcclChannelAcquire of the existing channel gave another handle");
        void *base = nullptr;
        uint64_t size = 0;
        racer.note("HcclChannelGetHcclBuffer", HcclChannelGetHcclBuffer(r.comm, r.channel, &base, &size));
        int32_t set = 0;
        racer.note("HcommRefPeekNotify", HcommRefPeekNotify(r.comm, r.channel, 0, &set));
    }
}

// A new channel the peer never acquires: the handshake blocks until the destroy
// ends it (before the fix: until the bootstrap timeout, or a crash).
void race_channel_handshake(Round &r)
{
    Racer racer(*r.ledger, r.where);
    const HcclChannelDesc desc = channel_desc(COMM_PROTOCOL_UBOE);
    r.go.wait();
    ChannelHandle h = 0;
    if (racer.note("HcclChannelAcquire(handshake)", HcclChannelAcquire(r.comm, COMM_ENGINE_AICPU_TS, &desc, 1, &h),
                   true) == HCCL_SUCCESS)
        r.ledger->fail(r.where + ": a channel the peer never acquired was acquired");
}

// Host calls that run in the caller (ascend950): a channel wait with timeOut 0
// blocks in the call itself until the destroy wakes it.
void race_host_channel_wait(Round &r)
{
    Racer racer(*r.ledger, r.where);
    r.go.wait();
    for (uint64_t n = 0; n < kMaxLoops && !racer.gone(); ++n) {
        const int32_t rc =
            racer.note("HcommChannelNotifyWait", HcommChannelNotifyWait(r.host_channel, kWaitIndex, 0), true);
        if (rc == HCCL_SUCCESS)
            r.ledger->fail(r.where + ": a host wait for a notify nobody records completed");
        if (rc == HCCL_E_INTERNAL)
            break;
    }
}

void race_host_writes(Round &r)
{
    Racer racer(*r.ledger, r.where);
    r.go.wait();
    for (uint64_t n = 0; n < kMaxLoops && !racer.gone(); ++n) {
        if (racer.note("HcommWriteNbi", HcommWriteNbi(r.host_channel, r.remote.base + 16384, r.local.base, 4096),
                       true) == HCCL_E_INTERNAL)
            break;
        if (racer.note("HcommChannelNotifyRecord", HcommChannelNotifyRecord(r.host_channel, 1), true) ==
            HCCL_E_INTERNAL)
            break;
    }
}

// Device programs submitting writes with notify and reads on rank 0's thread.
void race_device_transfers(Round &r)
{
    Racer racer(*r.ledger, r.where);
    // The launch checks the comm before its program runs, so it may succeed after a
    // call inside its program saw the comm gone: launches are judged among themselves.
    Racer launches(*r.ledger, r.where);
    r.go.wait();
    for (uint64_t n = 0; n < 1000 && !racer.gone(); ++n) {
        HcclResult launch_rc = HCCL_SUCCESS;
        const HcommRefLaunchResult result = launch(
            r.comm,
            [&]() -> uint32_t {
                for (int i = 0; i < 16; ++i) {
                    int32_t rc = racer.note(
                        "HcommWriteWithNotifyOnThread",
                        HcommWriteWithNotifyOnThread(r.thread, r.channel, r.remote.base + 4096, r.local.base, 4096, 1));
                    if (rc == HCCL_SUCCESS)
                        rc = racer.note("HcommReadOnThread", HcommReadOnThread(r.thread, r.channel, r.local.base + 8192,
                                                                               r.remote.base + 8192, 4096));
                    if (rc != HCCL_SUCCESS)
                        return static_cast<uint32_t>(rc);
                }
                return HCCL_SUCCESS;
            },
            30000, &launch_rc);
        launches.note("HcommRefDeviceLaunch", launch_rc);
        r.ledger->count("taskError(transfers)", result.taskError);
        if (launch_rc == HCCL_E_PARA)
            break;
    }
}

// A channel wait with timeOut 0 in a launch without deadline, and a join without
// deadline on its thread: only the destroy ends them.
void race_wait_forever(Round &r)
{
    Racer racer(*r.ledger, r.where);
    r.go.wait();
    HcclResult launch_rc = HCCL_SUCCESS;
    const HcommRefLaunchResult result = launch(
        r.comm,
        [&]() -> uint32_t {
            return static_cast<uint32_t>(
                racer.note("HcommChannelNotifyWaitOnThread",
                           HcommChannelNotifyWaitOnThread(r.wait_thread, r.channel, kWaitIndex, 0)));
        },
        0, &launch_rc);
    Racer launches(*r.ledger, r.where); // see race_device_transfers
    launches.note("HcommRefDeviceLaunch(wait)", launch_rc);
    r.ledger->count("taskError(wait)", result.taskError);
    if (launch_rc == HCCL_SUCCESS && result.programReturn == HCCL_SUCCESS && result.taskError == HCCL_SUCCESS)
        r.ledger->fail(r.where + ": a wait for a notify nobody records completed");
}

void race_join_forever(Round &r)
{
    Racer racer(*r.ledger, r.where);
    r.go.wait();
    // The join returns at once while the wait is not yet queued; then it blocks.
    for (uint64_t n = 0; n < kMaxLoops && !racer.gone(); ++n) {
        if (racer.note("HcommThreadJoin", HcommThreadJoin(r.wait_thread, 0), true) == HCCL_E_INTERNAL)
            break;
    }
}

// After the round: every call with the destroyed comm's handles is refused.
void expect_all_refused(const Round &r)
{
    uint32_t value = 0;
    EXPECT_EQ(HcclGetRankSize(r.comm, &value), HCCL_E_PARA) << r.where;
    EXPECT_EQ(HcclGetRankId(r.comm, &value), HCCL_E_PARA) << r.where;
    ThreadHandle t = 0;
    EXPECT_EQ(HcclThreadAcquire(r.comm, COMM_ENGINE_CPU_TS, 1, 1, &t), HCCL_E_PARA) << r.where;
    void *ctx = nullptr;
    EXPECT_EQ(HcclEngineCtxCreate(r.comm, "after", COMM_ENGINE_AICPU_TS, 64, &ctx), HCCL_E_PARA) << r.where;
    const HcclChannelDesc desc = channel_desc(default_protocol());
    ChannelHandle h = 0;
    EXPECT_EQ(HcclChannelAcquire(r.comm, COMM_ENGINE_AICPU_TS, &desc, 1, &h), HCCL_E_PARA) << r.where;
    EXPECT_EQ(HcclCommDestroy(r.comm), HCCL_E_PARA) << r.where;
    EXPECT_EQ(HcommThreadJoin(r.wait_thread, 0), HCCL_E_PARA) << r.where;
    EXPECT_EQ(HcommThreadNotifyRecordOnThread(r.host_thread, r.host_thread, 0), HCCL_E_PARA) << r.where;
    EXPECT_EQ(HcommLocalCopyOnThread(r.host_thread, r.local.base + 65536, r.local.base, 256), HCCL_E_PARA) << r.where;
    HcclResult launch_rc = HCCL_SUCCESS;
    launch(
        r.comm, [] { return 0U; }, 1000, &launch_rc);
    EXPECT_EQ(launch_rc, HCCL_E_PARA) << r.where;
    // The device-side calls, from a program of the live peer.
    const auto refused = launch(r.peer, [&]() -> uint32_t {
        const bool all =
            HcommWriteWithNotifyOnThread(r.thread, r.channel, r.remote.base, r.local.base, 64, 1) == HCCL_E_PARA &&
            HcommReadOnThread(r.thread, r.channel, r.local.base, r.remote.base, 64) == HCCL_E_PARA &&
            HcommChannelNotifyWaitOnThread(r.wait_thread, r.channel, kWaitIndex, 0) == HCCL_E_PARA;
        return all ? 1U : 0U;
    });
    EXPECT_EQ(refused.programReturn, 1U) << r.where << ": device calls with the destroyed comm's handles";
    if (r.host_channel != 0) {
        EXPECT_EQ(HcommChannelNotifyWait(r.host_channel, kWaitIndex, 0), HCCL_E_PARA) << r.where;
        EXPECT_EQ(HcommWriteNbi(r.host_channel, r.remote.base, r.local.base, 64), HCCL_E_PARA) << r.where;
    }
    EXPECT_EQ(HcclGetRankSize(r.peer, &value), HCCL_SUCCESS) << r.where << ": the peer's comm lives on";
}

// Waits until every future is ready or the round's deadline passes; a hang
// cannot be joined, so it ends the process with the reproducer.
void finish_within(std::vector<std::future<void>> &racers, const std::string &where)
{
    const auto deadline = std::chrono::steady_clock::now() + kRoundDeadline;
    for (size_t i = 0; i < racers.size(); ++i) {
        if (racers[i].wait_until(deadline) != std::future_status::ready) {
            std::fprintf(stderr, "HANG: %s: racer %zu did not return within %lld s\n", where.c_str(), i,
                         static_cast<long long>(kRoundDeadline.count()));
            std::fflush(stderr);
            std::_Exit(3);
        }
        racers[i].get();
    }
}

} // namespace

TEST(DestroyRace, EveryCallRacingTwoDestroys)
{
    const uint64_t seed = env_number("HCTS_DESTROY_RACE_SEED", std::random_device{}());
    const uint64_t rounds = env_number("HCTS_DESTROY_RACE_ROUNDS", 12);
    std::printf("destroy race: seed %" PRIu64 ", %" PRIu64 " rounds; reproduce: HCTS_DESTROY_RACE_SEED=%" PRIu64
                " HCTS_DESTROY_RACE_ROUNDS=%" PRIu64 " ctest --test-dir build -R reference_destroy_race\n",
                seed, rounds, seed, rounds);
    std::fflush(stdout);
    RaceLedger ledger;
    uint64_t raced_rounds = 0; // rounds where a getter saw the comm live and then gone
    for (uint64_t round = 0; round < rounds; ++round) {
        std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + round);
        const auto first_delay = std::chrono::microseconds(rng() % 3000);
        // Often at once: the two destroys then race for the comm itself.
        const auto second_delay = first_delay + std::chrono::microseconds(rng() % 2 == 0 ? 0 : rng() % 400);
        const bool handshake = (rng() & 1) != 0;
        Round r;
        r.where = "round " + std::to_string(round) + " of seed " + std::to_string(seed);
        r.ledger = &ledger;
        Job job(2);
        ASSERT_EQ(job.init_result(), HCCL_SUCCESS) << r.where;
        Mesh mesh;
        ASSERT_EQ(build_mesh(job, mesh, kNotifies), HCCL_SUCCESS) << r.where;
        r.comm = job[0];
        r.peer = job[1];
        r.thread = mesh.thread[0];
        r.channel = mesh.channel[0][1];
        Mesh host_mesh; // the host calls that run in the caller exist on ascend950 only
        if (std::string(HcommRefProductName()) == "ascend950") {
            ASSERT_EQ(build_mesh(job, host_mesh, kNotifies, COMM_ENGINE_CPU, COMM_PROTOCOL_ROCE), HCCL_SUCCESS)
                << r.where;
            r.host_channel = host_mesh.channel[0][1];
        }
        r.wait_thread = acquire_thread(r.comm, COMM_ENGINE_AICPU_TS, kNotifies);
        r.host_thread = acquire_thread(r.comm, COMM_ENGINE_CPU_TS, kNotifies);
        r.local = buffer_of(r.comm);
        r.remote = buffer_of(r.peer);
        ASSERT_NE(r.wait_thread, 0U);
        ASSERT_NE(r.host_thread, 0U);

        std::promise<void> start;
        r.go = start.get_future().share();
        std::vector<std::future<void>> racers;
        for (auto *racer : {race_getters, race_threads_and_notifies, race_engine_contexts, race_channel_reuse,
                            race_device_transfers, race_wait_forever, race_join_forever})
            racers.push_back(std::async(std::launch::async, racer, std::ref(r)));
        if (handshake)
            racers.push_back(std::async(std::launch::async, race_channel_handshake, std::ref(r)));
        if (r.host_channel != 0)
            for (auto *racer : {race_host_channel_wait, race_host_writes})
                racers.push_back(std::async(std::launch::async, racer, std::ref(r)));
        auto destroy_after = [&r](std::chrono::microseconds delay) {
            r.go.wait();
            // The delay counts from the getters' first success: under a sanitizer on a busy
            // machine the racers start late, and a destroy before any call proves nothing.
            const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
            while (!r.getter_live && std::chrono::steady_clock::now() < give_up)
                std::this_thread::sleep_for(std::chrono::microseconds(50));
            std::this_thread::sleep_for(delay);
            return HcclCommDestroy(r.comm);
        };
        auto first = std::async(std::launch::async, destroy_after, first_delay);
        auto second = std::async(std::launch::async, destroy_after, second_delay);
        start.set_value();
        finish_within(racers, r.where);
        const auto deadline = std::chrono::steady_clock::now() + kRoundDeadline;
        if (first.wait_until(deadline) != std::future_status::ready ||
            second.wait_until(deadline) != std::future_status::ready) {
            std::fprintf(stderr, "HANG: %s: HcclCommDestroy did not return within %lld s\n", r.where.c_str(),
                         static_cast<long long>(kRoundDeadline.count()));
            std::fflush(stderr);
            std::_Exit(3);
        }
        const HcclResult first_rc = first.get();
        const HcclResult second_rc = second.get();
        EXPECT_TRUE((first_rc == HCCL_SUCCESS && second_rc == HCCL_E_PARA) ||
                    (first_rc == HCCL_E_PARA && second_rc == HCCL_SUCCESS))
            << r.where << ": the two destroys returned " << first_rc << " and " << second_rc
            << " (exactly one must succeed, the other is HCCL_E_PARA)";
        for (const std::string &failure : ledger.take_failures())
            ADD_FAILURE() << failure;
        expect_all_refused(r);
        if (r.raced)
            ++raced_rounds;
        if (HasFailure()) {
            std::printf("first failing %s\n", r.where.c_str());
            break;
        }
    }
    ledger.print_summary();
    if (HasFailure())
        return;
    // The schedule must make the destroy land while the calls run, or the test proves nothing.
    EXPECT_GE(raced_rounds * 2, rounds) << "only " << raced_rounds << " of " << rounds
                                        << " rounds saw a getter succeed and then be refused";
}
