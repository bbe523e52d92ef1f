#include "driver/hcomm_driver.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <stdexcept>
#include <thread>

#include "driver/hcomm_api.h"

#ifndef HCTS_REFERENCE_LIB
#define HCTS_REFERENCE_LIB "libhcomm.so"
#endif

namespace hcts::prop {
namespace {

void check(HcclResult rc, const std::string &what) {
  if (rc != HCCL_SUCCESS) throw std::runtime_error(what + " failed with HcclResult " + std::to_string(rc));
}

// Runs fn(r) for every rank at once: bootstrap and channel set-up are
// collective, so one rank's call may wait for the others.
void forEachRankConcurrently(uint32_t n, const std::function<void(uint32_t)> &fn) {
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
  for (auto &t : ts) t.join();
  for (auto &e : errors)
    if (e) std::rethrow_exception(e);
}

struct Program {
  std::function<int32_t()> body;
  int32_t rc = 0;
};

uint32_t trampoline(void *arg) {
  auto *p = static_cast<Program *>(arg);
  p->rc = p->body();
  return static_cast<uint32_t>(p->rc);
}

class HcommDriver final : public Driver {
 public:
  HcommDriver(HcommApi api, HcommDriverOptions opts) : api_(std::move(api)), opts_(std::move(opts)) {
    // The reference's switch for the timeOut unit (seconds by default, as
    // current hcomm); the driver must pass timeouts in the unit the library uses.
    const char *unit = std::getenv("HCOMM_REF_TIMEOUT_UNIT");
    if (unit && std::string(unit) == "ms") timeoutInMs_ = true;
    else if (unit && *unit && std::string(unit) != "s")
      throw std::invalid_argument(std::string("HCOMM_REF_TIMEOUT_UNIT is '") + unit + "'; allowed: s, ms");
  }
  ~HcommDriver() override { teardown(); }

  std::string name() const override { return "hcomm(" + api_.path + ")"; }
  const HcommApi &api() const { return api_; }

  void reset(const Geometry &g) override {
    teardown();
    geo_ = g;
    ranks_.assign(g.ranks, Rank{});
    posted_.clear();
    posted_.resize(g.ranks);
    HcclRootInfo root{};
    if (local(0)) check(api_.getRootInfo(&root), "HcclGetRootInfo");
    if (opts_.shareRootInfo) opts_.shareRootInfo(root);
    forEachRankConcurrently(g.ranks, [&](uint32_t r) {
      if (!local(r)) return;
      check(api_.commInitRootInfo(g.ranks, &root, r, &ranks_[r].comm),
            "HcclCommInitRootInfo(rank " + std::to_string(r) + ")");
    });
    forEachRankConcurrently(g.ranks, [&](uint32_t r) {
      if (local(r)) setUpRank(r);
    });
    Model m(g);
    for (uint32_t r = 0; r < g.ranks; ++r) {
      if (!local(r)) continue;
      const auto init = m.initialRegion(r);
      std::memcpy(ranks_[r].buf, init.data(), init.size());
      std::memset(ranks_[r].buf + g.regionBytes(), 0, g.window);
    }
  }

