// The per-user default secret file (see secret_file.cpp and docs/security.md).
#pragma once

#include <cstddef>
#include <string>

namespace sv {

inline constexpr size_t kMaxSecret = 64; // bytes of a secret that are used

// SOFTVERBS_SECRET_FILE if set, else $HOME/.config/softverbs/secret (the home directory
// from the password database when HOME is unset); empty when there is no home directory.
std::string default_secret_path();

struct SecretFile {
    enum Status {
        kOk,          // `secret` holds the file's secret
        kRefused,     // the file exists but is not safe to use (owner, mode, type, content): `why`
        kUnavailable, // no file and none could be made (read-only home, no home): `why`
    };
    Status status = kUnavailable;
    bool created = false; // this call made the file
    std::string path, secret, why;
};

// The secret in `path` (trailing white space removed), creating the file first if it does
// not exist: 16 random bytes as 32 hex digits, mode 0600, its directories 0700, made
// atomically (a private temporary file linked into place), so concurrent first users all
// read one secret. Refuses a file that is not a regular file owned by this user with no
// permission bits for group or others, a symbolic link, an empty one, or one of more
// than kMaxSecret bytes.
SecretFile read_secret_file(const std::string &path);

} // namespace sv
