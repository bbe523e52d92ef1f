// Internal state of softverbs' rdma_cm: event channels, ids and the one CM thread.
// One process-wide mutex guards all of it; the CM thread holds it while it handles
// a socket, the API functions while they change an id.
#pragma once
#include <rdma/rdma_cma.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "wire.h"

namespace svcm {

using Clock = std::chrono::steady_clock;

// How long a peer may take for each step; the program gets an event when it runs out.
constexpr auto kReqDeadline = std::chrono::seconds(10); // accepted socket → REQ
constexpr auto kRepDeadline = std::chrono::seconds(30); // REQ sent → REP/REJ (the peer program decides)
constexpr auto kRtuDeadline = std::chrono::seconds(10); // REP sent → RTU
constexpr int kMaxPendingPerListener = 64;              // accepted sockets that have not sent a REQ yet
// A connect refused (no listener on the port yet) is tried again for this long, every
// kRefusedRetry, before REJECTED: our address and route resolve instantly, so a client can
// otherwise overtake a server that re-listens between two connections (perftest -R does).
constexpr auto kRefusedBudget = std::chrono::milliseconds(2000);
constexpr auto kRefusedRetry = std::chrono::milliseconds(20);

struct Id;

// An event as handed out: the public struct first, then the private data it points to.
struct EventBox {
    rdma_cm_event ev{};
    uint8_t private_data[kMaxPrivateData]{};
    // The id whose rdma_destroy_id waits for this event's ack once a program holds it; as in
    // rdma-core, a CONNECT_REQUEST counts against its listener.
    Id *counted = nullptr;
};

// The fd is an eventfd that is readable exactly while the queue holds an event, as the
// kernel's channel fd: poll() on it never wakes a program for an event dropped with its id.
struct Channel {
    rdma_event_channel pub{}; // first: programs read pub.fd
    std::deque<EventBox *> queue;
    bool readable = false; // the eventfd's counter is 1
    // Threads inside rdma_get_cm_event; a destroyed channel (out of Cm::live_channels) keeps
    // its fd open (and so never lets a waiting poll see a reused fd number) until the last
    // of them leaves.
    int getters = 0;
};

enum class State {
    Idle,         // created
    Bound,        // rdma_bind_addr
    AddrResolved, // rdma_resolve_addr
    RouteResolved,
    Listening,
    Connecting,   // REQ sent (or socket connecting), waiting for REP/REJ
    RespReceived, // REP arrived, the program owns the QP (rdma_establish)
    ReqWaiting,   // passive: accepted socket, waiting for the REQ
    ReqReceived,  // passive: CONNECT_REQUEST delivered, waiting for accept/reject
    RepSent,      // passive: waiting for RTU
    Connected,
    Disconnected, // DISCONNECTED delivered
    Rejected,     // REJECTED/UNREACHABLE delivered, or rdma_reject called
};

struct Id {
    rdma_cm_id pub{};    // first: programs read its fields
    uint64_t serial = 0; // epoll key: an fd number can be reused, a serial never is
    State state = State::Idle;
    int fd = -1;                       // the TCP socket: listener or the connection to the peer
    bool connect_pending = false;      // non-blocking connect() not finished
    bool retry_pending = false;        // connect refused: try again at deadline
    Clock::time_point refused_until{}; // end of the refused-connect retries
    Clock::time_point rep_deadline{};  // the REQ must be answered by then
    Id *listener = nullptr;            // passive child: the listening id (while ReqWaiting)
    int pending_children = 0;          // listener: children in ReqWaiting
    Clock::time_point deadline = Clock::time_point::max();
    std::string in;                 // bytes received, not yet a whole message
    std::string out;                // REQ waiting for a connected socket
    Msg local{};                    // what we sent (REQ/REP)
    Msg peer{};                     // what the peer sent (REQ/REP)
    bool own_cqs = false;           // rdma_create_qp made the CQs (NULL in the init attr)
    Channel *own_channel = nullptr; // a synchronous id's channel (rdma_create_id without one)
    ibv_sa_path_rec path{};         // route.path_rec points here
    int events_reported = 0;        // events counted against this id that a program took
    int events_acked = 0;           // ... and acked: rdma_destroy_id waits until they are equal
};

struct Cm {
    std::mutex mu;
    std::condition_variable acked; // an event was acked (rdma_destroy_id waits for it)
    // Channels not destroyed: a call checks its channel here before it touches it, so that
    // one destroyed under it (rping 44's CM thread) is recognised without reading freed memory.
    std::unordered_set<Channel *> live_channels;
    // Addresses of destroyed channels not reused since: a late rdma_get_cm_event on one waits
    // forever, as on the kernel's closed fd; on any other unknown pointer it fails (EINVAL).
    std::unordered_set<Channel *> destroyed_channels;
    // The ids the CM thread knows, by serial. Made with the rest, before any id exists, so
    // that rdma_destroy_id never allocates.
    std::unordered_map<uint64_t, Id *> ids;
    int epoll_fd = -1;
    int wake_fd = -1; // eventfd: an API call changed a deadline or added a socket
    uint64_t next_serial = 1;
};
Cm &cm();

// The softverbs device, opened once per process (rdma_get_devices, every id's verbs).
ibv_context *device();
ibv_pd *default_pd();
bool local_gid(ibv_gid *gid);
// True if addr (network order) belongs to softverbs0: its GID's address, loopback or any.
bool is_local_ipv4(uint32_t addr);

// A new event channel (its CM thread started), or nullptr with errno set (api.cpp).
// Throws what an allocation or the thread's start throws; nothing is left of it then.
Channel *new_channel();
// The calls that queue their event; sync.cpp waits for it on a synchronous id. They may
// throw as new_channel does, leaving the id as it was.
int resolve_addr_async(rdma_cm_id *id, sockaddr *src_addr, sockaddr *dst_addr);
int resolve_route_async(rdma_cm_id *id);
int connect_async(rdma_cm_id *id, rdma_conn_param *conn_param);
int accept_async(rdma_cm_id *id, rdma_conn_param *conn_param);

// Engine (engine.cpp); all *_locked functions need cm().mu held.
// The CM thread, started once: false with errno set if its descriptors cannot be made;
// throws std::system_error if the thread is refused (a later call tries again).
bool start_engine();
// Makes the id known to the CM thread; its one allocation, so a call can make it before
// it changes anything.
void track_locked(Id *id);
void watch_locked(Id *id, uint32_t events);
void unwatch_locked(Id *id);
void wake_engine();
// Queues the event, or throws with nothing queued (callers queue before they change state).
void queue_event_locked(Id *id, Id *listen_id, rdma_cm_event_type type, int status, const Msg *param);
bool send_msg_locked(Id *id, const Msg &m);
void close_socket_locked(Id *id);
// Active side: (re)opens the connection to route.addr.dst and queues the REQ in id->local.
void start_connect_locked(Id *id);
void forget_id_locked(Id *id);
// Removes the events counted against id that no program has taken yet (rdma_destroy_id: the
// kernel's CM drops them too); a CONNECT_REQUEST among them takes its unseen new id along.
void drop_queued_events_locked(Id *id);
// Makes the channel's fd readable if and only if its queue holds an event.
void sync_readable_locked(Channel *ch);
// QP transitions with the peer's identity (qp.cpp).
int qp_to_init(ibv_qp *qp);
int qp_to_rtr(ibv_qp *qp, const Msg &peer, uint8_t responder_resources);
int qp_to_rts(ibv_qp *qp, const Msg &local, const Msg &peer, uint8_t initiator_depth);
void qp_to_error(ibv_qp *qp);
uint8_t clamp_rd_atom(uint8_t v);
int fill_qp_attr(ibv_qp_attr *a, int *mask, ibv_qp_state state, const Msg &local, const Msg &peer);
// Local end: connection established, and DISCONNECTED at most once.
void established_locked(Id *id);
void disconnected_locked(Id *id);

void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// errno-style returns: set errno, return -1.
inline int fail(int e)
{
    errno = e;
    return -1;
}

} // namespace svcm
