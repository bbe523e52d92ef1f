// The search for the suite's own files (locate.h): one rule for every program,
// so the build tree and any install prefix behave alike.
#include "hcts/core/locate.h"

#include <string>
#include <system_error>

namespace fs = std::filesystem;

namespace hcts::locate {

namespace {

fs::path prefix() { return bin_dir().parent_path(); }

bool present(const fs::path &p)
{
    std::error_code ec;
    return fs::exists(p, ec);
}

} // namespace

fs::path bin_dir()
{
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path(".") : exe.parent_path();
}

bool installed() { return present(prefix() / "share" / "hcts"); }

std::optional<fs::path> source_dir()
{
#ifdef HCTS_SOURCE_DIR
    // The build tree records its source tree; an installed suite must not use it,
    // even on the machine that built the package.
    if (!installed() && present(fs::path(HCTS_SOURCE_DIR) / "CMakeLists.txt"))
        return fs::path(HCTS_SOURCE_DIR);
#endif
    return std::nullopt;
}

fs::path library(std::string_view name)
{
    const fs::path own = prefix() / "lib" / "hcts" / name;
    if (present(own))
        return own;
    const fs::path flat = prefix() / "lib" / name;
    return present(flat) ? flat : own;
}

void default_to_reference(std::string &iut, std::string &adapter, std::string &programs)
{
    if (iut.empty())
        iut = library("libhcomm.so").string();
    if (adapter.empty())
        adapter = library("libhcts_adapter_ref.so").string();
    if (programs.empty())
        programs = library("libhcts_programs.so").string();
}

namespace {

std::optional<fs::path> find(std::string_view root, std::string_view installed_name, std::string_view source_name)
{
    if (installed()) {
        const fs::path p = prefix() / std::string(root) / "hcts" / installed_name;
        return present(p) ? std::optional(p) : std::nullopt;
    }
    if (const auto src = source_dir(); src && present(*src / source_name))
        return *src / source_name;
    return std::nullopt;
}

} // namespace

std::optional<fs::path> data(std::string_view installed_name, std::string_view source_name)
{
    return find("share", installed_name, source_name);
}

std::optional<fs::path> helper(std::string_view installed_name, std::string_view source_name)
{
    return find("libexec", installed_name, source_name);
}

} // namespace hcts::locate
