// model.h: the pure model of the hcomm state the properties check.
//
// What it tracks, per rank: every byte of the communication memory the tests
// use (a window with a guard zone on each side) as the set of values a reader
// may see; per (receiver, sender channel, notify index) the records not yet
// consumed; per channel the fences. Delivery is asynchronous, so the model does
// not predict one value: a byte is allowed to hold its committed value(s) or the
// value of any write still in flight to it, and a wait is allowed to complete,
// to time out, or either. An observation outside the allowed set is a violation.
//
// Rules (reference semantics, ARCHITECTURE.md; spec hcomm-api.md §7):
// * a write (Write, WWN, Read) is in flight from the call until a notify that
//   orders it is consumed: a WWN's own data is committed when a wait consumes
//   its notify (write-before-notify visibility); earlier writes on the same
//   channel are committed with it only if a fence on that channel came between.
// * notifies are binary by default (a record on a set notify coalesces), so
//   after k records a wait must complete if k >= 1; after a completed wait the
//   next one may complete or time out if records coalesced. NotifyProfile::Counting
//   models a counting notify.
// * a rejected call changes nothing: no byte, no notify.
// * LocalCopy and Stamp act at once (in-order thread / harness write).
// Every violation names the catalogue clause of the rule it breaks, and every
// rejection rule names its clause (Expectation::clause), so the judge can let a
// rule that does not gate the run go (Model::tolerate) instead of failing on it.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hcts/core/stamp.h"
#include "model/op.h"

namespace hcts::prop {

struct Geometry {
    uint32_t ranks = 2;
    uint32_t window = 256;   // bytes of communication memory the commands address
    uint32_t guard = 64;     // guard bytes on each side of the window
    uint32_t notify_num = 4; // notifies per channel
    uint32_t region_bytes() const { return window + 2 * guard; }
    uint32_t window_to_region(uint32_t off) const { return guard + off; }
};

enum class NotifyProfile { Binary, Counting };

// The stamped pattern (core's codec, hcts/core/stamp.h): every byte the harness
// writes depends on the stamp id, the rank and its region offset, so stale,
// foreign and torn data differ. Byte `region_off` is stamp_byte(stamp_key(id, rank), region_off).
inline constexpr uint32_t kStampRun = 0x50; // 'P': the property suite's payloads
inline StampKey stamp_key(uint32_t stamp_id, uint32_t rank) { return StampKey{kStampRun, stamp_id, rank}; }

struct Expectation {
    bool accept = true;
    std::string reason; // why a rejection is required (empty when accepted)
    std::string clause; // the catalogue clause of that rule (empty when accepted)
};

// One broken rule: the catalogue clause it belongs to and what was seen. A
// property gates by the kind of the clause its counterexample breaks.
struct Violation {
    std::string clause;
    std::string text;
};
using Violations = std::vector<Violation>;

enum class WaitAllowed { MustComplete, MustTimeOut, Either };
const char *wait_allowed_name(WaitAllowed w);

class Model {
  public:
    explicit Model(Geometry g, NotifyProfile profile = NotifyProfile::Binary);

    const Geometry &geometry() const { return geo_; }

    // Whether the implementation must accept or reject `op` (Wwn, Write, Read,
    // Record, Wait, PostWait, LocalCopy, Fence).
    Expectation expect(const Op &op) const;

    // Applies an accepted op: Wwn, Write, Read, Record, LocalCopy, Fence, Stamp.
    void issue(const Op &op);

    // What a wait on rank `rank`, channel to `peer`, index `idx` may observe now.
    WaitAllowed wait_allowed(uint32_t rank, uint32_t peer, uint32_t idx) const;

    // Records a wait's outcome. `snapshot` is rank's window copied on the device
    // right after the wait completed (empty if the implementation cannot take
    // one). Records made by ops numbered >= late_from_op were issued too close to
    // (or after) the wait's deadline to be owed to it: a timeout is then allowed
    // and leaves them outstanding. Returns the violations found (empty: none).
    Violations on_wait(uint32_t rank, uint32_t peer, uint32_t idx, bool completed, std::span<const uint8_t> snapshot,
                       uint64_t late_from_op = UINT64_MAX);

    // Compares rank's observed region (guard, window, guard) with the allowed sets.
    Violations check_region(uint32_t rank, std::span<const uint8_t> region) const;

