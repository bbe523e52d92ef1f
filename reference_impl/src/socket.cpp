#include "socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "env.h"
#include "log.h"

namespace hcomm_ref {
namespace {

int remaining_ms(Deadline deadline)
{
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left, 1 << 30));
}

bool wait_fd(int fd, short events, Deadline deadline)
{
    for (;;) {
        pollfd p{fd, events, 0};
        const int rc = poll(&p, 1, remaining_ms(deadline));
        if (rc > 0) {
            return true;
        }
        if (rc == 0 || errno != EINTR) {
            return false;
        }
    }
}

bool send_all(int fd, const uint8_t *data, size_t len)
{
    while (len > 0) {
        const ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        data += n;
        len -= static_cast<size_t>(n);
    }
    return true;
}

bool recv_all(int fd, uint8_t *data, size_t len, Deadline deadline)
{
    while (len > 0) {
        if (!wait_fd(fd, POLLIN, deadline)) {
            return false;
        }
        const ssize_t n = recv(fd, data, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            return false;
        }
        data += n;
        len -= static_cast<size_t>(n);
    }
    return true;
}

} // namespace

void Fd::reset(int fd)
{
    if (fd_ >= 0) {
        close(fd_);
    }
    fd_ = fd;
}

std::string to_string(const SockAddr &addr)
{
    char text[INET_ADDRSTRLEN] = {};
    in_addr in{};
    in.s_addr = addr.ipv4;
    inet_ntop(AF_INET, &in, text, sizeof(text));
    return std::string(text) + ":" + std::to_string(addr.port);
}

std::optional<uint32_t> bootstrap_address()
{
    const std::string wanted = env::bootstrap_interface();
    if (wanted.empty()) {
        return htonl(INADDR_LOOPBACK);
    }
    in_addr literal{};
    if (inet_pton(AF_INET, wanted.c_str(), &literal) == 1) {
        return literal.s_addr;
    }
    ifaddrs *list = nullptr;
    if (getifaddrs(&list) != 0) {
        HREF_LOG_ERROR(-1, "getifaddrs failed: ", std::strerror(errno));
        return std::nullopt;
    }
    std::optional<uint32_t> found;
    for (ifaddrs *it = list; it != nullptr; it = it->ifa_next) {
        if (it->ifa_addr != nullptr && it->ifa_addr->sa_family == AF_INET && wanted == it->ifa_name) {
            sockaddr_in in4{};
            std::memcpy(&in4, it->ifa_addr, sizeof(in4));
            found = in4.sin_addr.s_addr;
            break;
        }
    }
    freeifaddrs(list);
    if (!found) {
        HREF_LOG_ERROR(-1, "HCOMM_REF_BOOTSTRAP_IF='", wanted,
                       "' is neither an IPv4 address nor an interface with one");
    }
    return found;
}

Fd listen_on(uint32_t ipv4, SockAddr &bound)
{
    Fd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd.valid()) {
        HREF_LOG_ERROR(-1, "cannot listen on ", to_string({ipv4, 0}), ": socket: ", std::strerror(errno));
        return fd;
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = ipv4;
    addr.sin_port = 0;
    if (bind(fd.get(), reinterpret_cast<const sockaddr *>(&addr), sizeof(addr)) != 0 || listen(fd.get(), 256) != 0) {
        HREF_LOG_ERROR(-1, "cannot listen on ", to_string({ipv4, 0}), ": ", std::strerror(errno));
        return Fd();
    }
    socklen_t len = sizeof(addr);
    getsockname(fd.get(), reinterpret_cast<sockaddr *>(&addr), &len);
    bound.ipv4 = addr.sin_addr.s_addr;
    bound.port = ntohs(addr.sin_port);
    return fd;
}

std::optional<Fd> accept_until(const Fd &listener, Deadline deadline)
{
    if (!wait_fd(listener.get(), POLLIN, deadline)) {
        return std::nullopt;
    }
    Fd fd(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!fd.valid()) {
        // Out of fds or memory, the connection stays queued and the listener readable: said
        // (at most once a second, the rendezvous retries) and paced, instead of spinning.
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
            const int err = errno;
            static std::atomic<int64_t> last_said{-1};
            if (once_a_second(last_said))
                HREF_LOG_ERROR(-1, "cannot accept a bootstrap connection: ", std::strerror(err));
            struct timespec ts {
                0, 10 * 1000000L
            };
            nanosleep(&ts, nullptr);
        }
        return std::nullopt;
    }
    const int one = 1;
    setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

std::optional<Fd> connect_until(const SockAddr &target, Deadline deadline)
{
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = target.ipv4;
    addr.sin_port = htons(target.port);
    // A peer that is not listening yet refuses; retry with back-off until the deadline.
    auto pause = std::chrono::milliseconds(5);
    for (;;) {
        Fd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        if (!fd.valid()) {
            HREF_LOG_ERROR(-1, "cannot connect to ", to_string(target), ": socket: ", std::strerror(errno));
            return std::nullopt;
        }
        if (connect(fd.get(), reinterpret_cast<const sockaddr *>(&addr), sizeof(addr)) == 0) {
            const int one = 1;
            setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
            return fd;
        }
        if (errno != ECONNREFUSED && errno != EINTR && errno != EAGAIN && errno != ETIMEDOUT) {
            HREF_LOG_ERROR(-1, "connect to ", to_string(target), " failed: ", std::strerror(errno));
            return std::nullopt;
        }
        if (Clock::now() + pause >= deadline) {
            return std::nullopt;
        }
        struct timespec ts {
            0, static_cast<long>(pause.count()) * 1000000L
        };
        nanosleep(&ts, nullptr);
        pause = std::min(pause * 2, std::chrono::milliseconds(200));
    }
}

bool send_message(const Fd &fd, uint32_t type, std::span<const uint8_t> payload)
{
    const uint32_t header[2] = {type, static_cast<uint32_t>(payload.size())};
    return send_all(fd.get(), reinterpret_cast<const uint8_t *>(header), sizeof(header)) &&
           send_all(fd.get(), payload.data(), payload.size());
}

bool recv_message(const Fd &fd, Deadline deadline, uint32_t &type, std::vector<uint8_t> &payload, uint32_t max_length)
{
    uint32_t header[2] = {};
    if (!recv_all(fd.get(), reinterpret_cast<uint8_t *>(header), sizeof(header), deadline)) {
        return false;
    }
    if (header[1] > max_length) {
        return false;
    }
    type = header[0];
    payload.resize(header[1]);
    return recv_all(fd.get(), payload.data(), payload.size(), deadline);
}

} // namespace hcomm_ref
