#include "comm_memory.h"

#include <hcts/mutant.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace hcomm_ref {

bool range_inside(uint64_t addr, uint64_t len, uint64_t base, uint64_t size)
{
    if (len == 0 || addr < base) {
        return false;
    }
    const uint64_t offset = addr - base;
    // Mutant: the end compared inclusively, one byte past the memory accepted.
    if (hcts::mutant("ref_range_one_past_end"))
        return offset < size && len <= size - offset + 1;
    return offset < size && len <= size - offset;
}

uint64_t memory_limit()
{
    struct sysinfo si {};
    if (sysinfo(&si) != 0)
        return 0;
    uint64_t most = (uint64_t{si.totalram} + si.totalswap) * si.mem_unit;
    // cgroup v2: this process's group's memory.max, when it is a number.
    if (std::FILE *f = std::fopen("/proc/self/cgroup", "re")) {
        char line[512];
        std::string path;
        while (std::fgets(line, sizeof line, f))
            if (std::strncmp(line, "0::", 3) == 0) {
                path = line + 3;
                while (!path.empty() && (path.back() == '\n' || path.back() == '/'))
                    path.pop_back();
            }
        std::fclose(f);
        if (std::FILE *m = std::fopen(("/sys/fs/cgroup" + path + "/memory.max").c_str(), "re")) {
            unsigned long long v = 0;
            if (std::fscanf(m, "%llu", &v) == 1 && v > 0)
                most = std::min<uint64_t>(most, v);
            std::fclose(m);
        }
    }
    return most;
}

std::unique_ptr<CommMemory> CommMemory::create(uint64_t size, const std::string &name)
{
    const int fd = memfd_create(name.c_str(), MFD_CLOEXEC);
    if (fd < 0) {
        return nullptr;
    }
    if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
        const int saved = errno;
        close(fd);
        errno = saved;
        return nullptr;
    }
    void *base = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        const int saved = errno;
        close(fd);
        errno = saved;
        return nullptr;
    }
    // Mutant (with the one in HcclGetHcclBufferCleared): the memory holds leftover
    // bytes, as device memory straight from the allocator does.
    if (hcts::mutant("ref_buffer_cleared_dirty"))
        std::memset(base, 0xA5, std::min<uint64_t>(size, 1U << 16));
    return std::unique_ptr<CommMemory>(new CommMemory(fd, base, size));
}

CommMemory::~CommMemory()
{
    munmap(base_, size_);
    close(fd_);
}

bool CommMemory::contains(const void *addr, uint64_t len) const
{
    return range_inside(reinterpret_cast<uint64_t>(addr), len, reinterpret_cast<uint64_t>(base_), size_);
}

bool CommMemory::clear()
{
    return fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(size_)) == 0;
}

} // namespace hcomm_ref
