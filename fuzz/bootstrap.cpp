// fuzz_bootstrap: the reference's bootstrap messages (reference_impl/src/bootstrap.cpp) as
// a hostile peer sends them over loopback TCP, to a live rendezvous (the root) and to a
// rank that waits for its higher ranks' hellos. An input is a list of connections, each
// raw bytes or a framed join/hello with fuzzed fields; the job token is the real one when
// the input says so, so the checks behind it (ranks, counts, duplicates) are reached.
// Promises checked: the root answers a connection only with a reject (one HcclResult) or
// a table of exactly n_ranks listeners; the waiting rank ends with HCCL_SUCCESS once the
// real rank 1 says hello, whatever came before; nothing crashes, leaks or hangs.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <future>
#include <vector>

#include "bootstrap.h"
#include "input_reader.h"

using hcts_fuzz::InputReader;
using namespace hcomm_ref;
using namespace hcomm_ref::bootstrap_wire;

namespace {

constexpr int kMaxConnections = 6;

void set_io_timeout(int fd, time_t seconds)
{
    timeval tv{seconds, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

int connect_to(const SockAddr &a)
{
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = a.ipv4;
    sa.sin_port = htons(a.port);
    set_io_timeout(fd, 1);
    if (connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

void send_bytes(int fd, const std::vector<uint8_t> &b)
{
    for (size_t off = 0; off < b.size();) {
        const ssize_t n = send(fd, b.data() + off, b.size() - off, MSG_NOSIGNAL);
        if (n <= 0)
            return;
        off += static_cast<size_t>(n);
    }
}

template <typename T>
std::vector<uint8_t> framed(uint32_t type, const T &msg, int length_fudge)
{
    std::vector<uint8_t> b(8 + sizeof msg);
    const uint32_t len = static_cast<uint32_t>(static_cast<int>(sizeof msg) + length_fudge);
    std::memcpy(b.data(), &type, 4);
    std::memcpy(b.data() + 4, &len, 4);
    std::memcpy(b.data() + 8, &msg, sizeof msg);
    return b;
}

uint32_t message_type(InputReader &in, uint32_t natural)
{
    switch (in.below(4)) {
    case 0:
    case 1: return natural;
    case 2: return in.below(2) ? kJoin : kHello;
    default: return in.u32();
    }
}

// One hostile connection: raw bytes, or a join/hello whose fields come from the input.
std::vector<uint8_t> connection_bytes(InputReader &in, const uint8_t *token, bool to_root)
{
    const int fudge = static_cast<int>(in.below(5)) - 2; // the frame's length off by -2..2
    switch (in.below(3)) {
    case 0: { // raw
        std::vector<uint8_t> b(in.u16() % 200);
        for (auto &x : b)
            x = in.u8();
        return b;
    }
    case 1: {
        JoinMessage j{};
        in.overwrite(j);
        if (in.below(4) != 0)
            std::memcpy(j.token, token, kTokenBytes);
        if (in.below(2))
            j.n_ranks = in.below(5), j.rank = in.below(5);
        return framed(message_type(in, to_root ? kJoin : kHello), j, fudge);
    }
    default: {
        HelloMessage h{};
        in.overwrite(h);
        if (in.below(4) != 0)
            std::memcpy(h.token, token, kTokenBytes);
        if (in.below(2))
            h.from = in.below(3), h.to = in.below(3), h.n_ranks = in.below(4);
        return framed(message_type(in, to_root ? kJoin : kHello), h, fudge);
    }
    }
}

// The root's answer to a connection, if any within `ms`: a reject is one HcclResult, a
// table n_ranks listeners. Anything else breaks the protocol.
void check_root_answer(int fd, int ms)
{
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0)
        return;
    uint32_t header[2] = {};
    const ssize_t n = recv(fd, header, sizeof header, MSG_WAITALL);
    if (n != static_cast<ssize_t>(sizeof header))
        return; // closed: fine
    if (header[0] == kReject && header[1] == sizeof(uint32_t))
        return;
    if (header[0] == kTable && header[1] % sizeof(SockAddr) == 0 && header[1] > 0)
        return;
    std::fprintf(stderr, "fuzz_bootstrap: the root answered type 0x%x with %u bytes\n", header[0], header[1]);
    std::abort();
}

} // namespace

// Sanitizers reserve terabytes of address space: no RLIMIT_AS under them.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HCTS_FUZZ_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HCTS_FUZZ_SANITIZED 1
#endif

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
#if !defined(HCTS_FUZZ_SANITIZED)
    // The plain replay has no -rss_limit_mb: an input that makes the library allocate without
    // bound (finding_huge_n_ranks) fails with bad_alloc instead of calling the OOM killer.
    // Under ASan libFuzzer's -rss_limit_mb does this.
    rlimit as{};
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur == RLIM_INFINITY) {
        as.rlim_cur = rlim_t{4} << 30;
        setrlimit(RLIMIT_AS, &as);
    }
#endif
    // A rank that waits gives up soon; the root is ended by each input.
    setenv("HCOMM_REF_BOOTSTRAP_TIMEOUT_S", "5", 0);
    setenv("HCOMM_REF_LOG", "0", 0);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    InputReader in(data, size);
    HcclRootInfo info{};
    if (create_root_info(info) != HCCL_SUCCESS)
        return 0;
    const RootInfoWire root = *parse_root_info(info);
    const SockAddr root_addr{root.ipv4, root.port};
    const bool rank_side = in.below(2) == 1;
    std::vector<int> fds;
    if (!rank_side) {
        // The root alone: every connection is a hostile peer of the rendezvous.
        const int n = 1 + static_cast<int>(in.below(kMaxConnections));
        for (int i = 0; i < n && !in.empty(); ++i) {
            const int fd = connect_to(root_addr);
            if (fd < 0)
                break;
            send_bytes(fd, connection_bytes(in, root.token, true));
            if (in.below(2))
                shutdown(fd, SHUT_WR);
            check_root_answer(fd, 20);
            fds.push_back(fd);
        }
    } else {
        // Rank 0 of 2 waits in join_job; we join as rank 1 by hand, learn rank 0's
        // listener from the table, send it hostile hellos, then the real one.
        auto rank0 = std::async(std::launch::async, [&] {
            Mesh mesh;
            return join_job(root, 2, 0, mesh);
        });
        const int fd = connect_to(root_addr);
        JoinMessage j{};
        std::memcpy(j.token, root.token, kTokenBytes);
        j.n_ranks = 2;
        j.rank = 1;
        j.listener = SockAddr{htonl(INADDR_LOOPBACK), 1}; // never dialled: rank 1 dials rank 0
        std::vector<uint8_t> table;
        if (fd >= 0) {
            // The table comes once rank 0 (another thread) has joined too, which under a
            // sanitizer on a loaded machine can take more than the hostile sockets' second.
            // Rank 0 gives up after its own bootstrap deadline (5 s): wait longer than that.
            set_io_timeout(fd, 15);
            send_bytes(fd, framed(kJoin, j, 0));
            uint32_t header[2] = {};
            if (recv(fd, header, sizeof header, MSG_WAITALL) == static_cast<ssize_t>(sizeof header) &&
                header[0] == kTable && header[1] == 2 * sizeof(SockAddr)) {
                table.resize(header[1]);
                if (recv(fd, table.data(), table.size(), MSG_WAITALL) != static_cast<ssize_t>(table.size()))
                    table.clear();
            }
            close(fd);
        }
        if (!table.empty()) {
            SockAddr rank0_addr;
            std::memcpy(&rank0_addr, table.data(), sizeof rank0_addr);
            const int n = static_cast<int>(in.below(kMaxConnections));
            for (int i = 0; i < n && !in.empty(); ++i) {
                const int c = connect_to(rank0_addr);
                if (c < 0)
                    break;
                send_bytes(c, connection_bytes(in, root.token, false));
                shutdown(c, SHUT_WR); // rank 0 reads each link in turn: never leave it waiting
                fds.push_back(c);
            }
            HelloMessage h{};
            std::memcpy(h.token, root.token, kTokenBytes);
            h.from = 1;
            h.to = 0;
            h.n_ranks = 2;
            const int c = connect_to(rank0_addr);
            if (c >= 0) {
                send_bytes(c, framed(kHello, h, 0));
                fds.push_back(c);
            }
            const HcclResult rc = rank0.get();
            if (rc != HCCL_SUCCESS) {
                std::fprintf(stderr, "fuzz_bootstrap: rank 0 failed (%d) although rank 1 said hello\n", rc);
                std::abort();
            }
        } else {
            const HcclResult rc = rank0.get();
            std::fprintf(stderr, "fuzz_bootstrap: the root sent rank 1 no table within 15 s (rank 0's join: %d)\n", rc);
            std::abort();
        }
    }
    for (int fd : fds)
        close(fd);
    end_root_service(root.token);
    return 0;
}
