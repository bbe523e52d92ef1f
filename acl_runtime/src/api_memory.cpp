// Memory: device and host allocations are host memory underneath; the runtime
// keeps a table of them so that every copy's kind can be checked against where
// its pointers point, and a bad pointer is refused rather than dereferenced.
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <optional>

#include "hccl/hccl_res.h"
#include "runtime.h"

namespace hcts_acl {

namespace {

enum class Placement { device, host };

struct Allocation {
    size_t size = 0;
    Placement placement = Placement::device;
    int32_t device = -1;     // device allocations only
    HcclComm comm = nullptr; // a communicator's HCCL buffer (not the runtime's to free)
};

// Device memory as the vendor lays it out: the size rounded up to 32 bytes plus
// 32 bytes of padding; the reference also aligns every allocation to 64 bytes.
constexpr size_t alignment = 64;

struct Memory {
    std::mutex mutex;
    std::map<uintptr_t, Allocation> allocations; // by base address
};

Memory &memory()
{
    static Memory *instance = new Memory; // never destroyed (see devices())
    return *instance;
}

const char *placement_name(Placement placement) { return placement == Placement::device ? "device" : "host"; }

// The allocation holding [p, p + len) entirely, if any (len 0: holding p).
struct Hit {
    uintptr_t base = 0;
    Allocation allocation;
    bool whole = false; // the range ends inside the allocation
};
std::optional<Hit> find_allocation(const void *p, size_t len)
{
    const uintptr_t address = reinterpret_cast<uintptr_t>(p);
    Memory &all = memory();
    std::lock_guard<std::mutex> lock(all.mutex);
    auto it = all.allocations.upper_bound(address);
    if (it == all.allocations.begin())
        return std::nullopt;
    --it;
    const uintptr_t base = it->first;
    if (address >= base + it->second.size)
        return std::nullopt;
    Hit hit;
    hit.base = base;
    hit.allocation = it->second;
    hit.whole = len <= base + it->second.size - address;
    return hit;
}

aclError allocate(const char *api, void **ptr, size_t size, Placement placement, int32_t device)
{
    const size_t rounded = (size + 31) / 32 * 32 + 32;
    if (rounded < size)
        return fail(api, ACL_ERROR_BAD_ALLOC, "size ", size, " overflows");
    Memory &all = memory(); // first: made at the first call, which may throw
    void *p = std::aligned_alloc(alignment, (rounded + alignment - 1) / alignment * alignment);
    if (p == nullptr)
        return fail(api, ACL_ERROR_BAD_ALLOC, "cannot allocate ", size, " bytes");
    try {
        std::lock_guard<std::mutex> lock(all.mutex);
        all.allocations[reinterpret_cast<uintptr_t>(p)] = Allocation{size, placement, device};
    } catch (...) { // no memory to record it (acl_fault_inject found the leak): not handed out
        std::free(p);
        throw;
    }
    *ptr = p;
    return ACL_SUCCESS;
}

aclError release(const char *api, void *ptr, Placement placement, const char *allocator)
{
    if (ptr == nullptr)
        return fail(api, ACL_ERROR_INVALID_PARAM, "the address is NULL");
    Memory &all = memory();
    {
        std::lock_guard<std::mutex> lock(all.mutex);
        const auto it = all.allocations.find(reinterpret_cast<uintptr_t>(ptr));
        if (it == all.allocations.end()) {
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, hex(ptr), " is not an address ", allocator,
                        " returned, or it was freed already");
        }
        if (it->second.comm != nullptr) {
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, hex(ptr), " is the HCCL buffer of communicator ",
                        hex(it->second.comm), "; HcclCommDestroy releases it");
        }
        if (it->second.placement != placement) {
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, hex(ptr), " is ", placement_name(it->second.placement),
                        " memory, not ", placement_name(placement), " memory (free it with ",
                        it->second.placement == Placement::device ? "aclrtFree" : "aclrtFreeHost", ")");
        }
        all.allocations.erase(it);
    }
    std::free(ptr);
    return ACL_SUCCESS;
}

// Copies with the kernel checking both sides: a pointer the process cannot read
// or write fails with EFAULT instead of faulting (process_vm_readv on itself).
// Where the system refuses that call, a plain copy.
bool checked_copy(void *dst, const void *src, size_t count)
{
    size_t done = 0;
    while (done < count) {
        iovec local{static_cast<char *>(dst) + done, count - done};
        iovec remote{const_cast<char *>(static_cast<const char *>(src)) + done, count - done};
        const ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
        if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
            std::memmove(static_cast<char *>(dst) + done, static_cast<const char *>(src) + done, count - done);
            return true;
        }
        if (n <= 0)
            return false;
        done += static_cast<size_t>(n);
    }
    return true;
}

bool overlaps(const void *a, const void *b, size_t count)
{
    const uintptr_t x = reinterpret_cast<uintptr_t>(a);
    const uintptr_t y = reinterpret_cast<uintptr_t>(b);
    return x < y + count && y < x + count;
}

// Where one side of a copy must be (by the copy's kind).
enum class Want { device, host, any };

const char *want_name(Want want) { return want == Want::device ? "device" : "host"; }

