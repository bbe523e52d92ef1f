// Bootstrap over TCP. HcclGetRootInfo starts a rendezvous service and returns its
// address with a random job token; every rank joins it with the token, learns every
// rank's listener, and the ranks connect into a full mesh of TCP links, refusing
// any peer without the token. The links carry the channel handshakes later.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hccl/hccl_types.h"
#include "socket.h"

namespace hcomm_ref {

constexpr size_t kTokenBytes = 16;
constexpr uint32_t kMaxJobRanks = 65536; // HcclCommInitRootInfo's bound on nRanks

// What HcclRootInfo.internal holds (the rest of the 4108 bytes is zero).
struct RootInfoWire {
    char magic[8]; // "HCTSREF"
    uint32_t version;
    uint32_t ipv4; // network byte order
    uint16_t port; // host byte order
    uint16_t reserved;
    uint8_t token[kTokenBytes];
};

// The messages of the bootstrap (socket.h frames them: type, length, payload): a rank's
// join to the root, the root's table of listeners (n_ranks SockAddr) or its reject (a
// HcclResult), a rank's hello to a lower rank and its ack. Here for fuzz/bootstrap.cpp,
// which speaks them as a hostile peer would.
namespace bootstrap_wire {
enum MessageType : uint32_t {
    kJoin = 0x4a4f494e,
    kTable = 0x5441424c,
    kReject = 0x52454a54,
    kHello = 0x48454c4f,
    kAck = 0x41434b21
};

struct JoinMessage {
    uint8_t token[kTokenBytes];
    uint32_t n_ranks;
    uint32_t rank;
    SockAddr listener;
};

struct HelloMessage {
    uint8_t token[kTokenBytes];
    uint32_t from;
    uint32_t to;
    uint32_t n_ranks;
};
} // namespace bootstrap_wire

// Starts a rendezvous service and describes it in `out`.
HcclResult create_root_info(HcclRootInfo &out);
std::optional<RootInfoWire> parse_root_info(const HcclRootInfo &info);
// Stops and joins this process's rendezvous service for the job `token` (if it runs
// here) and every finished one. A comm of that job exists only once every rank
// joined, so its service has nothing left but sending tables; without this its
// finished thread would stay unjoined until the next HcclGetRootInfo or exit.
void end_root_service(const uint8_t *token);

struct Mesh {
    std::vector<Fd> links; // links[r]: the TCP link to rank r (none for the own rank)
};

// Joins the job described by `root` as `rank` of `n_ranks` and builds the mesh.
HcclResult join_job(const RootInfoWire &root, uint32_t n_ranks, uint32_t rank, Mesh &mesh);

} // namespace hcomm_ref
