// What cases share: the transfer engine (stamped writes with notify, waits,
// device-stream snapshots, guard zones), support decisions, no-effect probes
// and litmus histograms. Every rank builds the same plan from the same inputs;
// each rank then checks the data it owns.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "case.h"
#include "stamp.h"
#include "world.h"

namespace hcts {

struct Xfer {
    int sender = 0;
    int receiver = 1;
    uint64_t dst_off = 0;   // inside the receiver's inbox lane for `sender`
    uint64_t src_off = 0;   // inside the sender's outbox
    uint64_t len = 64;
    uint32_t idx = 0;
    int thread = 0;         // sender's thread (World::threads index)
    ChannelHandle send_ch = 0; // 0: the default channel to the receiver
    ChannelHandle recv_ch = 0; // 0: the default channel to the sender
    StampKey key{};
    bool poison_dst = true; // false keeps what dst held (stale checks)
    bool wait = true;       // the receiver waits for it
    bool snapshot = true;   // the receiver copies dst on its stream right after the wait
};

struct XferResult {
    int32_t wwn_rc = 0;  // sender's view
    int32_t wait_rc = 0; // receiver's view
    int32_t copy_rc = 0;
    bool have_snapshot = false;
    PayloadCheck host;     // receiver: host read after the program completed
    PayloadCheck snap;     // receiver: device-stream copy right after the wait
    size_t guard_bad = 0;  // receiver: changed guard bytes
    size_t src_bad = 0;    // sender: changed source bytes
    std::string guard_detail;
};

struct Exchange {
    LaunchResult launch;
    std::vector<XferResult> x;
    bool launch_ok() const { return launch.ok(); }
};

// Runs the plan: receivers poison destinations and guards, senders stamp their
// sources, all launch at once (senders on their threads, receivers waiting on
// thread 1), then each rank reads back what it owns.
Exchange run_exchange(const std::vector<Xfer> &plan);

// The standard checks on a finished exchange, each under its clause (empty: skip).
// `at_wait` judges what the receiver's own stream read right after the wait (the
// visibility promise); `visible` judges return codes, completion and the final
// data once every rank's program completed, so a late payload fails only `at_wait`.
struct StdClauses {
    std::string at_wait = "WWN.VIS.1";
    std::string visible = "WWN.VIS.1";
    std::string guards = "WWN.NTF.5";
    std::string source = "WWN.NTF.6";
};
void check_exchange(const std::vector<Xfer> &plan, const Exchange &ex, const StdClauses &cl);

// Skips the case (NOT_SUPPORTED) unless the IUT exports `symbols` and the product
// supports write with notify; decided identically on every rank.
bool wwn_usable(std::string &why);
#define HCTS_REQUIRE_WWN()                                                                                             \
    do {                                                                                                               \
        std::string hcts_why_;                                                                                         \
        if (!::hcts::wwn_usable(hcts_why_))                                                                            \
            HCTS_NOT_SUPPORTED(hcts_why_);                                                                             \
    } while (0)
bool product_has_wwn(const std::string &product);

// After calls that must have had no effect, proves it: the sender issues a good
// write with notify on `probe_idx` of `channel` (same thread, so it lands after
// anything the bad calls might have sent), the receiver waits for it, then checks
// that `untouched` regions of its inbox lane still hold poison and that no notify
// in `quiet` is set. Failures go to `clause`.
struct Untouched {
    uint64_t off;
    uint64_t len;
};
void prove_no_effect(int sender, int receiver, ChannelHandle send_ch, ChannelHandle recv_ch, uint32_t probe_idx,
                     const std::vector<Untouched> &untouched, const std::vector<uint32_t> &quiet,
                     const std::string &clause);

// Whether notify `idx` of `channel` is set on this rank: the adapter's peek when
// it has one, else a short wait on a fresh thread (which consumes it).
bool notify_is_set(ChannelHandle channel, uint32_t idx, std::string &how);

// Histogram entry of a litmus test (schema: litmus[]).
nlohmann::json litmus_entry(const std::string &id, const std::string &shape, const std::string &case_name,
                            const std::map<std::string, uint64_t> &outcomes, const std::vector<std::string> &forbidden);

std::string hex(uint64_t v);

} // namespace hcts
