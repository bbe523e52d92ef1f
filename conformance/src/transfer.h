// Stamped transfers: a plan of writes with notify, run by every rank at once
// (senders on their threads, receivers waiting and snapshotting on their own
// stream), then each rank reads back and judges what it owns.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "case.h"
#include "device.h"
#include "hcts/core/stamp.h"

namespace hcts {

struct Xfer {
    int sender = 0;
    int receiver = 1;
    uint64_t dst_off = 0; // inside the receiver's inbox lane for `sender`
    uint64_t src_off = 0; // inside the sender's outbox
    uint64_t len = 64;
    uint32_t idx = 0;
    int thread = 0;            // sender's thread (World::threads index)
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
    std::string no_snapshot; // why there is no snapshot when one was asked for
    PayloadCheck host;       // receiver: host read after the program completed
    PayloadCheck snap;       // receiver: device-stream copy right after the wait
    size_t guard_bad = 0;    // receiver: changed guard bytes
    size_t src_bad = 0;      // sender: changed source bytes
    std::string guard_detail;
    // The best view of dst this rank has: the snapshot when taken, else the host read.
    const PayloadCheck &seen() const { return have_snapshot ? snap : host; }
};

struct Exchange {
    LaunchResult launch;
    std::vector<XferResult> x;
};

// Runs the plan: receivers poison destinations and guards, senders stamp their
// sources, all launch at once, then each rank reads back what it owns.
Exchange run_exchange(const Ctx &ctx, const std::vector<Xfer> &plan);

// The standard checks of a finished exchange, each under its clause (empty: not
// checked here). `at_wait` judges what the receiver's stream read right after the
// wait (the visibility promise); `visible` judges return codes, completion and the
// final data once every program completed, so a late payload fails only `at_wait`.
struct StdClauses {
    std::string at_wait = "WWN.VIS.1";
    std::string visible = "WWN.VIS.1";
    std::string guards = "WWN.NTF.5";
    std::string source = "WWN.NTF.6";
};
void check_exchange(const std::vector<Xfer> &plan, const Exchange &ex, int rank, const StdClauses &cl, Evidence &ev);

// run_exchange, then check_exchange under `cl` on this rank.
Exchange exchange_checked(const Ctx &ctx, const std::vector<Xfer> &plan, const StdClauses &cl);

// Counts, on this rank, the outcome each transfer it received showed (the
// snapshot right after its wait when there is one, else the host read).
void count_seen(const std::vector<Xfer> &plan, const Exchange &ex, int rank, std::map<std::string, uint64_t> &hist);

// How a launch that should have completed went wrong, under `clause`: the IUT's
// doing fails it, the harness's is ERROR, an absent call NOT_SUPPORTED.
void judge_launch(const LaunchResult &r, const std::string &clause, const std::string &what, Evidence &ev);

// Cases with two writes in one program (one in front, a write with notify behind
// it, e.g. across a fence or in one batch): rank 0 stages payload `first` at its
// outbox and `second` kPairSlot bytes further; rank 1 poisons both inbox slots
// of its channel to rank 0 and `snap` (where it copies dst right after the wait).
inline constexpr uint64_t kPairSlot = 8192;
void stage_write_pair(const World &w, const StampKey &first, const StampKey &second, uint64_t len, std::byte *snap);

std::string hex(uint64_t v);
// "the whole payload", or how many words were new and the first bad one.
std::string describe(const PayloadCheck &c);

} // namespace hcts
