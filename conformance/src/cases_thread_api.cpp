// Threads and engine contexts on the host (API.THR.2-7, API.CTX.*): the argument
// checks of HcclThreadAcquire and its variants, the thread queries, the
// resource-acquisition timeout, and engine contexts by tag. Every rank makes its
// own calls (none is collective). A refused call must not write its output, and
// a valid call after it must still succeed.
#include <algorithm>
#include <cmath>
#include <limits>

#include "case_kit.h"

namespace hcts::cases_thread_api {
HCTS_SUITE(ThreadApi);
HCTS_SUITE(EngineCtx);

namespace {

constexpr ThreadHandle kUnwritten = 0xC0FFEE00C0FFEEULL; // an output slot a refused call must leave alone

std::string expect(HcclResult got, HcclResult want)
{
    return "returned " + hccl_result_name(got) + ", expected " + hccl_result_name(want);
}

} // namespace

HCTS_CASE(ThreadApi, AcquireArgumentsChecked, clauses("API.THR.2"), needs())
{
    const World &w = world();
    const auto &api = iut().api();
    const CommEngine e = w.setup_engine;
    struct Bad {
        std::string what;
        HcclResult want;
        HcclResult rc;
        ThreadHandle out;
    };
    std::vector<Bad> bad;
    const auto call = [&](std::string what, HcclResult want, HcclComm comm, CommEngine engine, uint32_t n,
                          uint32_t notifies, bool null_out) {
        ThreadHandle t = kUnwritten;
        const HcclResult rc = api.HcclThreadAcquire(comm, engine, n, notifies, null_out ? nullptr : &t);
        bad.push_back({std::move(what), want, rc, t});
    };
    call("comm NULL", HCCL_E_PTR, nullptr, e, 1, 1, false);
    call("threads NULL", HCCL_E_PTR, w.comm, e, 1, 1, true);
    for (int engine : {6, 7, -1})
        call("engine " + std::to_string(engine), HCCL_E_PARA, w.comm, static_cast<CommEngine>(engine), 1, 1, false);
    call("threadNum 0", HCCL_E_PARA, w.comm, e, 0, 1, false);
    call("notifyNumPerThread 65536", HCCL_E_PARA, w.comm, e, 1, 65536, false);
    call("notifyNumPerThread UINT32_MAX", HCCL_E_PARA, w.comm, e, 1, UINT32_MAX, false);
    for (const Bad &b : bad)
        ev().check("API.THR.2", b.rc == b.want && b.out == kUnwritten,
                   "HcclThreadAcquire with " + b.what + " " + expect(b.rc, b.want) +
                       (b.out == kUnwritten ? "" : " and wrote handle " + hex(b.out)));
    ThreadHandle t = 0;
    const HcclResult rc = api.HcclThreadAcquire(w.comm, e, 1, 1, &t);
    ev().check("API.THR.2", rc == HCCL_SUCCESS && t != 0,
               "after the refused calls a valid HcclThreadAcquire (threadNum 1, notifyNumPerThread 1) " +
                   expect(rc, HCCL_SUCCESS) + ", handle " + hex(t));
    // The top of the documented range is an argument like any other: a library may lack the
    // resources (a resource code), but not call it a bad argument.
    ThreadHandle top = 0;
    const HcclResult trc = api.HcclThreadAcquire(w.comm, e, 1, 65535, &top);
    ev().check(
        "API.THR.2", trc != HCCL_E_PARA && trc != HCCL_E_PTR && (trc != HCCL_SUCCESS || top != 0),
        "HcclThreadAcquire with notifyNumPerThread 65535, the top of the documented range [0, 65535], returned " +
            hccl_result_name(trc) + ", handle " + hex(top) +
            "; only 65536 or more is a bad argument (success, or a resource error)");
}

HCTS_CASE(ThreadApi, AcquireWithConfig, clauses("API.THR.3", "API.THR.4", "API.THR.10"), needs())
{
    const World &w = world();
    const auto &api = iut().api();
    ThreadConfig cfg;
    ThreadConfigInit(&cfg, 1);
    cfg.notifyNumPerThread = 4;
    // AIV and CCU own no threads (HcclThreadAcquireWithConfig page, api §9.5).
    for (CommEngine engine : {COMM_ENGINE_AIV, COMM_ENGINE_CCU}) {
        ThreadHandle t = kUnwritten;
        const HcclResult rc = api.HcclThreadAcquireWithConfig(w.comm, engine, 1, THREAD_TYPE_TS, &cfg, &t);
        ev().check("API.THR.3", rc == HCCL_E_PARA && t == kUnwritten,
                   "HcclThreadAcquireWithConfig on engine " + std::to_string(static_cast<int>(engine)) + " " +
                       expect(rc, HCCL_E_PARA) + (t == kUnwritten ? "" : " and wrote handle " + hex(t)));
    }
    // A header not made by ThreadConfigInit.
    for (uint32_t magic : {0x0f0f0f0fU, 0U}) {
        ThreadConfig bad = cfg;
        bad.header.magicWord = magic;
        ThreadHandle t = kUnwritten;
        const HcclResult rc = api.HcclThreadAcquireWithConfig(w.comm, w.setup_engine, 1, THREAD_TYPE_TS, &bad, &t);
        ev().check("API.THR.4", rc == HCCL_E_PARA && t == kUnwritten,
                   "HcclThreadAcquireWithConfig with config magic " + hex(magic) + " " + expect(rc, HCCL_E_PARA) +
                       (t == kUnwritten ? "" : " and wrote handle " + hex(t)));
    }
    // The reference's engine with a valid config: a thread after the refusals.
    ThreadHandle t = kUnwritten;
    const HcclResult rc = api.HcclThreadAcquireWithConfig(w.comm, w.setup_engine, 1, THREAD_TYPE_TS, &cfg, &t);
    ev().check("API.THR.4", rc == HCCL_SUCCESS && t != 0 && t != kUnwritten,
               "after the refused calls HcclThreadAcquireWithConfig with a ThreadConfigInit config " +
                   expect(rc, HCCL_SUCCESS) + ", handle " + hex(t));
    // Several at once: threadNum handles, each its own.
    ThreadHandle three[3] = {kUnwritten, kUnwritten, kUnwritten};
    const HcclResult mrc = api.HcclThreadAcquireWithConfig(w.comm, w.setup_engine, 3, THREAD_TYPE_TS, &cfg, three);
    const bool made =
        std::all_of(std::begin(three), std::end(three), [](ThreadHandle h) { return h != 0 && h != kUnwritten; });
    const bool distinct = three[0] != three[1] && three[1] != three[2] && three[0] != three[2];
    ev().check("API.THR.10", mrc == HCCL_SUCCESS && made && distinct,
               "HcclThreadAcquireWithConfig with threadNum 3 " + expect(mrc, HCCL_SUCCESS) + ", handles " +
                   hex(three[0]) + ", " + hex(three[1]) + ", " + hex(three[2]) + " (three distinct, none 0 or " +
                   hex(kUnwritten) + ", the value before the call)");
}

HCTS_CASE(ThreadApi, AcquireWithStreamNulls, clauses("API.THR.5"), needs())
{
    const World &w = world();
    const auto &api = iut().api();
    int not_a_stream = 0; // never dereferenced: each call has another NULL argument
    const struct {
        const char *what;
        HcclComm comm;
        aclrtStream stream;
        bool null_out;
    } rows[] = {
        {"comm NULL", nullptr, &not_a_stream, false},
        {"stream NULL", w.comm, nullptr, false},
        {"thread NULL", w.comm, &not_a_stream, true},
    };
    for (const auto &row : rows) {
        ThreadHandle t = kUnwritten;
        const HcclResult rc =
            api.HcclThreadAcquireWithStream(row.comm, COMM_ENGINE_CPU_TS, row.stream, 4, row.null_out ? nullptr : &t);
        ev().check("API.THR.5", rc == HCCL_E_PTR && t == kUnwritten,
                   std::string("HcclThreadAcquireWithStream with ") + row.what + " " + expect(rc, HCCL_E_PTR) +
                       (t == kUnwritten ? "" : " and wrote handle " + hex(t)));
    }
}

HCTS_CASE(ThreadApi, ResInfoAndExport, clauses("API.THR.6"), needs())
{
    const World &w = world();
    const auto &api = iut().api();
    const ThreadHandle t = w.thread();
    void *info = nullptr;
    HcclResult rc = api.HcclThreadResGetInfo(w.comm, t, THREAD_RES_TYPE_STREAM, 8, &info);
    ev().check("API.THR.6", rc == HCCL_SUCCESS && info != nullptr,
               "HcclThreadResGetInfo(THREAD_RES_TYPE_STREAM) of a live thread " + expect(rc, HCCL_SUCCESS) + ", info " +
                   hex(reinterpret_cast<uint64_t>(info)));
    const struct {
        const char *what;
        HcclResult want;
        HcclResult rc;
    } info_rows[] = {
        {"thread 0", HCCL_E_PTR, api.HcclThreadResGetInfo(w.comm, 0, THREAD_RES_TYPE_STREAM, 8, &info)},
        {"info NULL", HCCL_E_PTR, api.HcclThreadResGetInfo(w.comm, t, THREAD_RES_TYPE_STREAM, 8, nullptr)},
        {"resType INVALID", HCCL_E_PARA, api.HcclThreadResGetInfo(w.comm, t, THREAD_RES_TYPE_INVALID, 8, &info)},
    };
    for (const auto &row : info_rows)
        ev().check("API.THR.6", row.rc == row.want,
                   std::string("HcclThreadResGetInfo with ") + row.what + " " + expect(row.rc, row.want));

    ThreadHandle out = kUnwritten;
    const ThreadHandle foreign = 0x1234567;
    const struct {
        const char *what;
        HcclResult want;
        HcclResult rc;
    } export_rows[] = {
        {"threadNum 0", HCCL_E_PARA, api.HcclThreadExportToCommEngine(w.comm, 0, &t, w.setup_engine, &out)},
        {"threads NULL", HCCL_E_PTR, api.HcclThreadExportToCommEngine(w.comm, 1, nullptr, w.setup_engine, &out)},
        {"exportedThreads NULL", HCCL_E_PTR, api.HcclThreadExportToCommEngine(w.comm, 1, &t, w.setup_engine, nullptr)},
        {"a handle the library never returned", HCCL_E_PARA,
         api.HcclThreadExportToCommEngine(w.comm, 1, &foreign, w.setup_engine, &out)},
    };
    for (const auto &row : export_rows)
        ev().check("API.THR.6", row.rc == row.want,
                   std::string("HcclThreadExportToCommEngine with ") + row.what + " " + expect(row.rc, row.want));
    ev().check("API.THR.6", out == kUnwritten,
               "the refused HcclThreadExportToCommEngine calls wrote handle " + hex(out) + " to exportedThreads");
    rc = api.HcclThreadExportToCommEngine(w.comm, 1, &t, w.setup_engine, &out);
    ev().check("API.THR.6", rc == HCCL_SUCCESS && out != 0 && out != kUnwritten && out != t,
               "HcclThreadExportToCommEngine of a live thread to its own engine " + expect(rc, HCCL_SUCCESS) +
                   " and handle " + hex(out) + " (must be non-zero and not the source " + hex(t) + ")");
}

// The vendor's custom-operator sample hands over between host and device by recording
// to the other side's thread as exported to the recorder's engine and waiting on its own
// thread (API.THR.9). Here both threads of the world, exported to the world's engine in
// one call (the array form: exportedThreads[i] is threads[i]'s), signal each other
// crosswise in one program on every rank: t2 records to t's export and t waits on
// itself, then t records to t2's export and t2 waits on itself.
HCTS_CASE(ThreadApi, ExportedHandleIsTheSameThread, clauses("API.THR.9"), needs(Feature::ThreadNotify))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const auto &api = iut().api();
    const ThreadHandle both[2] = {w.threads.at(0), w.threads.at(1)};
    const ThreadHandle t = both[0], t2 = both[1];
    ThreadHandle exported[2] = {0, 0};
    const HcclResult rc = api.HcclThreadExportToCommEngine(w.comm, 2, both, w.setup_engine, exported);
    const ThreadHandle t_out = exported[0], t2_out = exported[1];
    if (!mpi::all_ranks(rc == HCCL_SUCCESS && t_out != 0 && t2_out != 0, "threads exported")) {
        ev().check("API.THR.9", rc == HCCL_SUCCESS,
                   "HcclThreadExportToCommEngine of the world's two threads to their own engine returned " +
                       hccl_result_name(rc) + " (on this rank or another)");
        return;
    }
    constexpr uint32_t kFirst = 3, kSecond = 4;
    Script s;
    s.thread_record(t2, t_out, kFirst);
    s.thread_wait(t2, kSecond, w.ok_timeout());
    s.thread_wait(t, kFirst, w.ok_timeout());
    s.thread_record(t, t2_out, kSecond);
    const LaunchResult r = c.run(s, 30000);
    // A record refused with HCCL_E_NOT_SUPPORT: this product has no thread notifies (a
    // refused wait after an accepted record is the library's failure, judged below).
    for (size_t op : {size_t{0}, size_t{3}})
        if (s.rc(op) == HCCL_E_NOT_SUPPORT) {
            ev().unsupported("API.THR.9", "HcommThreadNotifyRecordOnThread returned HCCL_E_NOT_SUPPORT: no thread "
                                          "notifies here");
            return;
        }
    const struct {
        size_t op;
        const char *what;
    } rows[] = {{0, "the record to the first thread's exported handle"},
                {2, "the first thread's wait for it on its own handle"},
                {3, "the record to the second thread's exported handle"},
                {1, "the second thread's wait for it on its own handle"}};
    for (const auto &row : rows)
        ev().check("API.THR.9", s.rc(row.op) == HCCL_SUCCESS,
                   std::string(row.what) + " returned " + hccl_result_name(s.rc(row.op)) +
                       " (an exported handle is the thread itself on another engine; " + r.describe() + ")");
    judge_launch(r, "API.THR.9", "the program signalling through exported handles", ev());
}

