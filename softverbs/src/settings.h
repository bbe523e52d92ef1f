// Every environment variable softverbs (libibverbs.so.1 and librdmacm.so.1) reads: one
// table, settings.cpp. core.cpp, secret_file.cpp, sysfs.cpp and rdma_cm read them through
// it; `hcts env` lists it.
#pragma once

#include <hcts/settings.h>

#include <cstdlib>
#include <string>

namespace sv::settings {

using hcts::settings::Setting;

extern const Setting seed;
extern const Setting transport;
extern const Setting listen;
extern const Setting secret;
extern const Setting secret_file;
extern const Setting fail;
extern const Setting log;
extern const Setting sysfs_path;
extern const Setting sysfs_mode; // read by softverbs-run (a shell script); listed here

// SOFTVERBS_LOG: 0, 1 or 2; any other text is read as atoi reads it, silently (as always).
inline int log_level()
{
    const auto v = hcts::settings::get_int(log);
    if (!v.bad())
        return static_cast<int>(v.value);
    return std::atoi(std::string(*hcts::settings::raw(log)).c_str());
}

// All of them, for `hcts env`: constant data, no side effect.
const hcts::settings::Table &table();

} // namespace sv::settings
