#include "driver/sim_driver.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace hcts::prop {
namespace {

constexpr int32_t kSuccess = 0, kPara = 1, kPtr = 2, kNotSupport = 5;

class SimDriver final : public Driver {
  public:
    explicit SimDriver(SimFault f) : fault_(f) {}
    std::string name() const override { return "sim"; }

    void reset(const Geometry &g) override
    {
        geo_ = g;
        Model m(g);
        mem_.clear();
        for (uint32_t r = 0; r < g.ranks; ++r) {
            auto region = m.initial_region(r);
            region.resize(g.region_bytes() + g.window, 0); // + snapshot scratch
            mem_.push_back(std::move(region));
        }
        // One extra slot per channel so that the off-by-one fault has somewhere to go.
        bits_.assign(size_t{g.ranks} * g.ranks * (g.notify_num + 1), 0);
        posted_.assign(g.ranks, Op{OpKind::Join});
        done_.assign(g.ranks, WaitResult{});
    }

    CallResult call(const Op &op) override
    {
        if (int32_t rc = validate(op); rc != kSuccess)
            return {rc, 0};
        const uint32_t w = geo_.guard;
        switch (op.kind) {
        case OpKind::Wwn:
            if (fault_ == SimFault::NotifyBeforeData) {
                raise(op.peer, op.rank, op.idx);
                copy(op.peer, w + op.dst_off, op.rank, w + op.src_off, op.len);
            } else {
                copy(op.peer, w + op.dst_off, op.rank, w + op.src_off, op.len);
                raise(op.peer, op.rank, op.idx);
            }
            break;
        case OpKind::Write: copy(op.peer, w + op.dst_off, op.rank, w + op.src_off, op.len); break;
        case OpKind::Read: copy(op.rank, w + op.dst_off, op.peer, w + op.src_off, op.len); break;
        case OpKind::LocalCopy: copy(op.rank, w + op.dst_off, op.rank, w + op.src_off, op.len); break;
        case OpKind::Record: raise(op.peer, op.rank, op.idx); break;
        case OpKind::Fence: break;
        default: throw std::invalid_argument("SimDriver::call: " + show(op) + " is not a call");
        }
        return {kSuccess, 0};
    }

    WaitResult wait(const Op &op) override
    {
        WaitResult r;
        r.rc = post_wait(op);
        if (r.rc != kSuccess)
            return r;
        return join(op.rank);
    }

    int32_t post_wait(const Op &op) override
    {
        if (int32_t rc = validate(op); rc != kSuccess)
            return rc;
        posted_[op.rank] = op;
        done_[op.rank] = WaitResult{};
        try_complete(op.rank);
        return kSuccess;
    }

    WaitResult join(uint32_t rank) override
    {
        // Delivery is immediate: what has not arrived by now never will.
        WaitResult r = done_[rank];
        posted_[rank] = Op{OpKind::Join};
        done_[rank] = WaitResult{};
        return r;
    }

    void write_region(uint32_t rank, uint32_t off, std::span<const uint8_t> bytes) override
    {
        std::copy(bytes.begin(), bytes.end(), mem_.at(rank).begin() + off);
    }
    std::vector<uint8_t> read_region(uint32_t rank) override
    {
        const auto &m = mem_.at(rank);
        return {m.begin(), m.begin() + geo_.region_bytes()};
    }

  private:
    int32_t validate(const Op &op) const
    {
        const bool data = op.kind == OpKind::Wwn || op.kind == OpKind::Write || op.kind == OpKind::Read ||
                          op.kind == OpKind::LocalCopy;
        if (data && (op.src_addr == Addr::Null || op.dst_addr == Addr::Null))
            return kPtr;
        if (op.side == Side::Host && !(fault_ == SimFault::HostAccepted && op.kind == OpKind::Wwn))
            return kNotSupport;
        if (op.side == Side::WrongEngine)
            return kNotSupport;
        if (data && (op.len == 0 || op.src_addr != Addr::InWindow || op.dst_addr != Addr::InWindow))
            return kPara;
        const bool indexed = op.kind == OpKind::Wwn || op.kind == OpKind::Record || op.kind == OpKind::Wait ||
                             op.kind == OpKind::PostWait;
        const uint32_t bound = fault_ == SimFault::IndexOffByOne ? geo_.notify_num + 1 : geo_.notify_num;
        if (indexed && op.idx >= bound)
            return kPara;
        return kSuccess;
    }
    uint8_t &bit(uint32_t rank, uint32_t peer, uint32_t idx)
    {
        return bits_[(size_t{rank} * geo_.ranks + peer) * (geo_.notify_num + 1) + idx];
    }
    void copy(uint32_t dr, uint32_t doff, uint32_t sr, uint32_t soff, uint32_t len)
    {
        std::vector<uint8_t> tmp(mem_[sr].begin() + soff, mem_[sr].begin() + soff + len);
        std::copy(tmp.begin(), tmp.end(), mem_[dr].begin() + doff);
    }
    void raise(uint32_t rank, uint32_t peer, uint32_t idx)
    {
        bit(rank, peer, idx) = 1;
        try_complete(rank);
    }
    void try_complete(uint32_t rank)
    {
        const Op &p = posted_[rank];
        if (p.kind == OpKind::Join || done_[rank].completed)
            return;
        uint8_t &b = bit(rank, p.peer, p.idx);
        if (!b)
            return;
        b = 0;
        done_[rank].completed = true;
        const auto &m = mem_[rank];
        done_[rank].snapshot.assign(m.begin() + geo_.guard, m.begin() + geo_.guard + geo_.window);
    }

    SimFault fault_;
    Geometry geo_;
    std::vector<std::vector<uint8_t>> mem_;
    std::vector<uint8_t> bits_;
    std::vector<Op> posted_;
    std::vector<WaitResult> done_;
};

} // namespace

std::unique_ptr<Driver> make_sim_driver(SimFault fault) { return std::make_unique<SimDriver>(fault); }

} // namespace hcts::prop