// The same hand-over between the two sides, as the vendor's sample makes it: a CPU_TS
// thread of the host, exported to the world's device engine, is recorded to by the
// device program's thread and waits on its own handle on the host; then the device
// program issues on the exported handle itself (it records to the world's thread, which
// waits). The exported handle belongs to the engine it was exported to; a library that
// keeps the source's engine refuses it in the device program.
HCTS_CASE(ThreadApi, HostThreadExportedToTheDevice, clauses("API.THR.9"), needs(Feature::ThreadNotify))
{
    const Ctx c = ctx();
    const World &w = c.w;
    const auto &api = iut().api();
    if (w.setup_engine != COMM_ENGINE_AICPU_TS && w.setup_engine != COMM_ENGINE_AICPU) {
        ev().unsupported("API.THR.9", "the world's engine is a host engine: no hand-over from host to device here");
        return;
    }
    HcclResult arc = HCCL_SUCCESS;
    const ThreadHandle host = w.fresh_thread(COMM_ENGINE_CPU_TS, &arc);
    if (!mpi::all_ranks(host != 0, "a CPU_TS thread")) {
        ev().unsupported("API.THR.9", "HcclThreadAcquire of a CPU_TS thread returned " + hccl_result_name(arc) +
                                          " (on this rank or another): no host thread to hand over");
        return;
    }
    ThreadHandle exported = 0;
    const HcclResult xrc = api.HcclThreadExportToCommEngine(w.comm, 1, &host, w.setup_engine, &exported);
    if (!mpi::all_ranks(xrc == HCCL_SUCCESS && exported != 0, "the host thread exported")) {
        ev().check("API.THR.9", false,
                   "HcclThreadExportToCommEngine of a CPU_TS thread to engine " +
                       std::to_string(static_cast<int>(w.setup_engine)) + " returned " + hccl_result_name(xrc) +
                       " and handle " + hex(exported) + " (on this rank or another)");
        return;
    }
    constexpr uint32_t kIdx = 2;
    // The host's wait goes on its own thread first; a host call only submits it.
    const int32_t wrc = api.HcommThreadNotifyWaitOnThread(host, kIdx, w.ok_timeout());
    if (wrc == HCCL_E_NOT_SUPPORT) {
        ev().unsupported("API.THR.9", "a host-side HcommThreadNotifyWaitOnThread on a CPU_TS thread returned "
                                      "HCCL_E_NOT_SUPPORT: the host cannot wait here");
        return;
    }
    Script s;
    s.thread_record(w.thread(), exported, kIdx);
    s.thread_record(exported, w.thread(), kIdx + 1);
    s.thread_wait(w.thread(), kIdx + 1, w.ok_timeout());
    const LaunchResult r = c.run(s, 30000);
    const HcclResult jrc = api.HcommThreadJoin(host, w.ok_timeout());
    ev().check("API.THR.9", s.rc(1) == HCCL_SUCCESS && s.rc(2) == HCCL_SUCCESS,
               "in the device program, a record issued on the exported handle returned " + hccl_result_name(s.rc(1)) +
                   " and the world thread's wait for it " + hccl_result_name(s.rc(2)) +
                   " (an exported handle is used on the engine it was exported to)");
    ev().check("API.THR.9", s.rc(0) == HCCL_SUCCESS,
               "in the device program, the record to the host thread's handle exported to engine " +
                   std::to_string(static_cast<int>(w.setup_engine)) + " returned " + hccl_result_name(s.rc(0)) +
                   " (the exported handle is the thread on that engine; " + r.describe() + ")");
    ev().check("API.THR.9", wrc == HCCL_SUCCESS && jrc == HCCL_SUCCESS,
               "the host thread's wait on its own handle returned " + hccl_result_name(wrc) + " and its join " +
                   hccl_result_name(jrc) + " (the device program's record must release it)");
    judge_launch(r, "API.THR.9", "the device program recording to an exported host thread", ev());
}

