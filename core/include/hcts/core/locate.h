// Where the suite's own files are, found from the running program, so the same
// binaries work in the build tree and installed under any prefix P (an extracted
// .deb, a temporary prefix): programs in P/bin, libraries in P/lib/hcts (the build
// tree: build/lib), helper scripts in P/libexec/hcts and data in P/share/hcts (the
// build tree: the source tree it was configured from). docs/install.md has the layout.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace hcts::locate {

// The directory of the running program (/proc/self/exe), "." if unknown.
std::filesystem::path bin_dir();

// Installed: P/share/hcts exists beside P/bin. Then the source tree is never
// consulted, even when the one this binary was built from is still there.
bool installed();

// The source tree this binary was built from, when not installed and it still
// exists; nullopt otherwise (an installed suite has none).
std::optional<std::filesystem::path> source_dir();

// One of the suite's libraries or library directories, `name` relative to the
// library directory (e.g. "libhcomm.so", "softverbs", "selftest/libhcts_iut_x.so"):
// the first that exists of P/lib/hcts/name and P/lib/name; if neither exists, the
// first, so a message names where it was looked for.
std::filesystem::path library(std::string_view name);

// Fills each empty one of a run's library paths with the reference's: the
// implementation under test (libhcomm.so), its platform adapter and the device
// programs. Every program that loads an implementation defaults the same way.
void default_to_reference(std::string &iut, std::string &adapter, std::string &programs);

// A data file or directory: P/share/hcts/<installed_name> when installed, else
// <source tree>/<source_name>; nullopt when neither is there.
std::optional<std::filesystem::path> data(std::string_view installed_name, std::string_view source_name);

// A helper program: P/libexec/hcts/<installed_name> when installed, else
// <source tree>/<source_name>; nullopt when neither is there.
std::optional<std::filesystem::path> helper(std::string_view installed_name, std::string_view source_name);

} // namespace hcts::locate
