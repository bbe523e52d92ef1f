// Wrong IUT: the notify is raised before all the data has landed. The first half
// of the payload goes as a real write with notify; the rest follows as a plain
// write a little later. Arguments the reference would reject go straight to it,
// so only the ordering is broken.
#include <unistd.h>

#include "shim_common.h"
#include "world_comm.h"

namespace {

bool inside(const void *p, uint64_t len, const void *base, uint64_t size)
{
    const auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(base);
    return a >= b && len <= size && a - b <= size - len;
}
} // namespace

HCTS_SHIM_EXPORT int32_t HcommWriteWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                                      const void *src, uint64_t len, uint32_t idx)
{
    static const auto wwn = real<decltype(&HcommWriteWithNotifyOnThread)>("HcommWriteWithNotifyOnThread");
    void *lb = nullptr, *rb = nullptr;
    uint64_t ls = 0, rs = 0;
    const HcclComm comm = world_comm();
    const bool plausible = comm != nullptr && dst != nullptr && src != nullptr && len >= 2 &&
                           HcclGetHcclBuffer(comm, &lb, &ls) == HCCL_SUCCESS &&
                           HcclChannelGetHcclBuffer(comm, channel, &rb, &rs) == HCCL_SUCCESS &&
                           inside(src, len, lb, ls) && inside(dst, len, rb, rs);
    if (!plausible)
        return wwn(thread, channel, dst, src, len, idx);
    const uint64_t first = len / 2;
    const int32_t rc = wwn(thread, channel, dst, src, first, idx);
    if (rc != 0)
        return rc;
    usleep(3000); // the notify is on its way; the rest of the payload is not
    return HcommWriteOnThread(thread, channel, static_cast<char *>(dst) + first, static_cast<const char *>(src) + first,
                              len - first);
}
