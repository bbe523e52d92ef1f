#include "hcts_env_tables.h"

#include "reference_impl/src/settings.h"
#include "softverbs/src/settings.h"

namespace hcts_env {

std::vector<const hcts::settings::Table *> tables() { return {&hcomm_ref::settings::table(), &sv::settings::table()}; }

} // namespace hcts_env
