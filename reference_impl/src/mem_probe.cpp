// range_accessible: reads /proc/self/maps. Why maps and not a probe: writability
// cannot be probed without writing (process_vm_writev would race the caller's own
// writers), and a SIGSEGV handler is process-wide state a library must not own.
#include "mem_probe.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include <fcntl.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <string>

#include "log.h"

namespace hcomm_ref {

namespace {

// /proc/self/maps stays open once read: a caller's buffer must still be checked when the
// process has no file descriptor left (a valid buffer refused as unreadable there was a
// wrong HCCL_E_PARA with nothing said). Reopened in a forked child, whose inherited fd
// still shows the parent. Never closed: the process's exit closes it.
struct MapsFile {
    std::mutex lock;
    int fd = -1;
    pid_t owner = 0;
};

// The whole of /proc/self/maps, or nullopt (said on stderr) when it cannot be read.
std::optional<std::string> self_maps()
{
    static MapsFile file;
    std::lock_guard hold(file.lock);
    const pid_t self = ::getpid();
    if (file.fd >= 0 && file.owner != self) {
        ::close(file.fd);
        file.fd = -1;
    }
    if (file.fd < 0) {
        file.fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
        file.owner = self;
    }
    std::string text;
    bool ok = file.fd >= 0 && ::lseek(file.fd, 0, SEEK_SET) == 0;
    char chunk[16384];
    while (ok) {
        const ssize_t n = ::read(file.fd, chunk, sizeof chunk);
        if (n == 0)
            break;
        if (n < 0 && errno != EINTR)
            ok = false;
        else if (n > 0)
            text.append(chunk, static_cast<size_t>(n));
    }
    if (!ok) {
        const int err = errno;
        static std::atomic<int64_t> last_said{-1};
        if (once_a_second(last_said))
            HREF_LOG_ERROR(-1, "cannot read /proc/self/maps to check a caller's buffer (", std::strerror(err),
                           "): the call is refused");
        if (file.fd >= 0)
            ::close(file.fd);
        file.fd = -1;
        return std::nullopt;
    }
    return text;
}

} // namespace

bool range_accessible(const void *addr, uint64_t len, Access access)
{
    const auto begin = reinterpret_cast<uintptr_t>(addr);
    if (len == 0 || addr == nullptr || begin + len < begin)
        return false;
    const uintptr_t end = begin + len;
    const std::optional<std::string> read = self_maps();
    if (!read)
        return false;
    const std::string &maps = *read;
    // The lines are sorted by address; walk them, extending the covered prefix.
    uintptr_t covered = begin;
    size_t pos = 0;
    while (pos < maps.size() && covered < end) {
        const size_t eol = maps.find('\n', pos);
        const std::string line = maps.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
        pos = eol == std::string::npos ? maps.size() : eol + 1;
        uintptr_t lo = 0;
        uintptr_t hi = 0;
        char perms[8] = {};
        if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " %7s", &lo, &hi, perms) != 3)
            continue;
        if (hi <= covered)
            continue;
        if (lo > covered)
            return false; // a hole
        const bool allowed = access == Access::read ? perms[0] == 'r' : perms[1] == 'w';
        if (!allowed)
            return false;
        covered = hi;
    }
    return covered >= end;
}

std::optional<size_t> readable_strnlen(const char *str, size_t max)
{
    constexpr uintptr_t kPage = 4096;
    size_t len = 0;
    const auto *p = reinterpret_cast<const unsigned char *>(str);
    while (len <= max) {
        // Probe once per page: from here to the page's end, or to max + 1 bytes.
        const uintptr_t at = reinterpret_cast<uintptr_t>(p + len);
        const size_t chunk = std::min<size_t>(kPage - at % kPage, max + 1 - len);
        if (!range_accessible(p + len, chunk, Access::read))
            return std::nullopt;
        for (size_t i = 0; i < chunk; ++i, ++len)
            if (p[len] == 0)
                return len;
    }
    return len;
}

} // namespace hcomm_ref