  CallResult call(const Op &op) override {
    Rank &me = ranks_.at(op.rank);
    const uint32_t w = geo_.guard;
    const ChannelHandle ch = op.peer < me.ch.size() ? me.ch[op.peer] : 0;
    auto localAddr = [&](Addr a, uint32_t off) { return address(a, me.buf, me.size, w + off, op.len); };
    auto remoteAddr = [&](Addr a, uint32_t off) {
      return address(a, me.remote[op.peer], me.remoteSize[op.peer], w + off, op.len);
    };
    ThreadHandle t = me.data;
    if (op.side == Side::WrongEngine) {
      if (!me.cpu) throw std::runtime_error("no CPU_TS or CPU thread could be acquired for wrong-engine calls");
      t = me.cpu;
    }
    std::function<int32_t()> body;
    switch (op.kind) {
      case OpKind::Wwn:
        body = [=, this] {
          return api_.writeWithNotify(t, ch, remoteAddr(op.dstAddr, op.dstOff), localAddr(op.srcAddr, op.srcOff),
                                      op.len, op.idx);
        };
        break;
      case OpKind::Write:
        body = [=, this] {
          return api_.write(t, ch, remoteAddr(op.dstAddr, op.dstOff), localAddr(op.srcAddr, op.srcOff), op.len);
        };
        break;
      case OpKind::Read:
        body = [=, this] {
          return api_.read(t, ch, localAddr(op.dstAddr, op.dstOff), remoteAddr(op.srcAddr, op.srcOff), op.len);
        };
        break;
      case OpKind::LocalCopy:
        body = [=, this] {
          return api_.localCopy(t, localAddr(op.dstAddr, op.dstOff), localAddr(op.srcAddr, op.srcOff), op.len);
        };
        break;
      case OpKind::Record: body = [=, this] { return api_.notifyRecord(t, ch, op.idx); }; break;
      case OpKind::Fence: body = [=, this] { return api_.channelFence(t, ch); }; break;
      default: throw std::invalid_argument("HcommDriver::call: " + show(op) + " is not a call");
    }
    if (op.side == Side::Host) return {body(), 0};
    const auto out = launch(op.rank, body, opts_.launchSlackMs);
    return {out.rc, out.rc == 0 ? out.taskError : 0};
  }

  WaitResult wait(const Op &op) override {
    WaitResult r;
    r.rc = postWait(op);
    if (r.rc != 0) return r;
    return join(op.rank);
  }

  int32_t postWait(const Op &op) override {
    Rank &me = ranks_.at(op.rank);
    Posted &p = posted_.at(op.rank);
    if (p.active) throw std::logic_error("postWait: rank " + std::to_string(op.rank) + " already has a posted wait");
    const ChannelHandle ch = me.ch.at(op.peer);
    const ThreadHandle t = me.wait;
    uint8_t *window = me.buf + geo_.guard;
    uint8_t *snap = me.buf + geo_.regionBytes();
    const uint32_t len = geo_.window;
    const uint32_t timeoutArg =
        timeoutInMs_ ? std::max<uint32_t>(op.timeoutMs, 1) : std::max<uint32_t>((op.timeoutMs + 999) / 1000, 1);
    auto enqueued = std::make_shared<std::promise<std::pair<int32_t, int32_t>>>();
    auto rcFuture = enqueued->get_future();
    std::function<int32_t()> body = [=, this] {
      const int32_t rc = api_.notifyWait(t, ch, op.idx, timeoutArg);
      // Behind the wait on the same in-order thread: the window as it is the
      // moment the notify is consumed (the device observer path).
      const int32_t copyRc = rc == 0 ? api_.localCopy(t, snap, window, len) : 0;
      enqueued->set_value({rc, copyRc});
      return rc;
    };
    const uint32_t deadline = (timeoutInMs_ ? timeoutArg : timeoutArg * 1000) + opts_.launchSlackMs;
    p.result = std::async(std::launch::async, [=, this] { return launch(op.rank, body, deadline); });
    p.active = true;
    // The call itself returns at once; only its completion is deferred.
    if (rcFuture.wait_for(std::chrono::milliseconds(opts_.launchSlackMs)) != std::future_status::ready)
      throw std::runtime_error("the wait program of rank " + std::to_string(op.rank) + " did not start within " +
                               std::to_string(opts_.launchSlackMs) + " ms");
    const auto [rc, copyRc] = rcFuture.get();
    p.copyRc = copyRc;
    if (rc != 0) (void)join(op.rank);
    return rc;
  }

