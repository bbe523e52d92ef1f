#pragma once

#include <string>
#include <string_view>

namespace hcts::report {
// Lower-case hex SHA-256 of `data` (OpenSSL libcrypto).
std::string sha256_hex(std::string_view data);
}  // namespace hcts::report
