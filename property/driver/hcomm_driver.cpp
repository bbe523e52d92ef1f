#include "driver/hcomm_driver.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <stdexcept>
#include <thread>

#include "hcts/core/adapter.h"
#include "hcts/core/host_programs.h"
#include "hcts/core/library.h"
#include "hcts/core/settings.h"
#include "hcts_programs.h"

namespace hcts::prop {
namespace {

void check(int32_t rc, const std::string &what)
{
    if (rc != HCCL_SUCCESS)
        throw std::runtime_error(what + " failed: " + hccl_result_name(rc));
}

// Runs fn(r) for every rank at once: bootstrap and channel set-up are
// collective, so one rank's call may wait for the others.
void for_each_rank_concurrently(uint32_t n, const std::function<void(uint32_t)> &fn)
{
    std::vector<std::exception_ptr> errors(n);
    std::vector<std::thread> ts;
    for (uint32_t r = 0; r < n; ++r)
        ts.emplace_back([&, r] {
            try {
                fn(r);
            } catch (...) {
                errors[r] = std::current_exception();
            }
        });
    for (auto &t : ts)
        t.join();
    for (auto &e : errors)
        if (e)
            std::rethrow_exception(e);
}

uint64_t addr(const void *p) { return reinterpret_cast<uintptr_t>(p); }

// One hcts_prog_ops script (core/abi/hcts_programs.h): the argument block of
// every device-side call. Large (a pool and 256 ops), so it lives on the heap.
struct Script {
    std::shared_ptr<hcts_prog_ops_v2> block = std::make_shared<hcts_prog_ops_v2>();
    Script()
    {
        block->version = HCTS_PROG_OPS_V2;
        block->size = sizeof(hcts_prog_ops_v2);
    }
    hcts_op &add(hcts_op_kind kind, ThreadHandle thread, uint32_t flags = 0)
    {
        hcts_op &o = block->ops[block->op_count++];
        o.kind = kind;
        o.thread = thread;
        o.flags = flags;
        return o;
    }
    const hcts_op &op(uint32_t i) const { return block->ops[i]; }
};

// The calls the driver makes; an IUT without one of them cannot be driven.
constexpr const char *kNeeded[] = {"HcclGetRootInfo",
                                   "HcclCommInitRootInfo",
                                   "HcclCommDestroy",
                                   "HcclThreadAcquire",
                                   "HcclChannelAcquire",
                                   "HcclGetHcclBuffer",
                                   "HcclChannelGetHcclBuffer",
                                   "HcommWriteWithNotifyOnThread",
                                   "HcommWriteOnThread",
                                   "HcommReadOnThread",
                                   "HcommLocalCopyOnThread",
                                   "HcommChannelNotifyRecordOnThread",
                                   "HcommChannelNotifyWaitOnThread",
                                   "HcommChannelFenceOnThread"};

class HcommDriverImpl final : public HcommDriver {
  public:
    explicit HcommDriverImpl(HcommDriverOptions opts)
        : opts_(std::move(opts)), iut_(*opts_.iut), api_(iut_.api()), adapter_(*opts_.adapter)
    {
        std::string missing;
        for (const char *name : kNeeded)
            if (!iut_.has(name))
                missing += (missing.empty() ? "" : ", ") + std::string(name);
        if (!missing.empty())
            throw std::runtime_error("the implementation under test '" + iut_.path() + "' lacks " + missing +
                                     ", which the property suite needs");
        // Host-side calls: the same script, run by the host build of the program on
        // a host thread. Its hcomm calls bind to the IUT loaded globally before it.
        host_programs_ = HostPrograms::open(opts_.programs);
        timeout_in_seconds_ = opts_.timeout_in_seconds;
        if (timeout_in_seconds_)
            unit_note_ = "stated (--timeout-unit)";
    }
    ~HcommDriverImpl() override { teardown(); }

    std::string name() const override { return "hcomm(" + iut_.path() + ", adapter " + adapter_.name() + ")"; }
    std::optional<bool> timeout_in_seconds() const override { return timeout_in_seconds_; }
    std::string timeout_unit_note() const override { return unit_note_; }

