// The tables hcts-env lists, in this order: one per component (tools/CMakeLists.txt links
// each component's table file, and nothing else of the component).
#pragma once

#include <hcts/settings.h>

#include <vector>

namespace hcts_env {
std::vector<const hcts::settings::Table *> tables();
}
