// softverbs' settings: every environment variable it reads, declared once (name, type,
// default, allowed values, one line of doc). README.md "Environment" says more.
// Constant data: `hcts env` links this file alone and lists it without loading softverbs.
#include "settings.h"

namespace sv::settings {

using hcts::settings::Table;
using hcts::settings::Type;

// clang-format off
constinit const Setting seed{"SOFTVERBS_SEED", Type::string, "",
    "non-empty and non-zero: adversarial mode with this seed (unset or 0: sane mode)",
    "a number in any base strtoull reads, or any text (hashed)"};
constinit const Setting transport{"SOFTVERBS_TRANSPORT", Type::enumeration, "auto",
    "the route between QPs: auto (direct, shared memory, CMA, else TCP), shm, cma, tcp, ring (payloads through "
    "the rings)", "auto|shm|cma|tcp|ring"};
constinit const Setting listen{"SOFTVERBS_LISTEN", Type::string, "127.0.0.1",
    "the TCP listen address, or an interface whose IPv4 address is used; part of the GID",
    "an IPv4 address or an interface name"};
constinit const Setting secret{"SOFTVERBS_SECRET", Type::string, "",
    "the job secret a connecting peer must present (at most 64 bytes used; unset: the per-user secret file)",
    "any text"};
constinit const Setting secret_file{"SOFTVERBS_SECRET_FILE", Type::path, "",
    "the per-user secret file (unset: ~/.config/softverbs/secret, made on first use, mode 0600)", "a file"};
constinit const Setting fail{"SOFTVERBS_FAIL", Type::string, "",
    "fault injection: the n-th WQE of every QP fails (qp:<n>), or that thread's body throws at its start",
    "qp:<n> with n >= 1, or thread:progress|ring|adversary|ud"};
constinit const Setting log{"SOFTVERBS_LOG", Type::integer, "0",
    "1: errors, refusals and QP errors on stderr; 2: also connections and registrations (other text: atoi)", "",
    0, 2};
constinit const Setting sysfs_path{"SYSFS_PATH", Type::path, "/sys",
    "the sysfs root ibv_get_sysfs_path() returns (rdma-core's variable; softverbs-run may point it at its tree)",
    "an absolute path"};
constinit const Setting sysfs_mode{"SOFTVERBS_SYSFS", Type::enumeration, "auto",
    "how softverbs-run shows CMD the device's sysfs files: mount when root, else path (auto), mount, path "
    "(SYSFS_PATH only), off (read by softverbs-run)", "auto|mount|path|off"};
// clang-format on

const Table &table()
{
    static const Setting *const all[] = {&seed, &transport, &listen,     &secret,    &secret_file,
                                         &fail, &log,       &sysfs_path, &sysfs_mode};
    static const Table t{"softverbs", "libibverbs.so.1 and librdmacm.so.1, softverbs", all};
    return t;
}

} // namespace sv::settings