    void reset(const Geometry &g) override
    {
        if (!timeout_in_seconds_) {
            // A world of its own for the probe: its timed-out wait leaves nothing
            // behind in the worlds the cases run in.
            build_world(g);
            measure_timeout_unit();
        }
        build_world(g);
        Model m(g);
        for (uint32_t r = 0; r < g.ranks; ++r) {
            if (!local(r))
                continue;
            auto init = m.initial_region(r);
            init.resize(g.region_bytes() + g.window, 0); // + snapshot scratch
            adapter_.to_device(ranks_[r].buf, init.data(), init.size());
        }
    }

    CallResult call(const Op &op) override
    {
        Rank &me = ranks_.at(op.rank);
        const uint32_t w = geo_.guard;
        ThreadHandle thread = me.data;
        if (op.side == Side::WrongEngine) {
            if (!me.cpu)
                throw std::runtime_error("no CPU_TS or CPU thread could be acquired for wrong-engine calls");
            thread = me.cpu;
        }
        Script s;
        auto local_addr = [&](Addr x, uint32_t off) { return addr(address(x, me.buf, me.size, w + off, op.len)); };
        auto remote_addr = [&](Addr x, uint32_t off) {
            return addr(address(x, me.remote[op.peer], me.remote_size[op.peer], w + off, op.len));
        };
        hcts_op *o = nullptr;
        switch (op.kind) {
        case OpKind::Wwn:
        case OpKind::Write:
            o = &s.add(op.kind == OpKind::Wwn ? HCTS_OP_WWN : HCTS_OP_WRITE, thread);
            o->dst = remote_addr(op.dst_addr, op.dst_off);
            o->src = local_addr(op.src_addr, op.src_off);
            break;
        case OpKind::Read:
            o = &s.add(HCTS_OP_READ, thread);
            o->dst = local_addr(op.dst_addr, op.dst_off);
            o->src = remote_addr(op.src_addr, op.src_off);
            break;
        case OpKind::LocalCopy:
            o = &s.add(HCTS_OP_LOCAL_COPY, thread);
            o->dst = local_addr(op.dst_addr, op.dst_off);
            o->src = local_addr(op.src_addr, op.src_off);
            break;
        case OpKind::Record: o = &s.add(HCTS_OP_RECORD, thread); break;
        case OpKind::Fence: o = &s.add(HCTS_OP_FENCE, thread); break;
        default: throw std::invalid_argument("HcommDriver::call: " + show(op) + " is not a call");
        }
        o->channel = op.peer < me.ch.size() ? me.ch[op.peer] : 0;
        o->len = op.len;
        o->idx = op.idx;
        if (op.side == Side::Host) {
            (void)host_programs_->run("ops", s.block.get()); // the same call, made from a host thread
            return {s.op(0).rc, 0};
        }
        const LaunchOut out = launch(op.rank, s, opts_.launch_slack_ms);
        const int32_t rc = out.script.op(0).rc;
        return {rc, rc == 0 ? out.task_error : 0};
    }

    WaitResult wait(const Op &op) override
    {
        const int32_t rc = post_wait(op);
        if (rc != 0 && rc != kRcPending) {
            WaitResult r;
            r.rc = rc;
            return r;
        }
        return join(op.rank);
    }

    int32_t post_wait(const Op &op) override
    {
        Rank &me = ranks_.at(op.rank);
        Posted &p = posted_.at(op.rank);
        if (p.active)
            throw std::logic_error("post_wait: rank " + std::to_string(op.rank) + " already has a posted wait");
        const uint32_t timeout = *timeout_in_seconds_ ? std::max<uint32_t>((op.timeout_ms + 999) / 1000, 1)
                                                      : std::max<uint32_t>(op.timeout_ms, 1);
        Script s;
        hcts_op &wait_op = s.add(HCTS_OP_WAIT, me.wait);
        wait_op.channel = me.ch.at(op.peer);
        wait_op.idx = op.idx;
        wait_op.timeout = timeout;
        // Behind the wait on the same in-order thread: the window as it is the
        // moment the notify is consumed (the device observer path).
        hcts_op &snap = s.add(HCTS_OP_LOCAL_COPY, me.wait, HCTS_OP_F_IF_PREV_OK);
        snap.src = addr(me.buf + geo_.guard);
        snap.dst = addr(me.buf + geo_.region_bytes());
        snap.len = geo_.window;
        const uint32_t deadline = (*timeout_in_seconds_ ? timeout * 1000 : timeout) + opts_.launch_slack_ms;
        p.result = std::async(std::launch::async, [=, this] { return launch(op.rank, s, deadline); });
        p.active = true;
        // A rejected wait returns at once; an accepted one stays pending. The
        // program's results come back only with the launch, so after a short
        // grace the outcome is left to join().
        if (p.result.wait_for(std::chrono::milliseconds(kPostGraceMs)) != std::future_status::ready)
            return kRcPending;
        p.done = p.result.get();
        const int32_t rc = p.done->script.op(0).rc;
        if (rc != 0)
            (void)join(op.rank);
        return rc;
    }