// Checks one side: the allocation it must (or must not) lie in. `device` gets the
// device of a device side.
aclError check_side(const char *api, const char *side, const void *p, size_t count, Want want,
                    std::optional<int32_t> &device)
{
    const std::optional<Hit> hit = find_allocation(p, count);
    const bool on_device = hit && hit->allocation.placement == Placement::device;
    if (want == Want::device && !on_device) {
        return fail(api, ACL_ERROR_RT_PARAM_INVALID, side, " ", hex(p),
                    " is not device memory (an address aclrtMalloc returned, or inside one), as the copy's kind "
                    "requires");
    }
    if (want == Want::host && on_device) {
        return fail(api, ACL_ERROR_RT_PARAM_INVALID, side, " ", hex(p), " is device memory, but the copy's kind wants ",
                    want_name(want), " memory");
    }
    if (on_device) {
        if (!hit->whole) {
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, side, " [", hex(p), ", +", count,
                        ") runs past the end of its device allocation (", hit->allocation.size, " bytes at ",
                        hex(reinterpret_cast<void *>(hit->base)), ")");
        }
        device = hit->allocation.device;
    }
    return ACL_SUCCESS;
}

} // namespace

void adopt_comm_memory(HcclComm comm, int32_t device)
{
    void *buffer = nullptr;
    uint64_t size = 0;
    if (HcclGetHcclBuffer(comm, &buffer, &size) != HCCL_SUCCESS || buffer == nullptr || size == 0)
        return; // a communicator without communication memory: nothing to adopt
    adopt_comm_range(comm, buffer, static_cast<size_t>(size), device);
}

// A range adopted again keeps its first record (the device it was first offered to).
void adopt_comm_range(HcclComm comm, const void *base, size_t size, int32_t device)
{
    Allocation a;
    a.size = size;
    a.placement = Placement::device;
    a.device = device;
    a.comm = comm;
    Memory &all = memory();
    std::lock_guard<std::mutex> lock(all.mutex);
    all.allocations.emplace(reinterpret_cast<uintptr_t>(base), a);
}

void forget_comm_memory(HcclComm comm)
{
    Memory &all = memory();
    std::lock_guard<std::mutex> lock(all.mutex);
    std::erase_if(all.allocations, [comm](const auto &entry) { return entry.second.comm == comm; });
}

} // namespace hcts_acl

using namespace hcts_acl;

ACL_EXPORT aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return guarded("aclrtMalloc", [&]() -> aclError {
        const char *api = "aclrtMalloc";
        if (devPtr == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
        if (size == 0)
            return fail(api, ACL_ERROR_INVALID_PARAM, "size is 0");
        const uint32_t bits = static_cast<uint32_t>(raw_value(policy));
        constexpr uint32_t flag_bits =
            ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH | ACL_MEM_ACCESS_USER_SPACE_READONLY;
        if ((bits & 0xffU) > ACL_MEM_MALLOC_HUGE1G_ONLY_P2P || (bits & ~(0xffU | flag_bits)) != 0 ||
            ((bits & ACL_MEM_TYPE_LOW_BAND_WIDTH) != 0 && (bits & ACL_MEM_TYPE_HIGH_BAND_WIDTH) != 0)) {
            return fail(api, ACL_ERROR_INVALID_PARAM, "policy ", bits,
                        " is not an aclrtMemMallocPolicy (0..7, optionally with one ACL_MEM_TYPE_* and "
                        "ACL_MEM_ACCESS_USER_SPACE_READONLY)");
        }
        const std::optional<int32_t> device = current_device();
        if (!device)
            return fail(api, ACL_ERROR_RT_CONTEXT_NULL, "the calling thread has no device (aclrtSetDevice first)");
        return allocate(api, devPtr, size, Placement::device, *device);
    });
}

ACL_EXPORT aclError aclrtFree(void *devPtr)
{
    return guarded("aclrtFree", [&] { return release("aclrtFree", devPtr, Placement::device, "aclrtMalloc"); });
}

ACL_EXPORT aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    return guarded("aclrtMallocHost", [&]() -> aclError {
        const char *api = "aclrtMallocHost";
        if (hostPtr == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, "hostPtr is NULL");
        if (size == 0)
            return fail(api, ACL_ERROR_INVALID_PARAM, "size is 0");
        return allocate(api, hostPtr, size, Placement::host, -1);
    });
}

ACL_EXPORT aclError aclrtFreeHost(void *hostPtr)
{
    return guarded("aclrtFreeHost",
                   [&]() -> aclError { return release("aclrtFreeHost", hostPtr, Placement::host, "aclrtMallocHost"); });
}

