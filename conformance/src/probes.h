// Negative observations with positive evidence: "this wait does not complete"
// and "no notify is set" count only when the probe itself worked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "case.h"
#include "device.h"
#include "hcts/core/stamp.h"

namespace hcts {

// The vendor's initial default wait timeout (api §7.3), in its unit.
constexpr float kInitialDefaultWaitTimeout = 1836.0F;

// Sets the default wait timeout back to kInitialDefaultWaitTimeout, so later cases
// see the library as they found it; a refusal is ERROR under `clause`.
void restore_default_wait_timeout(const Ctx &c, const std::string &clause);

// A region of a receiver's inbox lane that calls must leave untouched.
struct Untouched {
    uint64_t off;
    uint64_t len;
};

// A wait that must not complete: `receiver` waits on `idx` of `channel` with the
// short timeout, on a fresh thread (a wait that times out leaves its thread in
// the error state). Collective: every rank calls it.
enum class WaitEnd { Completed, TimedOut, Unknown };
struct WaitOutcome {
    WaitEnd end = WaitEnd::Unknown;
    std::string detail;
};
WaitOutcome wait_expecting_timeout(const Ctx &ctx, int receiver, ChannelHandle channel, uint32_t idx);
// Pure: classifies one such wait. TimedOut only for HCCL_E_TIMEOUT after at least
// the timeout; Completed when the wait returned 0 and its program finished
// cleanly; anything else (no thread, a refused wait, a failed launch, an early
// end) is Unknown: no evidence either way.
WaitOutcome classify_wait(bool have_thread, int32_t wait_rc, const LaunchResult &r, double timeout_ms);
// Records the outcome under `clause`: Completed fails it, TimedOut holds, Unknown is ERROR.
void judge_no_completion(const WaitOutcome &o, const std::string &clause, const std::string &what, Evidence &ev);

// After `sender`'s calls on its channel to `receiver`, none of the notifies in
// `quiet` is set at the receiver. By the adapter's peek when it has one; else by
// a marker write with notify on each index, raced against a wait posted before
// the marker is sent: the wait must complete only with the marker's data (a
// notify already set would complete it at once, before the marker arrived). No
// wait times out, so no thread is spent. Collective. Returns, on the receiver,
// how many of them were shown to be set (0 elsewhere).
size_t check_quiet(const Ctx &ctx, int sender, int receiver, ChannelHandle send_ch, ChannelHandle recv_ch,
                   const std::vector<uint32_t> &quiet, const std::string &clause);

// After calls that must have had no effect, proves it: the sender issues a valid
// write with notify on `probe_idx` (same thread and channel, so it lands after
// anything the rejected calls might have sent), the receiver waits for it, then
// checks that `untouched` regions of its inbox lane still hold poison and that no
// notify in `quiet` is set. Collective; results under `clause`.
// Before calls whose lack of effect is judged: `receiver` poisons `regions` of
// its inbox lane for `sender`, and `sender` stamps the first `src_len` bytes of
// its outbox with `key` (a source the calls may read). Collective.
void prepare_targets(const Ctx &ctx, int sender, int receiver, const std::vector<Untouched> &regions, uint64_t src_len,
                     const StampKey &key);

// One write with notify of len 0 from rank 0 to rank 1 on notify `idx`, with
// the bytes around dst poisoned: what it did, as rank 1 sees it: "rejected",
// "notify-only", "success-no-notify" or "bytes-written"; "" when that could not
// be told (the detail says why). Collective.
struct ZeroLength {
    std::string outcome;
    std::string detail;
};
ZeroLength zero_length_write(const Ctx &ctx, uint32_t idx);

// Returns what check_quiet returned.
size_t prove_no_effect(const Ctx &ctx, int sender, int receiver, ChannelHandle send_ch, ChannelHandle recv_ch,
                       uint32_t probe_idx, const std::vector<Untouched> &untouched, const std::vector<uint32_t> &quiet,
                       const std::string &clause);

} // namespace hcts