    WaitResult join(uint32_t rank) override
    {
        Posted &p = posted_.at(rank);
        WaitResult r;
        if (!p.active)
            return r;
        const LaunchOut out = p.done ? *p.done : p.result.get();
        p = Posted{};
        r.rc = out.script.op(0).rc;
        if (r.rc != 0)
            return r;
        const int32_t copy_rc = out.script.op(1).rc;
        r.completed = out.task_error == 0 && !out.timed_out;
        if (r.completed && copy_rc != 0)
            r.detail = "the snapshot copy behind the wait was refused: " + hccl_result_name(copy_rc);
        if (r.completed && copy_rc == 0) {
            r.snapshot.resize(geo_.window);
            adapter_.to_host(r.snapshot.data(), ranks_[rank].buf + geo_.region_bytes(), geo_.window);
        }
        if (!r.completed) {
            if (out.task_error != 0 && out.task_error != HCCL_E_TIMEOUT)
                r.detail = "the wait failed with task error " + hccl_result_name(out.task_error) +
                           " instead of completing or timing out";
            if (out.timed_out)
                r.detail = "the device launch passed its deadline (a hang, not a wait timeout)";
            // A timed-out wait leaves its thread in the error state, like a stream
            // exception: use a fresh thread for the next wait.
            ranks_[rank].wait = fresh_thread(rank, "replacement wait thread");
        }
        return r;
    }

    void write_region(uint32_t rank, uint32_t off, std::span<const uint8_t> bytes) override
    {
        adapter_.to_device(ranks_.at(rank).buf + off, bytes.data(), bytes.size());
    }
    std::vector<uint8_t> read_region(uint32_t rank) override
    {
        std::vector<uint8_t> out(geo_.region_bytes());
        adapter_.to_host(out.data(), ranks_.at(rank).buf, out.size());
        return out;
    }

  private:
    static constexpr uint32_t kPostGraceMs = 20;
    // A wait with timeOut 1 that takes at least this long counts seconds (as the conformance suite's probe).
    static constexpr double kSecondsThresholdMs = 400.0;

    struct Rank {
        HcclComm comm = nullptr;
        ThreadHandle data = 0, wait = 0, cpu = 0;
        uint8_t *buf = nullptr;
        uint64_t size = 0;
        std::vector<ChannelHandle> ch;     // [peer]
        std::vector<uint8_t *> remote;     // [peer]: the peer's buffer as this rank addresses it
        std::vector<uint64_t> remote_size; // [peer]
    };
    struct LaunchOut {
        Script script; // the block as the program left it (return codes)
        int32_t task_error = 0;
        bool timed_out = false;
    };
    struct Posted {
        bool active = false;
        std::future<LaunchOut> result;
        std::optional<LaunchOut> done; // collected early (the post was rejected at once)
    };

    bool local(uint32_t r) const { return opts_.only_rank < 0 || static_cast<uint32_t>(opts_.only_rank) == r; }

    static void *address(Addr a, uint8_t *base, uint64_t size, uint32_t off, uint32_t len)
    {
        switch (a) {
        case Addr::InWindow: return base + off;
        case Addr::StraddleEnd: return len >= 2 ? base + size - len / 2 : base + size;
        case Addr::PastEnd: return base + size + 4096;
        case Addr::Overflow: return reinterpret_cast<void *>(UINTPTR_MAX - len / 2);
        case Addr::Null: return nullptr;
        }
        return nullptr;
    }