    // The implementation departed from a rule that does not gate this run (a
    // STRICT rule under the default gate, or a PROFILE): `op` was accepted
    // although the rule rejects it, or rejected but may have acted before it
    // failed. Rather than judge what only that rule forbids, the model widens
    // what it allows to every effect such a call may have had: its payload in
    // flight to a destination in the window (any value when its source is not
    // in the window), and, if accepted, a notify on its index (every index of
    // the channel when the index is out of range) that may or may not come, so
    // waits on it may complete or time out and order nothing.
    void tolerate(const Op &op, bool accepted);

    // A call rejected, as the rule of `clause` requires, that may still have
    // written before it failed (a library that splits a write): its payload is
    // in flight, but a byte only it explains breaks `clause`'s promise of no
    // effect (WWN.IDX.3 for an index, the rule's own clause otherwise), so the
    // write is blamed on that clause rather than on the memory's.
    void rejected(const Op &op, const std::string &clause);

    // The bytes a Stamp op writes (window offsets op.dst_off.., op.len bytes).
    std::vector<uint8_t> stamp_bytes(const Op &op) const;
    // The initial content of rank's region (stamp id 0 everywhere).
    std::vector<uint8_t> initial_region(uint32_t rank) const;

    // Allowed values of one byte (region offset), for diagnostics and tests.
    std::vector<uint8_t> allowed(uint32_t rank, uint32_t region_off) const;

    uint64_t ops_issued() const { return ops_.size(); }

  private:
    struct Pending {
        uint32_t op; // index into ops_
        uint8_t value;
    };
    struct Cell {
        std::vector<uint8_t> committed; // usually one value; several when the order is unknown
        uint64_t committed_seq = 0;     // issue order of the newest op behind `committed`
        std::vector<Pending> pending;   // writes in flight to this byte
        bool any = false;               // a tolerated call may still write anything here
    };
    struct OpInfo {
        std::string text;
        uint32_t from = 0, to = 0; // channel (sender -> receiver)
        uint64_t seq = 0;          // global issue order
        std::string forbidden_by;  // a rejected call: the clause its writes break
    };
    struct Record {
        uint32_t op;        // the WWN or Record
        bool carries_data;  // WWN
        uint64_t fence_seq; // ops on the channel with seq < fence_seq are ordered before it
    };
    struct NotifyState {
        uint32_t lo = 0, hi = 0; // bounds on how many waits can still complete
        std::deque<Record> records;
        bool tainted = false; // a tolerated call may have raised or consumed it: waits judge nothing
    };

    Cell &cell(uint32_t rank, uint32_t region_off) { return mem_[rank][region_off]; }
    const Cell &cell(uint32_t rank, uint32_t region_off) const { return mem_[rank][region_off]; }
    NotifyState &notify(uint32_t rank, uint32_t peer, uint32_t idx);
    const NotifyState &notify(uint32_t rank, uint32_t peer, uint32_t idx) const;
    uint32_t new_op(const Op &op, uint32_t from, uint32_t to);
    // A WWN's or Record's notify towards op.peer, ordered after the channel's last fence.
    void add_record(const Op &op, uint32_t id, bool carries_data);
    // Op `id` moves len bytes (region offsets): each destination byte may now
    // also hold any value its source byte may hold.
    void put_in_flight(uint32_t id, uint32_t src_rank, uint32_t src_off, uint32_t dst_rank, uint32_t dst_off,
                       uint32_t len);
    std::vector<uint8_t> allowed_of(const Cell &c) const;
    // Why `value` may be in `c`: "" when a call the model accepts explains it,
    // the clause a rejected call broke when only such a call does, nullopt when nothing does.
    std::optional<std::string> blame(const Cell &c, uint8_t value) const;
    std::string describe(uint32_t rank, uint32_t region_off, uint8_t got, const Cell &c) const;
    // Marks (rank, peer, idx)'s notify tainted, or every index of the channel when idx is out of range.
    void taint(uint32_t rank, uint32_t peer, uint32_t idx);
    // A Stamp or LocalCopy: acts at once, but races with writes still in flight.
    void local_write(Cell &c, std::vector<uint8_t> values);
    // Commits what consuming `rec` (notify towards `rank`) makes visible.
    void commit(uint32_t rank, const Record &rec, std::vector<Cell> &mem) const;

    Geometry geo_;
    NotifyProfile profile_;
    std::vector<std::vector<Cell>> mem_; // [rank][region byte]
    std::vector<NotifyState> notifies_;  // [(rank * ranks + peer) * notifyNum + idx]
    std::vector<uint64_t> last_fence_;   // [from * ranks + to]: seq of the last fence on that channel
    std::vector<OpInfo> ops_;
    uint64_t seq_ = 1;
};

} // namespace hcts::prop
