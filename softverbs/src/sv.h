// softverbs internals: the objects behind the public verbs handles and the one
// process-wide state they live in. Every field below is guarded by Global::mu
// unless its comment says otherwise; functions named *_locked expect it held.
#pragma once

#include <infiniband/verbs.h>

#include "byte_queue.h"
#include "shm_ring.h"
#include "wire.h"

#include <netinet/in.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

// rdma-core declares these in its provider header (driver.h), not in verbs.h.
extern "C" const char *ibv_get_sysfs_path(void);
extern "C" int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);

namespace sv {

using Clock = std::chrono::steady_clock;

// Ring: as Shm between processes of one host, but every payload travels through the
// shared-memory rings (no mapping, no process_vm_*), the route a peer takes where the
// kernel refuses cross-process memory access; it exercises the rings' payload path.
enum class Transport { Auto, Shm, Cma, Tcp, Ring };

struct Config {
    uint64_t seed = 0; // 0: sane mode
    Transport transport = Transport::Auto;
    std::string listen = "127.0.0.1";
    std::string secret;
    // Where `secret` comes from, for the messages of a refused connection: "SOFTVERBS_SECRET",
    // "the per-user secret file PATH", or a random one of this process and why no file.
    std::string secret_from;
    std::string secret_file; // the per-user secret file (used or not; empty: none)
    long fail_qp_at = 0;     // SOFTVERBS_FAIL=qp:<n>: n-th WQE of each QP fails (1-based)
    std::string fail_thread; // SOFTVERBS_FAIL=thread:<name>: that thread's body throws at its start
    int log = 0;
};
const Config &config();
void log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Device limits we advertise and enforce.
inline constexpr int kMaxQpWr = 16384;
inline constexpr int kMaxSge = 16;
inline constexpr int kMaxCqe = 1 << 20;
inline constexpr uint32_t kMaxMsg = kMaxFramePayload; // one message, one frame
// Registration pins nothing, so an MR may span any user mapping (x86-64: 47-bit space).
inline constexpr uint64_t kMaxMrSize = uint64_t{1} << 47;
inline constexpr uint32_t kMaxInline = 256;
inline constexpr int kMaxMr = 8192;
inline constexpr int kMaxQpSlots = 4096; // QPs published to same-host peers (more: wire only)
// An lkey/rkey is generation << kMrIndexBits | index. The generation of an index never
// repeats within a process: an index whose generations are used up is retired.
inline constexpr int kMrIndexBits = 13;
static_assert(kMaxMr == 1 << kMrIndexBits);
inline constexpr uint32_t kMrMaxGen = (1u << (32 - kMrIndexBits)) - 1;

// ---- memory regions: published in a memfd that same-host peers map read-only ----
struct MrEntry {
    std::atomic<uint32_t> key; // 0 = free; written last on register, first on deregister
    uint32_t access;
    uint32_t pd; // protection domain handle (unique within the process)
    uint32_t reserved;
    uint64_t addr, len;
    uint64_t vma_start, vma_end, vma_off, vma_ino; // vma_ino 0: not shareable (CMA only)
};
// Same-host peers placing data into (or reading) an MR right now; they map the table
// read-write for this. ibv_dereg_mr clears the entry's key, then waits for the count to
// drain, so no byte lands after it returns. Kept apart from the entries, 128 bytes each (the
// pair of lines the L2 prefetcher fetches together): a requester counts itself in and out at
// every direct WRITE, and inside the entry that took the line away from the owner, which
// reads its own entry at each of its posts (hcts-bench's ping-pongs share one MR).
struct alignas(128) MrInflight {
    std::atomic<uint32_t> n;
};
// A QP as same-host requesters must see it before placing data directly: its PD, its
// access flags and the peer it is connected to (what the responder would check).
struct QpEntry {
    std::atomic<uint32_t> qpn; // 0 = free
    std::atomic<uint32_t> pd;
    std::atomic<uint32_t> access;        // qp_access_flags; 0 until set, also in RESET/ERR
    std::atomic<uint32_t> peer_qpn;      // dest_qp_num from RTR on; 0 otherwise
    std::atomic<uint32_t> peer_portsalt; // dest port << 16 | dest salt (salt 0: any)
    // RECVs posted and not yet consumed, as far as a requester may count on them (its
    // credits): 0 while not connected, for an SRQ's QP and for an adversarial one.
    std::atomic<uint32_t> recvs;
    uint32_t pad[2];
};
struct MrTable {
    uint64_t magic;
    uint32_t pid;
    uint32_t nentries;
    uint64_t cookie; // random per process: a reused pid is not the same peer
    // The process's doorbell: same-host peers bump it (and FUTEX_WAKE it when the
    // process's shm waiter sleeps) after putting frames into a ring it consumes.
    alignas(64) std::atomic<uint32_t> doorbell;
    std::atomic<uint32_t> sleepers;
    std::atomic<uint64_t> waiter_until; // CLOCK_MONOTONIC ns: the sleeping waiter wakes by itself by then
    // A thread of ours polls a CQ and will come back to the rings before this time (ns):
    // a producer then need not wake the waiter, if that wakes by itself by then anyway.
    alignas(64) std::atomic<uint64_t> poll_lease;
    alignas(64) MrEntry e[kMaxMr];
    QpEntry q[kMaxQpSlots];
    MrInflight inflight[kMaxMr];
};
static_assert(sizeof(MrEntry) == 64);
inline constexpr uint64_t kMrMagic =
    0x34544d5256534fULL; // changes with the layout: peers of another layout are refused

struct Mr {
    ibv_mr mr{};
    uint32_t index = 0;
};

// A validated view of one MR (local or a peer's copy).
struct MrView {
    uint32_t access = 0;
    uint32_t pd = 0;
    uint64_t addr = 0, len = 0;
    uint64_t vma_start = 0, vma_end = 0, vma_off = 0, vma_ino = 0;
};
bool mr_lookup(const MrTable *t, uint32_t key, MrView *out);
MrTable *local_mr_table();
// Checks [addr, addr+len) inside the MR and the access bits; returns 0 or an ibv_wc_status.
int mr_check(const MrView &v, uint64_t addr, uint64_t len, uint32_t need);

// ---- completion queues and channels ----
struct Qp;
struct Cqe {
    ibv_wc wc{};
    Qp *qp = nullptr;
    uint32_t sq_free = 0; // send-queue slots this completion releases when polled
};
struct Channel {
    ibv_comp_channel ch{};
    int efd = -1;
    std::deque<struct Cq *> events;
};
struct Cq {
    ibv_cq_ex cqx{}; // ibv_cq is its prefix
    int capacity = 0;
    std::deque<Cqe> q;
    std::atomic<size_t> count{0}; // q.size(), readable without the lock by pollers
    bool armed = false, solicited_only = false;
    bool overflowed = false;
    Cqe cur{}; // ibv_cq_ex iteration state
    uint64_t wc_flags_ex = 0;
};
Cq *to_cq(ibv_cq *cq);
// Appends a completion; arms the channel; false on overflow (CQ error raised).
void cq_push_locked(Cq *cq, const Cqe &e);

// ---- queue pairs ----
struct Wqe {
    uint64_t wr_id = 0;
    uint64_t seq = 0;
    ibv_wr_opcode op = IBV_WR_SEND;
    unsigned flags = 0;
    std::vector<ibv_sge> sge;
    std::vector<uint8_t> inline_data; // IBV_SEND_INLINE: copied at post time
    bool is_inline = false;
    uint64_t raddr = 0;
    uint32_t rkey = 0;
    uint32_t imm = 0;
    uint64_t compare_add = 0, swap = 0;
    uint32_t length = 0;
    // progress
    bool executed = false; // handed to the wire / placed
    bool done = false;
    int parts = 0; // replies still expected
    ibv_wc_status status = IBV_WC_SUCCESS;
    bool inject_fail = false;
};

struct RecvWqe {
    uint64_t wr_id = 0;
    std::vector<ibv_sge> sge;
    Clock::time_point visible{}; // adversary: the HCA sees this RECV only from then on
};

struct Conn;
struct Responder;
struct PeerProc;
struct Srq;

struct Qp {
    ibv_qp_ex qpx{};
    struct Context *ctx = nullptr;
    Cq *scq = nullptr;
    Cq *rcq = nullptr;
    ibv_qp_cap cap{};
    int sq_sig_all = 0;
    ibv_qp_attr attr{};   // what ibv_query_qp reports
    uint32_t sq_used = 0; // slots not yet released by polled completions
    uint32_t unsignaled_run = 0;
    uint64_t next_seq = 1;
    long posted = 0; // for SOFTVERBS_FAIL
    // A WQE failed but has not reached the head of the SQ yet (the QP enters ERR only
    // when it completes): every WQE behind it flushes without executing, as on RC.
    bool sq_failed = false;
    // A WQE the peer stopped answering (IBV_WC_RETRY_EXC_ERR) completes only once a NIC
    // would have given up retrying (retry_give_up_locked); unset until the first one waits.
    std::optional<Clock::time_point> retry_expiry;
    // RC ordering behind receiver-not-ready: a SEND/WRITE_WITH_IMM handed to a responder
    // that may be holding it (no RECV yet) stops later WQEs from executing, since a direct
    // route would otherwise place their data first. 0: nothing held.
    uint64_t hold_seq = 0;
    uint64_t exec_seq = 1;  // sane mode: the next WQE to execute (seqs in sq are consecutive)
    bool pumping = false;   // sq_pump_locked is on the stack (replies can re-enter it)
    std::deque<Wqe> sq;     // posted, not yet completed
    std::deque<RecvWqe> rq; // unused when srq is set: RECVs come from the SRQ
    Srq *srq = nullptr;     // ibv_qp_init_attr.srq
    // where requests go: the peer QP in this process, or a connection
    uint32_t dest_ip = 0; // decoded at RTR (network order)
    uint16_t dest_port = 0, dest_salt = 0;
    Qp *local_peer = nullptr;
    Responder *local_resp = nullptr; // the peer's stream for our requests (in-process)
    std::shared_ptr<Conn> conn;
    bool connecting = false;
    std::shared_ptr<PeerProc> peer; // same-host peer for direct placement (may be null)
    uint32_t peer_slot = 0;         // the destination QP's entry in peer->table->q (0: none, wire only)
    uint32_t slot = 0;              // this QP's entry in our published table (0: none)
    std::string secret;             // presented to and required from the peer (job secret or set per QP)
    bool own_secret = false;        // `secret` was set by softverbs_set_qp_secret
    std::vector<std::unique_ptr<Responder>> responders; // incoming streams targeting this QP
    // adversary state: WRITEs issued but not yet fully placed, READs not yet run
    struct Pending {
        uint64_t seq = 0;
        bool is_read = false;
        std::vector<std::pair<uint32_t, uint32_t>> chunks; // (offset, length), commit order
        Clock::time_point due{};
    };
    std::deque<Pending> pend;
    std::mt19937_64 rng;
    Clock::time_point next_exec{};
    double skew = 1.0;
    bool adv = false; // adversarial: decided at creation from the seed
    // ibv_qp_ex batching
    std::vector<Wqe> batch;
    int batch_err = 0;
    bool dead = false; // destroyed: in-flight replies ignored
    // UD (ud.cpp): datagrams this QP dropped on arrival, by reason (softverbs_ud_drops)
    uint64_t ud_drop_qkey = 0, ud_drop_norecv = 0;
    uint64_t ud_seed = 0; // the adversary's seed when the QP was created (0: sane)
};
Qp *to_qp(ibv_qp *qp);
Qp *find_qp_locked(uint32_t qpn);
void qp_to_error_locked(Qp *qp, ibv_event_type ev);
void flush_recvs_locked(Qp *qp); // every posted RECV completes with IBV_WC_WR_FLUSH_ERR, in order
void sq_advance_locked(Qp *qp);  // generate in-order send completions
// Completes the RETRY_EXC_ERR WQEs whose retry time is over; returns the nearest such time.
Clock::time_point retry_timers_locked();
void retry_give_up_locked(Qp *qp); // the QP is flushed: a waiting RETRY_EXC_ERR completes now
void rq_changed_locked(Qp *qp);    // a RECV was posted or the state changed
void post_async_locked(struct Context *ctx, const ibv_async_event &ev);

// ---- shared receive queues (srq.cpp) ----
struct Srq {
    ibv_srq srq{};
    uint32_t max_wr = 0, max_sge = 0;
    uint32_t limit = 0; // armed srq_limit (0: not armed); disarmed when the event fires
    std::deque<RecvWqe> rq;
    std::vector<Qp *> qps; // QPs taking their RECVs from here (ibv_destroy_srq: EBUSY)
    bool adv = false;      // adversarial: some RECVs become visible late, as on a QP
    std::mt19937_64 rng;
};
Srq *to_srq(ibv_srq *srq);
ibv_srq *create_srq_ex(ibv_context *ctx, ibv_srq_init_attr_ex *a);
void fill_srq_ops(ibv_context_ops *ops);
void srq_detach_locked(Qp *qp); // the QP is destroyed
// The QP entered ERR: IBV_EVENT_QP_LAST_WQE_REACHED if it is attached to an SRQ.
void srq_qp_error_locked(Qp *qp);
// The responder's one decision of which RECV an incoming SEND/WRITE_WITH_IMM consumes:
// the head of the QP's RQ or of its SRQ (shared by RC, UC and UD). Returns it, or null
// when none is visible now; then *later is when a posted one becomes visible (adversary),
// or Clock::time_point::max() when none is posted at all.
RecvWqe *next_recv_locked(Qp *qp, Clock::time_point now, Clock::time_point *later);
// Consumes the RECV next_recv_locked just returned (same lock hold); for an SRQ this may
// raise IBV_EVENT_SRQ_LIMIT_REACHED.
RecvWqe consume_recv_locked(Qp *qp);

// ---- contexts ----
uint32_t fork_generation(); // see fork.cpp below
struct Context {
    verbs_context vctx{};                  // ibv_context is its last member
    uint32_t fork_gen = fork_generation(); // the process that opened it (fork_inherited)
    int async_efd = -1;
    std::deque<ibv_async_event> async_q;
};
Context *to_ctx(ibv_context *c);
void fill_context_ops(Context *c);

// A stream of requests arriving at one responder QP, processed strictly in order.
struct Responder {
    Qp *qp = nullptr;              // null once the QP is destroyed
    std::shared_ptr<Conn> conn;    // replies go here, or:
    Qp *local_requester = nullptr; // in-process requester
    uint32_t src_qpn = 0;
    // The requester's identity as claimed at the handshake; requests run only once
    // the QP is connected (RTR) to exactly this peer (verified).
    uint32_t src_ip = 0;
    uint16_t src_port = 0, src_salt = 0;
    bool verified = false;
    uint8_t rnr_retry = 7;
    struct Req {
        Frame f;
        std::vector<uint8_t> payload;
    };
    std::deque<Req> pending;
    size_t pending_bytes = 0; // payload bytes held in pending (a connection pauses above kOutHigh)
    Clock::time_point rnr_deadline{};
    bool rnr_waiting = false;
    Clock::time_point recheck = Clock::time_point::max(); // a delayed RECV becomes visible
    bool broken = false;
};
void responder_push_locked(Responder *r, Frame f, std::vector<uint8_t> payload);
// As responder_push_locked, copying the payload only if the request has to wait.
void responder_deliver_locked(Responder *r, const Frame &f, const uint8_t *payload, size_t len);
void responder_run_locked(Responder *r);
// false: the reply is inconsistent with what was asked (the connection must close).
bool requester_reply_locked(Qp *qp, const Frame &f, const uint8_t *payload);
// Whether qp is connected (RTR or later) to the peer r claims to be.
bool responder_peer_ok_locked(const Qp *qp, const Responder *r);
uint32_t pd_handle(const ibv_pd *pd);
void qp_publish_locked(Qp *qp); // refreshes qp's entry in the published table
// The RECVs a requester may count on (QpEntry::recvs), for the table and in-process peers.
uint32_t qp_recv_credits_locked(const Qp *qp);
void qp_publish_recvs_locked(Qp *qp); // refreshes only QpEntry::recvs (after the RQ changed)

// ---- same-host peers: their MR table and mapped shareable memory ----
struct PeerProc {
    int pid = 0;
    const MrTable *table = nullptr;
    std::map<std::tuple<uint64_t, uint64_t, uint64_t, uint64_t>, uint8_t *> maps;
    bool allow_map = true;
    ~PeerProc();
};
// Maps a same-host peer's memfd (/proc/<pid>/fd/<fd>) read-write and shared, only if it is
// exactly `bytes` long: one of another size (another layout, or a hostile fd) would fault
// past its end. null, logged with `what`, when it cannot be opened or has the wrong size.
void *map_peer_fd(int pid, int fd, size_t bytes, const char *what);
// Direct placement into a same-host peer: 0, or an ibv_wc_status on failure.
int peer_write_locked(PeerProc *p, const MrView &v, uint64_t raddr, const void *src, size_t len);
int peer_read_locked(PeerProc *p, const MrView &v, uint64_t raddr, void *dst, size_t len);

// ---- transport: listener, progress thread, connections ----
struct Conn {
    int fd = -1;
    bool outbound = false;
    Qp *qp = nullptr;               // requester QP (outbound)
    Responder *responder = nullptr; // inbound
    ByteQueue out;                  // bytes not yet written
    Clock::time_point out_emptied;  // when `out`, grown past what is kept, last went empty
    bool out_armed = false;         // EPOLLOUT requested (spares an epoll_ctl per send)
    ByteQueue in;                   // received bytes not yet handled (at most a partial frame)
    bool paused = false;            // not reading: our replies to this peer are piling up (see kOutHigh)
    bool closed = false;
    // Same host: frames go through this shared-memory ring instead of the socket, which
    // then only tells that the peer is alive. An inbound connection answers through it
    // once the requester has used it.
    std::unique_ptr<ShmRing> ring;
    std::shared_ptr<PeerProc> peer; // whose doorbell to ring after producing
    ~Conn();
};
bool transport_start(); // false (errno set, said on stderr) when the device cannot start
void transport_kick();  // wakes the progress thread to re-check timers
// Same-host rings: whether frames may be waiting for us (cheap, no lock), and consuming them.
bool shm_work_hint();
// A spinning CQ poller reads the TCP-only connections that have input (one epoll_wait with a
// zero timeout), so a frame need not wait for the progress thread to wake.
void tcp_progress();
void tcp_progress_locked();
void shm_progress_locked();
// A thread spins on a CQ: it consumes the shm rings and reads the TCP-only sockets itself
// until the lease runs out (kPollLeaseNs) or it drops the lease to sleep on a channel.
void poller_lease_renew();
void poller_lease_drop_locked();
// A spinning poller that posts between its polls keeps its lease: a program streaming large
// writes spends most of its time in ibv_post_send, copying. Called without the lock held.
void poller_posted();
void conn_send_locked(const std::shared_ptr<Conn> &c, const Frame &f, const void *payload, size_t len);
// Connects qp to its RTR destination; called without the lock held.
void qp_connect(Qp *qp, uint32_t ip, uint16_t port, uint32_t dest_qpn);

// ---- identity ----
struct Identity {
    uint32_t ip = 0;   // network order
    uint16_t port = 0; // host order
    uint16_t salt = 0;
};
const Identity &identity();
uint32_t listen_ip();
// bind() the listener to a->sin_addr: the kernel's port choice, or one above the
// ephemeral range when that is exhausted (listen_port.cpp). 0, or -1 with errno.
int bind_listener(int fd, sockaddr_in *a);
int local_mr_table_fd();
void make_gid(ibv_gid *gid);
bool decode_gid(const ibv_gid &gid, uint32_t *ip, uint16_t *port, uint16_t *salt);

// ---- the process-wide state ----
struct Global {
    std::mutex mu;
    std::unordered_map<uint32_t, Qp *> qps;
    uint32_t next_qpn = 0x11;
    std::vector<Mr *> mrs; // by index
    std::vector<uint32_t> mr_free;
    uint32_t mr_gen[kMaxMr] = {};
    std::vector<uint32_t> qp_slot_free; // published QP entries free for reuse
    uint32_t qp_slot_next = 1;          // entry 0 is never used
    std::map<int, std::shared_ptr<PeerProc>> peers;
    // In a forked child: the parent's state as it was at the fork (its mu stays held).
    // Its QPs, MRs, connections and rings are the parent's; nothing here uses them again.
    Global *inherited = nullptr;
};
Global &G();

// ---- the C ABI: no exception leaves an exported function (fork.cpp) ----
// In a catch block: says on stderr which call failed and why, and returns the errno the
// exception stands for: ENOMEM (std::bad_alloc), EAGAIN (std::system_error: the system
// refused a thread or other resource), EIO (anything else).
int exception_errno(const char *api) noexcept;
// Runs the body of one of softverbs' own threads (progress, ring, adversary, ud). An
// exception out of it ends that thread, not the process (std::terminate): it is said once
// on stderr, every QP goes to the error state (posted WQEs flush, IBV_EVENT_QP_FATAL), and
// later QPs are refused with EIO, since the device can no longer carry their traffic.
// SOFTVERBS_FAIL=thread:<name> makes the named thread's body throw as it starts (tests).
void run_thread(const char *name, void (*body)()) noexcept;
// The thread that died, or nullptr while every started one runs.
const char *dead_thread() noexcept;
// The ways verbs calls report a failure: the errno value itself (guard_rc), -1 with errno
// set (guard_minus1), null with errno set (guard_null).
template <typename Body>
int guard_rc(const char *api, Body &&body) noexcept
{
    try {
        return body();
    } catch (...) {
        return errno = exception_errno(api);
    }
}
template <typename Body>
auto guard_minus1(const char *api, Body &&body) noexcept -> decltype(body())
{
    try {
        return body();
    } catch (...) {
        errno = exception_errno(api);
        return -1;
    }
}
template <typename Body>
auto guard_null(const char *api, Body &&body) noexcept -> decltype(body())
{
    try {
        return body();
    } catch (...) {
        errno = exception_errno(api);
        return nullptr;
    }
}

// ---- fork (fork.cpp) ----
// A forked child starts afresh: its own Global, listener, progress thread, MR table and
// rings; it closes its copies of the parent's descriptors without signalling through them,
// and refuses every call on an object the parent created (fork_inherited). Each part's
// share of that, called in the child with the parent's G().mu held across the fork:
void global_after_fork_in_child();
void transport_after_fork_in_child();
void mr_after_fork_in_child();
void ud_after_fork_in_child();
void adversary_after_fork_in_child();
// The process's fork generation: 0 in a process that was not forked since the library was
// loaded, incremented in each forked child. Contexts record it when opened.
uint32_t fork_generation();
// Whether ctx was opened by the process this one was forked from (its objects are the
// parent's: a child may not use, destroy or signal them); sets errno to EPERM if so.
bool fork_inherited(const ibv_context *ctx);

// ---- adversary ----
bool adversarial();
uint64_t current_seed();
void execute_locked(Qp *qp, Wqe &w); // runs one WQE now (sane mode path)
// The requester's steps the adversary runs in its own order.
Wqe *find_wqe(Qp *qp, uint64_t seq);
void finish(Wqe &w, ibv_wc_status st); // marks w done with st, unless it already failed
// Marks w executed and fails it if it cannot run at all (injected failure, too
// long), in either mode; false when it failed.
bool start_execution(Wqe &w);
int place_locked(Qp *qp, Wqe &w, uint32_t off, uint32_t len);
void issue_tail_locked(Qp *qp, Wqe &w);
// After a WQE with sequence number seq ran: notes whether it failed (later WQEs then flush).
void note_failure_locked(Qp *qp, uint64_t seq);
// The start of a WQE every QP type shares: wr's id, a sequence number, opcode, flags,
// immediate and SGEs; inline data copied now (the caller may reuse its buffer once
// ibv_post_send returns). `total` gets the bytes the SGEs name. The caller has
// validated wr (SGE count, inline size).
Wqe wqe_from_wr_locked(Qp *qp, const ibv_send_wr *wr, uint64_t *total);
bool sq_flushing_locked(const Qp *qp); // later WQEs must flush instead of executing
// Posts a chain of send WRs the way every QP type does: refused as a whole unless
// the QP is in RTS or ERR; then each WR is checked by `validate` and against the SQ's
// room, started (wqe_from_wr_locked), counted, and handed to `enqueue(Wqe, wr, total)`,
// which completes it for its QP type. The first WR refused is *bad, with its code;
// those before it stay posted.
template <typename Validate, typename Enqueue>
int post_chain_locked(Qp *qp, ibv_send_wr *wr, ibv_send_wr **bad, Validate validate, Enqueue enqueue)
{
    if (ibv_qp_state st = qp->qpx.qp_base.state; st != IBV_QPS_RTS && st != IBV_QPS_ERR) {
        *bad = wr;
        return EINVAL;
    }
    for (; wr; wr = wr->next) {
        int rc = validate(qp, wr);
        if (rc == 0 && qp->sq_used >= qp->cap.max_send_wr)
            rc = ENOMEM;
        if (rc != 0) {
            *bad = wr;
            return rc;
        }
        uint64_t total = 0;
        Wqe w = wqe_from_wr_locked(qp, wr, &total);
        ++qp->sq_used;
        ++qp->posted;
        w.inject_fail = config().fail_qp_at && qp->posted == config().fail_qp_at;
        enqueue(std::move(w), wr, total);
    }
    return 0;
}
// Whether a held SEND/WRITE_WITH_IMM still blocks later WQEs (clears a released hold).
bool sq_held_locked(Qp *qp);
// After executing WQE seq of opcode op: holds later WQEs if it may be waiting for a RECV.
void sq_note_hold_locked(Qp *qp, uint64_t seq, ibv_wr_opcode op);
void adversary_schedule_locked(Qp *qp);
// Whether max_rd_atomic READs/atomics are already issued and unanswered (a new one waits).
bool rd_atomic_full_locked(const Qp *qp);
Clock::time_point adversary_recv_delay_locked(Qp *qp); // when a new RECV becomes visible

} // namespace sv