    // Runs `s` on rank's device side; a launch the adapter could not make is the
    // harness's failure (an exception), not an observation.
    LaunchOut launch(uint32_t rank, Script s, uint32_t timeout_ms) const
    {
        LaunchOut out;
        out.script = std::move(s);
        hcts_launch_status st{};
        const int32_t rc =
            adapter_.run(ranks_[rank].comm, "ops", out.script.block.get(), sizeof(hcts_prog_ops_v2), timeout_ms, st);
        if (rc != HCCL_SUCCESS && rc != HCCL_E_TIMEOUT)
            throw std::runtime_error("the adapter could not run hcts_prog_ops on rank " + std::to_string(rank) + ": " +
                                     hccl_result_name(rc));
        if (st.program_return == HCTS_PROG_BAD_ARGS)
            throw std::runtime_error("hcts_prog_ops refused its argument block (HCTS_PROG_BAD_ARGS) on rank " +
                                     std::to_string(rank));
        out.task_error = st.task_error;
        out.timed_out = st.timed_out != 0 || rc == HCCL_E_TIMEOUT;
        return out;
    }

    ThreadHandle fresh_thread(uint32_t rank, const std::string &what)
    {
        ThreadHandle t = 0;
        check(api_.HcclThreadAcquire(ranks_[rank].comm, COMM_ENGINE_AICPU_TS, 1, 1, &t),
              "HcclThreadAcquire(" + what + ", rank " + std::to_string(rank) + ")");
        return t;
    }

    // A wait with timeOut 1 on a notify nobody raises, on a fresh AICPU_TS
    // thread: ~1 s means the IUT counts seconds, ~1 ms milliseconds.
    void measure_timeout_unit()
    {
        const uint32_t r = opts_.only_rank < 0 ? 0 : static_cast<uint32_t>(opts_.only_rank);
        const uint32_t peer = r == 0 ? 1 : 0;
        Script s;
        hcts_op &probe = s.add(HCTS_OP_WAIT, fresh_thread(r, "timeout-unit probe"));
        probe.channel = ranks_[r].ch.at(peer);
        probe.idx = geo_.notify_num - 1;
        probe.timeout = 1;
        const auto t0 = std::chrono::steady_clock::now();
        const LaunchOut out = launch(r, s, 10000 + opts_.launch_slack_ms);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (const int32_t rc = out.script.op(0).rc; rc != 0)
            throw std::runtime_error("the timeout-unit probe (a wait with timeOut 1) was rejected: " +
                                     hccl_result_name(rc) + "; state the unit with --timeout-unit s|ms");
        if (out.timed_out)
            throw std::runtime_error(
                "the timeout-unit probe (a wait with timeOut 1) did not end within 10 s; state the "
                "unit with --timeout-unit s|ms");
        timeout_in_seconds_ = ms >= kSecondsThresholdMs;
        char buf[128];
        std::snprintf(buf, sizeof buf, "measured: a wait with timeOut 1 ended after %.1f ms%s", ms,
                      out.task_error == 0 ? " (it did not report a timeout)" : "");
        unit_note_ = buf;
    }

    void build_world(const Geometry &g)
    {
        teardown();
        geo_ = g;
        ranks_.assign(g.ranks, Rank{});
        posted_.clear();
        posted_.resize(g.ranks);
        HcclRootInfo root{};
        if (local(0))
            check(api_.HcclGetRootInfo(&root), "HcclGetRootInfo");
        if (opts_.share_root_info)
            opts_.share_root_info(root);
        for_each_rank_concurrently(g.ranks, [&](uint32_t r) {
            if (!local(r))
                return;
            check(api_.HcclCommInitRootInfo(g.ranks, &root, r, &ranks_[r].comm),
                  "HcclCommInitRootInfo(rank " + std::to_string(r) + ")");
        });
        for_each_rank_concurrently(g.ranks, [&](uint32_t r) {
            if (local(r))
                set_up_rank(r);
        });
    }