  WaitResult join(uint32_t rank) override {
    Posted &p = posted_.at(rank);
    WaitResult r;
    if (!p.active) return r;
    const LaunchOut out = p.result.get();
    p.active = false;
    r.rc = out.rc;
    if (out.rc != 0) return r;
    r.completed = out.launchRc == HCCL_SUCCESS && out.taskError == 0 && !out.timedOut;
    if (r.completed && p.copyRc != 0)
      r.detail = "the snapshot copy behind the wait was refused with " + std::to_string(p.copyRc);
    if (r.completed && p.copyRc == 0) {
      const uint8_t *snap = ranks_[rank].buf + geo_.regionBytes();
      r.snapshot.assign(snap, snap + geo_.window);
    }
    if (!r.completed) {
      if (out.taskError != 0 && out.taskError != HCCL_E_TIMEOUT)
        r.detail = "the wait failed with task error " + std::to_string(out.taskError) + " instead of completing or timing out";
      if (out.timedOut) r.detail = "the device launch passed its deadline (a hang, not a wait timeout)";
      // A timed-out wait leaves its thread in the error state, like a stream
      // exception: use a fresh thread for the next wait.
      ThreadHandle fresh = 0;
      check(api_.threadAcquire(ranks_[rank].comm, COMM_ENGINE_AICPU_TS, 1, 1, &fresh),
            "HcclThreadAcquire(replacement wait thread, rank " + std::to_string(rank) + ")");
      ranks_[rank].wait = fresh;
    }
    return r;
  }

  void writeRegion(uint32_t rank, uint32_t off, std::span<const uint8_t> bytes) override {
    std::memcpy(ranks_.at(rank).buf + off, bytes.data(), bytes.size());
  }
  std::vector<uint8_t> readRegion(uint32_t rank) override {
    const uint8_t *b = ranks_.at(rank).buf;
    return {b, b + geo_.regionBytes()};
  }

 private:
  struct Rank {
    HcclComm comm = nullptr;
    ThreadHandle data = 0, wait = 0, cpu = 0;
    uint8_t *buf = nullptr;
    uint64_t size = 0;
    std::vector<ChannelHandle> ch;      // [peer]
    std::vector<uint8_t *> remote;      // [peer]: the peer's buffer as this rank addresses it
    std::vector<uint64_t> remoteSize;   // [peer]
  };
  struct LaunchOut {
    HcclResult launchRc = HCCL_SUCCESS;
    int32_t rc = 0;  // what the program's call returned
    int32_t taskError = 0;
    bool timedOut = false;
  };
  struct Posted {
    bool active = false;
    std::future<LaunchOut> result;
    int32_t copyRc = 0;
  };

  bool local(uint32_t r) const { return opts_.onlyRank < 0 || static_cast<uint32_t>(opts_.onlyRank) == r; }

  static void *address(Addr a, uint8_t *base, uint64_t size, uint32_t off, uint32_t len) {
    switch (a) {
      case Addr::InWindow: return base + off;
      case Addr::StraddleEnd: return len >= 2 ? base + size - len / 2 : base + size;
      case Addr::PastEnd: return base + size + 4096;
      case Addr::Overflow: return reinterpret_cast<void *>(UINTPTR_MAX - len / 2);
      case Addr::Null: return nullptr;
    }
    return nullptr;
  }

  LaunchOut launch(uint32_t rank, std::function<int32_t()> body, uint32_t timeoutMs) {
    Program prog{std::move(body), 0};
    HcommRefLaunchResult res{};
    res.version = HCOMM_REF_ABI_VERSION;
    res.size = sizeof res;
    LaunchOut out;
    out.launchRc = api_.deviceLaunch(ranks_[rank].comm, &trampoline, &prog, timeoutMs, &res);
    out.rc = prog.rc;
    out.taskError = res.taskError;
    out.timedOut = res.timedOut != 0 || out.launchRc == HCCL_E_TIMEOUT;
    if (out.launchRc != HCCL_SUCCESS && out.launchRc != HCCL_E_TIMEOUT)
      throw std::runtime_error("HcommRefDeviceLaunch on rank " + std::to_string(rank) + " failed with " +
                               std::to_string(out.launchRc));
    return out;
  }

