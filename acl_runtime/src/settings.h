// Every environment variable the hcts ACL runtime (libascendcl.so) reads: one table,
// settings.cpp. `hcts env` lists it.
#pragma once

#include <hcts/settings.h>

namespace hcts_acl::settings {

using hcts::settings::Setting;

extern const Setting devices;
extern const Setting kernel_path;
extern const Setting kernel_timeout_ms;
extern const Setting ascend_home_path;

// All of them, for `hcts env`: constant data, no side effect.
const hcts::settings::Table &table();

} // namespace hcts_acl::settings
