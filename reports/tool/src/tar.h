// A minimal, strict POSIX ustar writer and reader for submission bundles:
// regular files only, names up to 100 bytes. The reader rejects anything it
// would not have written itself (bad header checksum, non-zero padding, data
// after the end marker), so any single changed byte in a bundle is an error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hcts::report {

struct TarMember {
  std::string name;
  std::string data;
};

std::string write_tar(const std::vector<TarMember> &members, long long mtime);
// Throws std::runtime_error "tar: ..." naming the offset and the problem.
std::vector<TarMember> read_tar(std::string_view archive);

}  // namespace hcts::report
