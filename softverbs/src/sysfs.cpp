// Where programs look for the device's sysfs files. rdma-core answers
// ibv_get_sysfs_path() with $SYSFS_PATH when set, else /sys; softverbs does the same,
// so softverbs-run can point programs that read sysfs through libibverbs (Open MPI's
// openib, ibv_read_sysfs_file users) at softverbs' own tree (softverbs/sysfs/) without
// touching the host's /sys. See softverbs/README.md, "System paths".
#include "settings.h"
#include "sv.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

namespace {

std::string read_sysfs_root()
{
    const std::string root_set = hcts::settings::get_path(sv::settings::sysfs_path).value;
    const char *env = root_set.c_str();
    std::string root = root_set;
    // "/x/" and "/x" name the same tree; keep "/" itself.
    while (root.size() > 1 && root.back() == '/')
        root.pop_back();
    // ibv_device's paths are root + "/class/infiniband_verbs/uverbs0" in IBV_SYSFS_PATH_MAX bytes.
    constexpr size_t kMaxRoot = IBV_SYSFS_PATH_MAX - sizeof "/class/infiniband_verbs/uverbs0";
    if (root.size() > kMaxRoot || root.front() != '/') {
        std::fprintf(stderr,
                     "softverbs: SYSFS_PATH='%s' ignored: must be an absolute path of at most %zu bytes; using /sys\n",
                     env, kMaxRoot);
        return "/sys";
    }
    return root;
}

} // namespace

extern "C" {

// Read once: the value must not change under a program that cached paths built from it.
const char *ibv_get_sysfs_path(void)
{
    // rdma-core's callers never expect null: when memory runs out while the root is first
    // read, this call answers the default, /sys, and the next one reads it again.
    try {
        // Never destroyed: a thread may still build paths from it while exit handlers run.
        static const std::string &root = *new std::string(read_sysfs_root());
        return root.c_str();
    } catch (const std::bad_alloc &) {
        return "/sys";
    }
}

// rdma-core's contract: the file's contents, one trailing newline removed, NUL-terminated;
// the byte count, or -1 with errno. Contents that leave no room for the terminator
// fail (EOVERFLOW) rather than hand back an unterminated string.
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
    if (!dir || !file || !buf || size == 0) {
        errno = EINVAL;
        return -1;
    }
    std::string path = std::string(dir) + "/" + file;
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t len = read(fd, buf, size);
    int saved = errno;
    close(fd);
    if (len < 0) {
        errno = saved;
        return -1;
    }
    if (len > 0 && buf[len - 1] == '\n') {
        buf[--len] = '\0';
    } else if (static_cast<size_t>(len) < size) {
        buf[len] = '\0';
    } else {
        errno = EOVERFLOW;
        return -1;
    }
    return static_cast<int>(len);
}

} // extern "C"