HCTS_CASE(ThreadApi, ResAcquireTimeoutRange, clauses("API.THR.7"), needs())
{
    const auto &api = iut().api();
    const float bad[] = {std::numeric_limits<float>::quiet_NaN(), -1.0F, -0.5F, 8.0e9F};
    const float good[] = {0.0F, 600.0F};
    for (float v : bad) {
        const int32_t rc = api.HcommThreadResAcquireTimeOut(v);
        ev().check("API.THR.7", rc == HCCL_E_PARA,
                   "HcommThreadResAcquireTimeOut(" + std::to_string(v) + ") " +
                       expect(static_cast<HcclResult>(rc), HCCL_E_PARA));
    }
    for (float v : good) {
        const int32_t rc = api.HcommThreadResAcquireTimeOut(v);
        ev().check("API.THR.7", rc == 0,
                   "HcommThreadResAcquireTimeOut(" + std::to_string(v) + ") " +
                       expect(static_cast<HcclResult>(rc), HCCL_SUCCESS));
    }
    // Back to the documented default.
    if (const int32_t rc = api.HcommThreadResAcquireTimeOut(1856.0F); rc != 0)
        ev().error("API.THR.7",
                   "HcommThreadResAcquireTimeOut(1856) to restore the default returned " + hccl_result_name(rc));
}

