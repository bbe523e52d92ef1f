// Host memory a case hands to HcclCommMemReg, and which calls an IUT lacks.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>

namespace hcts {

class Library;

// `bytes` of page-aligned host memory filled with `fill`, for HcclCommMemReg: kept for the
// process's life, since a registration lives until HcclCommDestroy (there is no
// deregistration call) and must never outlive its memory.
std::byte *kept_host_memory(size_t bytes, std::byte fill);

// Which symbols of `names` the IUT lacks, comma-separated ("" when none).
std::string missing_symbols(const Library &iut, std::initializer_list<const char *> names);

} // namespace hcts