    void set_up_rank(uint32_t r)
    {
        Rank &me = ranks_[r];
        const std::string who = " (rank " + std::to_string(r) + ")";
        ThreadHandle ts[2] = {0, 0};
        check(api_.HcclThreadAcquire(me.comm, COMM_ENGINE_AICPU_TS, 2, 1, ts), "HcclThreadAcquire(AICPU_TS)" + who);
        me.data = ts[0];
        me.wait = ts[1];
        // A thread of another engine for wrong-engine calls: CPU_TS (the host's
        // hand-over thread, offered on every product), else CPU.
        if (api_.HcclThreadAcquire(me.comm, COMM_ENGINE_CPU_TS, 1, 1, &me.cpu) != HCCL_SUCCESS &&
            api_.HcclThreadAcquire(me.comm, COMM_ENGINE_CPU, 1, 1, &me.cpu) != HCCL_SUCCESS)
            me.cpu = 0;
        check(api_.HcclGetHcclBuffer(me.comm, reinterpret_cast<void **>(&me.buf), &me.size), "HcclGetHcclBuffer" + who);
        if (me.size < geo_.region_bytes() + geo_.window)
            throw std::runtime_error("HcclGetHcclBuffer" + who + " gave " + std::to_string(me.size) + " bytes, need " +
                                     std::to_string(geo_.region_bytes() + geo_.window));
        std::vector<HcclChannelDesc> descs;
        std::vector<uint32_t> peers;
        for (uint32_t p = 0; p < geo_.ranks; ++p) {
            if (p == r)
                continue;
            HcclChannelDesc d;
            HcclChannelDescInit(&d, 1);
            d.remoteRank = p;
            d.channelProtocol = protocol();
            d.notifyNum = geo_.notify_num;
            descs.push_back(d);
            peers.push_back(p);
        }
        std::vector<ChannelHandle> chs(descs.size(), 0);
        check(api_.HcclChannelAcquire(me.comm, COMM_ENGINE_AICPU_TS, descs.data(), static_cast<uint32_t>(descs.size()),
                                      chs.data()),
              "HcclChannelAcquire" + who);
        me.ch.assign(geo_.ranks, 0);
        me.remote.assign(geo_.ranks, nullptr);
        me.remote_size.assign(geo_.ranks, 0);
        for (size_t i = 0; i < peers.size(); ++i) {
            const uint32_t p = peers[i];
            me.ch[p] = chs[i];
            check(api_.HcclChannelGetHcclBuffer(me.comm, chs[i], reinterpret_cast<void **>(&me.remote[p]),
                                                &me.remote_size[p]),
                  "HcclChannelGetHcclBuffer" + who);
        }
    }

    static CommProtocol protocol()
    {
        // suite_settings::property_protocol lists them in this order.
        constexpr CommProtocol kProtocols[] = {COMM_PROTOCOL_UB_CTP, COMM_PROTOCOL_UBOE, COMM_PROTOCOL_ROCE};
        const auto p = hcts::settings::get_enum(hcts::suite_settings::property_protocol);
        if (p.bad())
            throw std::invalid_argument(p.error);
        return kProtocols[p.value];
    }

    void teardown()
    {
        for (uint32_t r = 0; r < posted_.size(); ++r)
            if (posted_[r].active) {
                try {
                    (void)join(r);
                } catch (...) {
                }
            }
        posted_.clear();
        if (ranks_.empty())
            return;
        // Destruction may be collective too.
        std::vector<std::thread> ts;
        for (auto &rk : ranks_)
            if (rk.comm)
                ts.emplace_back([this, c = rk.comm] { (void)api_.HcclCommDestroy(c); });
        for (auto &t : ts)
            t.join();
        ranks_.clear();
    }

    HcommDriverOptions opts_;
    const Library &iut_;
    const HcommApi &api_;
    const Adapter &adapter_;
    std::unique_ptr<HostPrograms> host_programs_;
    std::optional<bool> timeout_in_seconds_;
    std::string unit_note_;
    Geometry geo_;
    std::vector<Rank> ranks_;
    std::vector<Posted> posted_;
};

} // namespace

std::unique_ptr<HcommDriver> make_hcomm_driver(const HcommDriverOptions &opts)
{
    if (!opts.iut || !opts.adapter)
        throw std::invalid_argument("make_hcomm_driver: an IUT and an adapter are needed");
    return std::make_unique<HcommDriverImpl>(opts);
}

} // namespace hcts::prop