HCTS_CASE(EngineCtx, CreateAndGet, clauses("API.CTX.1", "API.CTX.2"), needs())
{
    const World &w = world();
    const auto &api = iut().api();
    const CommEngine e = w.setup_engine;
    // A tag of this run and rank, so repeated runs in one process cannot collide.
    const std::string tag = "hcts-ctx-" + std::to_string(w.rank);
    void *ctx = nullptr;
    const HcclResult crc = api.HcclEngineCtxCreate(w.comm, tag.c_str(), e, 64, &ctx);
    ev().check("API.CTX.1", crc == HCCL_SUCCESS && ctx != nullptr,
               "HcclEngineCtxCreate('" + tag + "', 64 bytes) " + expect(crc, HCCL_SUCCESS) + ", ctx " +
                   hex(reinterpret_cast<uint64_t>(ctx)));
    void *got = nullptr;
    uint64_t size = 0;
    HcclResult rc = api.HcclEngineCtxGet(w.comm, tag.c_str(), e, &got, &size);
    ev().check("API.CTX.1", rc == HCCL_SUCCESS && got == ctx && size == 64,
               "HcclEngineCtxGet('" + tag + "') " + expect(rc, HCCL_SUCCESS) + " with ctx " +
                   hex(reinterpret_cast<uint64_t>(got)) + " and size " + std::to_string(size) +
                   "; expected the created ctx " + hex(reinterpret_cast<uint64_t>(ctx)) + " and 64");
    // The tag with an engine it was not made for: contexts are kept by tag and engine
    // (the vendor's EngineCtxs: tag -> engine -> memory), so there is none. The other
    // engine is of the other side (host for a device engine), never AICPU for AICPU_TS,
    // which a library may take as one engine.
    const bool device_engine = e == COMM_ENGINE_AICPU || e == COMM_ENGINE_AICPU_TS || e == COMM_ENGINE_AIV;
    const CommEngine other = device_engine ? COMM_ENGINE_CPU_TS : COMM_ENGINE_AICPU_TS;
    void *other_ctx = nullptr;
    uint64_t other_size = 0;
    rc = api.HcclEngineCtxGet(w.comm, tag.c_str(), other, &other_ctx, &other_size);
    ev().check("API.CTX.1", rc != HCCL_SUCCESS,
               "HcclEngineCtxGet('" + tag + "') for engine " + std::to_string(static_cast<int>(other)) +
                   ", which no context was made for, returned " + hccl_result_name(rc) + " with ctx " +
                   hex(reinterpret_cast<uint64_t>(other_ctx)) + "; only engine " + std::to_string(static_cast<int>(e)) +
                   " has a context under this tag, so it must fail");
    // The same tag on that other engine makes a context of its own (tag -> engine -> memory),
    // of the size asked: 100 bytes, not a multiple of any line or page a library may round to.
    constexpr uint64_t kOddSize = 100;
    rc = api.HcclEngineCtxCreate(w.comm, tag.c_str(), other, kOddSize, &other_ctx);
    if (rc == HCCL_E_NOT_SUPPORT) {
        ev().unsupported("API.CTX.1", "HcclEngineCtxCreate on engine " + std::to_string(static_cast<int>(other)) +
                                          " returned HCCL_E_NOT_SUPPORT: a tag on two engines cannot be asked");
    } else {
        ev().check("API.CTX.1", rc == HCCL_SUCCESS && other_ctx != nullptr && other_ctx != ctx,
                   "HcclEngineCtxCreate('" + tag + "', engine " + std::to_string(static_cast<int>(other)) +
                       ", 100 bytes), the tag already naming engine " + std::to_string(static_cast<int>(e)) +
                       "'s context, " + expect(rc, HCCL_SUCCESS) + " with ctx " +
                       hex(reinterpret_cast<uint64_t>(other_ctx)) + "; a context is named by tag and engine");
        void *back = nullptr;
        uint64_t back_size = 0;
        rc = api.HcclEngineCtxGet(w.comm, tag.c_str(), other, &back, &back_size);
        ev().check("API.CTX.1", rc == HCCL_SUCCESS && back == other_ctx && back_size == kOddSize,
                   "HcclEngineCtxGet('" + tag + "', engine " + std::to_string(static_cast<int>(other)) + ") " +
                       expect(rc, HCCL_SUCCESS) + " with ctx " + hex(reinterpret_cast<uint64_t>(back)) + " and size " +
                       std::to_string(back_size) + "; expected the 100-byte context made for it");
        rc = api.HcclEngineCtxGet(w.comm, tag.c_str(), e, &back, &back_size);
        ev().check("API.CTX.1", rc == HCCL_SUCCESS && back == ctx && back_size == 64,
                   "after a context of the same tag on another engine, HcclEngineCtxGet('" + tag + "', engine " +
                       std::to_string(static_cast<int>(e)) + ") " + expect(rc, HCCL_SUCCESS) + " with ctx " +
                       hex(reinterpret_cast<uint64_t>(back)) + " and size " + std::to_string(back_size) +
                       "; expected the first context and 64");
    }
    // Refused: size 0 (documented), an unknown tag.
    void *zero = nullptr;
    rc = api.HcclEngineCtxCreate(w.comm, (tag + "-empty").c_str(), e, 0, &zero);
    ev().check("API.CTX.1", rc != HCCL_SUCCESS,
               "HcclEngineCtxCreate with size 0 returned " + hccl_result_name(rc) + "; size must not be 0");
    rc = api.HcclEngineCtxGet(w.comm, (tag + "-never-created").c_str(), e, &got, &size);
    ev().check("API.CTX.1", rc != HCCL_SUCCESS,
               "HcclEngineCtxGet of a tag never created returned " + hccl_result_name(rc) + "; it must fail");
    ev().check("API.CTX.2", rc == HCCL_E_NOT_FOUND,
               "HcclEngineCtxGet of a tag never created " + expect(rc, HCCL_E_NOT_FOUND));
    // The same tag again: refused, and the first context stays.
    void *again = nullptr;
    rc = api.HcclEngineCtxCreate(w.comm, tag.c_str(), e, 128, &again);
    ev().check("API.CTX.2", rc == HCCL_E_PARA,
               "a second HcclEngineCtxCreate with tag '" + tag + "' " + expect(rc, HCCL_E_PARA));
    rc = api.HcclEngineCtxGet(w.comm, tag.c_str(), e, &got, &size);
    ev().check("API.CTX.2", rc == HCCL_SUCCESS && got == ctx && size == 64,
               "after the second create HcclEngineCtxGet('" + tag + "') " + expect(rc, HCCL_SUCCESS) + " with ctx " +
                   hex(reinterpret_cast<uint64_t>(got)) + " and size " + std::to_string(size) +
                   "; expected the first context " + hex(reinterpret_cast<uint64_t>(ctx)) + " and 64");
}

} // namespace hcts::cases_thread_api
