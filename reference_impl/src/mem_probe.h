// Whether this process may read (or write) a whole byte range, before a worker
// thread touches it: a wild, read-only or too-short caller buffer must become an
// HCCL_E_PARA refusal, not a SIGSEGV on a thread the caller cannot catch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace hcomm_ref {

enum class Access { read, write };

// True when [addr, addr + len) lies in mappings of this process that allow
// `access`. len == 0 or a wrapping range is false. A check, not a lock: memory the
// caller unmaps between the call and the task is the caller's race (docs/security.md).
bool range_accessible(const void *addr, uint64_t len, Access access);

// The length of a caller's string of at most `max` characters, read only where this
// process may read (a wild pointer is refused, not followed): nullopt when not
// readable, max + 1 when no NUL is within the first max + 1 bytes.
std::optional<size_t> readable_strnlen(const char *str, size_t max);

} // namespace hcomm_ref
