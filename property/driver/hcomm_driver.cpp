#include "driver/hcomm_driver.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <stdexcept>
#include <thread>

#include "adapter/hcts_adapter.h"
#include "driver/hcomm_api.h"
#include "prop_program.h"

#ifndef HCTS_REFERENCE_LIB
#define HCTS_REFERENCE_LIB "libhcomm.so"
#endif
#ifndef HCTS_PROPERTY_PROGRAMS_LIB
#define HCTS_PROPERTY_PROGRAMS_LIB "libhcts_property_programs.so"
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

uint64_t addr(const void *p) { return reinterpret_cast<uintptr_t>(p); }

// The IUT the adapter's iut_symbol resolves against (one per process).
void *g_iut = nullptr;
void *iutSymbol(const char *name) { return g_iut ? ::dlsym(g_iut, name) : nullptr; }

class HcommDriver final : public Driver {
 public:
  HcommDriver(HcommApi api, HcommDriverOptions opts) : api_(std::move(api)), opts_(std::move(opts)) {
    // The reference's switch for the timeOut unit (seconds by default, as
    // current hcomm); the driver passes timeouts in the unit the library uses.
    const char *unit = std::getenv("HCOMM_REF_TIMEOUT_UNIT");
    if (unit && std::string(unit) == "ms") timeoutInMs_ = true;
    else if (unit && *unit && std::string(unit) != "s")
      throw std::invalid_argument(std::string("HCOMM_REF_TIMEOUT_UNIT is '") + unit + "'; allowed: s, ms");
    // The program resolves hcomm symbols from the IUT, loaded RTLD_GLOBAL first.
    programsLib_ = ::dlopen(opts_.programs.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!programsLib_)
      throw std::runtime_error("cannot load the property device program '" + opts_.programs + "': " + ::dlerror());
    program_ = reinterpret_cast<uint32_t (*)(void *)>(::dlsym(programsLib_, "hcts_prog_prop_op"));
    if (!program_) throw std::runtime_error("'" + opts_.programs + "' does not export hcts_prog_prop_op");
    if (!opts_.adapter.empty()) {
      void *lib = ::dlopen(opts_.adapter.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!lib) throw std::runtime_error("cannot load adapter '" + opts_.adapter + "': " + ::dlerror());
      auto get = reinterpret_cast<hcts_adapter_get_fn>(::dlsym(lib, HCTS_ADAPTER_ENTRY));
      adapter_ = get ? get() : nullptr;
      if (!adapter_ || adapter_->abi_version != HCTS_ADAPTER_ABI_VERSION ||
          adapter_->size < offsetof(hcts_adapter_v1, copy_to_host) + sizeof adapter_->copy_to_host)
        throw std::runtime_error("'" + opts_.adapter + "' is not an hcts adapter of ABI version " +
                                 std::to_string(HCTS_ADAPTER_ABI_VERSION));
    } else if (!api_.deviceLaunch) {
      throw std::runtime_error("'" + api_.path + "' has no HcommRefDeviceLaunch; give an adapter (--adapter)");
    }
  }
  ~HcommDriver() override { teardown(); }

  std::string name() const override {
    return "hcomm(" + api_.path + (adapter_ ? ", adapter " + std::string(adapter_->name) : "") + ")";
  }
  const HcommApi &api() const { return api_; }
  const hcts_adapter_v1 *adapter() const { return adapter_; }

