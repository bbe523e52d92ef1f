// The per-user default secret: a file only its owner can read, made on first use
// (as X11's and Erlang's cookies), so that separately started programs of one user
// connect while other users' programs are refused. No library state: the unit test
// (tests/secret_file_test.cpp) links this file alone.
#include "secret_file.h"
#include "settings.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

namespace sv {

namespace {

std::string errno_text(int e) { return std::strerror(e); }

std::string hex(const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; ++i) {
        s += digits[p[i] >> 4];
        s += digits[p[i] & 15];
    }
    return s;
}

// Every missing directory above `file`, made 0700 (owner only), as `mkdir -p` would.
bool make_parents(const std::string &file, std::string *why)
{
    for (size_t at = file.find('/', 1); at != std::string::npos; at = file.find('/', at + 1)) {
        const std::string dir = file.substr(0, at);
        if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
            *why = "cannot create the directory " + dir + ": " + errno_text(errno);
            return false;
        }
    }
    return true;
}

// Writes a fresh secret into a private temporary file beside `path`, then links it to
// `path` only if nothing is there yet: a reader never sees a partial file, and of two
// first users racing, one wins and both read the winner's secret.
SecretFile::Status create(const std::string &path, std::string *why, bool *won)
{
    if (!make_parents(path, why))
        return SecretFile::kUnavailable;
    uint8_t raw[24]; // 16 for the secret, 8 to name the temporary file
    if (getrandom(raw, sizeof raw, 0) != static_cast<ssize_t>(sizeof raw)) {
        std::random_device rd;
        for (uint8_t &b : raw)
            b = static_cast<uint8_t>(rd());
    }
    const std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." + hex(raw + 16, 8);
    int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        *why = "cannot create " + tmp + ": " + errno_text(errno);
        return SecretFile::kUnavailable;
    }
    const std::string text = hex(raw, 16) + "\n";
    bool ok = fchmod(fd, 0600) == 0 && write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
              fsync(fd) == 0;
    const int werr = errno;
    close(fd);
    if (!ok) {
        unlink(tmp.c_str());
        *why = "cannot write " + tmp + ": " + errno_text(werr);
        return SecretFile::kUnavailable;
    }
    int r = link(tmp.c_str(), path.c_str());
    int lerr = errno;
    if (r != 0 && lerr != EEXIST) // a file system without hard links: rename, never replacing
        if ((r = renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE)) != 0)
            lerr = errno;
    unlink(tmp.c_str()); // ENOENT after a rename
    if (r != 0 && lerr != EEXIST) {
        *why = "cannot create " + path + ": " + errno_text(lerr);
        return SecretFile::kUnavailable;
    }
    *won = r == 0;
    return SecretFile::kOk; // ours, or the one a concurrent first user made
}

} // namespace

std::string default_secret_path()
{
    if (const auto f = hcts::settings::raw(settings::secret_file))
        return std::string(*f);
    std::string home;
    if (const char *h = std::getenv("HOME"); h && *h == '/')
        home = h;
    else {
        passwd pw{};
        passwd *res = nullptr;
        char buf[4096];
        if (getpwuid_r(geteuid(), &pw, buf, sizeof buf, &res) == 0 && res && res->pw_dir && *res->pw_dir == '/')
            home = res->pw_dir;
    }
    if (home.empty())
        return {};
    while (home.size() > 1 && home.back() == '/')
        home.pop_back();
    return (home == "/" ? "" : home) + "/.config/softverbs/secret";
}

SecretFile read_secret_file(const std::string &path)
{
    SecretFile r;
    r.path = path;
    if (path.empty() || path[0] != '/') {
        r.status = SecretFile::kUnavailable;
        r.why = path.empty() ? "no home directory to keep it in" : "its path '" + path + "' is not absolute";
        return r;
    }
    int fd = -1;
    for (int attempt = 0; attempt < 2 && fd < 0; ++attempt) {
        fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0)
            break;
        if (errno == ELOOP) {
            r.status = SecretFile::kRefused;
            r.why = "the secret file " + path + " is a symbolic link";
            return r;
        }
        if (errno != ENOENT || attempt == 1) {
            r.status = errno == ENOENT   ? SecretFile::kUnavailable
                       : errno == EACCES ? SecretFile::kRefused
                                         : SecretFile::kUnavailable;
            r.why = "cannot open the secret file " + path + ": " + errno_text(errno);
            return r;
        }
        if ((r.status = create(path, &r.why, &r.created)) != SecretFile::kOk)
            return r;
    }
    struct stat st {};
    if (fstat(fd, &st) != 0) {
        r.status = SecretFile::kUnavailable;
        r.why = "cannot stat the secret file " + path + ": " + errno_text(errno);
    } else if (!S_ISREG(st.st_mode)) {
        r.status = SecretFile::kRefused;
        r.why = "the secret file " + path + " is not a regular file";
    } else if (st.st_uid != geteuid()) {
        r.status = SecretFile::kRefused;
        r.why = "the secret file " + path + " belongs to uid " + std::to_string(st.st_uid) +
                ", not to this user (uid " + std::to_string(geteuid()) + ")";
    } else if (st.st_mode & 077) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        r.status = SecretFile::kRefused;
        r.why = "the secret file " + path + " has mode " + mode +
                ": other users may read it; it must be readable by its owner only (chmod 600 " + path + ")";
    } else {
        char buf[256];
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0) {
            r.status = SecretFile::kUnavailable;
            r.why = "cannot read the secret file " + path + ": " + errno_text(errno);
        } else {
            std::string s(buf, static_cast<size_t>(n));
            while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t'))
                s.pop_back();
            if (s.empty()) {
                r.status = SecretFile::kRefused;
                r.why = "the secret file " + path + " is empty";
            } else if (n == static_cast<ssize_t>(sizeof buf) || s.size() > kMaxSecret) {
                r.status = SecretFile::kRefused;
                r.why = "the secret file " + path + " holds more than " + std::to_string(kMaxSecret) + " bytes";
            } else {
                r.status = SecretFile::kOk;
                r.secret = std::move(s);
            }
        }
    }
    close(fd);
    if (r.status != SecretFile::kOk)
        r.created = false;
    return r;
}

} // namespace sv
