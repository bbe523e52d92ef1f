// Submission bundles as plain POSIX ustar archives, written and read with
// libarchive: regular files only, in the order given, every header fixed
// (mode 0644, uid/gid 0, one mtime) so the same members give the same bytes.
//
// libarchive's reader is lenient (it skips what it does not need), but a bundle
// must catch any single changed byte. So read_tar() also writes the members it
// read back out with write_tar() and demands the very same bytes: a header that
// is not the canonical one, non-zero padding, a missing or extra end block, or
// anything after the end marker is an error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hcts::report {

struct TarMember {
    std::string name;
    std::string data;
};

// Throws std::runtime_error "tar: ..." for a name ustar cannot hold (or one
// given twice) and for any libarchive failure.
std::string write_tar(const std::vector<TarMember> &members, long long mtime);
// Throws std::runtime_error "tar: ..." naming the byte offset and the problem.
std::vector<TarMember> read_tar(std::string_view bytes);

} // namespace hcts::report