  void reset(const Geometry &g) override {
    teardown();
    geo_ = g;
    ranks_.assign(g.ranks, Rank{});
    posted_.clear();
    posted_.resize(g.ranks);
    if (adapter_ && !adapterReady_) {
      g_iut = api_.handle;
      hcts_adapter_init_args a{};
      a.abi_version = HCTS_ADAPTER_ABI_VERSION;
      a.size = sizeof a;
      a.programs_path = opts_.programs.c_str();
      a.iut_symbol = &iutSymbol;
      a.rank = opts_.onlyRank < 0 ? 0 : static_cast<uint32_t>(opts_.onlyRank);
      a.rank_count = g.ranks;
      if (int32_t rc = adapter_->init(&a); rc != 0)
        throw std::runtime_error("adapter init failed with " + std::to_string(rc));
      adapterReady_ = true;
    }
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
      auto init = m.initialRegion(r);
      init.resize(g.regionBytes() + g.window, 0);  // + snapshot scratch
      toDevice(ranks_[r].buf, init.data(), init.size());
    }
  }

  CallResult call(const Op &op) override {
    Rank &me = ranks_.at(op.rank);
    const uint32_t w = geo_.guard;
    hcts_prop_op_args a = args();
    a.channel = op.peer < me.ch.size() ? me.ch[op.peer] : 0;
    a.thread = me.data;
    if (op.side == Side::WrongEngine) {
      if (!me.cpu) throw std::runtime_error("no CPU_TS or CPU thread could be acquired for wrong-engine calls");
      a.thread = me.cpu;
    }
    a.len = op.len;
    a.idx = op.idx;
    auto local = [&](Addr x, uint32_t off) { return addr(address(x, me.buf, me.size, w + off, op.len)); };
    auto remote = [&](Addr x, uint32_t off) {
      return addr(address(x, me.remote[op.peer], me.remoteSize[op.peer], w + off, op.len));
    };
    switch (op.kind) {
      case OpKind::Wwn: a.call = HCTS_PROP_WWN; a.dst = remote(op.dstAddr, op.dstOff); a.src = local(op.srcAddr, op.srcOff); break;
      case OpKind::Write: a.call = HCTS_PROP_WRITE; a.dst = remote(op.dstAddr, op.dstOff); a.src = local(op.srcAddr, op.srcOff); break;
      case OpKind::Read: a.call = HCTS_PROP_READ; a.dst = local(op.dstAddr, op.dstOff); a.src = remote(op.srcAddr, op.srcOff); break;
      case OpKind::LocalCopy: a.call = HCTS_PROP_LOCAL_COPY; a.dst = local(op.dstAddr, op.dstOff); a.src = local(op.srcAddr, op.srcOff); break;
      case OpKind::Record: a.call = HCTS_PROP_RECORD; break;
      case OpKind::Fence: a.call = HCTS_PROP_FENCE; break;
      default: throw std::invalid_argument("HcommDriver::call: " + show(op) + " is not a call");
    }
    if (op.side == Side::Host) {
      (void)program_(&a);  // the same call, made from a host thread
      return {a.rc, 0};
    }
    const auto out = launch(op.rank, a, opts_.launchSlackMs);
    return {out.args.rc, out.args.rc == 0 ? out.taskError : 0};
  }

  WaitResult wait(const Op &op) override {
    const int32_t rc = postWait(op);
    if (rc != 0 && rc != kRcPending) {
      WaitResult r;
      r.rc = rc;
      return r;
    }
    return join(op.rank);
  }

  int32_t postWait(const Op &op) override {
    Rank &me = ranks_.at(op.rank);
    Posted &p = posted_.at(op.rank);
    if (p.active) throw std::logic_error("postWait: rank " + std::to_string(op.rank) + " already has a posted wait");
    hcts_prop_op_args a = args();
    a.call = HCTS_PROP_WAIT;
    a.thread = me.wait;
    a.channel = me.ch.at(op.peer);
    a.idx = op.idx;
    a.timeout =
        timeoutInMs_ ? std::max<uint32_t>(op.timeoutMs, 1) : std::max<uint32_t>((op.timeoutMs + 999) / 1000, 1);
    a.snap_src = addr(me.buf + geo_.guard);
    a.snap_dst = addr(me.buf + geo_.regionBytes());
    a.snap_len = geo_.window;
    const uint32_t deadline = (timeoutInMs_ ? a.timeout : a.timeout * 1000) + opts_.launchSlackMs;
    p.result = std::async(std::launch::async, [=, this] { return launch(op.rank, a, deadline); });
    p.active = true;
    // A rejected wait returns at once; an accepted one stays pending. The
    // program's results come back only with the launch, so after a short
    // grace the outcome is left to join().
    if (p.result.wait_for(std::chrono::milliseconds(kPostGraceMs)) != std::future_status::ready) return kRcPending;
    const LaunchOut &out = p.result.get();
    p.done = out;
    p.haveDone = true;
    if (out.args.rc != 0) (void)join(op.rank);
    return out.args.rc;
  }

  WaitResult join(uint32_t rank) override {
    Posted &p = posted_.at(rank);
    WaitResult r;
    if (!p.active) return r;
    const LaunchOut out = p.haveDone ? p.done : p.result.get();
    p = Posted{};
    r.rc = out.args.rc;
    if (out.args.rc != 0) return r;
    r.completed = out.taskError == 0 && !out.timedOut;
    if (r.completed && out.args.copy_rc != 0)
      r.detail = "the snapshot copy behind the wait was refused with " + std::to_string(out.args.copy_rc);
    if (r.completed && out.args.copy_rc == 0) {
      r.snapshot.resize(geo_.window);
      toHost(r.snapshot.data(), ranks_[rank].buf + geo_.regionBytes(), geo_.window);
    }
    if (!r.completed) {
      if (out.taskError != 0 && out.taskError != HCCL_E_TIMEOUT)
        r.detail = "the wait failed with task error " + std::to_string(out.taskError) +
                   " instead of completing or timing out";
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
    toDevice(ranks_.at(rank).buf + off, bytes.data(), bytes.size());
  }
  std::vector<uint8_t> readRegion(uint32_t rank) override {
    std::vector<uint8_t> out(geo_.regionBytes());
    toHost(out.data(), ranks_.at(rank).buf, out.size());
    return out;
  }

 private:
  static constexpr uint32_t kPostGraceMs = 20;

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
    hcts_prop_op_args args{};
    int32_t taskError = 0;
    bool timedOut = false;
  };
  struct Posted {
    bool active = false;
    std::future<LaunchOut> result;
    bool haveDone = false;
    LaunchOut done;
  };

  static hcts_prop_op_args args() {
    hcts_prop_op_args a{};
    a.version = HCTS_PROP_PROGRAM_VERSION;
    a.size = sizeof a;
    return a;
  }

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

  void toDevice(uint8_t *dst, const uint8_t *src, size_t n) {
    if (!adapter_) {
      std::memcpy(dst, src, n);
      return;
    }
    if (int32_t rc = adapter_->copy_to_device(dst, src, n); rc != 0)
      throw std::runtime_error("adapter copy_to_device failed with " + std::to_string(rc));
  }
  void toHost(uint8_t *dst, const uint8_t *src, size_t n) {
    if (!adapter_) {
      std::memcpy(dst, src, n);
      return;
    }
    if (int32_t rc = adapter_->copy_to_host(dst, src, n); rc != 0)
      throw std::runtime_error("adapter copy_to_host failed with " + std::to_string(rc));
  }

  LaunchOut launch(uint32_t rank, hcts_prop_op_args a, uint32_t timeoutMs) {
    LaunchOut out;
    int32_t rc = 0;
    if (adapter_) {
      hcts_launch_status st{};
      rc = adapter_->run_program(ranks_[rank].comm, "prop_op", &a, sizeof a, timeoutMs, &st);
      out.taskError = st.task_error;
      out.timedOut = st.timed_out != 0 || rc == HCCL_E_TIMEOUT;
    } else {
      HcommRefLaunchResult res{};
      res.version = HCOMM_REF_ABI_VERSION;
      res.size = sizeof res;
      rc = api_.deviceLaunch(ranks_[rank].comm, program_, &a, timeoutMs, &res);
      out.taskError = res.taskError;
      out.timedOut = res.timedOut != 0 || rc == HCCL_E_TIMEOUT;
    }
    if (rc != HCCL_SUCCESS && rc != HCCL_E_TIMEOUT)
      throw std::runtime_error("launching the device program on rank " + std::to_string(rank) + " failed with " +
                               std::to_string(rc));
    out.args = a;
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
  void *programsLib_ = nullptr;
  uint32_t (*program_)(void *) = nullptr;
  const hcts_adapter_v1 *adapter_ = nullptr;
  bool adapterReady_ = false;
  Geometry geo_;
  bool timeoutInMs_ = false;
  std::vector<Rank> ranks_;
  std::vector<Posted> posted_;
};

}  // namespace

std::unique_ptr<Driver> makeHcommDriver(const HcommDriverOptions &opts) {
  HcommDriverOptions o = opts;
  if (o.library.empty()) o.library = HCTS_REFERENCE_LIB;
  if (o.programs.empty()) o.programs = HCTS_PROPERTY_PROGRAMS_LIB;
  // The libraries stay loaded for the life of the process: hcomm libraries
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
  if (h->adapter() && h->adapter()->product) info.product = h->adapter()->product();
  else info.product = h->api().productName ? h->api().productName() : "unknown";
  return info;
}

}  // namespace hcts::prop