  void setUpRank(uint32_t r) {
    Rank &me = ranks_[r];
    const std::string who = " (rank " + std::to_string(r) + ")";
    ThreadHandle ts[2] = {0, 0};
    check(api_.threadAcquire(me.comm, COMM_ENGINE_AICPU_TS, 2, 1, ts), "HcclThreadAcquire(AICPU_TS)" + who);
    me.data = ts[0];
    me.wait = ts[1];
    // A thread of another engine for wrong-engine calls: CPU_TS (the host's
    // hand-over thread, offered on every product), else CPU.
    if (api_.threadAcquire(me.comm, COMM_ENGINE_CPU_TS, 1, 1, &me.cpu) != HCCL_SUCCESS &&
        api_.threadAcquire(me.comm, COMM_ENGINE_CPU, 1, 1, &me.cpu) != HCCL_SUCCESS)
      me.cpu = 0;
    check(api_.getHcclBuffer(me.comm, reinterpret_cast<void **>(&me.buf), &me.size), "HcclGetHcclBuffer" + who);
    if (me.size < geo_.regionBytes() + geo_.window)
      throw std::runtime_error("HcclGetHcclBuffer" + who + " gave " + std::to_string(me.size) + " bytes, need " +
                               std::to_string(geo_.regionBytes() + geo_.window));
    std::vector<HcclChannelDesc> descs;
    std::vector<uint32_t> peers;
    for (uint32_t p = 0; p < geo_.ranks; ++p) {
      if (p == r) continue;
      HcclChannelDesc d;
      HcclChannelDescInit(&d, 1);
      d.remoteRank = p;
      d.channelProtocol = protocol();
      d.notifyNum = geo_.notifyNum;
      descs.push_back(d);
      peers.push_back(p);
    }
    std::vector<ChannelHandle> chs(descs.size(), 0);
    check(api_.channelAcquire(me.comm, COMM_ENGINE_AICPU_TS, descs.data(), static_cast<uint32_t>(descs.size()),
                              chs.data()),
          "HcclChannelAcquire" + who);
    me.ch.assign(geo_.ranks, 0);
    me.remote.assign(geo_.ranks, nullptr);
    me.remoteSize.assign(geo_.ranks, 0);
    for (size_t i = 0; i < peers.size(); ++i) {
      const uint32_t p = peers[i];
      me.ch[p] = chs[i];
      check(api_.channelGetHcclBuffer(me.comm, chs[i], reinterpret_cast<void **>(&me.remote[p]), &me.remoteSize[p]),
            "HcclChannelGetHcclBuffer" + who);
    }
  }

  static CommProtocol protocol() {
    const char *p = std::getenv("HCTS_PROPERTY_PROTOCOL");
    if (!p || std::string(p) == "ub_ctp") return COMM_PROTOCOL_UB_CTP;
    if (std::string(p) == "uboe") return COMM_PROTOCOL_UBOE;
    if (std::string(p) == "roce") return COMM_PROTOCOL_ROCE;
    throw std::invalid_argument(std::string("HCTS_PROPERTY_PROTOCOL is '") + p + "'; allowed: ub_ctp, uboe, roce");
  }

  void teardown() {
    for (uint32_t r = 0; r < posted_.size(); ++r)
      if (posted_[r].active) {
        try {
          (void)join(r);
        } catch (...) {
        }
      }
    posted_.clear();
    if (ranks_.empty()) return;
    // Destruction may be collective too.
    std::vector<std::thread> ts;
    for (auto &rk : ranks_)
      if (rk.comm) ts.emplace_back([this, c = rk.comm] { (void)api_.commDestroy(c); });
    for (auto &t : ts) t.join();
    ranks_.clear();
  }

  HcommApi api_;
  HcommDriverOptions opts_;
  Geometry geo_;
  bool timeoutInMs_ = false;
  std::vector<Rank> ranks_;
  std::vector<Posted> posted_;
};

}  // namespace

std::unique_ptr<Driver> makeHcommDriver(const HcommDriverOptions &opts) {
  HcommDriverOptions o = opts;
  if (o.library.empty()) o.library = HCTS_REFERENCE_LIB;
  // The library stays loaded for the life of the process: hcomm libraries
  // keep progress threads that do not survive dlclose.
  return std::make_unique<HcommDriver>(HcommApi::load(o.library), o);
}

HcommDriverInfo describeHcommDriver(const Driver &d) {
  HcommDriverInfo info;
  const auto *h = dynamic_cast<const HcommDriver *>(&d);
  if (!h) return info;
  info.library = h->api().path;
  const std::string file = info.library.substr(info.library.find_last_of('/') + 1);
  info.name = info.library == HCTS_REFERENCE_LIB ? "reference" : file;
  info.product = h->api().productName ? h->api().productName() : "unknown";
  return info;
}

}  // namespace hcts::prop