ACL_EXPORT aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
    return guarded("aclrtMemcpy", [&]() -> aclError {
        const char *api = "aclrtMemcpy";
        if (dst == nullptr || src == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, dst == nullptr ? "dst" : "src", " is NULL");
        if (count > destMax)
            return fail(api, ACL_ERROR_INVALID_PARAM, "count ", count, " exceeds destMax ", destMax);
        Want want_dst = Want::any;
        Want want_src = Want::any;
        switch (raw_value(kind)) {
        case ACL_MEMCPY_HOST_TO_HOST: want_dst = want_src = Want::host; break;
        case ACL_MEMCPY_HOST_TO_DEVICE:
        case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
            want_dst = Want::device;
            want_src = Want::host;
            break;
        case ACL_MEMCPY_DEVICE_TO_HOST:
            want_dst = Want::host;
            want_src = Want::device;
            break;
        case ACL_MEMCPY_DEVICE_TO_DEVICE:
        case ACL_MEMCPY_INNER_DEVICE_TO_DEVICE:
        case ACL_MEMCPY_INTER_DEVICE_TO_DEVICE: want_dst = want_src = Want::device; break;
        case ACL_MEMCPY_DEFAULT: break; // the kind follows from the addresses
        default:
            return fail(api, ACL_ERROR_INVALID_PARAM, "kind ", raw_value(kind), " is not an aclrtMemcpyKind (0..7)");
        }
        std::optional<int32_t> dst_device;
        std::optional<int32_t> src_device;
        if (const aclError rc = check_side(api, "dst", dst, count, want_dst, dst_device); rc != ACL_SUCCESS)
            return rc;
        if (const aclError rc = check_side(api, "src", src, count, want_src, src_device); rc != ACL_SUCCESS)
            return rc;
        if (kind == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE && *dst_device != *src_device) {
            return fail(api, ACL_ERROR_RT_PARAM_INVALID,
                        "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE copies within one device, but "
                        "dst is on device ",
                        *dst_device, " and src on device ", *src_device);
        }
        if (kind == ACL_MEMCPY_INTER_DEVICE_TO_DEVICE && *dst_device == *src_device) {
            return fail(api, ACL_ERROR_RT_PARAM_INVALID,
                        "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE copies between devices, but dst and src are both on device ",
                        *dst_device);
        }
        if (count == 0)
            return ACL_SUCCESS;
        if (dst_device && src_device) {
            std::memmove(dst, src, count); // both inside checked allocations
            return ACL_SUCCESS;
        }
        if (overlaps(dst, src, count)) {
            // Host memory on both sides, overlapping: check what the kernel can see, then move.
            char probe = 0;
            if (!checked_copy(&probe, src, 1) || !checked_copy(&probe, static_cast<const char *>(src) + count - 1, 1))
                return fail(api, ACL_ERROR_RT_PARAM_INVALID, "src [", hex(src), ", +", count, ") is not readable");
            std::memmove(dst, src, count);
            return ACL_SUCCESS;
        }
        if (!checked_copy(dst, src, count)) {
            return fail(api, ACL_ERROR_RT_PARAM_INVALID, "dst [", hex(dst), ", +", count, ") is not writable or src [",
                        hex(src), ", +", count,
                        ") is not readable in this process (the copy may have written part of dst)");
        }
        return ACL_SUCCESS;
    });
}

ACL_EXPORT aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    return guarded("aclrtMemset", [&]() -> aclError {
        const char *api = "aclrtMemset";
        if (devPtr == nullptr)
            return fail(api, ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
        if (count > maxCount)
            return fail(api, ACL_ERROR_INVALID_PARAM, "count ", count, " exceeds maxCount ", maxCount);
        if (count == 0)
            return ACL_SUCCESS;
        // The vendor's memset takes host or device memory and tells them apart by the address.
        const std::optional<Hit> hit = find_allocation(devPtr, count);
        if (hit && hit->allocation.placement == Placement::device) {
            if (!hit->whole) {
                return fail(api, ACL_ERROR_RT_PARAM_INVALID, "[", hex(devPtr), ", +", count,
                            ") runs past the end of its device allocation (", hit->allocation.size, " bytes at ",
                            hex(reinterpret_cast<void *>(hit->base)), ")");
            }
            std::memset(devPtr, value, count);
            return ACL_SUCCESS;
        }
        // Host memory: the pattern copied in by the kernel, which checks the destination (up to
        // 256 pieces of 4 KiB per call).
        static thread_local char pattern[4096];
        std::memset(pattern, value, sizeof(pattern));
        constexpr size_t pieces = 256;
        for (size_t done = 0; done < count;) {
            const size_t chunk = std::min(sizeof(pattern) * pieces, count - done);
            iovec local{static_cast<char *>(devPtr) + done, chunk};
            iovec remote[pieces];
            size_t n = 0;
            for (size_t at = 0; at < chunk; at += sizeof(pattern))
                remote[n++] = iovec{pattern, std::min(sizeof(pattern), chunk - at)};
            const ssize_t copied = process_vm_readv(getpid(), &local, 1, remote, n, 0);
            if (copied < 0 && (errno == ENOSYS || errno == EPERM)) {
                std::memset(static_cast<char *>(devPtr) + done, value, count - done);
                break;
            }
            if (copied <= 0) {
                return fail(api, ACL_ERROR_RT_PARAM_INVALID, "[", hex(devPtr), ", +", count,
                            ") is not writable in this process (the first ", done, " bytes were set)");
            }
            done += static_cast<size_t>(copied);
        }
        return ACL_SUCCESS;
    });
}
