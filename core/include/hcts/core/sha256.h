// SHA-256 digests (OpenSSL libcrypto) as lower-case hex: of bytes in memory,
// and of a file (the IUT and adapter identities in results.json, bundle sums).
#pragma once

#include <string>
#include <string_view>

namespace hcts {
// Throws std::runtime_error if libcrypto fails.
std::string sha256_hex(std::string_view data);
// "" when the file cannot be read.
std::string sha256_of_file(const std::string &path);
} // namespace hcts
