// Whether this process may read (or write) a whole byte range, before a worker
// thread touches it: a wild, read-only or too-short caller buffer must become an
// HCCL_E_PARA refusal, not a SIGSEGV on a thread the caller cannot catch.
#pragma once

#include <cstdint>

namespace hcomm_ref {

enum class Access { read, write };

// True when [addr, addr + len) lies in mappings of this process that allow
// `access`. len == 0 or a wrapping range is false. A check, not a lock: memory the
// caller unmaps between the call and the task is the caller's race (docs/security.md).
bool range_accessible(const void *addr, uint64_t len, Access access);

} // namespace hcomm_ref
