#include "hcts_env_tables.h"

#include "acl_runtime/src/settings.h"
#include "hcts/core/settings.h"
#include "reference_impl/src/settings.h"
#include "softverbs/src/settings.h"

namespace hcts_env {

std::vector<const hcts::settings::Table *> tables()
{
    return {&hcomm_ref::settings::table(), &sv::settings::table(), &hcts_acl::settings::table(),
            &hcts::suite_settings::table()};
}

} // namespace hcts_env
