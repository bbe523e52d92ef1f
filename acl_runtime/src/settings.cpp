// The ACL runtime's settings: every environment variable libascendcl.so reads, declared once
// (name, type, default, allowed values, one line of doc). README.md "Environment" says more.
// Constant data: `hcts env` links this file alone.
#include "settings.h"

namespace hcts_acl::settings {

using hcts::settings::Table;
using hcts::settings::Type;

// clang-format off
constinit const Setting devices{"HCTS_ACL_DEVICES", Type::uint, "1",
    "devices in this process (read once; bad: none, every device call returns ACL_ERROR_RT_NO_DEVICE)",
    "", 1, 64};
constinit const Setting kernel_path{"HCTS_ACL_KERNEL_PATH", Type::path, "",
    "directories searched for kernel .so files, ':'-separated (unset: none)", "directories, ':'-separated"};
constinit const Setting kernel_timeout_ms{"HCTS_ACL_KERNEL_TIMEOUT_MS", Type::uint, "",
    "caps every kernel launch's deadline, in milliseconds (unset: none; bad: the launch fails)", "", 1,
    0xffffffffULL};
constinit const Setting ascend_home_path{"ASCEND_HOME_PATH", Type::path, "",
    "CANN's install directories, ':'-separated, searched for kernel .so files (unset: none)",
    "directories, ':'-separated"};
// clang-format on

const Table &table()
{
    static const Setting *const all[] = {&devices, &kernel_path, &kernel_timeout_ms, &ascend_home_path};
    static const Table t{"acl_runtime", "libascendcl.so, the hcts ACL runtime", all};
    return t;
}

} // namespace hcts_acl::settings
