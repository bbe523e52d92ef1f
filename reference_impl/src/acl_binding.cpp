#include "acl_binding.h"

#include <dlfcn.h>

#include <cstdint>

namespace hcomm_ref {
namespace {

// The runtime's signatures (acl/acl_rt.h, acl_ref/acl_ref.h); aclError is an int.
using GetDevice = int (*)(int32_t *);
using GetDeviceCount = int (*)(uint32_t *);
using Offer = int (*)(int32_t, HcclComm);
using Withdraw = int (*)(HcclComm);
using AdoptMemory = int (*)(HcclComm, const void *, uint64_t);

template <typename F>
F lookup(const char *name)
{
    return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

} // namespace

void offer_to_acl_device(HcclComm comm)
{
    const auto get_device = lookup<GetDevice>("aclrtGetDevice");
    int32_t device = -1;
    // No runtime, or no device set on this thread: nothing to tie the comm to.
    if (get_device == nullptr || get_device(&device) != 0)
        return;
    offer_to_acl_device(comm, device);
}

void offer_to_acl_device(HcclComm comm, int32_t device)
{
    if (const auto offer = lookup<Offer>("HctsAclRefOfferDeviceComm"); offer != nullptr && device >= 0)
        offer(device, comm);
}

void offer_device_memory(HcclComm comm, const void *base, uint64_t size)
{
    if (const auto adopt = lookup<AdoptMemory>("HctsAclRefAdoptCommMemory"))
        adopt(comm, base, size);
}

std::optional<uint32_t> acl_device_count()
{
    const auto get_count = lookup<GetDeviceCount>("aclrtGetDeviceCount");
    uint32_t n = 0;
    if (get_count == nullptr || get_count(&n) != 0 || n == 0)
        return std::nullopt;
    return n;
}

void withdraw_from_acl(HcclComm comm)
{
    if (const auto withdraw = lookup<Withdraw>("HctsAclRefWithdrawComm"))
        withdraw(comm);
}

} // namespace hcomm_ref
