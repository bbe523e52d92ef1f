// Blocking TCP with deadlines for the bootstrap: every call that waits takes a
// deadline and gives up cleanly, so a missing peer is an error, never a hang.
#pragma once

#include <netinet/in.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hcomm_ref {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

class Fd {
  public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() { reset(); }
    Fd(Fd &&other) noexcept : fd_(other.release()) {}
    Fd &operator=(Fd &&other) noexcept
    {
        if (this != &other) {
            reset(other.release());
        }
        return *this;
    }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;

    int get() const { return fd_; }
    bool valid() const { return fd_ >= 0; }
    int release()
    {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }
    void reset(int fd = -1);

  private:
    int fd_ = -1;
};

struct SockAddr {
    uint32_t ipv4 = 0; // network byte order
    uint16_t port = 0; // host byte order
};

std::string to_string(const SockAddr &addr);

// The IPv4 address to listen on: HCOMM_REF_BOOTSTRAP_IF (name or address), else
// 127.0.0.1. nullopt (with a logged reason) when the interface has no IPv4 address.
std::optional<uint32_t> bootstrap_address();

// Listens on `ipv4`, port chosen by the kernel; fills `bound`.
Fd listen_on(uint32_t ipv4, SockAddr &bound);
// nullopt on deadline or error.
std::optional<Fd> accept_until(const Fd &listener, Deadline deadline);
std::optional<Fd> connect_until(const SockAddr &addr, Deadline deadline);

// A message is {uint32 type, uint32 length} + length bytes.
bool send_message(const Fd &fd, uint32_t type, std::span<const uint8_t> payload);
bool recv_message(const Fd &fd, Deadline deadline, uint32_t &type, std::vector<uint8_t> &payload,
                  uint32_t max_length = 1U << 20);

template <typename T>
std::span<const uint8_t> bytes_of(const T &value)
{
    return {reinterpret_cast<const uint8_t *>(&value), sizeof(T)};
}

} // namespace hcomm_ref
