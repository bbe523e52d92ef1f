// acl_binding: ties communicators to the hcts ACL runtime (acl_runtime/,
// libascendcl.so) when a program has it in its process.
//
// On the reference a kernel launched with aclrtLaunchKernelWithConfig runs as a
// device program of a communicator. A custom operator written for the device
// never says which: it sets its device, creates its communicator and launches.
// So each new communicator is offered to the creating thread's device (the first
// one stays bound) and withdrawn when it is destroyed. The runtime's calls are
// found with dlsym: the reference neither links nor needs libascendcl, and
// without it (or without a device set) these do nothing.
#pragma once

#include <cstdint>
#include <optional>

#include "hccl/hccl_types.h"

namespace hcomm_ref {

void offer_to_acl_device(HcclComm comm);
// The same for a device the caller names (HcclCommInitAll: comms[i] is devices[i]'s).
void offer_to_acl_device(HcclComm comm, int32_t device);
void withdraw_from_acl(HcclComm comm);
// Tells the runtime that [base, base + size) is the comm's device memory (an engine
// context of a device engine), which programs fill with aclrtMemcpy as on the device.
void offer_device_memory(HcclComm comm, const void *base, uint64_t size);
// How many devices the process's ACL runtime shows; nullopt without one (or when it
// shows none), so a caller cannot check device ids against it.
std::optional<uint32_t> acl_device_count();

} // namespace hcomm_ref
